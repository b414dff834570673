"""What the session says to the editor and asks of it (`Client`): log
messages, diagnostics, progress, the settings it holds and the file
watchers it registers, and what its capabilities allow. A request of the
client's that it doesn't answer in time (or refuses) is passed over: the
session goes on without.
"""

from __future__ import annotations

import asyncio
import itertools
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from joblint.config import CONFIG_NAMES
from joblint.server.positions import UTF16
from joblint.server.settings import SECTION, ClientSettings, read_settings

# The files whose change on disk the index follows.
WATCHED = ("**/*.py", "**/*.pyi", "**/pyproject.toml", *(f"**/{name}" for name in CONFIG_NAMES))
# How long the server waits for the client's answer to a request of its own
# (`workspace/configuration`, a progress token) before going on without.
CLIENT_TIMEOUT = 5.0  # seconds

T = TypeVar("T")


async def in_thread(pool: ThreadPoolExecutor, work: Callable[[], T]) -> T:
    """`work`'s result, computed on `pool`'s thread (the event loop goes on)."""
    return await asyncio.get_running_loop().run_in_executor(pool, work)


class Client:
    """The editor at the other end of the protocol."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.progress_tokens = itertools.count(1)

    @property
    def capabilities(self) -> types.ClientCapabilities:
        return self.server.client_capabilities

    def supports(self, capability: str) -> bool:
        """Whether the client's capabilities hold `capability` (a dotted path)."""
        return bool(get_capability(self.capabilities, capability, False))

    @property
    def encoding(self) -> str:
        """The position encoding agreed with the client (`positions.UTF16` and others)."""
        kind = self.server.workspace.position_encoding
        if isinstance(kind, types.PositionEncodingKind):
            return kind.value
        return kind or UTF16

    def text_document(self, uri: str) -> TextDocument:
        """The buffer as the client last sent it."""
        return self.server.workspace.get_text_document(uri)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.server.window_log_message(types.LogMessageParams(type=kind, message=message))

    def show_problem(self, message: str) -> None:
        """Logged as an error, and shown to the user as a warning."""
        self.log(message, types.MessageType.Error)
        self.server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )

    def internal_error(self, doing: str, exc: BaseException) -> None:
        self.log(
            f"joblint: internal error {doing}: {type(exc).__name__}: {exc} (please report this)",
            types.MessageType.Error,
        )
        self.log("".join(traceback.format_exception(exc)), types.MessageType.Log)

    def publish(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None
    ) -> None:
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    async def pull_settings(self, root: Path) -> ClientSettings | None:
        """The client's settings for the section `joblint` (None: it has none)."""
        item = types.ConfigurationItem(section=SECTION, scope_uri=root.as_uri())
        request = self.server.workspace_configuration_async(types.ConfigurationParams(items=[item]))
        try:
            answer = await asyncio.wait_for(request, CLIENT_TIMEOUT)
        except Exception as exc:  # a client that can't answer keeps the settings it sent
            self.log(f"joblint: no settings from workspace/configuration ({exc})")
            return None
        if not answer or answer[0] is None:
            return None
        return read_settings(answer[0])

    async def register_watchers(self) -> None:
        registrations = []
        if self.supports("workspace.did_change_watched_files.dynamic_registration"):
            watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED]
            registrations.append(
                types.Registration(
                    id="joblint-watched-files",
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(
                        watchers=watchers
                    ),
                )
            )
        if self.supports("workspace.did_change_configuration.dynamic_registration"):
            registrations.append(
                types.Registration(
                    id="joblint-configuration", method=types.WORKSPACE_DID_CHANGE_CONFIGURATION
                )
            )
        if not registrations:
            return
        try:
            await self.server.client_register_capability_async(
                types.RegistrationParams(registrations=registrations)
            )
        except Exception as exc:  # the client refused: saves still refresh the index
            self.log(f"joblint: could not register for file changes ({exc})")

    async def begin_progress(self) -> str | None:
        if not self.supports("window.work_done_progress"):
            return None
        token = f"joblint-index-{next(self.progress_tokens)}"
        try:
            await asyncio.wait_for(
                self.server.work_done_progress.create_async(token), CLIENT_TIMEOUT
            )
        except Exception:
            return None  # the client shows no progress: indexing goes on
        self.server.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title="joblint", message="indexing the workspace")
        )
        return token

    def end_progress(self, token: str | None, message: str) -> None:
        if token is not None:
            self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

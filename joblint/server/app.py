"""`joblint server`: joblint as a language server, on pygls over stdio.

- Open, changed (after `debounce-ms` without typing) and saved buffers are
  linted from their text, and their findings published as diagnostics for
  that version only: work for a version the buffer has moved past is
  dropped, and a result never replaces a newer one.
- The workspace's index (a whole run over the workspace, cached in
  `.joblint_cache` as `joblint check` caches it) is built in the background
  on start-up and again when files change on disk. Until it is ready a
  buffer is linted alone (its findings that need no other file); then
  within it, so that pending findings settle against the rest of the
  project and whole-project rules (JL5) see the buffer's text.
- Code actions: a finding's fix (unsafe ones labelled so), a suppression
  comment for its line, and "Fix all joblint findings" (`source.fixAll.joblint`).
- Configuration: the workspace's configuration files, found as the CLI
  finds them, with the editor's settings (`joblint.server.settings`) over
  them.
- Nothing the server is sent ends the session: a buffer that doesn't parse
  gets its JL001 diagnostic, and an internal error is logged
  (`window/logMessage`) with an empty result for that buffer.

All the state lives on the event loop's thread; linting runs on one worker
thread (`joblint.server.linting`), the index on another, with worker
processes of its own.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import multiprocessing
import os
import sys
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import BinaryIO, TypeVar

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from joblint import __version__
from joblint.api import RunResult
from joblint.config import CONFIG_NAMES, Config, ConfigError
from joblint.models import SAFE, Finding
from joblint.pipeline.fix.apply import FixError
from joblint.pipeline.source import UNPARSEABLE, SourceError
from joblint.server import linting
from joblint.server.diagnostics import diagnostic, uris_below
from joblint.server.edits import suppressed, text_edits
from joblint.server.linting import Buffer, Linted
from joblint.server.positions import UTF16, Lines
from joblint.server.settings import (
    SECTION,
    ClientSettings,
    read_settings,
    unsafe_fixes,
    workspace_config,
)

FIX_ALL = "source.fixAll.joblint"
# The files whose change on disk the index follows.
WATCHED = ("**/*.py", "**/*.pyi", "**/pyproject.toml", *(f"**/{name}" for name in CONFIG_NAMES))
CONFIG_FILES = frozenset({"pyproject.toml", *CONFIG_NAMES})
# Files saved together (a branch checked out, a formatter run) are indexed once.
INDEX_DELAY = 0.5  # seconds
# How long the server waits for the client's answer to a request of its own
# (`workspace/configuration`, a progress token) before going on without.
CLIENT_TIMEOUT = 5.0  # seconds

T = TypeVar("T")


@dataclass(slots=True)
class _Document:
    uri: str
    path: Path
    # What was published last: (version, generation), and what it was of,
    # for code actions.
    published: tuple[int, int] = (-1, -1)
    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[types.Diagnostic] = field(default_factory=list)
    text: str = ""
    logged: frozenset[str] = frozenset()
    task: asyncio.Task[None] | None = None


class Session:
    """One client's session: its workspace, configuration, index and buffers."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.root = Path.cwd()  # resolved: the directory the server works in
        self.client_root = self.root  # as the editor names it
        self.settings = ClientSettings()
        self.config = Config(root=self.root)
        self.config_error = ""
        # The last whole run over the workspace (None: not built yet, or
        # built for a configuration since changed).
        self.index: RunResult | None = None
        # Bumped whenever the configuration or the index changes: a result
        # computed before is older than one computed after, for one version.
        self.generation = 0
        self.configured = 0  # bumped whenever the configuration changes
        self.documents: dict[str, _Document] = {}
        self.lint_pool = ThreadPoolExecutor(1, thread_name_prefix="joblint-lint")
        self.relinters = linting.Relinters()  # used on the lint thread only
        self.index_pool = ThreadPoolExecutor(1, thread_name_prefix="joblint-index")
        self.index_task: asyncio.Task[None] | None = None
        self.index_wanted = False
        self.index_problems: frozenset[str] = frozenset()
        self.progress_tokens = itertools.count(1)
        self.shut_down = False

    # --- the client ---

    @property
    def capabilities(self) -> types.ClientCapabilities:
        return self.server.client_capabilities

    @property
    def encoding(self) -> str:
        """The position encoding agreed with the client (`positions.UTF16` and others)."""
        kind = self.server.workspace.position_encoding
        if isinstance(kind, types.PositionEncodingKind):
            return kind.value
        return kind or UTF16

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.server.window_log_message(types.LogMessageParams(type=kind, message=message))

    def internal_error(self, doing: str, exc: BaseException) -> None:
        self.log(
            f"joblint: internal error {doing}: {type(exc).__name__}: {exc} (please report this)",
            types.MessageType.Error,
        )
        self.log("".join(traceback.format_exception(exc)), types.MessageType.Log)

    async def in_thread(self, pool: ThreadPoolExecutor, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(pool, work)

    # --- start-up and configuration ---

    def initialize(self, params: types.InitializeParams) -> None:
        self.client_root = _root(params)
        self.root = self.client_root.resolve()
        if self.root.is_dir():
            # `joblint check` run from the root: paths shown, configured and
            # cached as the CLI's are.
            os.chdir(self.root)
        self.settings = read_settings(params.initialization_options)
        self._log_problems(self.settings)
        self.config = self._load_config(self.config)

    async def initialized(self) -> None:
        if get_capability(self.capabilities, "workspace.configuration", False):
            pulled = await self._pull_settings()
            if pulled is not None:
                self.reconfigure(pulled)
        await self._register_watchers()
        self.request_index()

    async def _pull_settings(self) -> ClientSettings | None:
        """The client's settings for the section `joblint` (None: it has none)."""
        item = types.ConfigurationItem(section=SECTION, scope_uri=self.root.as_uri())
        request = self.server.workspace_configuration_async(types.ConfigurationParams(items=[item]))
        try:
            answer = await asyncio.wait_for(request, CLIENT_TIMEOUT)
        except Exception as exc:  # a client that can't answer keeps the settings it sent
            self.log(f"joblint: no settings from workspace/configuration ({exc})")
            return None
        if not answer or answer[0] is None:
            return None
        return read_settings(answer[0])

    async def _register_watchers(self) -> None:
        registrations = []
        if get_capability(
            self.capabilities, "workspace.did_change_watched_files.dynamic_registration", False
        ):
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
        if get_capability(
            self.capabilities, "workspace.did_change_configuration.dynamic_registration", False
        ):
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

    def _load_config(self, previous: Config) -> Config:
        """The workspace's configuration; on an error (a config file being
        edited), the previous one, and the error said once."""
        try:
            config = workspace_config(self.root, self.settings)
        except ConfigError as exc:
            if str(exc) != self.config_error:
                self.config_error = str(exc)
                message = f"joblint: {exc} (the previous configuration stays in use)"
                self.log(message, types.MessageType.Error)
                self.server.window_show_message(
                    types.ShowMessageParams(type=types.MessageType.Warning, message=message)
                )
            return previous
        self.config_error = ""
        return config

    def _log_problems(self, settings: ClientSettings) -> None:
        for problem in settings.problems:
            self.log(f"joblint: {problem}", types.MessageType.Warning)

    def reconfigure(self, settings: ClientSettings) -> None:
        """New editor settings, or a configuration file changed on disk."""
        self._log_problems(settings)
        self.settings = settings
        config = self._load_config(self.config)
        if config == self.config:
            return
        self.config = config
        self.configured += 1
        self.generation += 1
        self.index = None  # built for the selection before
        self.relint_all()
        self.request_index()

    async def configuration_changed(self, params: types.DidChangeConfigurationParams) -> None:
        sent = params.settings
        if isinstance(sent, dict) and SECTION in sent:
            self.reconfigure(read_settings(sent))
        elif get_capability(self.capabilities, "workspace.configuration", False):
            pulled = await self._pull_settings()
            self.reconfigure(pulled if pulled is not None else self.settings)
        elif sent:
            self.reconfigure(read_settings(sent))

    def files_changed(self, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [to_fs_path(change.uri) for change in params.changes]
        if any(path is not None and Path(path).name in CONFIG_FILES for path in paths):
            self.reconfigure(self.settings)
        self.request_index(INDEX_DELAY)

    # --- the workspace index ---

    def request_index(self, delay: float = 0.0) -> None:
        """Build the index again, once what is building now is done."""
        self.index_wanted = True
        if self.index_task is None or self.index_task.done():
            self.index_task = asyncio.ensure_future(self._build_index(delay))

    async def _build_index(self, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        while self.index_wanted:
            self.index_wanted = False
            configured = self.configured
            token = await self._begin_progress()
            started = time.perf_counter()
            build = partial(_build_index, self.config, self.root)
            try:
                index = await self.in_thread(self.index_pool, build)
            except Exception as exc:
                self._end_progress(token, "failed")
                self.internal_error("indexing the workspace", exc)
                continue
            elapsed = time.perf_counter() - started
            self._end_progress(token, f"{index.files_checked} files")
            if configured != self.configured:
                continue  # reconfigured meanwhile: built again with the new one
            self.index = index
            self.generation += 1
            self.log(f"joblint: workspace indexed: {index.files_checked} files in {elapsed:.1f} s")
            self._log_index_problems(index)
            self.relint_all()

    def _log_index_problems(self, index: RunResult) -> None:
        """Its errors (an unreadable file, a rule that failed on one) the
        previous index didn't have: each is said once, not after every save."""
        problems = frozenset([*index.errors, *index.internal_errors])
        for problem in sorted(problems - self.index_problems):
            self.log(f"joblint: {problem}", types.MessageType.Warning)
        self.index_problems = problems

    async def _begin_progress(self) -> str | None:
        if not get_capability(self.capabilities, "window.work_done_progress", False):
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

    def _end_progress(self, token: str | None, message: str) -> None:
        if token is not None:
            self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    # --- buffers ---

    def opened(self, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        path = _python_file(item.uri, item.language_id)
        if path is None:
            return
        self.documents[item.uri] = _Document(item.uri, _below(path, self.root))
        self.schedule(item.uri, 0.0)

    def changed(self, uri: str) -> None:
        self.schedule(uri, self.settings.debounce)

    def saved(self, uri: str) -> None:
        self.schedule(uri, 0.0)
        self.request_index(INDEX_DELAY)

    def closed(self, uri: str) -> None:
        document = self.documents.pop(uri, None)
        if document is None:
            return
        if document.task is not None:
            document.task.cancel()
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    def relint_all(self) -> None:
        for uri in self.documents:
            self.schedule(uri, 0.0)

    def schedule(self, uri: str, delay: float) -> None:
        """Lint the buffer after `delay` (work scheduled before is dropped)."""
        document = self.documents.get(uri)
        if document is None:
            return
        if document.task is not None:
            document.task.cancel()
        document.task = asyncio.ensure_future(self._lint(document, delay))

    def _version(self, uri: str) -> int:
        return self.server.workspace.get_text_document(uri).version or 0

    async def _lint(self, document: _Document, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        buffer = Buffer(document.path, self.server.workspace.get_text_document(document.uri).source)
        key = (self._version(document.uri), self.generation)
        config, index, encoding = self.config, self.index, self.encoding
        uri_of = uris_below(self.client_root)

        def work() -> tuple[Linted, list[types.Diagnostic]]:
            return _diagnose(self.relinters, config, index, buffer, encoding, uri_of)

        try:
            linted, diagnostics = await self.in_thread(self.lint_pool, work)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.internal_error(f"linting {buffer.shown}", exc)
            linted, diagnostics = Linted(), []
        self._publish(document, key, buffer, linted, diagnostics)

    def _publish(
        self,
        document: _Document,
        key: tuple[int, int],
        buffer: Buffer,
        linted: Linted,
        diagnostics: list[types.Diagnostic],
    ) -> None:
        """Publish, unless the buffer moved on (closed, or a newer version)
        or a result for a later state of the workspace is out already."""
        if self.documents.get(document.uri) is not document:
            return
        if key[0] != self._version(document.uri) or key < document.published:
            return
        document.published = key
        document.findings, document.text = linted.findings, buffer.text
        document.diagnostics = diagnostics
        problems = frozenset(linted.problems)
        for problem in sorted(problems - document.logged):
            self.log(f"joblint: {problem}", types.MessageType.Warning)
        document.logged = problems
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=document.uri, diagnostics=diagnostics, version=key[0]
            )
        )

    async def _current(self, uri: str) -> _Document | None:
        """The document with findings of its current text (linted now if
        what was published is of an older version)."""
        document = self.documents.get(uri)
        if document is None:
            return None
        if document.published[0] != self._version(uri):
            await self._lint(document, 0.0)
        if document.published[0] != self._version(uri):
            return None
        return document

    # --- code actions ---

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        document = await self._current(params.text_document.uri)
        if document is None:
            return []
        wanted = _kinds_wanted(params.context.only)
        config, index, encoding = self.config, self.index, self.encoding
        unsafe = unsafe_fixes(config, self.settings)
        request = _ActionRequest(
            document.uri,
            self._version(document.uri),
            Buffer(document.path, document.text),
            list(document.findings),
            list(document.diagnostics),
            Lines.of(document.text, encoding).lines_of(params.range),
            encoding,
            self._document_changes(),
        )

        def work() -> list[types.CodeAction]:
            actions = []
            if wanted(types.CodeActionKind.QuickFix):
                actions.extend(_quick_fixes(request))
            if wanted(FIX_ALL):
                relint = self.relinters(config, index, request.buffer)
                fixed = _fix_all(request, relint, unsafe)
                if fixed is not None:
                    actions.append(fixed)
            return actions

        try:
            return await self.in_thread(self.lint_pool, work)
        except Exception as exc:
            self.internal_error(f"making code actions for {request.buffer.shown}", exc)
            return []

    def _document_changes(self) -> bool:
        return bool(
            get_capability(self.capabilities, "workspace.workspace_edit.document_changes", False)
        )

    # --- shutting down ---

    def shutdown(self) -> None:
        self.shut_down = True
        for document in self.documents.values():
            if document.task is not None:
                document.task.cancel()
        if self.index_task is not None:
            self.index_task.cancel()


def _root(params: types.InitializeParams) -> Path:
    """The workspace's root: its first folder, else the root the client names,
    else the directory the server was started in (as named, links unresolved)."""
    for uri in [
        *(folder.uri for folder in params.workspace_folders or ()),
        *([params.root_uri] if params.root_uri else []),
    ]:
        path = to_fs_path(uri)
        if path is not None:
            return Path(path).absolute()
    if params.root_path:
        return Path(params.root_path).absolute()
    return Path.cwd()


def _python_file(uri: str, language_id: str) -> Path | None:
    """The Python file a document is (None: no file, or not Python)."""
    path = to_fs_path(uri)
    if path is None:
        return None  # an unsaved buffer or a virtual document (a diff's other side)
    file = Path(path)
    return file if linting.is_python(file) or language_id == "python" else None


def _below(path: Path, root: Path) -> Path:
    """`path`, or the real path it links to when only that is below the
    (resolved) root: the editor may name the workspace through a symbolic
    link, and the index names its files as they really are."""
    if path.is_relative_to(root):
        return path
    resolved = path.resolve()
    return resolved if resolved.is_relative_to(root) else path


def _build_index(config: Config, root: Path) -> RunResult:
    """The workspace's index, kept out of the cyclic garbage collector's
    walks: it lives until the next one, and walking its objects made a pause
    of a few hundred milliseconds every few changes (`gc.freeze`; frozen
    objects are still freed once nothing refers to them, and what the last
    index left in cycles is collected here, once per index)."""
    index = linting.build_index(config, root)
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return index


def _diagnose(
    relinters: linting.Relinters,
    config: Config,
    index: RunResult | None,
    buffer: Buffer,
    encoding: str,
    uri_of: Callable[[str], str],
) -> tuple[Linted, list[types.Diagnostic]]:
    if linting.is_excluded(config, buffer.path):
        return Linted(), []
    linted = linting.lint_buffer(relinters, config, index, buffer)
    lines = Lines.of(buffer.text, encoding)
    others: dict[str, Lines | None] = {}

    def lines_of(path: str) -> Lines | None:
        if path not in others:
            text = linting.read_text(Path(path))
            others[path] = None if text is None else Lines.of(text, encoding)
        return others[path]

    return linted, [diagnostic(f, lines, lines_of, uri_of) for f in linted.findings]


def _kinds_wanted(only: Sequence[str] | None) -> Callable[[str], bool]:
    """Whether the client asked for code actions of a kind (`only`: kinds or
    their parents, as `source.fixAll` is of `source.fixAll.joblint`)."""
    if not only:
        return lambda kind: True
    return lambda kind: any(kind == asked or kind.startswith(f"{asked}.") for asked in only)


@dataclass(frozen=True, slots=True)
class _ActionRequest:
    uri: str
    version: int
    buffer: Buffer
    findings: list[Finding]
    diagnostics: list[types.Diagnostic]  # the findings' as published
    lines: tuple[int, int]  # the 1-based lines the client's range touches
    encoding: str
    document_changes: bool

    def edit(self, new_text: str) -> types.WorkspaceEdit:
        edits: list[types.TextEdit] = text_edits(self.buffer.text, new_text, self.encoding)
        if not self.document_changes:
            return types.WorkspaceEdit(changes={self.uri: edits})
        document = types.OptionalVersionedTextDocumentIdentifier(uri=self.uri, version=self.version)
        changes: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = [*edits]
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=document, edits=changes)]
        )


def _quick_fixes(request: _ActionRequest) -> list[types.CodeAction]:
    """For each finding on the lines asked about: its fix, and its suppression."""
    first, last = request.lines
    actions: list[types.CodeAction] = []
    suppressions: list[types.CodeAction] = []
    for finding, shown in zip(request.findings, request.diagnostics, strict=True):
        if finding.span.end_line < first or finding.span.line > last:
            continue
        fix = finding.fix
        if fix is not None:
            fixed = _fixed(request.buffer, finding)
            if fixed is not None:
                unsafe = fix.safety != SAFE
                label = " (unsafe: changes behaviour)" if unsafe else ""
                actions.append(
                    types.CodeAction(
                        title=f"Fix {finding.code}: {fix.message}{label}",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[shown],
                        is_preferred=not unsafe,
                        edit=request.edit(fixed),
                    )
                )
        if finding.code == UNPARSEABLE:
            continue  # a file that doesn't parse has no line to suppress it on
        quiet = suppressed(request.buffer.text, finding.code, finding.span.line)
        if quiet is not None:
            suppressions.append(
                types.CodeAction(
                    title=f"Suppress {finding.code} on this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[shown],
                    edit=request.edit(quiet),
                )
            )
    return [*actions, *suppressions]


def _fixed(buffer: Buffer, finding: Finding) -> str | None:
    try:
        return linting.fix_one(buffer, finding)
    except (FixError, SourceError):
        return None  # a fix that wouldn't parse is not offered


def _fix_all(
    request: _ActionRequest, relint: linting.Relint, unsafe: bool
) -> types.CodeAction | None:
    if not any(f.fixable(unsafe) for f in request.findings):
        return None
    try:
        fixed = linting.fix_all(relint, request.buffer, request.findings, unsafe)
    except (FixError, SourceError, ConfigError):
        return None  # nothing offered; the buffer's diagnostics say why
    if fixed is None:
        return None
    return types.CodeAction(
        title="Fix all joblint findings", kind=FIX_ALL, edit=request.edit(fixed)
    )


def create_server() -> LanguageServer:
    """The server, its handlers registered. A handler that fails logs the
    error (`Session.internal_error`) and the session goes on."""
    server = LanguageServer("joblint", __version__)
    session = Session(server)

    def guarded(doing: str, work: Callable[[], None]) -> None:
        try:
            work()
        except Exception as exc:
            session.internal_error(doing, exc)

    async def guarded_async(doing: str, work: Callable[[], Awaitable[None]]) -> None:
        try:
            await work()
        except Exception as exc:
            session.internal_error(doing, exc)

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        guarded("starting", lambda: session.initialize(params))

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        await guarded_async("starting", session.initialized)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        guarded("opening a buffer", lambda: session.opened(params))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        guarded("after a change", lambda: session.changed(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        guarded("after a save", lambda: session.saved(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        guarded("closing a buffer", lambda: session.closed(params.text_document.uri))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        await guarded_async("reading settings", lambda: session.configuration_changed(params))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        guarded("after files changed", lambda: session.files_changed(params))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        try:
            return await session.code_actions(params)
        except Exception as exc:
            session.internal_error("making code actions", exc)
            return []

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        session.shutdown()

    @server.feature(types.EXIT)
    def exit_(params: None) -> None:
        _exit(0 if session.shut_down else 1)

    return server


def _protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """The process's standard input and output, for the protocol alone:
    anything else printed (a warning, a worker process's output) goes to
    standard error, and nothing else reads the input (a worker process
    closing `sys.stdin` as it starts would wait for the protocol's reader
    thread, which holds it)."""
    stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, sys.stdin.fileno())
    os.close(nothing)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the process's, never closed
    sys.stdout = sys.stderr
    return stdin, stdout


def _start_workers_cleanly() -> None:
    """Worker processes (the index's) are forked from a server process that
    has loaded the worker code, not from this one: this one has threads
    (the protocol's reader, the linting and indexing threads), whose locks a
    forked child would inherit held."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        multiprocessing.set_start_method("forkserver", force=True)
        multiprocessing.set_forkserver_preload(
            ["joblint.pipeline.schedule.workers", "joblint.pipeline.lint"]
        )


def _exit(status: int) -> None:
    """End the process now: the index may be mid-run, and neither its thread
    nor its worker processes are waited for."""
    for child in multiprocessing.active_children():
        child.terminate()
    sys.stderr.flush()
    os._exit(status)


def serve() -> None:
    """Serve one client over standard input and output, until it exits."""
    stdin, stdout = _protocol_streams()
    _start_workers_cleanly()
    server = create_server()
    try:
        server.start_io(stdin, stdout)
    finally:
        _exit(1)

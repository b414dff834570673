"""`joblint server` end to end: the real server, started as `python -m joblint
server` in a workspace, driven over stdio by pytest-lsp's client (pygls's
own client, which checks what the server sends against the capabilities
the client declared). The clients declare the capabilities of real
editors (pytest-lsp ships those of VS Code and Neovim).
"""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.workspace import TextDocument
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from pygls.protocol import default_converter

REPO = Path(__file__).resolve().parents[1]
# What a wait for the server may take before the test fails (never a
# performance assertion: a cold start under load takes seconds).
PATIENCE = 90.0

JL101_SNIPPET = """\
from celery import shared_task
from django.db import transaction


@shared_task
def send_receipt(order_id):
    pass


def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.delay(order.id)
"""


@dataclass
class Published:
    version: int | None
    diagnostics: Sequence[types.Diagnostic]


@dataclass
class Editor:
    """A client session with the server, as an editor holds one."""

    client: LanguageClient
    root: Path
    published: dict[str, list[Published]] = field(default_factory=dict)
    registrations: list[types.Registration] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def open(self, name: str, text: str) -> str:
        uri = self.uri(name)
        self.versions[uri], self.texts[uri] = 1, text
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        return uri

    def change(self, uri: str, text: str) -> int:
        """Replace the buffer's text (one full-text change); the new version."""
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return self.versions[uri]

    async def diagnostics(
        self,
        uri: str,
        version: int | None = None,
        until: Callable[[Sequence[types.Diagnostic]], bool] = lambda found: True,
    ) -> Sequence[types.Diagnostic]:
        """The diagnostics published for the buffer's `version` (its current
        one by default) once they satisfy `until`."""
        wanted = self.versions[uri] if version is None else version
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PATIENCE
        while loop.time() < deadline:
            for published in reversed(self.published.get(uri, [])):
                if published.version == wanted and until(published.diagnostics):
                    return published.diagnostics
            await asyncio.sleep(0.05)
        raise AssertionError(f"no such diagnostics for {uri} v{wanted}: {self.published.get(uri)}")

    async def code_actions(
        self, uri: str, line: int, only: list[str] | None = None
    ) -> list[types.CodeAction]:
        """The code actions for a 1-based line of the buffer."""
        where = types.Range(
            start=types.Position(line=line - 1, character=0),
            end=types.Position(line=line - 1, character=0),
        )
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=where,
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    def applied(self, uri: str, edit: types.WorkspaceEdit | None) -> str:
        """The buffer's text with `edit` applied, as a client applies it
        (pygls's document model, applying each edit in turn from the last)."""
        assert edit is not None
        edits: list[types.TextEdit] = []
        if edit.document_changes:
            for change in edit.document_changes:
                assert isinstance(change, types.TextDocumentEdit)
                assert change.text_document.uri == uri
                assert change.text_document.version == self.versions[uri]
                edits.extend(e for e in change.edits if isinstance(e, types.TextEdit))
        else:
            assert edit.changes is not None
            edits.extend(edit.changes[uri])
        document = TextDocument(uri, self.texts[uri])
        ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))
        for text_edit in reversed(ordered):
            document.apply_change(
                types.TextDocumentContentChangePartial(
                    range=text_edit.range, text=text_edit.new_text
                )
            )
        return document.source

    def logs(self, kind: types.MessageType | None = None) -> list[str]:
        return [m.message for m in self.client.log_messages if kind is None or m.type == kind]

    async def wait_for_log(self, text: str) -> str:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PATIENCE
        while loop.time() < deadline:
            found = [m for m in self.logs() if text in m]
            if found:
                return found[-1]
            await asyncio.sleep(0.05)
        raise AssertionError(f"no log message with {text!r}: {self.logs()}")


def _client(editor: list[Editor]) -> LanguageClient:
    """pytest-lsp's client, also recording each diagnostics' version and
    answering `client/registerCapability`."""
    client = LanguageClient(converter_factory=default_converter)

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        record = Published(params.version, params.diagnostics)
        editor[0].published.setdefault(params.uri, []).append(record)

    def register(client: LanguageClient, params: types.RegistrationParams) -> None:
        editor[0].registrations.extend(params.registrations)

    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
            types.CLIENT_REGISTER_CAPABILITY: register,
        },
    )
    return client


@dataclass
class Start:
    """How the session starts: the editor whose capabilities the client has,
    its settings (answering `workspace/configuration`) and
    `initializationOptions`."""

    editor: str = "visual-studio-code"
    settings: dict[str, Any] | None = None
    options: dict[str, Any] | None = None
    wait_for_index: bool = True
    command: list[str] = field(default_factory=lambda: ["-m", "joblint", "server"])


async def start(root: Path, how: Start) -> Editor:
    holder: list[Editor] = []
    client = _client(holder)
    editor = Editor(client, root)
    holder.append(editor)
    if how.settings is not None:
        client.set_configuration(how.settings, section="joblint")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # Started outside the workspace: the server works in the root it is given.
    await client.start_io(sys.executable, *how.command, env=env, cwd=str(root.parent))
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(how.editor),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=how.options,
        )
    )
    if how.wait_for_index:
        await editor.wait_for_log("workspace indexed")
    return editor


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / ".git").mkdir()  # the project root, as a checkout's
    return root


@pytest_asyncio.fixture
async def session(
    workspace: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Editor]:
    how = getattr(request, "param", Start())
    editor = await start(workspace, how)
    yield editor
    await editor.client.shutdown_session()


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


# --- diagnostics ---


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "session", [Start("visual-studio-code"), Start("neovim")], indirect=True, ids=["vscode", "neovim"]
)
async def test_diagnostics_arrive_for_the_buffer_and_clear_when_it_is_fixed(
    session: Editor,
) -> None:
    uri = session.open("shop/checkout.py", JL101_SNIPPET)
    (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
    assert found.code == "JL101"
    assert found.source == "joblint"
    # Line 13, columns 9-37 in joblint's terms: `send_receipt.delay(order.id)`.
    assert found.range == types.Range(
        start=types.Position(line=12, character=8), end=types.Position(line=12, character=36)
    )
    assert found.severity == types.DiagnosticSeverity.Warning
    assert found.code_description is not None
    assert found.code_description.href.endswith("/docs/rules/JL101.md")
    assert "enqueued inside transaction.atomic()" in found.message
    assert found.data["name"] == "enqueue-in-transaction"
    fixed = JL101_SNIPPET.replace(
        "        send_receipt.delay(order.id)\n",
        "        transaction.on_commit(lambda: send_receipt.delay(order.id))\n",
    )
    version = session.change(uri, fixed)
    assert list(await session.diagnostics(uri, version)) == []

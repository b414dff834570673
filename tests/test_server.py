"""`joblint server` end to end: the real server, started as `python -m joblint
server` in a workspace, driven over stdio by pytest-lsp's client (pygls's
own client, which checks what the server sends against the capabilities
the client declared). The clients declare the capabilities of real
editors (pytest-lsp ships those of VS Code and Neovim).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.workspace import TextDocument
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from joblint.pipeline.schedule.workers import MIN_FILES_FOR_POOL

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


async def eventually(holds: Callable[[], bool], what: str) -> None:
    """Wait until `holds()` (what the server sends arrives in its own time)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PATIENCE
    while not holds():
        if loop.time() > deadline:
            raise AssertionError(f"still waiting for {what}")
        await asyncio.sleep(0.05)


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

        def matching() -> list[Published]:
            return [
                p
                for p in self.published.get(uri, [])
                if p.version == wanted and until(p.diagnostics)
            ]

        await eventually(lambda: bool(matching()), f"diagnostics for {uri} v{wanted}")
        return matching()[-1].diagnostics

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
        await eventually(lambda: any(text in m for m in self.logs()), f"a log with {text!r}")
        return [m for m in self.logs() if text in m][-1]


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
async def session(workspace: Path, request: pytest.FixtureRequest) -> AsyncIterator[Editor]:
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
    "session",
    [Start("visual-studio-code"), Start("neovim")],
    indirect=True,
    ids=["vscode", "neovim"],
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
    assert isinstance(found.data, dict) and found.data["name"] == "enqueue-in-transaction"
    fixed = JL101_SNIPPET.replace(
        "        send_receipt.delay(order.id)\n",
        "        transaction.on_commit(lambda: send_receipt.delay(order.id))\n",
    )
    version = session.change(uri, fixed)
    assert list(await session.diagnostics(uri, version)) == []


UNICODE_PREFIX = '        note = "crème 😀"; '


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("session", "encoding"),
    [
        (Start("visual-studio-code"), "utf-16-le"),
        (Start("neovim"), "utf-8"),
        (Start("emacs"), "utf-32-le"),
    ],
    indirect=["session"],
    ids=["vscode-utf16", "neovim-utf8", "emacs-utf32"],
)
async def test_columns_are_in_the_encoding_agreed_with_the_client(
    session: Editor, encoding: str
) -> None:
    text = JL101_SNIPPET.replace(
        "        send_receipt.delay", UNICODE_PREFIX + "send_receipt.delay"
    )
    uri = session.open("shop/checkout.py", text)
    (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
    width = 4 if encoding == "utf-32-le" else 2 if encoding == "utf-16-le" else 1
    start = len(UNICODE_PREFIX.encode(encoding)) // width
    end = start + len("send_receipt.delay(order.id)")
    assert (found.range.start.character, found.range.end.character) == (start, end)
    session.client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    # Closed: its diagnostics are cleared.
    await eventually(lambda: not session.published[uri][-1].diagnostics, "cleared diagnostics")


# --- code actions ---

ON_COMMIT = "        transaction.on_commit(lambda: send_receipt.delay(order.id))\n"


@pytest.mark.asyncio
async def test_code_actions_fix_the_finding_and_suppress_it(session: Editor) -> None:
    uri = session.open("shop/checkout.py", JL101_SNIPPET)
    await session.diagnostics(uri, until=lambda d: len(d) == 1)
    actions = await session.code_actions(uri, 13)
    titles = [a.title for a in actions]
    assert titles == [
        "Fix JL101: Enqueue after COMMIT: transaction.on_commit(lambda: ...)"
        " (unsafe: changes behaviour)",
        "Suppress JL101 on this line",
    ]
    fix, suppress = actions
    assert fix.kind == suppress.kind == types.CodeActionKind.QuickFix
    assert not fix.is_preferred  # an unsafe fix is never applied unasked
    assert fix.diagnostics is not None and fix.diagnostics[0].code == "JL101"
    assert session.applied(uri, fix.edit) == JL101_SNIPPET.replace(
        "        send_receipt.delay(order.id)\n", ON_COMMIT
    )
    assert session.applied(uri, suppress.edit) == JL101_SNIPPET.replace(
        "send_receipt.delay(order.id)\n",
        "send_receipt.delay(order.id)  # joblint: ignore[JL101]\n",
    )
    # The suppressed text lints clean: the comment is one joblint honours.
    version = session.change(uri, session.applied(uri, suppress.edit))
    assert list(await session.diagnostics(uri, version)) == []
    # No finding on another line, no action there.
    assert await session.code_actions(uri, 12) == []


@pytest.mark.asyncio
async def test_suppressing_extends_the_lines_joblint_comment(session: Editor) -> None:
    text = JL101_SNIPPET.replace(
        "send_receipt.delay(order.id)\n", "send_receipt.delay(order.id)  # joblint: ignore[JL201]\n"
    )
    uri = session.open("shop/checkout.py", text)
    await session.diagnostics(uri, until=lambda d: [x.code for x in d] == ["JL101"])
    actions = await session.code_actions(uri, 13)
    (suppress,) = [a for a in actions if a.title.startswith("Suppress")]
    assert session.applied(uri, suppress.edit) == JL101_SNIPPET.replace(
        "send_receipt.delay(order.id)\n",
        "send_receipt.delay(order.id)  # joblint: ignore[JL201, JL101]\n",
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "session",
    [Start(settings={"unsafe-fixes": True}), Start("neovim", options={"unsafeFixes": True})],
    indirect=True,
    ids=["workspace-configuration", "initialization-options"],
)
async def test_fix_all_applies_unsafe_fixes_when_the_settings_allow(session: Editor) -> None:
    uri = session.open("shop/checkout.py", JL101_SNIPPET)
    await session.diagnostics(uri, until=lambda d: len(d) == 1)
    (fix_all,) = await session.code_actions(uri, 1, only=[types.CodeActionKind.SourceFixAll])
    assert fix_all.kind == "source.fixAll.joblint"
    assert fix_all.title == "Fix all joblint findings"
    assert session.applied(uri, fix_all.edit) == JL101_SNIPPET.replace(
        "        send_receipt.delay(order.id)\n", ON_COMMIT
    )
    # Asked for quick fixes only, it offers no fix-all.
    quick = await session.code_actions(uri, 13, only=[types.CodeActionKind.QuickFix])
    assert quick and all(a.kind == types.CodeActionKind.QuickFix for a in quick)


@pytest.mark.asyncio
async def test_fix_all_leaves_unsafe_fixes_without_the_setting(session: Editor) -> None:
    uri = session.open("shop/checkout.py", JL101_SNIPPET)
    await session.diagnostics(uri, until=lambda d: len(d) == 1)
    assert await session.code_actions(uri, 1, only=[types.CodeActionKind.SourceFixAll]) == []


# --- files that don't parse, internal errors ---


@pytest.mark.asyncio
async def test_a_syntax_error_gives_jl001_and_the_session_goes_on(session: Editor) -> None:
    uri = session.open("shop/broken.py", "def f(:\n    pass\n")
    (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
    assert found.code == "JL001"
    assert found.severity == types.DiagnosticSeverity.Error
    assert found.range.start.line == 0
    # Nothing is offered to suppress or fix in a file that doesn't parse.
    assert await session.code_actions(uri, 1) == []
    version = session.change(uri, JL101_SNIPPET)
    (found,) = await session.diagnostics(uri, version, until=lambda d: len(d) == 1)
    assert found.code == "JL101"


FAILING_SERVER = [
    "-c",
    textwrap.dedent(
        """
        from joblint.server import linting
        lint = linting.lint_buffer

        def failing(relinters, config, index, buffer):
            if "boom" in buffer.text:
                raise RuntimeError("a rule fell over")
            return lint(relinters, config, index, buffer)

        linting.lint_buffer = failing
        from joblint.cli import main
        main(["server"])
        """
    ),
]


@pytest.mark.asyncio
@pytest.mark.parametrize("session", [Start(command=FAILING_SERVER)], indirect=True)
async def test_an_internal_error_is_logged_with_an_empty_result(session: Editor) -> None:
    failing = session.open("shop/boom.py", "boom = 1\n" + JL101_SNIPPET)
    assert list(await session.diagnostics(failing)) == []
    message = await session.wait_for_log("internal error linting shop/boom.py")
    assert "RuntimeError: a rule fell over (please report this)" in message
    assert session.logs(types.MessageType.Error)
    # The session goes on: other buffers, and this one once it lints.
    other = session.open("shop/checkout.py", JL101_SNIPPET)
    await session.diagnostics(other, until=lambda d: len(d) == 1)
    version = session.change(failing, JL101_SNIPPET)
    await session.diagnostics(failing, version, until=lambda d: len(d) == 1)


# --- the workspace index: whole-project rules ---

STORE_APP = """\
import os
from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "store.settings")
app = Celery("store")
app.config_from_object("django.conf:settings", namespace="CELERY")
"""
STORE_SETTINGS = """\
CELERY_BROKER_URL = "redis://cache:6379/1"
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 1800}
"""
STORE_TASKS = """\
from celery import shared_task


@shared_task(time_limit={limit})
def reprice_catalogue():
    pass
"""


def _store(root: Path, limit: int) -> None:
    write(
        root,
        {
            "store/__init__.py": "",
            "store/celery.py": STORE_APP,
            "store/settings.py": STORE_SETTINGS,
            "store/tasks.py": STORE_TASKS.format(limit=limit),
        },
    )


@pytest.fixture
def store(workspace: Path) -> Path:
    _store(workspace, 3600)
    return workspace


@pytest.mark.asyncio
async def test_a_whole_project_finding_appears_for_the_settings_buffer(
    store: Path, session: Editor
) -> None:
    uri = session.open("store/settings.py", STORE_SETTINGS)
    (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
    assert found.code == "JL501"
    assert found.range.start.line == 1  # the visibility_timeout setting
    assert "task 'reprice_catalogue' has time_limit 3600 s (store/tasks.py:4)" in found.message
    # The buffer's text stands in for the file on disk within the project.
    raised = STORE_SETTINGS.replace("1800", "7200")
    version = session.change(uri, raised)
    assert list(await session.diagnostics(uri, version)) == []
    assert (store / "store/settings.py").read_text() == STORE_SETTINGS


@pytest.mark.asyncio
async def test_the_index_follows_files_changed_on_disk(store: Path, session: Editor) -> None:
    # VS Code's capabilities: the server registers its file watchers.
    (watching,) = [
        r for r in session.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    ]
    assert watching.register_options is not None
    assert "**/*.py" in [w["globPattern"] for w in watching.register_options["watchers"]]
    raised = STORE_SETTINGS.replace("1800", "7200")
    uri = session.open("store/settings.py", raised)
    assert list(await session.diagnostics(uri)) == []
    _store(store, 9000)  # a longer time limit, saved in another file
    (store / "store/settings.py").write_text(STORE_SETTINGS)
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(
                    uri=session.uri("store/tasks.py"), type=types.FileChangeType.Changed
                )
            ]
        )
    )
    (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
    assert found.code == "JL501"
    assert "visibility_timeout is 7200 s" in found.message  # the buffer's, not the disk's
    assert "time_limit 9000 s" in found.message


CHAIN_FILES = {
    "shop/__init__.py": "",
    "shop/tasks.py": """\
        from celery import shared_task


        @shared_task
        def send_receipt(order_id):
            pass
        """,
    "shop/mail.py": """\
        from shop.tasks import send_receipt


        def send_receipt_mail(order):
            send_receipt.delay(order.id)
        """,
}
CHAIN_VIEW = """\
from django.db import transaction

from shop import mail


def checkout(order):
    with transaction.atomic():
        order.save()
        mail.send_receipt_mail(order)
"""


@pytest.mark.asyncio
async def test_a_chain_of_calls_is_related_information(workspace: Path) -> None:
    write(workspace, {**CHAIN_FILES, "shop/views.py": CHAIN_VIEW})
    session = await start(workspace, Start())
    try:
        # VS Code's capabilities: the index's progress is reported.
        (reports,) = session.client.progress_reports.values()
        kinds = [type(r) for r in reports]
        assert kinds == [types.WorkDoneProgressBegin, types.WorkDoneProgressEnd]
        uri = session.open("shop/views.py", CHAIN_VIEW)
        (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
        assert found.code == "JL101"
        assert found.range.start.line == 8  # the call of the helper
        (hop,) = found.related_information or []
        assert hop.location.uri == session.uri("shop/mail.py")
        assert hop.location.range.start.line == 4
        assert hop.message == "send_receipt_mail() calls send_receipt.delay()"
    finally:
        await session.client.shutdown_session()


# --- configuration ---


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("session", "sent"),
    [(Start("visual-studio-code"), None), (Start("emacs"), {"joblint": {"ignore": ["JL101"]}})],
    indirect=["session"],
    ids=["pulled", "pushed"],
)
async def test_changed_settings_apply_to_open_buffers(
    session: Editor, sent: dict[str, Any] | None
) -> None:
    uri = session.open("shop/checkout.py", JL101_SNIPPET)
    await session.diagnostics(uri, until=lambda d: len(d) == 1)
    # VS Code answers workspace/configuration; Emacs (eglot) sends the settings.
    session.client.set_configuration({"ignore": ["JL101"]}, section="joblint")
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=sent)
    )
    assert list(await session.diagnostics(uri, until=lambda d: not d)) == []


@pytest.mark.asyncio
async def test_the_workspace_configuration_file_applies_and_is_followed(
    workspace: Path,
) -> None:
    write(workspace, {"pyproject.toml": '[tool.joblint]\nignore = ["JL101"]\n'})
    session = await start(workspace, Start())
    try:
        uri = session.open("shop/checkout.py", JL101_SNIPPET)
        assert list(await session.diagnostics(uri)) == []
        write(workspace, {"pyproject.toml": "[tool.joblint]\nignore = []\n"})
        session.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=session.uri("pyproject.toml"), type=types.FileChangeType.Changed
                    )
                ]
            )
        )
        (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
        assert found.code == "JL101"
        # A configuration file that doesn't read keeps the last good one, and says so.
        write(workspace, {"pyproject.toml": "[tool.joblint\n"})
        session.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=session.uri("pyproject.toml"), type=types.FileChangeType.Changed
                    )
                ]
            )
        )
        message = await session.wait_for_log("the previous configuration stays in use")
        assert "invalid TOML" in message
        # The message to show the user is a notification of its own: it may come after the log.
        await eventually(
            lambda: any("invalid TOML" in m.message for m in session.client.messages),
            "a message saying the TOML is invalid",
        )
        version = session.change(uri, JL101_SNIPPET + "\n")
        (found,) = await session.diagnostics(uri, version, until=lambda d: len(d) == 1)
        assert found.code == "JL101"
    finally:
        await session.client.shutdown_session()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "session",
    [Start(options={"select": ["JL9"], "preview": "yes", "colour": 1})],
    indirect=True,
)
async def test_bad_settings_are_logged_and_left_out(session: Editor) -> None:
    warnings = session.logs(types.MessageType.Warning)
    assert "joblint: setting 'select': unknown rule code or prefix 'JL9'" in warnings
    assert "joblint: setting 'preview' must be true or false" in warnings
    assert "joblint: unknown setting 'colour'" in warnings
    uri = session.open("shop/checkout.py", JL101_SNIPPET)
    (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
    assert found.code == "JL101"


# --- versions, exclusions ---


@pytest.mark.asyncio
@pytest.mark.parametrize("session", [Start(settings={"debounce-ms": 1500})], indirect=True)
async def test_typing_is_debounced_and_only_the_latest_version_is_published(
    session: Editor,
) -> None:
    uri = session.open("shop/checkout.py", JL101_SNIPPET)
    await session.diagnostics(uri, until=lambda d: len(d) == 1)
    fixed = JL101_SNIPPET.replace("        send_receipt.delay(order.id)\n", ON_COMMIT)
    for typed in ("x = 1\n", "x = 12\n", "x = 123\n"):
        session.change(uri, JL101_SNIPPET + typed)
    last = session.change(uri, fixed)
    assert list(await session.diagnostics(uri, last)) == []
    versions = [p.version or 0 for p in session.published[uri]]
    assert versions == sorted(versions)  # never an older version after a newer one
    assert not {2, 3, 4} & set(versions)  # superseded within the pause: never linted


@pytest.mark.asyncio
async def test_excluded_files_get_no_diagnostics(session: Editor) -> None:
    write(session.root, {"build/lib/checkout.py": JL101_SNIPPET})
    excluded = session.open("build/lib/checkout.py", JL101_SNIPPET)
    assert list(await session.diagnostics(excluded)) == []
    included = session.open("shop/checkout.py", JL101_SNIPPET)
    await session.diagnostics(included, until=lambda d: len(d) == 1)


# --- the command ---


def test_without_the_server_extra_the_command_says_what_to_install() -> None:
    hidden = (
        "import sys; sys.modules['pygls'] = None\nfrom joblint.cli import main\nmain(['server'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", hidden],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "joblint: error: `joblint server` needs pygls: "
        "install the server extra with pip install 'joblint[server]'\n"
    )
    assert done.stdout == ""


@pytest.mark.asyncio
async def test_an_index_large_enough_for_worker_processes_is_built(workspace: Path) -> None:
    # Enough files that the whole run lints them in worker processes, which
    # the server starts while it reads its standard input on another thread.
    write(workspace, {f"shop/m{n}.py": JL101_SNIPPET for n in range(MIN_FILES_FOR_POOL + 6)})
    session = await start(workspace, Start())
    try:
        indexed = await session.wait_for_log("workspace indexed")
        assert f"{MIN_FILES_FOR_POOL + 6} files" in indexed
        uri = session.open("shop/m0.py", JL101_SNIPPET)
        (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
        assert found.code == "JL101"
    finally:
        await session.client.shutdown_session()


@pytest.mark.asyncio
async def test_a_workspace_named_through_a_symbolic_link(workspace: Path) -> None:
    link = workspace.parent / "linked"
    link.symlink_to(workspace, target_is_directory=True)
    write(workspace, {**CHAIN_FILES, "shop/views.py": CHAIN_VIEW})
    session = await start(link, Start())
    try:
        uri = session.open("shop/views.py", CHAIN_VIEW)
        assert uri.startswith(link.as_uri())
        (found,) = await session.diagnostics(uri, until=lambda d: len(d) == 1)
        # Other files are named as the editor names the workspace.
        (hop,) = found.related_information or []
        assert hop.location.uri == session.uri("shop/mail.py")
        assert hop.location.uri.startswith(link.as_uri())
    finally:
        await session.client.shutdown_session()


# --- where a suppression comment goes (joblint.server.edits, no server) ---

SUPPRESSIBLE = """\
def refresh(order):
    send.delay(order.id)
    send.delay(order.id)  # noqa: E501
    send.delay(order.id)  # joblint: ignore[JL201]
    # joblint: ignore[JL201]
    send.delay(order.id)
    query = \"\"\"SELECT id FROM jobs
        FOR UPDATE\"\"\"
    total = 1 + \\
        send.delay(order.id)
"""


@pytest.mark.parametrize(
    ("line", "code", "changed", "reported"),
    [
        # A trailing comment on the reported line.
        (2, "JL101", "    send.delay(order.id)  # joblint: ignore[JL101]\n", 2),
        # After another tool's comment on it.
        (3, "JL101", "    send.delay(order.id)  # noqa: E501  # joblint: ignore[JL101]\n", 3),
        # The line's joblint comment, extended.
        (4, "JL101", "    send.delay(order.id)  # joblint: ignore[JL201, JL101]\n", 4),
        # The joblint comment alone on the line above, extended.
        (6, "JL101", "    # joblint: ignore[JL201, JL101]\n", 6),
        # A string that goes on past the line: the comment alone above it.
        (7, "JL201", "    # joblint: ignore[JL201]\n", 8),
        # A line a backslash continues: alone above it too.
        (9, "JL101", "    # joblint: ignore[JL101]\n", 10),
    ],
    ids=["trailing", "after-noqa", "extends", "extends-above", "string", "continued"],
)
def test_the_suppression_comment_goes_where_joblint_honours_it(
    line: int, code: str, changed: str, reported: int
) -> None:
    from joblint.server.edits import suppressed
    from joblint.suppressions import parse

    text = suppressed(SUPPRESSIBLE, code, line)
    assert text is not None
    assert changed in text.splitlines(keepends=True)
    compile(text, "refresh.py", "exec")  # still Python
    # The finding, on the line it is on now, is suppressed by the comment.
    assert parse(text, 1).suppresses(code, (reported,), (reported - 1,))
    assert not parse(SUPPRESSIBLE, 1).suppresses(code, (line,), (line - 1,))


def test_no_suppression_where_a_comment_cannot_go() -> None:
    from joblint.server.edits import suppressed

    # Inside a string that started on an earlier line and goes on after it.
    text = 'x = """\nsend.delay(1)\n"""\n'
    assert suppressed(text, "JL101", 2) is None
    assert suppressed(text, "JL101", 9) is None  # no such line

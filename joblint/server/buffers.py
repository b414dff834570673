"""The open buffers (`Buffers`): each linted from its text when opened,
changed (after `debounce-ms` without typing) or saved, on the lint thread,
and its findings published as diagnostics for that version only: work for
a version the buffer has moved past is dropped, and a result never
replaces one computed for a later state of the workspace.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from joblint.api import RunResult
from joblint.config import Config
from joblint.models import Finding
from joblint.server import linting
from joblint.server.client import Client, in_thread
from joblint.server.diagnostics import diagnostic, uris_below
from joblint.server.linting import Buffer, Linted
from joblint.server.positions import Lines
from joblint.server.workspace import INDEX_DELAY, Workspace


@dataclass(slots=True)
class Document:
    """An open buffer, and what was published of it last."""

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


class Buffers:
    """The client's open Python buffers, linted within the workspace."""

    def __init__(self, client: Client, workspace: Workspace) -> None:
        self.client = client
        self.workspace = workspace
        self.documents: dict[str, Document] = {}
        # The one thread linting buffers (and making code actions, which lint too).
        self.lint_pool = ThreadPoolExecutor(1, thread_name_prefix="joblint-lint")
        self.relinters = linting.Relinters()  # used on the lint thread only

    def opened(self, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        path = _python_file(item.uri, item.language_id)
        if path is None:
            return
        self.documents[item.uri] = Document(item.uri, _below(path, self.workspace.root))
        self.schedule(item.uri, 0.0)

    def changed(self, uri: str) -> None:
        self.schedule(uri, self.workspace.settings.debounce)

    def saved(self, uri: str) -> None:
        self.schedule(uri, 0.0)
        self.workspace.request_index(INDEX_DELAY)

    def closed(self, uri: str) -> None:
        document = self.documents.pop(uri, None)
        if document is None:
            return
        if document.task is not None:
            document.task.cancel()
        self.client.publish(uri, [])

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

    def version(self, uri: str) -> int:
        """The buffer's version as the client last sent it."""
        return self.client.text_document(uri).version or 0

    async def _lint(self, document: Document, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        buffer = Buffer(document.path, self.client.text_document(document.uri).source)
        workspace = self.workspace
        key = (self.version(document.uri), workspace.generation)
        config, index, encoding = workspace.config, workspace.index, self.client.encoding
        uri_of = uris_below(workspace.client_root)

        def work() -> tuple[Linted, list[types.Diagnostic]]:
            return _diagnose(self.relinters, config, index, buffer, encoding, uri_of)

        try:
            linted, diagnostics = await in_thread(self.lint_pool, work)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.client.internal_error(f"linting {buffer.shown}", exc)
            linted, diagnostics = Linted(), []
        self._publish(document, key, buffer, linted, diagnostics)

    def _publish(
        self,
        document: Document,
        key: tuple[int, int],
        buffer: Buffer,
        linted: Linted,
        diagnostics: list[types.Diagnostic],
    ) -> None:
        """Publish, unless the buffer moved on (closed, or a newer version)
        or a result for a later state of the workspace is out already."""
        if self.documents.get(document.uri) is not document:
            return
        if key[0] != self.version(document.uri) or key < document.published:
            return
        document.published = key
        document.findings, document.text = linted.findings, buffer.text
        document.diagnostics = diagnostics
        problems = frozenset(linted.problems)
        for problem in sorted(problems - document.logged):
            self.client.log(f"joblint: {problem}", types.MessageType.Warning)
        document.logged = problems
        self.client.publish(document.uri, diagnostics, key[0])

    async def current(self, uri: str) -> Document | None:
        """The document with findings of its current text (linted now if
        what was published is of an older version)."""
        document = self.documents.get(uri)
        if document is None:
            return None
        if document.published[0] != self.version(uri):
            await self._lint(document, 0.0)
        if document.published[0] != self.version(uri):
            return None
        return document

    def shutdown(self) -> None:
        for document in self.documents.values():
            if document.task is not None:
                document.task.cancel()


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

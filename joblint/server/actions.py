"""Code actions (`code_actions`): for each finding on the lines asked about,
its fix (unsafe ones labelled so) and a suppression comment for its line;
and "Fix all joblint findings" (`source.fixAll.joblint`: joblint's fix loop
on the buffer, re-linting within the workspace's index). Made on the lint
thread, from the findings published for the buffer's current text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lsprotocol import types

from joblint.config import ConfigError
from joblint.models import SAFE, Finding
from joblint.pipeline.fix.apply import FixError
from joblint.pipeline.source import UNPARSEABLE, SourceError
from joblint.server import linting
from joblint.server.buffers import Buffers
from joblint.server.client import in_thread
from joblint.server.edits import suppressed, text_edits
from joblint.server.linting import Buffer
from joblint.server.positions import Lines
from joblint.server.settings import unsafe_fixes

FIX_ALL = "source.fixAll.joblint"


async def code_actions(buffers: Buffers, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The actions the client asks for on a range of an open buffer."""
    document = await buffers.current(params.text_document.uri)
    if document is None:
        return []
    client, workspace = buffers.client, buffers.workspace
    wanted = _kinds_wanted(params.context.only)
    config, index, encoding = workspace.config, workspace.index, client.encoding
    unsafe = unsafe_fixes(config, workspace.settings)
    request = _ActionRequest(
        document.uri,
        buffers.version(document.uri),
        Buffer(document.path, document.text),
        list(document.findings),
        list(document.diagnostics),
        Lines.of(document.text, encoding).lines_of(params.range),
        encoding,
        client.supports("workspace.workspace_edit.document_changes"),
    )

    def work() -> list[types.CodeAction]:
        actions = []
        if wanted(types.CodeActionKind.QuickFix):
            actions.extend(_quick_fixes(request))
        if wanted(FIX_ALL):
            relint = buffers.relinters(config, index, request.buffer)
            fixed = _fix_all(request, relint, unsafe)
            if fixed is not None:
                actions.append(fixed)
        return actions

    try:
        return await in_thread(buffers.lint_pool, work)
    except Exception as exc:
        client.internal_error(f"making code actions for {request.buffer.shown}", exc)
        return []


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

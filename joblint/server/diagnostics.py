"""A finding as the protocol's diagnostic: its range in the client's units,
its code with a link to the rule's page, its message (and the help line
when it says more), and the chain of calls it involves as related
information. `data` carries the rule's name and whether it has a fix.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types

from joblint.models import Finding
from joblint.pipeline.report.full import adds_to
from joblint.pipeline.report.sarif import help_uri
from joblint.pipeline.source import UNPARSEABLE
from joblint.server.positions import Lines

SOURCE = "joblint"
# A suppression comment that suppresses nothing: shown faded, as unused code is.
UNUSED_SUPPRESSION = "JL002"


def uris_below(root: Path) -> Callable[[str], str]:
    """The file URI of a path as a run shows it (relative to the workspace's
    root), in the root's name for it the editor gave (a link's included)."""

    def uri_of(path: str) -> str:
        shown = Path(path)
        return (shown if shown.is_absolute() else root / shown).as_uri()

    return uri_of


def message_of(finding: Finding) -> str:
    if finding.help and adds_to(finding.message, finding.help):
        return f"{finding.message}\nhelp: {finding.help}"
    return finding.message


def diagnostic(
    finding: Finding,
    lines: Lines,
    lines_of: Callable[[str], Lines | None],
    uri_of: Callable[[str], str],
) -> types.Diagnostic:
    """`lines`: the buffer's; `lines_of(path)`: another file's (None when it
    can't be read: its columns are then taken as they are); `uri_of(path)`:
    a file's URI (`uris_below`)."""
    fix = finding.fix
    return types.Diagnostic(
        range=lines.range(finding.span),
        message=message_of(finding),
        severity=(
            types.DiagnosticSeverity.Error
            if finding.code == UNPARSEABLE
            else types.DiagnosticSeverity.Warning
        ),
        code=finding.code,
        code_description=types.CodeDescription(href=help_uri(finding.code)),
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if finding.code == UNUSED_SUPPRESSION else None,
        related_information=[
            types.DiagnosticRelatedInformation(
                location=types.Location(
                    uri=uri_of(related.path),
                    range=(
                        lines if related.path == finding.path else _lines(related.path, lines_of)
                    ).range(related.span),
                ),
                message=related.message,
            )
            for related in finding.related
        ]
        or None,
        data={
            "name": finding.name,
            "fix": None if fix is None else {"safety": fix.safety, "message": fix.message},
        },
    )


def _lines(path: str, lines_of: Callable[[str], Lines | None]) -> Lines:
    found = lines_of(path)
    return found if found is not None else Lines.of_unknown_text()

"""Findings JSON files read back (`joblint report`): joblint's own
`--format json`, or another tool's in the same schema, checked against the
published schema (`joblint.pipeline.report.schema`) and decoded. The format
holds no help line: a joblint finding (its code and rule name joblint's)
gets its rule's back, as `joblint check` shows it.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import NoReturn

from joblint.models import Finding
from joblint.pipeline.report.json import from_dict
from joblint.pipeline.report.schema import first_problem
from joblint.pipeline.source import UNPARSEABLE, UNPARSEABLE_HELP
from joblint.registry import BUILTIN_CODES, catalog


class FindingsFileError(Exception):
    """Why a findings file can't be read: one line, without the file's name."""


def decode_findings(data: bytes) -> list[Finding]:
    """The findings of a findings file's bytes (UTF-8, or UTF-16/32 as JSON allows)."""
    try:
        document = json.loads(data, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise FindingsFileError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except UnicodeDecodeError:
        raise FindingsFileError("not valid JSON: not UTF-8 text") from None
    except ValueError as exc:  # NaN, Infinity: Python's extensions, not JSON
        raise FindingsFileError(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise FindingsFileError("not valid JSON: nested too deeply") from None
    problem = first_problem(document)
    if problem is not None:
        raise FindingsFileError(f"not in joblint's findings schema: {problem}")
    return [_with_help(from_dict(record)) for record in document]


def _with_help(finding: Finding) -> Finding:
    """The finding with its rule's help line, where it is one of joblint's."""
    known = _helps().get((finding.code, finding.name))
    return dataclasses.replace(finding, help=known) if known and not finding.help else finding


@functools.cache
def _helps() -> dict[tuple[str, str], str]:
    """Each joblint rule's help line, by (code, name)."""
    helps = {(rule.code, rule.name): rule.help for rule in catalog() if rule.help}
    helps[(UNPARSEABLE, BUILTIN_CODES[UNPARSEABLE])] = UNPARSEABLE_HELP
    return helps


def _not_json(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not a JSON value")


def merged(batches: Iterable[list[Finding]]) -> list[Finding]:
    """The findings of every file, in the order `joblint check` reports them
    (by path, line, column and code), a finding held twice once."""
    unique = dict.fromkeys(f for batch in batches for f in batch)
    return sorted(unique, key=lambda f: f.sort_key)


def read_findings(path: Path) -> list[Finding]:
    """The findings of the file at `path`."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FindingsFileError(f"cannot read: {exc.strerror or exc}") from None
    return decode_findings(data)


def source_file(path: str) -> bool:
    """Whether a finding's `path` may be read for its source lines: a regular
    file (a findings file from elsewhere may name a device or a pipe, which
    would never end or never answer)."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):  # a name too long, a NUL byte
        return False

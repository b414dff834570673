"""The published schema of `--format json` (`findings.schema.json`, package
data) and the check of a document against it with jsonschema, the reference
validator of JSON Schema. A problem is one line: the one with the first path,
named by it (`$[3].fix.edits[0].line`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

SCHEMA_FILE = "findings.schema.json"


@cache
def findings_schema() -> dict[str, Any]:
    """The schema, as the installed package holds it."""
    here = resources.files("joblint.pipeline.report")
    text = here.joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def first_problem(document: Any) -> str | None:
    """Where and why `document` breaks the schema, the problem with the first
    path ("at $[0].line: 0 is less than the minimum of 1"), or None when it
    conforms."""
    # Imported here: only `joblint report` reads findings files.
    from jsonschema import Draft202012Validator

    errors = list(Draft202012Validator(findings_schema()).iter_errors(document))
    if not errors:
        return None
    first = min(errors, key=lambda error: _order(error.absolute_path))
    return f"at {first.json_path}: {first.message}"


def _order(path: Iterable[str | int]) -> tuple[tuple[int, str | int], ...]:
    """A JSON path's place in the document: array indexes by number."""
    return tuple((0, step) if isinstance(step, int) else (1, step) for step in path)

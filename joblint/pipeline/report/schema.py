"""The published schema of `--format json` (`findings.schema.json`, package
data) and the check of a document against it.

The check reads the schema itself, so the file stays the one description of
the format. It knows the JSON Schema keywords the file uses and refuses any
other (a schema edit needing more must teach it here; the test suite holds it
to `jsonschema`'s verdicts), which spares every install a validator
dependency. It reports the first problem in document order with its JSON path
(`$[3].fix.edits[0].line`), as one line.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

SCHEMA_FILE = "findings.schema.json"
# Keywords that only describe: the check passes over them.
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description"})
_CHECKED = frozenset(
    {"$ref", "type", "enum", "pattern", "minLength", "minimum", "required", "properties"}
    | {"additionalProperties", "items"}
)
_TYPE_NAMES = {
    "array": "an array",
    "object": "an object",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SHOWN_VALUE = 60  # characters of a value quoted in a problem


class SchemaKeywordError(Exception):
    """The schema uses a keyword the check doesn't know."""


@cache
def findings_schema() -> dict[str, Any]:
    """The schema, as the installed package holds it."""
    here = resources.files("joblint.pipeline.report")
    text = here.joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def first_problem(document: Any) -> str | None:
    """Where and why `document` breaks the schema ("at $[0].line: 0 is less
    than 1"), or None when it conforms."""
    schema = findings_schema()
    return _check(document, schema, "$", schema)


def _check(value: Any, schema: dict[str, Any], path: str, root: dict[str, Any]) -> str | None:
    unknown = set(schema) - _ANNOTATIONS - _CHECKED
    if unknown:
        raise SchemaKeywordError(", ".join(sorted(unknown)))
    if "$ref" in schema:
        problem = _check(value, _resolve(schema["$ref"], root), path, root)
        if problem:
            return problem
    kinds = schema.get("type")
    if kinds is not None:
        allowed = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_is(value, kind) for kind in allowed):
            wanted = " or ".join(_TYPE_NAMES[kind] for kind in allowed)
            return f"at {path}: expected {wanted}, got {_kind_of(value)}"
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(_shown(option) for option in schema["enum"])
        return f"at {path}: {_shown(value)} is not one of {options}"
    if isinstance(value, str):
        return _check_string(value, schema, path)
    if _is(value, "number") and "minimum" in schema and value < schema["minimum"]:
        return f"at {path}: {_shown(value)} is less than {schema['minimum']}"
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            problem = _check(item, schema["items"], f"{path}[{index}]", root)
            if problem:
                return problem
    if isinstance(value, dict):
        return _check_object(value, schema, path, root)
    return None


def _check_string(value: str, schema: dict[str, Any], path: str) -> str | None:
    if len(value) < schema.get("minLength", 0):
        return f"at {path}: {_shown(value)} is shorter than {schema['minLength']} character(s)"
    if "pattern" in schema and not re.search(schema["pattern"], value):
        return f"at {path}: {_shown(value)} does not match {schema['pattern']}"
    return None


def _check_object(
    value: dict[str, Any], schema: dict[str, Any], path: str, root: dict[str, Any]
) -> str | None:
    properties: dict[str, Any] = schema.get("properties", {})
    for key in schema.get("required", ()):
        if key not in value:
            return f"at {path}: missing key {_shown(key)}"
    for key, item in value.items():
        if key in properties:
            problem = _check(item, properties[key], _member(path, key), root)
            if problem:
                return problem
        elif schema.get("additionalProperties", True) is False:
            return f"at {path}: unexpected key {_shown(key)}"
    return None


def _resolve(reference: str, root: dict[str, Any]) -> dict[str, Any]:
    if not reference.startswith("#/"):
        raise SchemaKeywordError(f"$ref {reference} (only references within the schema)")
    target: Any = root
    for part in reference[2:].split("/"):
        target = target[part.replace("~1", "/").replace("~0", "~")]
    resolved: dict[str, Any] = target
    return resolved


def _is(value: Any, kind: str) -> bool:
    """JSON Schema's types: an integer is a number with no fraction (1.0 is
    one), and neither is a boolean."""
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    types: dict[str, type | tuple[type, ...]] = {
        "array": list,
        "object": dict,
        "string": str,
        "boolean": bool,
        "null": type(None),
    }
    return isinstance(value, types[kind])


def _kind_of(value: Any) -> str:
    for kind in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is(value, kind):
            return _TYPE_NAMES[kind]
    return type(value).__name__


def _same(value: Any, option: Any) -> bool:
    """JSON equality: `true` is not `1`."""
    return type(value) is type(option) and value == option


def _member(path: str, key: str) -> str:
    if _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=True)}]"


def _shown(value: Any) -> str:
    """`value` as JSON, on one line, cut short: a problem is one line."""
    text = json.dumps(value, ensure_ascii=True)
    if len(text) > _SHOWN_VALUE:
        text = text[: _SHOWN_VALUE - 3] + "..."
    return text

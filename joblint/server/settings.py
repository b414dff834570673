"""The editor's settings for joblint, over the workspace's configuration files.

A client sends them as `initializationOptions`, in
`workspace/didChangeConfiguration`, or answers `workspace/configuration`
for the section `joblint`: `select`, `extend-select`, `ignore` (lists of
codes or prefixes, or one comma-separated string), `preview`,
`unsafe-fixes` (booleans) and `debounce-ms` (how long typing must pause
before the buffer is linted again). Keys may be written kebab-case,
camelCase or snake_case; unknown keys and bad values are reported, not fatal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from joblint.config import Config, load
from joblint.registry import is_known_selector

SECTION = "joblint"
DEFAULT_DEBOUNCE = 0.3  # seconds


@dataclass(frozen=True, slots=True)
class ClientSettings:
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    preview: bool | None = None
    unsafe_fixes: bool | None = None
    debounce: float = DEFAULT_DEBOUNCE
    # What was wrong with the settings given (one line each), to log.
    problems: tuple[str, ...] = field(default=(), compare=False)


def _key(name: str) -> str:
    return name.replace("-", "").replace("_", "").lower()


_CODE_KEYS = {"select": "select", "extendselect": "extend_select", "ignore": "ignore"}
_FLAG_KEYS = {"preview": "preview", "unsafefixes": "unsafe_fixes"}


def read_settings(value: object) -> ClientSettings:
    """The settings in what the client sent: `{"joblint": {...}}` or the
    section itself; anything else gives the defaults."""
    if isinstance(value, Mapping) and isinstance(value.get(SECTION), Mapping):
        value = value[SECTION]
    if not isinstance(value, Mapping):
        return ClientSettings()
    found: dict[str, Any] = {}
    problems: list[str] = []
    for name, item in value.items():
        key = _key(str(name))
        if item is None:
            continue
        if key in _CODE_KEYS:
            codes = _codes(str(name), item, problems)
            if codes:  # an empty list leaves the configuration's selection
                found[_CODE_KEYS[key]] = codes
        elif key in _FLAG_KEYS:
            if isinstance(item, bool):
                found[_FLAG_KEYS[key]] = item
            else:
                problems.append(f"setting '{name}' must be true or false")
        elif key == "debouncems":
            if isinstance(item, int | float) and not isinstance(item, bool) and item >= 0:
                found["debounce"] = item / 1000
            else:
                problems.append(f"setting '{name}' must be a number of milliseconds")
        else:
            problems.append(f"unknown setting '{name}'")
    return ClientSettings(**found, problems=tuple(problems))


def _codes(name: str, value: object, problems: list[str]) -> tuple[str, ...] | None:
    if isinstance(value, str):
        words = value.split(",")
    elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        words = list(value)
    else:
        problems.append(f"setting '{name}' must be a list of rule codes or prefixes")
        return None
    codes = []
    for word in (w.strip() for w in words):
        code = word if word == "ALL" else word.upper()
        if not code:
            continue
        if is_known_selector(code):
            codes.append(code)
        else:
            problems.append(f"setting '{name}': unknown rule code or prefix '{word}'")
    return tuple(codes)


def workspace_config(root: Path, settings: ClientSettings) -> Config:
    """The configuration the CLI would use in `root` (its configuration
    files, found as `joblint check` finds them there), with the editor's
    settings applied over it as command-line options are. Raises
    `joblint.config.ConfigError`."""
    return load(cwd=root).with_overrides(
        select=settings.select,
        extend_select=settings.extend_select,
        ignore=settings.ignore,
        preview=settings.preview,
    )


def unsafe_fixes(config: Config, settings: ClientSettings) -> bool:
    """Whether "Fix all" applies unsafe fixes too: the editor's setting, else
    the configuration's `unsafe-fixes`."""
    return config.unsafe_fixes if settings.unsafe_fixes is None else settings.unsafe_fixes

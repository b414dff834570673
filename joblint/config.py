"""Finding, reading and validating configuration -> a frozen `Config`.

Looked up from the current directory upward: in each directory `.joblint.toml`
or `joblint.toml` (top-level keys) win over `pyproject.toml`'s `[tool.joblint]`;
a `pyproject.toml` without that table is passed over. `--config FILE` names
one explicitly; `--isolated` uses none.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from joblint.globs import GlobPatterns
from joblint.knowledge import locks
from joblint.registry import find, is_known_selector
from joblint.settings import Options, RuleOptionValue

DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "env",
    "build",
    "dist",
    "node_modules",
    "__pycache__",
    ".tox",
    ".nox",
    ".eggs",
    "site-packages",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
)
CONFIG_NAMES = (".joblint.toml", "joblint.toml")
# What counts as test code (`test-paths`): gitignore patterns relative to the
# project root. Test code and migrations get no JL1-JL6 findings by default.
DEFAULT_TEST_PATHS: tuple[str, ...] = (
    "tests/",
    "test/",
    "testing/",
    "test_*.py",
    "*_test.py",
    "test.py",
    "tests.py",
    "conftest.py",
    "migrations/",
)


class ConfigError(Exception):
    """A problem with configuration; the message is one line naming file and key."""


@dataclass(frozen=True, slots=True)
class Config:
    root: Path  # the directory relative paths in the config are resolved against
    source: Path | None = None
    select: tuple[str, ...] = ("ALL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    preview: bool = False
    respect_gitignore: bool = True
    extend_enqueue_functions: tuple[str, ...] = ()
    extend_transaction_functions: tuple[str, ...] = ()
    extend_on_commit_functions: tuple[str, ...] = ()
    visibility_margin_seconds: float = 60.0
    cache_dir: Path | None = None
    force_exclude: bool = False
    # A baseline file (relative to `root`) whose findings are hidden.
    baseline: str | None = None
    # Apply unsafe fixes too with --fix/--diff.
    unsafe_fixes: bool = False
    # The project's Celery tasks are DjangoTasks (Celery >= 5.4): JL101's
    # fix uses delay_on_commit()/apply_async_on_commit().
    celery_django_task: bool = False
    # Per-rule options, (code, key, value), from `[tool.joblint.rules.<code>]`.
    rule_options: tuple[tuple[str, str, RuleOptionValue], ...] = ()
    # Report JL1-JL6 findings in test code and migrations too (see joblint.pipeline.project.scope).
    include_tests: bool = False
    # Django database aliases that take no writes (replicas).
    read_only_databases: tuple[str, ...] = ()
    test_paths: tuple[str, ...] = DEFAULT_TEST_PATHS
    extend_test_paths: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def all_test_paths(self) -> tuple[str, ...]:
        return (*self.test_paths, *self.extend_test_paths)

    def with_overrides(self, **changes: Any) -> Config:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _string_list(where: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def _codes(where: str, key: str, value: Any) -> tuple[str, ...]:
    codes = tuple(
        c.strip().upper() if c.strip() != "ALL" else "ALL" for c in _string_list(where, key, value)
    )
    for code in codes:
        if not is_known_selector(code):
            raise ConfigError(f"{where}: '{key}' has unknown rule code or prefix '{code}'")
    return codes


def _bool(where: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: '{key}' must be true or false")
    return value


def _number(where: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"{where}: '{key}' must be a non-negative number")
    return float(value)


def _path(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: '{key}' must be a path")
    return value


def _globs(where: str, key: str, value: Any) -> tuple[str, ...]:
    """gitignore-style patterns: an invalid one is this key's error, not a crash later."""
    patterns = _string_list(where, key, value)

    for pattern in patterns:
        try:
            GlobPatterns([pattern])
        except ValueError as exc:
            message = f"{where}: '{key}' has an invalid pattern {pattern!r}: {exc}"
            raise ConfigError(message) from None
    return patterns


def _per_file_ignores(where: str, key: str, value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: '{key}' must be a table of glob = [codes]")
    return tuple((glob, _codes(where, f"{key}.{glob}", codes)) for glob, codes in value.items())


def _positive_integer(where: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{where}: '{key}' must be a positive integer")
    return value


# Per-rule options (`[tool.joblint.rules.JL402]`, kebab-case keys as in Ruff's
# per-linter tables): rule code -> key -> converter. Each rule's docs describe them.
RULE_OPTIONS: dict[str, dict[str, Callable[[str, str, Any], RuleOptionValue]]] = {
    "JL402": {locks.DEFAULT_TIMEOUT_OPTION: _positive_integer},
}


def _rule_options(
    where: str, key: str, value: Any
) -> tuple[tuple[str, str, RuleOptionValue], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: '{key}' must be a table of rule code = {{option = value}}")
    found: dict[tuple[str, str], RuleOptionValue] = {}
    for selector, options in value.items():
        rule = find(selector)
        if rule is None:
            raise ConfigError(f"{where}: '{key}' has unknown rule '{selector}'")
        known = RULE_OPTIONS.get(rule.code, {})
        if not known:
            having = ", ".join(sorted(RULE_OPTIONS))
            raise ConfigError(
                f"{where}: '{key}.{selector}': {rule.code} has no options (rules with options: "
                f"{having})"
            )
        if not isinstance(options, dict):
            raise ConfigError(f"{where}: '{key}.{selector}' must be a table of options")
        for option, setting in options.items():
            if option not in known:
                names = ", ".join(sorted(known))
                raise ConfigError(
                    f"{where}: '{key}.{selector}' has unknown option '{option}' "
                    f"(known: {names})"
                )
            if (rule.code, option) in found:
                raise ConfigError(f"{where}: '{key}': {rule.code}'s '{option}' is set twice")
            found[rule.code, option] = known[option](where, f"{key}.{selector}.{option}", setting)
    return tuple((code, option, v) for (code, option), v in sorted(found.items()))


_KEYS: dict[str, tuple[str, Callable[[str, str, Any], Any]]] = {
    "select": ("select", _codes),
    "extend-select": ("extend_select", _codes),
    "ignore": ("ignore", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "exclude": ("exclude", _string_list),
    "extend-exclude": ("extend_exclude", _string_list),
    "preview": ("preview", _bool),
    "respect-gitignore": ("respect_gitignore", _bool),
    "extend-enqueue-functions": ("extend_enqueue_functions", _string_list),
    "extend-transaction-functions": ("extend_transaction_functions", _string_list),
    "extend-on-commit-functions": ("extend_on_commit_functions", _string_list),
    "visibility-margin-seconds": ("visibility_margin_seconds", _number),
    "baseline": ("baseline", _path),
    "cache-dir": ("cache_dir", _path),
    "unsafe-fixes": ("unsafe_fixes", _bool),
    "celery-django-task": ("celery_django_task", _bool),
    "rules": ("rule_options", _rule_options),
    "include-tests": ("include_tests", _bool),
    "read-only-databases": ("read_only_databases", _string_list),
    "test-paths": ("test_paths", _globs),
    "extend-test-paths": ("extend_test_paths", _globs),
}


def parse_table(table: Mapping[str, Any], where: str, root: Path, source: Path | None) -> Config:
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{where}: unknown key '{key}' (known keys: {known})")
        attr, convert = _KEYS[key]
        values[attr] = convert(where, key, value)
    if "cache_dir" in values:
        values["cache_dir"] = (root / values["cache_dir"]).resolve()
    return Config(root=root, source=source, **values)


def lint_options(config: Config) -> Options:
    """What the rules see of the configuration."""
    return Options(
        enqueue_functions=frozenset(config.extend_enqueue_functions),
        transaction_functions=frozenset(config.extend_transaction_functions),
        on_commit_functions=frozenset(config.extend_on_commit_functions),
        celery_django_task=config.celery_django_task,
        rule_options=config.rule_options,
        read_only_databases=frozenset(config.read_only_databases),
    )


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def load_file(path: Path) -> Config:
    data = _read_toml(path)
    root = path.resolve().parent
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("joblint", {})
        where = f"{path} [tool.joblint]"
    else:
        table = data.get("tool", {}).get("joblint", data) if "tool" in data else data
        where = str(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    return parse_table(table, where, root, path)


def find_config(start: Path) -> Path | None:
    for directory in (start.resolve(), *start.resolve().parents):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if candidate.is_file():
                return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file() and "joblint" in _read_toml(pyproject).get("tool", {}):
            return pyproject
    return None


def load(explicit: Path | None = None, isolated: bool = False, cwd: Path | None = None) -> Config:
    here = (cwd or Path.cwd()).resolve()
    if isolated:
        return Config(root=here)
    path = explicit if explicit is not None else find_config(here)
    if path is None:
        return Config(root=here)
    if explicit is not None and not explicit.is_file():
        raise ConfigError(f"{explicit}: config file not found")
    return load_file(path)

"""Finding, reading and validating configuration -> a frozen `Config`.

Configuration is hierarchical, as Ruff's is: each file gets the settings of the
closest configuration file in its directory or above (`Configs`), and a run's
own configuration (the one found from the current directory upward) serves
the files that have none closer. In each directory `.joblint.toml` or
`joblint.toml` (top-level keys) win over `pyproject.toml`'s `[tool.joblint]`;
a `pyproject.toml` without that table is passed over. A file may
`extend = "../pyproject.toml"`: it inherits that file's settings and sets its
own over them; paths in each file are relative to that file's directory.
`--config FILE` names one file for every linted file; `--isolated` uses none.
Command-line settings apply over every file's.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from joblint.globs import GlobPatterns
from joblint.registry import extend_selection, find, is_known_selector, select_codes
from joblint.settings import LOCK_TIMEOUT_OPTION, Options, RuleOptionValue

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
    ".joblint_cache",
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
class Selection:
    """One layer of rule selection that sets no `select`: a file extending
    another, or the command line. Layers apply in order, each over the last."""

    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


# Where a setting comes from when no file set it.
DEFAULT_ORIGIN = "default"
COMMAND_LINE = "command line"
# Patterns (gitignore syntax) relative to the directory of the file that sets them.
Patterns = tuple[tuple[Path, tuple[str, ...]], ...]
PerFileIgnores = tuple[tuple[str, tuple[str, ...]], ...]


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
    # The broker transport (`redis`) or URL the project deploys with, for the
    # whole-project rules where the code reads the broker URL from the
    # environment; "" when not set.
    broker: str = ""
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
    # Layers of selection applied after select/extend-select/ignore above
    # (files this one extends set `select`; this one and the command line don't).
    selections: tuple[Selection, ...] = ()
    # Patterns with a slash that files this one extends, in other directories,
    # set: (attribute, that file's directory, its value). A pattern without a
    # slash matches a name at any depth wherever it is set, so those are in
    # the attributes above.
    inherited: tuple[tuple[str, Path, Any], ...] = ()
    # key -> the files that set it ("command line" for an option), for
    # `--show-settings`; keys set by no file are the defaults.
    origins: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The command line's settings, applied again over each configuration
    # file found below (hierarchical configuration).
    overrides: tuple[tuple[str, Any], ...] = ()
    # Whether files with a closer configuration file use it (`Configs`): true
    # for what `load` finds, false for `--config`, `--isolated` and a Config
    # made in code.
    hierarchical: bool = False

    def baseline_path(self, option: Path | None) -> Path | None:
        """The baseline a run applies: `--baseline`'s, else the configured one."""
        if option is not None:
            return option
        return self.root / self.baseline if self.baseline else None

    @property
    def all_test_paths(self) -> tuple[str, ...]:
        return (*self.test_paths, *self.extend_test_paths)

    def selected_codes(self) -> frozenset[str]:
        """The rule codes this configuration runs (before `per-file-ignores`)."""
        codes = select_codes(self.select, self.extend_select, self.ignore, self.preview)
        for layer in self.selections:
            codes = extend_selection(codes, layer.extend_select, layer.ignore, self.preview)
        return codes

    def exclude_groups(self) -> Patterns:
        """`exclude` and `extend-exclude`, each group relative to its directory."""
        own = (self.root, (*self.exclude, *self.extend_exclude))
        return (own, *self._inherited("exclude", "extend_exclude"))

    def test_path_groups(self) -> Patterns:
        """`test-paths` and `extend-test-paths`, each group relative to its directory."""
        own = (self.root, self.all_test_paths)
        return (own, *self._inherited("test_paths", "extend_test_paths"))

    def per_file_ignore_groups(self) -> tuple[tuple[Path, PerFileIgnores], ...]:
        own = (self.root, self.per_file_ignores)
        inherited = [(root, v) for attr, root, v in self.inherited if attr == "per_file_ignores"]
        return (own, *inherited)

    def _inherited(self, *attrs: str) -> Patterns:
        return tuple((root, value) for attr, root, value in self.inherited if attr in attrs)

    def origin(self, key: str) -> tuple[str, ...]:
        """The files (or "command line") that set `key`; () for a default."""
        return dict(self.origins).get(key, ())

    def with_overrides(self, **changes: Any) -> Config:
        """Command-line settings over this configuration's: `select` replaces the
        rule selection, `extend_select` and `ignore` apply over it (Ruff's
        order); the others replace the configured value."""
        given = {k: v for k, v in changes.items() if v is not None}
        if not given:
            return self
        merged = _merge(self, given, self.root, COMMAND_LINE, same_directory=True)
        return replace(merged, overrides=(*self.overrides, *given.items()))


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`: did you mean 'X'?` for the known name closest to a mistyped one
    (`selekt`, `extend_select`), else ""."""
    spelled = {candidate.replace("_", "-"): candidate for candidate in known}
    close = difflib.get_close_matches(name.replace("_", "-").lower(), spelled, n=1)
    return f": did you mean '{spelled[close[0]]}'?" if close else ""


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


def _broker(where: str, key: str, value: Any) -> str:
    """A kombu transport name (`redis`) or a broker URL (`redis://cache:6379/0`)."""
    from joblint.knowledge.brokers import TRANSPORT_NAMES  # the libraries' data, when used

    text = value.strip() if isinstance(value, str) else ""
    transport = text.split("://", 1)[0].split("+", 1)[0].lower()
    if transport not in TRANSPORT_NAMES or (text != transport and "://" not in text):
        known = ", ".join(sorted(TRANSPORT_NAMES))
        raise ConfigError(
            f"{where}: '{key}' must be a broker transport or URL such as \"redis\" or "
            f'"redis://cache:6379/0", not {value!r} (transports: {known})'
        )
    return text


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
    "JL402": {LOCK_TIMEOUT_OPTION: _positive_integer},
}


def _rule_options(where: str, key: str, value: Any) -> tuple[tuple[str, str, RuleOptionValue], ...]:
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
                    f"{where}: '{key}.{selector}' has unknown option '{option}'"
                    f"{did_you_mean(option, known)} (known: {names})"
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
    "broker": ("broker", _broker),
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


def _parse_values(table: Mapping[str, Any], where: str, root: Path) -> dict[str, Any]:
    """The table's settings as Config attributes, validated; paths made absolute."""
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _KEYS:
            names = [*_KEYS, EXTEND_KEY]
            known = ", ".join(sorted(names))
            hint = did_you_mean(key, names)
            raise ConfigError(f"{where}: unknown key '{key}'{hint} (known keys: {known})")
        attr, convert = _KEYS[key]
        values[attr] = convert(where, key, value)
    if "cache_dir" in values:
        values["cache_dir"] = (root / values["cache_dir"]).resolve()
    if "baseline" in values:
        values["baseline"] = str(root / values["baseline"])
    return values


def parse_table(table: Mapping[str, Any], where: str, root: Path, source: Path | None) -> Config:
    return Config(root=root, source=source, **_parse_values(table, where, root))


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
    """The configuration `path` gives (with the files it `extend`s)."""
    return _load_extending(path, ())


def _config_file_in(directory: Path) -> Path | None:
    """The configuration file of `directory` itself, if it has one."""
    for name in CONFIG_NAMES:
        candidate = directory / name
        if _is_file(candidate):
            return candidate
    pyproject = directory / "pyproject.toml"
    if _is_file(pyproject) and "joblint" in _read_toml(pyproject).get("tool", {}):
        return pyproject
    return None


def _is_file(path: Path) -> bool:
    """`Path.is_file()`, false in a directory that can't be searched (which
    `is_file` raises for)."""
    try:
        return path.is_file()
    except OSError:
        return False


def find_config(start: Path) -> Path | None:
    for directory in (start.resolve(), *start.resolve().parents):
        found = _config_file_in(directory)
        if found is not None:
            return found
    return None


def load(explicit: Path | None = None, isolated: bool = False, cwd: Path | None = None) -> Config:
    """The run's configuration: `explicit` (for every file), none with
    `isolated`, else the one found from `cwd` upward, with each linted file's
    closer configuration files taking over below it (`Configs`)."""
    here = (cwd or Path.cwd()).resolve()
    if isolated:
        return Config(root=here)
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: config file not found")
        return load_file(explicit)
    path = find_config(here)
    if path is None:
        return Config(root=here, hierarchical=True)
    return replace(load_file(path), hierarchical=True)


# --- extending another file: what the extending file's settings do to the base's ---

# What the extending file sets is replaced (scalars, `read-only-databases`),
# except these lists, which it adds to.
_ADDED = frozenset(
    {"extend_enqueue_functions", "extend_transaction_functions", "extend_on_commit_functions"}
)
# Patterns relative to the file that sets them: replaced, or added to.
_REPLACED_PATTERNS = frozenset({"exclude", "test_paths", "per_file_ignores"})
_ADDED_PATTERNS = frozenset({"extend_exclude", "extend_test_paths"})


def _anchored(pattern: str) -> bool:
    """A gitignore pattern with a slash (but a trailing one) is relative to its
    directory; one without matches a name at any depth."""
    body = pattern[1:] if pattern.startswith("!") else pattern
    return "/" in body.rstrip("/")


def _split(attr: str, value: Any) -> tuple[Any, Any]:
    """(the patterns that mean the same from any directory, the anchored ones)."""
    if attr == "per_file_ignores":
        keep = tuple(item for item in value if not _anchored(item[0]))
        return keep, tuple(item for item in value if _anchored(item[0]))
    return tuple(p for p in value if not _anchored(p)), tuple(p for p in value if _anchored(p))


def _merge(
    base: Config, own: Mapping[str, Any], root: Path, source: str, same_directory: bool
) -> Config:
    """`base` with `own` (attribute -> value, as parsed) set over it, for a file in
    `root` (Ruff's `extend`): scalars and replaced lists win, `extend-*` lists
    add, rule options merge, and the selection gains a layer."""
    values = {f.name: getattr(base, f.name) for f in fields(Config)}
    inherited = list(base.inherited)
    for attr in (*_REPLACED_PATTERNS, *_ADDED_PATTERNS):
        if not same_directory:  # the base's anchored patterns stay relative to its directory
            values[attr], anchored = _split(attr, values[attr])
            if anchored:
                inherited.append((attr, base.root, anchored))
        if attr not in own:
            continue
        if attr in _REPLACED_PATTERNS:
            values[attr] = own[attr]
            inherited = [entry for entry in inherited if entry[0] != attr]
        else:
            values[attr] = (*values[attr], *own[attr])
    selection = {"select", "extend_select", "ignore", "rule_options"}
    for attr in own.keys() - _ADDED - _REPLACED_PATTERNS - _ADDED_PATTERNS - selection:
        values[attr] = own[attr]
    for attr in _ADDED & own.keys():
        values[attr] = (*values[attr], *own[attr])
    if "rule_options" in own:
        options = {(code, key): value for code, key, value in base.rule_options}
        options.update({(code, key): value for code, key, value in own["rule_options"]})
        values["rule_options"] = tuple((c, k, v) for (c, k), v in sorted(options.items()))
    if "select" in own:  # a new selection: what came before no longer counts
        values["select"] = own["select"]
        values["extend_select"] = own.get("extend_select", ())
        values["ignore"] = own.get("ignore", ())
        values["selections"] = ()
    elif "extend_select" in own or "ignore" in own:
        layer = Selection(own.get("extend_select", ()), own.get("ignore", ()))
        values["selections"] = (*base.selections, layer)
    values["inherited"] = tuple(inherited)
    values["origins"] = _origins(base, own, source)
    values["root"] = root
    return Config(**values)


Origins = tuple[tuple[str, tuple[str, ...]], ...]


def _origins(base: Config, own: Mapping[str, Any], source: str) -> Origins:
    """Who set each key once `own` is set over `base`: the setter of a replaced
    value, every setter of a list added to or a selection layered."""
    origins = dict(base.origins)
    if "select" in own:  # a new selection: the layers before it no longer count
        origins.pop("extend-select", None)
        origins.pop("ignore", None)
    attr_keys = {attr: key for key, (attr, _) in _KEYS.items()}
    adding = {*_ADDED, *_ADDED_PATTERNS, "rule_options", "extend_select", "ignore"}
    for attr in own:
        key = attr_keys.get(attr)
        if key is not None:
            before = origins.get(key, ()) if attr in adding else ()
            origins[key] = (*before, source)
    return tuple(origins.items())


EXTEND_KEY = "extend"


def _load_extending(path: Path, chain: tuple[Path, ...]) -> Config:
    """`path`'s configuration with the files it extends, nearest last."""
    data = _read_toml(path)
    root = path.resolve().parent
    table, where = _table_of(path, data)
    base_name = table.get(EXTEND_KEY)
    own_table = {k: v for k, v in table.items() if k != EXTEND_KEY}
    own = _parse_values(own_table, where, root)
    if base_name is None:
        config = Config(root=root, source=path)
        return _merge(config, own, root, str(path), same_directory=True)
    if not isinstance(base_name, str) or not base_name:
        raise ConfigError(f"{where}: '{EXTEND_KEY}' must be the path of a configuration file")
    base_path = (root / os.path.expandvars(os.path.expanduser(base_name))).resolve()
    if not base_path.is_file():
        raise ConfigError(f"{where}: '{EXTEND_KEY}': {base_path}: config file not found")
    if base_path in chain or base_path == path.resolve():
        cycle = " -> ".join(str(p) for p in (*chain, path.resolve(), base_path))
        raise ConfigError(f"{where}: '{EXTEND_KEY}' makes a cycle: {cycle}")
    base = _load_extending(base_path, (*chain, path.resolve()))
    merged = _merge(base, own, root, str(path), same_directory=base.root == root)
    return replace(merged, source=path)


def _table_of(path: Path, data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("joblint", {})
        where = f"{path} [tool.joblint]"
    else:
        table = data.get("tool", {}).get("joblint", data) if "tool" in data else data
        where = str(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    return table, where


class Configs:
    """The configuration of each linted file: that of the closest configuration
    file in its directory or above, else the run's own (Ruff's hierarchy).
    Looked up once per directory; each file is read once. A configuration
    file that can't be read or validated governs its files all the same: asking
    for their configuration raises its `ConfigError` (each time, from memory),
    so that the walk leaves them out and says so once (`joblint.pipeline.discover`)
    while the files other configurations govern are linted."""

    def __init__(self, config: Config) -> None:
        self.root = config
        self._directories: dict[str, Config | ConfigError] = {}
        self._files: dict[Path, Config | ConfigError] = {}
        # Each file's, by the path as asked: an absolute path costs a getcwd.
        self._paths: dict[Path | str, Config] = {}
        if config.source is not None:
            self._files[config.source.resolve()] = config

    def for_path(self, path: Path | str) -> Config:
        """The configuration of the file at `path`."""
        if not self.root.hierarchical:
            return self.root
        found = self._paths.get(path)
        if found is None:
            found = self.for_directory(os.path.dirname(os.path.abspath(path)))
            self._paths[path] = found
        return found

    def for_directory(self, directory: str) -> Config:
        """The configuration of the files in `directory` (an absolute path)."""
        if not self.root.hierarchical:
            return self.root
        found = self._directories.get(directory)
        if found is None:
            normal = os.path.normpath(directory)  # `/a/b/..` is `/a`, whose parent is `/`
            found = self._directories.get(normal) or self._find(normal)
            self._directories[directory] = found
        if isinstance(found, ConfigError):
            raise found.with_traceback(None)  # raised again and again: no frames piling up
        return found

    def _find(self, directory: str) -> Config | ConfigError:
        found = self._directories.get(directory)
        if found is None:
            try:
                source = _config_file_in(Path(directory))
            except ConfigError as exc:  # a pyproject.toml that isn't TOML
                source, found = None, exc
            if source is not None:
                found = self._load(source)
            elif found is None:
                parent = os.path.dirname(directory)
                found = self.root if parent == directory else self._find(parent)
            self._directories[directory] = found
        return found

    def _load(self, source: Path) -> Config | ConfigError:
        key = source.resolve()
        config = self._files.get(key)
        if config is None:
            try:
                loaded = load_file(source).with_overrides(**dict(self.root.overrides))
                config = replace(loaded, hierarchical=True)
            except ConfigError as exc:
                config = exc
            self._files[key] = config
        return config

    def loaded(self) -> list[Config]:
        """The configurations in use so far: the run's own, then the files read."""
        found = [self.root, *(c for c in self._files.values() if isinstance(c, Config))]
        return list({id(c): c for c in found}.values())

    def all_for(self, paths: Iterable[Path]) -> list[Config]:
        """The distinct configurations of `paths` (and the run's own)."""
        for path in paths:
            self.for_path(path)
        return self.loaded()


# --- `--show-settings`: a file's resolved settings and where each came from ---


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else str(value)
    if isinstance(value, str | Path):
        return _quoted(str(value))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_quoted(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return "[" + ", ".join(_toml(item) for item in value) + "]"


def _quoted(text: str) -> str:
    import json  # a TOML basic string is a JSON string for what settings hold

    return json.dumps(text)


def _shown_path(path: Path | str, cwd: Path) -> str:
    try:
        return Path(path).relative_to(cwd).as_posix() or "."
    except ValueError:
        return str(path)


def _setting_value(config: Config, key: str, attr: str, cwd: Path) -> str:
    """The key's value as the file would write it (relative to `config.root`);
    patterns inherited from another directory follow, relative to it."""
    value = getattr(config, attr)
    if key in ("extend-select", "ignore"):
        value = (*value, *(item for layer in config.selections for item in getattr(layer, attr)))
    if key == "per-file-ignores":
        value = dict(value)
    elif key == "rules":
        tables: dict[str, dict[str, Any]] = {}
        for code, option, setting in value:
            tables.setdefault(code, {})[option] = setting
        value = tables
    elif key == "cache-dir" and value is None:
        return '".joblint_cache" in the project root'
    elif value is None:
        return "none"
    text = _toml(value)
    for inherited_attr, root, patterns in config.inherited:
        if inherited_attr == attr:
            shown = dict(patterns) if attr == "per_file_ignores" else patterns
            text += f" + {_toml(shown)} relative to {_shown_path(root, cwd)}/"
    return text


def describe(config: Config, path: Path, cwd: Path | None = None) -> list[str]:
    """`joblint check --show-settings PATH`: the settings the file at `path` (or
    the files of the directory) get, each key with the files that set it."""
    here = cwd or Path.cwd()
    source = _shown_path(config.source, here) if config.source else "none (the defaults)"
    what = "files in" if path.is_dir() else "file"
    lines = [
        f"Settings for {what} {_shown_path(path.absolute(), here)}",
        f"Configuration file: {source}",
        f"Paths relative to: {_shown_path(config.root, here)}/",
        "",
    ]
    rows = []
    for key, (attr, _) in _KEYS.items():
        origin = ", ".join(
            o if o in (COMMAND_LINE, DEFAULT_ORIGIN) else _shown_path(o, here)
            for o in config.origin(key)
        )
        setting = f"{key} = {_setting_value(config, key, attr, here)}"
        rows.append((setting, origin or DEFAULT_ORIGIN))
    width = min(max(len(row) for row, _ in rows), _ORIGIN_COLUMN)
    lines.extend(f"{row:<{width}}  # {origin}" for row, origin in rows)
    codes = sorted(_codes_for(config, path))
    lines.extend(
        [
            "",
            f"Rules run on it: {', '.join(codes) if codes else 'none'}",
            f"Set for the whole run, by the configuration it starts from: {', '.join(RUN_KEYS)}",
        ]
    )
    return lines


# Where `--show-settings` aligns the origins (longer settings push theirs right).
_ORIGIN_COLUMN = 48
# Keys a run takes from its own configuration (found from the current
# directory, or --config), not from each file's: one cache, one baseline, one
# walk of the .gitignore files.
RUN_KEYS = ("cache-dir", "baseline", "respect-gitignore")


def _codes_for(config: Config, path: Path) -> frozenset[str]:
    """The codes run on `path`: the selection less its per-file ignores."""
    codes = config.selected_codes()
    if path.is_dir():
        return codes
    for root, ignores in config.per_file_ignore_groups():
        for glob, ignored in ignores:
            patterns = GlobPatterns([glob])
            try:
                relative: str | None = path.absolute().relative_to(root).as_posix()
            except ValueError:  # inherited patterns name paths below their own root only
                relative = path.as_posix() if root == config.root else None
            if (relative is not None and patterns.match(relative)) or patterns.match(path.name):
                codes = frozenset(c for c in codes if not any(c.startswith(i) for i in ignored))
    return codes

"""The environment a project's deployment files give its app: `.env` files
(`KEY=value`) and the `environment:` of Docker Compose services (the mapping
and the `- KEY=value` list, with `${VAR:-default}` interpolation). Read in
the project root and its configuration directories only (`docker/`,
`envs/`...), never deeper, so that finding them stays cheap. Each file read
becomes facts of no Python file: the whole-project broker rules take a
variable's values from them where the code reads the broker URL from it.

A small line reader, not a YAML parser: it reads the block under an
`environment:` key (and a one-line `[...]`/`{...}` flow form), nothing else.
A file that can't be read or parsed says nothing (it is the project's, not
joblint's, configuration)."""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterator, Mapping
from pathlib import Path

from joblint.models import BrokerFacts, EnvironmentValue, FileFacts, FileResult, Place, Span

ENV_FILE_PREFIX = ".env"
COMPOSE_PREFIXES = ("docker-compose", "compose")
COMPOSE_SUFFIXES = (".yml", ".yaml")
# Directories of the root whose deployment files count; in the env ones every
# file is an env file, also one level down (`.envs/.production/.django`).
CONFIG_DIRECTORIES = frozenset(
    {"config", "configs", "deploy", "deployment", "deployments", "docker", ".docker", "compose"}
)
# (Not `env/`: that is often a virtualenv.)
ENV_DIRECTORIES = frozenset({"envs", ".envs"})
# Files named for tests or CI (`docker-compose.test.yml`, `.env.ci`,
# `docker-compose.override.unit_tests.yml`) configure no deployment: their
# broker (`memory://`, a local SQLite) would only contradict the real one.
TEST_NAME_PARTS = frozenset({"test", "tests", "testing", "ci", "cicd"})
_MAX_FILES = 64
_MAX_BYTES = 256 * 1024

Entry = tuple[str, str, int]  # (variable, value, line)

_ENV_LINE = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)")
_ENVIRONMENT_KEY = re.compile(r"(?:-\s+)?environment\s*:\s*(.*)")
_MAPPING_ENTRY = re.compile(r"""("[^"]*"|'[^']*'|[A-Za-z_][\w.-]*)\s*:(?:\s+(.*))?""")
_ANCHORED_KEY = re.compile(r"(?:-\s+)?[\w.-]+\s*:\s*&([\w.-]+)\s*(?:#.*)?")
_BARE_KEY = re.compile(r"(?:-\s+)?[\w.-]+\s*:\s*(?:#.*)?")
_ALIAS = re.compile(r"^(?:<<\s*:\s*)?\*([\w.-]+)\s*$")
_INTERPOLATION = re.compile(r"\$\{([A-Za-z_]\w*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_]\w*)")


def deployment_facts(
    root: Path, shown: Callable[[Path], str], variables: Container[str]
) -> list[FileResult]:
    """Facts of the deployment files of the project at `root` that set one of
    `variables` (those the code reads: the rest never decides anything)."""
    return facts_of(deployment_values(root, shown), variables)


def deployment_values(root: Path, shown: Callable[[Path], str]) -> list[EnvironmentValue]:
    """Every value the deployment files of the project at `root` give a variable."""
    found: list[EnvironmentValue] = []
    for path, entries in _read(root):
        where = shown(path)
        found.extend(
            EnvironmentValue(variable, value, Place(where, Span(line, 1, line, 1)))
            for variable, value, line in entries
        )
    return found


def facts_of(values: list[EnvironmentValue], variables: Container[str]) -> list[FileResult]:
    """The values of `variables`, as the facts of the files that give them."""
    by_file: dict[str, list[EnvironmentValue]] = {}
    for value in values:
        if value.variable in variables:
            by_file.setdefault(value.place.path, []).append(value)
    return [
        FileResult(
            where,
            facts=FileFacts(module="", broker=BrokerFacts(environment=tuple(given))),
            parsed=False,
        )
        for where, given in by_file.items()
    ]


def deployment_paths(root: Path) -> list[Path]:
    """The deployment files `deployment_values` reads (editing `.env`
    changes what the broker rules report)."""
    return [path for path, _is_env in _files(root)]


def _read(root: Path) -> Iterator[tuple[Path, list[Entry]]]:
    for path, is_env in _files(root):
        text = _text(path)
        if text is None:
            continue
        if is_env:
            yield path, list(env_entries(text))
        else:
            dotenv = _text(path.parent / ENV_FILE_PREFIX)
            known = {k: v for k, v, _line in env_entries(dotenv)} if dotenv is not None else {}
            yield path, list(compose_entries(text, known))


def _files(root: Path) -> list[tuple[Path, bool]]:
    """The deployment files, each with whether it is an env file (else compose)."""
    found: list[tuple[Path, bool]] = []
    children = _listing(root)
    found.extend(_deployment_files(children))
    for child in children:
        if child.name in CONFIG_DIRECTORIES and child.is_dir():
            found.extend(_deployment_files(_listing(child)))
        elif child.name in ENV_DIRECTORIES and child.is_dir():
            for inner in _listing(child):
                found.extend((p, True) for p in [inner, *_listing(inner)] if _is_file(p))
    return found[:_MAX_FILES]


def _deployment_files(paths: list[Path]) -> Iterator[tuple[Path, bool]]:
    for path in paths:
        name = path.name
        if TEST_NAME_PARTS.intersection(re.split(r"[._-]", name.lower())):
            continue
        if name.startswith(ENV_FILE_PREFIX) and _is_file(path):
            yield path, True
        elif _is_compose(name) and _is_file(path):
            yield path, False


def _is_compose(name: str) -> bool:
    return name.startswith(COMPOSE_PREFIXES) and name.endswith(COMPOSE_SUFFIXES)


def _listing(directory: Path) -> list[Path]:
    try:
        return sorted(directory.iterdir()) if directory.is_dir() else []
    except OSError:
        return []


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _text(path: Path) -> str | None:
    try:
        if path.stat().st_size > _MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


# --- .env files --------------------------------------------------------------------


def env_entries(text: str) -> Iterator[Entry]:
    """`KEY=value` lines (`export KEY=value`, quoted values, `# comments`)."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _ENV_LINE.fullmatch(stripped)
        if match is not None:
            value = _scalar(match[2])
            if value:
                yield match[1], value, number


def _scalar(raw: str) -> str:
    """A value as written: quoted (the quotes go), or plain up to a ` #` comment."""
    raw = raw.strip()
    if raw[:1] in ("'", '"'):
        end = raw.find(raw[0], 1)
        return raw[1:end] if end > 0 else ""
    return raw.split(" #", 1)[0].strip()


# --- Docker Compose `environment:` ---------------------------------------------------


def compose_entries(text: str, dotenv: Mapping[str, str]) -> Iterator[Entry]:
    """The entries of every `environment:` block, values interpolated with the
    `.env` beside the file (as Compose does) or the `${VAR:-default}` default.
    A block anchored elsewhere (`x-env: &env`) counts where an `environment:`
    merges it (`<<: *env`) or is it (`environment: *env`)."""
    lines = text.splitlines()
    merged = {
        alias
        for _number, item in _environment_items(lines, frozenset())
        for alias in _ALIAS.findall(item)
    }
    for number, item in _environment_items(lines, frozenset(merged)):
        if item.startswith("<<"):
            continue
        if item[:1] in "[{" and item[-1:] in "]}":
            for inner in _flow_items(item[1:-1]):
                entry = _entry(inner if item[0] == "{" else f"- {inner}", dotenv)
                if entry is not None:
                    yield entry[0], entry[1], number
            continue
        entry = _entry(item, dotenv)
        if entry is not None:
            yield entry[0], entry[1], number


def _environment_items(lines: list[str], anchors: frozenset[str]) -> Iterator[tuple[int, str]]:
    """(line, text) of each entry of the `environment:` blocks and of the
    blocks anchored as one of `anchors`; a one-line `environment: [...]` or
    `environment: *alias` is one item."""
    key_indent: int | None = None  # the block's key's, inside its block
    item_indent: int | None = None
    bare_key: int | None = None  # a key with no value: its anchor may follow
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if key_indent is not None:
            inside = indent > key_indent or (indent == key_indent and stripped.startswith("-"))
            if inside:
                if item_indent is None:
                    item_indent = indent
                if indent == item_indent:
                    yield number, stripped
                continue
            key_indent = item_indent = None
        anchor = stripped[1:].split(" #")[0].strip() if stripped.startswith("&") else ""
        if bare_key is not None and indent > bare_key and anchor in anchors:
            key_indent, bare_key = bare_key, None
            continue
        bare_key = None
        match = _ENVIRONMENT_KEY.fullmatch(stripped)
        anchored = _ANCHORED_KEY.fullmatch(stripped)
        if match is not None:
            rest = match[1].split(" #")[0].strip()
            if not rest or rest.startswith("&"):  # a block (an anchor may name it)
                key_indent = indent + (2 if stripped.startswith("-") else 0)
            else:
                yield number, rest
        elif anchored is not None and anchored[1] in anchors:
            key_indent = indent + (2 if stripped.startswith("-") else 0)
        elif _BARE_KEY.fullmatch(stripped):
            bare_key = indent + (2 if stripped.startswith("-") else 0)


def _flow_items(inner: str) -> Iterator[str]:
    for item in inner.split(","):
        if item.strip():
            yield item.strip()


def _entry(item: str, dotenv: Mapping[str, str]) -> tuple[str, str] | None:
    """`- KEY=value` (list form) or `KEY: value` (mapping form); None for
    anything else (`- KEY` passing the host's value, a merge `<<: *common`)."""
    if item.startswith("-"):
        text = _scalar(item[1:])
        key, equals, value = text.partition("=")
        key = key.strip()
        if not equals or not key.isidentifier():
            return None
    else:
        match = _MAPPING_ENTRY.fullmatch(item)
        if match is None or match[2] is None:
            return None
        key = match[1].strip("'\"")
        value = _scalar(match[2])
        if not key.isidentifier():
            return None
    value = _interpolated(value.strip(), dotenv)
    return (key, value) if value else None


def _interpolated(value: str, dotenv: Mapping[str, str]) -> str:
    """`${VAR}`, `$VAR`, `${VAR:-default}`, `${VAR-default}`, `${VAR:+alt}` as
    Compose reads them: the `.env` value, else the default, else nothing."""

    def substitute(match: re.Match[str]) -> str:
        name = match[1] or match[4]
        operator, default = match[2] or "", match[3] or ""
        known = dotenv.get(name)
        if operator in (":+", "+"):
            return default if known else ""
        if operator in (":-", "-"):
            unset = known is None or (operator == ":-" and not known)
            return default if unset else known or ""
        return known or ""

    return _INTERPOLATION.sub(substitute, value.replace("$$", "\0")).replace("\0", "$")

"""Settings a project names outside its Python code: the Django settings
module its pytest or tox configuration loads (`DJANGO_SETTINGS_MODULE =
shop.settings.test` under `[pytest]`, `[tool:pytest]`,
`[tool.pytest.ini_options]`, or a tox `setenv`), and the Pyramid packages
its ini files include (`pyramid.includes = pyramid_tm`). Each file read
becomes facts, as an entry point's module would give them: the settings it
loads, the flags it sets. A file that can't be read or parsed says nothing
(it is the project's, not joblint's, configuration)."""

from __future__ import annotations

import configparser
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from joblint.models import FileFacts, FileResult

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# The ini files pytest and tox read, and the sections holding pytest's options.
_PYTEST_SECTIONS = {"pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest"}
_TOX = "tox.ini"
_PYPROJECT = "pyproject.toml"
_MAX_INI_FILES = 32  # a directory of generated ini files is no app's config
_MAX_BYTES = 1 << 20


def project_file_facts(root: Path, shown: Callable[[Path], str]) -> list[FileResult]:
    """The facts of the configuration files in `root` (not below it)."""
    found: list[FileResult] = []
    for path, loads, flags in _read(root):
        facts = FileFacts(module="", loads_settings=loads, flags=flags)
        found.append(FileResult(shown(path), facts=facts, parsed=False))
    return found


def project_file_paths(root: Path) -> list[Path]:
    """The configuration files `project_file_facts` reads (where they exist)."""
    named = [root / name for name in (*_PYTEST_SECTIONS, _PYPROJECT)]
    return [*named, *_ini_files(root)]


def _ini_files(root: Path) -> list[Path]:
    return sorted(root.glob("*.ini"))[:_MAX_INI_FILES]


def _read(root: Path) -> Iterator[tuple[Path, tuple[str, ...], tuple[str, ...]]]:
    # Imported here: a run its memo replays names these files (for the memo's
    # key) but never reads them, nor the library tables.
    from joblint.libraries import django, pyramid

    variable = django.SETTINGS_MODULE_VARIABLE
    for name, section in _PYTEST_SECTIONS.items():
        parser = _ini(root / name)
        if parser is None:
            continue
        loads = [*_option(parser, section, variable)]
        if name == _TOX:
            loads.extend(_tox_settings(parser, variable))
        if loads:
            yield root / name, tuple(dict.fromkeys(loads)), ()
    pyproject = _toml(root / _PYPROJECT)
    named = _pyproject_settings(pyproject, variable) if pyproject is not None else ()
    if named:
        yield root / _PYPROJECT, named, ()
    for path in _ini_files(root):
        parser = _ini(path)
        if parser is not None and _includes(parser, pyramid.INI_INCLUDES, pyramid.TM_PACKAGE):
            yield path, (), (pyramid.TM_FLAG,)


def _option(parser: configparser.RawConfigParser, section: str, key: str) -> Iterator[str]:
    if parser.has_option(section, key):
        value = parser.get(section, key).strip()
        if value:
            yield value


def _tox_settings(parser: configparser.RawConfigParser, variable: str) -> Iterator[str]:
    """`setenv = DJANGO_SETTINGS_MODULE=shop.settings.test` in any tox section."""
    for section in parser.sections():
        if not parser.has_option(section, "setenv"):
            continue
        for line in parser.get(section, "setenv").splitlines():
            key, _, value = line.strip().partition("=")
            if key.strip() == variable and value.strip():
                yield value.strip()


def _pyproject_settings(data: dict[str, object], variable: str) -> tuple[str, ...]:
    tool = data.get("tool")
    pytest = tool.get("pytest") if isinstance(tool, dict) else None
    options = pytest.get("ini_options") if isinstance(pytest, dict) else None
    value = options.get(variable) if isinstance(options, dict) else None
    return (value.strip(),) if isinstance(value, str) and value.strip() else ()


def _includes(parser: configparser.RawConfigParser, option: str, package: str) -> bool:
    """`pyramid.includes = pyramid_tm` (one name per line or space) in any section."""
    return any(
        parser.has_option(section, option) and package in parser.get(section, option).split()
        for section in parser.sections()
    )


def _ini(path: Path) -> configparser.RawConfigParser | None:
    text = _text(path)
    if text is None:
        return None
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error:
        return None
    return parser


def _toml(path: Path) -> dict[str, object] | None:
    text = _text(path)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _text(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None

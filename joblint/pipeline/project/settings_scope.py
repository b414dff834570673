"""Settings belong to the project that loads them.

A Django or Celery settings module applies to the code of the project whose
entry points name it (`os.environ.setdefault("DJANGO_SETTINGS_MODULE", ...)`
in `manage.py`/`wsgi.py`/`asgi.py`/`celery.py`, or `app.config_from_object(...)`):
the files under that entry point's project directory. An example or test
project's settings inside a library repository then never exempt or trigger
findings in the library's own code. A settings module no entry point names
applies to every file, as nothing says otherwise.

An entry point's project directory is the directory of its top-level package:
`shop/wsgi.py` (module `shop.wsgi`) gives `shop/`; a top-level module
(`manage.py`) gives its own directory, beside which the project's apps live.
The packages beside it that its settings install (`INSTALLED_APPS`) are the
project's too: `admin/wsgi.py` naming settings that install `osf` covers
`osf/`.
A settings module is loaded by an entry point that names it, or names its
package (`config.settings` for `config/settings/__init__.py`), or a sibling
module of it (`config.settings.prod`, which imports `config.settings.base`).

Works on facts only (no LibCST): the project step imports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from joblint.models import FileResult


@dataclass(frozen=True, slots=True)
class Setter:
    """A file that sets a project-wide fact (a settings module)."""

    module: str
    path: str


@dataclass(slots=True)
class SettingsScopes:
    # (settings module an entry point names, that entry point's project directory)
    loaders: list[tuple[str, str]] = field(default_factory=list)
    # Settings module -> the modules it star-imports (its settings are theirs too).
    stars: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Settings module -> the apps it installs.
    apps: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _roots: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def build(cls, results: Iterable[FileResult]) -> SettingsScopes:
        scopes = cls()
        for result in results:
            facts = result.facts
            if facts.loads_settings:
                root = project_directory(result.path, facts.module)
                scopes.loaders.extend((named, root) for named in facts.loads_settings)
            if facts.module and facts.broker.star_imports:
                scopes.stars[facts.module] = facts.broker.star_imports
            if facts.module and facts.installed_apps:
                scopes.apps[facts.module] = facts.installed_apps
        return scopes

    def applies(self, setter: Setter, path: str) -> bool:
        """Whether what `setter` sets holds for the file at `path`."""
        roots = self._roots_of(setter.module)
        return not roots or any(below(path, root) for root in roots)

    def _roots_of(self, module: str) -> tuple[str, ...]:
        if module not in self._roots:
            found: list[str] = []
            for named, root in self.loaders:
                loaded = self._loaded(named)
                if module and any(_loads(each, module) for each in loaded):
                    found.append(root)
                    found.extend(self._app_roots(root, loaded))
            self._roots[module] = tuple(found)
        return self._roots[module]

    def _app_roots(self, root: str, loaded: set[str]) -> list[str]:
        """The directories of the top-level packages the loaded settings
        install, beside the entry point's own (`osf` beside `admin`)."""
        parent = PurePosixPath(root).parent
        installed = {app.split(".")[0] for m in loaded for app in self.apps.get(m, ())}
        return [(parent / top).as_posix() for top in sorted(installed)]

    def _loaded(self, named: str) -> set[str]:
        """The settings module `named`, and those it star-imports, in turn
        (`admin.settings` built on `from api.settings import *`)."""
        found, todo = {named}, [named]
        while todo:
            module = todo.pop()
            for star in self.stars.get(module, ()):
                if star not in found:
                    found.add(star)
                    todo.append(star)
        return found


def project_directory(path: str, module: str) -> str:
    """The directory of the top-level package holding the file at `path`."""
    parts = PurePosixPath(path).with_suffix("").parts
    depth = len(module.split(".")) if module else 1
    if depth <= 1 or depth > len(parts):
        return PurePosixPath(path).parent.as_posix()
    return PurePosixPath(*parts[: len(parts) - depth + 1]).as_posix()


def _loads(named: str, module: str) -> bool:
    """Whether naming the settings module `named` loads the file `module`."""
    if module == named or module.startswith(f"{named}."):
        return True
    package = named.rpartition(".")[0]
    return bool(package) and module.rpartition(".")[0] == package


def below(path: str, directory: str) -> bool:
    """Whether the file at `path` is in `directory` ("" or ".": any relative path)."""
    if directory in ("", "."):
        return not PurePosixPath(path).is_absolute()
    return path == directory or path.startswith(f"{directory.rstrip('/')}/")

"""Run a function on a module once it is imported (now, if it already is).

The sentinel wraps each library at its own dispatch point, and must do so
before the project imports names from it (``from django_q.tasks import
async_task`` binds the function at import time), without importing a library
the project doesn't use.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

Patch = Callable[[ModuleType], None]

_lock = threading.Lock()
_waiting: dict[str, list[Patch]] = {}


class _Finder(importlib.abc.MetaPathFinder):
    """Finds watched modules through the other finders and patches them after they run."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _waiting:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        created: ModuleType | None = self._loader.create_module(spec)
        return created

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _run_waiting(module.__name__, module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


_finder = _Finder()


def _run_waiting(name: str, module: ModuleType) -> None:
    with _lock:
        patches = _waiting.pop(name, [])
    for patch in patches:
        patch(module)


def when_imported(name: str, patch: Patch) -> None:
    """`patch(module)` once module `name` is imported; at once if it already is."""
    module = sys.modules.get(name)
    if module is not None:
        patch(module)
        return
    with _lock:
        _waiting.setdefault(name, []).append(patch)
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)

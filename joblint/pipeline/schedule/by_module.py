"""A run's files looked up by module name (`ByModule`): the rounds that read
what a finding depends on ask for modules by name many times over."""

from __future__ import annotations

import functools

from joblint.pipeline.project import package_roots
from joblint.pipeline.schedule.sources import Source


class ByModule:
    """Sources looked up by module name, in their order; a project's few
    thousand files are grouped once instead of scanned every round."""

    def __init__(self, sources: list[Source]) -> None:
        self._by_name: dict[str, list[tuple[int, Source]]] = {}
        for position, source in enumerate(sources):
            self._by_name.setdefault(source.module.name, []).append((position, source))

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    @functools.cached_property
    def roots(self) -> dict[str, str]:
        """The packages imported from their own import root (`package_roots`)."""
        return package_roots(self._by_name)

    def of(self, names: set[str]) -> list[Source]:
        found = [entry for name in names for entry in self._by_name.get(name, ())]
        return [source for _, source in sorted(found, key=lambda entry: entry[0])]

    def take(self, names: set[str]) -> list[Source]:
        """`of(names)`, no longer found afterwards."""
        taken = self.of(names)
        for name in names:
            self._by_name.pop(name, None)
        return taken

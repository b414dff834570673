"""What kind a class of the project is, and which columns identify one of
its rows: the kinds (`django_model`, `enum`, ... from the class index)
its own facts give or its bases', through the whole project, or for a
class no loaded file defines, its module's name (`models`); the unique
column sets of a model class and the fields every save of it sets itself,
its bases' included. Settles the `ClassOfKind` and `LacksUniqueKey`
requirements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from joblint.knowledge import payloads
from joblint.pipeline.project.judging import judges
from joblint.requirements import ClassOfKind, LacksUniqueKey

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex


@dataclass(slots=True)
class ClassKinds:
    """The kinds and keys of the project's classes, their bases' included."""

    index: ProjectIndex
    _kinds: dict[str, frozenset[str]] = field(default_factory=dict)
    _unique_keys: dict[str, frozenset[frozenset[str]]] = field(default_factory=dict)

    def of(self, qualname: str) -> frozenset[str]:
        """Kinds of a class, following its bases through the whole project."""
        qualname = self.index.canonical(qualname)
        if qualname not in self._kinds:
            self._kinds[qualname] = frozenset()  # breaks inheritance cycles
            self._kinds[qualname] = self._compute(qualname)
        return self._kinds[qualname]

    def _compute(self, qualname: str) -> frozenset[str]:
        facts = self.index.classes.get(qualname)
        if facts is None:
            return self._unindexed(qualname)
        kinds = set(facts.kinds)
        for base in facts.bases:
            kinds |= self.of(base)
        return frozenset(kinds)

    def _unindexed(self, qualname: str) -> frozenset[str]:
        owner, _, attribute = qualname.rpartition(".")
        if attribute == "Model" and self.index.canonical(owner) in self.index.model_factories:
            return frozenset({self.index.model_factories[self.index.canonical(owner)]})
        kind = self._by_module_name(qualname)
        return frozenset({kind}) if kind else frozenset()

    def _by_module_name(self, qualname: str) -> str:
        """The documented fallback: an unknown class from a module named `models`
        (`payloads.UNRESOLVED_MODEL_MODULES`) is a model."""
        module, _, name = qualname.rpartition(".")
        known = qualname in self.index.plain or qualname in self.index.tasks
        if known or not name[:1].isupper():
            return ""
        parts = module.split(".")
        return next((k for m, k in payloads.UNRESOLVED_MODEL_MODULES.items() if m in parts), "")

    def unique_keys(self, qualname: str) -> frozenset[frozenset[str]]:
        """The column sets that identify one row of a model class, its bases' included."""
        qualname = self.index.canonical(qualname)
        if qualname not in self._unique_keys:
            self._unique_keys[qualname] = frozenset()  # breaks inheritance cycles
            facts = self.index.classes.get(qualname)
            keys: set[frozenset[str]] = set()
            if facts is not None:
                keys.update(frozenset(key) for key in facts.unique_keys)
                for base in facts.bases:
                    keys |= self.unique_keys(base)
            self._unique_keys[qualname] = frozenset(keys)
        return self._unique_keys[qualname]

    def self_set_fields(self, qualname: str, seen: frozenset[str] = frozenset()) -> set[str]:
        """The fields every save of a model class sets itself, its bases' included."""
        qualname = self.index.canonical(qualname)
        facts = self.index.classes.get(qualname)
        if facts is None or qualname in seen:
            return set()
        found = set(facts.self_set_fields)
        for base in facts.bases:
            found |= self.self_set_fields(base, seen | {qualname})
        return found


# --- the requirements on a class's kind and keys ----------------------------------


@judges(ClassOfKind)
def _class_of_kind(index: ProjectIndex, requirement: ClassOfKind, path: str, line: int) -> bool:
    return bool(index.class_kinds.of(requirement.name) & requirement.kinds)


@judges(LacksUniqueKey)
def _lacks_unique(index: ProjectIndex, requirement: LacksUniqueKey, path: str, line: int) -> bool:
    pinned = requirement.pinned
    return not any(key <= pinned for key in index.class_kinds.unique_keys(requirement.model))

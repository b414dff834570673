"""The whole-project step: merge per-file facts and settle pending findings.

Works on `FileResult`s only (never on CST), so per-file results can come from
a cache or a worker process.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from joblint.models import FileResult, Finding, Requirement, TaskDef

_MAX_ALIAS_HOPS = 8


@dataclass(slots=True)
class ProjectIndex:
    tasks: dict[str, TaskDef] = field(default_factory=dict)
    queue_objects: dict[str, str] = field(default_factory=dict)
    plain: set[str] = field(default_factory=set)
    flags: set[str] = field(default_factory=set)
    aliases: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, results: Iterable[FileResult]) -> ProjectIndex:
        index = cls()
        for result in results:
            facts = result.facts
            for task in facts.tasks:
                index.tasks[task.qualname] = task
            index.queue_objects.update(facts.queue_objects)
            index.plain.update(facts.plain_definitions)
            index.flags.update(facts.flags)
            index.aliases.update(facts.aliases)
        return index

    def canonical(self, qualname: str) -> str:
        """Follow re-exports (`pkg/__init__.py: from .tasks import send`)."""
        for _ in range(_MAX_ALIAS_HOPS):
            target = self.aliases.get(qualname)
            if target is None or target == qualname:
                return qualname
            qualname = target
        return qualname

    def task_library(self, qualname: str) -> str | None:
        task = self.tasks.get(self.canonical(qualname))
        if task is None:
            return None
        if task.library:
            return task.library
        return self.queue_objects.get(self.canonical(task.receiver), "")

    def holds(self, requirement: Requirement) -> bool:
        if requirement.kind == "task":
            return self.task_library(requirement.qualname) in requirement.libraries
        if requirement.kind == "not-plain":
            return self.canonical(requirement.qualname) not in self.plain
        if requirement.kind == "flag-off":
            return requirement.qualname not in self.flags
        raise ValueError(f"unknown requirement kind {requirement.kind!r}")


def settle(results: list[FileResult]) -> list[Finding]:
    """Every finding of the run: the certain ones and the pending ones that hold."""
    index = ProjectIndex.build(results)
    findings: list[Finding] = []
    for result in results:
        findings.extend(result.findings)
        for pending in result.pending:
            if all(index.holds(r) for r in pending.requires):
                findings.append(pending.finding)
    findings.sort(key=lambda f: f.sort_key)
    return findings

"""A conservative byte-level prefilter: skip files no selected rule can fire on.

LibCST parsing is the dominant cost, and most files of a project contain no
job code at all. Each rule's triggers come from `joblint.knowledge.tokens`
(derived from the library tables); user-configured function names are added.
A rule without triggers disables the prefilter. Facts other files look up by
name (tasks, classes, constants) are loaded on demand later, so skipping a
file never loses a fact a finding depends on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from joblint.knowledge.tokens import DEFINES_JOBS, PROJECT_FACTS, RULE_TRIGGERS, Trigger


@dataclass(frozen=True, slots=True)
class _Check:
    anchors: frozenset[bytes]
    patterns: tuple[re.Pattern[bytes], ...]
    confirm: str = ""

    def matches(self, lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
        """`present`: the anchors known to occur in `lowered`, when computed."""
        if present is None:
            found = any(a in lowered for a in self.anchors)
        else:
            found = not self.anchors.isdisjoint(present)
        return found and all(p.search(lowered) is not None for p in self.patterns)


def _check(trigger: Trigger) -> _Check:
    return _Check(
        frozenset(a.lower().encode() for a in trigger.anchors),
        tuple(re.compile(p.encode()) for p in trigger.patterns),
        trigger.confirm,
    )


@dataclass(frozen=True, slots=True)
class Decision:
    """Lint the file, or confirm these triggers on its AST first, or skip it."""

    wanted: bool
    confirm: tuple[str, ...] = ()


_DEFINES_JOBS = re.compile(DEFINES_JOBS.encode())
_PROJECT_FACTS = _check(PROJECT_FACTS)


def defines_jobs(lowered: bytes) -> bool:
    """The (lower-cased) file may define a task or a queue object."""
    return _DEFINES_JOBS.search(lowered) is not None


def has_project_facts(data: bytes) -> bool:
    """The file may hold facts the whole-project rules read (JL5 settings)."""
    return _PROJECT_FACTS.matches(data.lower())


class Prefilter:
    def __init__(self, codes: Iterable[str], extra_names: Iterable[str], project_facts: bool):
        self.checks: list[_Check] = []
        # Triggers on ordinary method names (`.send(`): they count only where the
        # file may define jobs, or names one of the project's tasks (second pass).
        self.gated: list[_Check] = []
        self.disabled = False
        self._anchors: set[bytes] = set()
        for code in sorted(codes):
            if code == "JL001":
                continue  # reported for files that can't be read or parsed, whatever else
            if code not in RULE_TRIGGERS:
                self.disabled = True  # a rule that declares no triggers: parse everything
                continue
            for trigger in RULE_TRIGGERS[code]:
                self._add(trigger)
        names = sorted({name.rsplit(".", 1)[-1] for name in extra_names if name})
        # What the decisions depend on besides the bytes (and joblint's code).
        self.signature = json.dumps([sorted(codes), names, project_facts])
        if names:
            self._add(Trigger(tuple(names)))
        if project_facts:
            self._add(PROJECT_FACTS)

    def _add(self, trigger: Trigger) -> None:
        check = _check(trigger)
        where = self.gated if trigger.gated else self.checks
        if check not in where:  # rules sharing triggers: check once
            where.append(check)
            self._anchors.update(check.anchors)

    def decide(self, data: bytes) -> Decision:
        if self.disabled:
            return Decision(True)
        lowered = data.lower()
        # Each anchor is looked for once, however many triggers share it.
        present = frozenset(a for a in self._anchors if a in lowered)
        confirm: list[str] = []
        for check in self.checks:
            if check.matches(lowered, present):
                if not check.confirm:
                    return Decision(True)
                confirm.append(check.confirm)
        if self.has_gated(lowered, present) and defines_jobs(lowered):
            return Decision(True)
        return Decision(False, tuple(sorted(set(confirm))))

    def wants(self, data: bytes) -> bool:
        """Lint it, whatever an AST check would say."""
        decision = self.decide(data)
        return decision.wanted or bool(decision.confirm)

    def has_gated(self, lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
        """A gated trigger is in the (lower-cased) file, whatever it names."""
        return any(check.matches(lowered, present) for check in self.gated)

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
    also: tuple[frozenset[bytes], ...] = ()

    def matches(self, lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
        """`present`: the anchors known to occur in `lowered`, when computed."""
        if present is None:
            present = frozenset(
                a for group in (self.anchors, *self.also) for a in group if a in lowered
            )
        return (
            not self.anchors.isdisjoint(present)
            and all(not group.isdisjoint(present) for group in self.also)
            and all(p.search(lowered) is not None for p in self.patterns)
        )


def _check(trigger: Trigger) -> _Check:
    return _Check(
        _encoded(trigger.anchors),
        tuple(re.compile(p.encode()) for p in trigger.patterns),
        trigger.confirm,
        tuple(_encoded(group) for group in trigger.also),
    )


def _encoded(anchors: Iterable[str]) -> frozenset[bytes]:
    return frozenset(a.lower().encode() for a in anchors)


class _AnchorSearch:
    """Which of many literal anchors occur in a text, looking for few of them:
    an anchor is looked for only once a shorter anchor (or a common stem)
    inside it has been found (`.send_task(` only where `send` is)."""

    def __init__(self, anchors: Iterable[bytes]) -> None:
        anchors = set(anchors)
        words = [w for a in anchors for w in re.findall(rb"[a-z_]{4,}", a)]
        stems = {w for w in set(words) if sum(w in a for a in anchors) >= 3}
        self.order = sorted(anchors | stems, key=lambda a: (len(a), a))
        self.parent = {node: self._longest_inside(node) for node in self.order}

    def _longest_inside(self, node: bytes) -> bytes | None:
        inside = [m for m in self.order if len(m) < len(node) and m in node]
        return max(inside, key=len, default=None)

    def present(self, lowered: bytes) -> frozenset[bytes]:
        found: set[bytes] = set()
        for node in self.order:
            parent = self.parent[node]
            if (parent is None or parent in found) and node in lowered:
                found.add(node)
        return frozenset(found)


@dataclass(frozen=True, slots=True)
class Decision:
    """Lint the file, or confirm these triggers on its AST first, or skip it."""

    wanted: bool
    confirm: tuple[str, ...] = ()


_DEFINES_JOBS = tuple(_check(t) for t in DEFINES_JOBS)
_PROJECT_FACTS = tuple(_check(t) for t in PROJECT_FACTS)


def defines_jobs(lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
    """The (lower-cased) file may define a task or a queue object."""
    return any(check.matches(lowered, present) for check in _DEFINES_JOBS)


def has_project_facts(lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
    """The (lower-cased) file may hold facts the whole-project rules read (JL5)."""
    return any(check.matches(lowered, present) for check in _PROJECT_FACTS)


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
            for trigger in PROJECT_FACTS:
                self._add(trigger)
        for check in (*_DEFINES_JOBS, *_PROJECT_FACTS):  # the flags screening records
            self._anchors.update(check.anchors, *check.also)
        self._search = _AnchorSearch(self._anchors)

    def _add(self, trigger: Trigger) -> None:
        check = _check(trigger)
        where = self.gated if trigger.gated else self.checks
        if check not in where:  # rules sharing triggers: check once
            where.append(check)
            self._anchors.update(check.anchors, *check.also)

    def decide(self, data: bytes) -> Decision:
        lowered = data.lower()
        return self.decide_lowered(lowered, self.present(lowered))

    def decide_lowered(self, lowered: bytes, present: frozenset[bytes]) -> Decision:
        if self.disabled:
            return Decision(True)
        confirm: list[str] = []
        for check in self.checks:
            if check.matches(lowered, present):
                if not check.confirm:
                    return Decision(True)
                confirm.append(check.confirm)
        if self.has_gated(lowered, present) and defines_jobs(lowered, present):
            return Decision(True)
        return Decision(False, tuple(sorted(set(confirm))))

    def present(self, lowered: bytes) -> frozenset[bytes]:
        """The anchors in the (lower-cased) file, each looked for once however
        many triggers share it."""
        return self._search.present(lowered)

    def has_gated(self, lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
        """A gated trigger is in the (lower-cased) file, whatever it names."""
        return any(check.matches(lowered, present) for check in self.gated)

"""A conservative byte-level prefilter: skip files no selected rule can fire on.

LibCST parsing is the dominant cost, and most files of a project contain no
job code at all. Each rule declares its triggers (`Rule.TRIGGERS`, mostly built
from the library tables by `joblint.knowledge.tokens` and its family's
`_tokens`), and the generated rule
catalogue carries them here, so no rule is imported; user-configured function
names are added.
A rule without triggers disables the prefilter. Facts other files look up by
name (tasks, classes, constants) are loaded on demand later, so skipping a
file never loses a fact a finding depends on.
"""

from __future__ import annotations

import functools
import json
import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from joblint import registry
from joblint.knowledge.trigger import Trigger
from joblint.pipeline.screen import ast_checks


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


class _Checks:
    """Checks looked up by their anchors: of a hundred, a file holds the
    anchors of a few, and a check none of whose anchors is present can't
    match, so only those few are asked."""

    def __init__(self, checks: Sequence[_Check]) -> None:
        self.checks = tuple(checks)
        self._by_anchor: dict[bytes, tuple[int, ...]] = {}
        for position, check in enumerate(self.checks):
            for anchor in check.anchors:
                self._by_anchor[anchor] = (*self._by_anchor.get(anchor, ()), position)

    def matching(self, lowered: bytes, present: frozenset[bytes] | None) -> list[_Check]:
        """The checks that match, in their order (`present` as in `_Check.matches`)."""
        return [check for check in self._candidates(present) if check.matches(lowered, present)]

    def any(self, lowered: bytes, present: frozenset[bytes] | None) -> bool:
        return any(check.matches(lowered, present) for check in self._candidates(present))

    def _candidates(self, present: frozenset[bytes] | None) -> list[_Check]:
        """The checks one of whose anchors is `present` (all, when unknown)."""
        if present is None:
            return list(self.checks)
        found = {p for anchor in present for p in self._by_anchor.get(anchor, ())}
        return [self.checks[p] for p in sorted(found)]


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
    """Which of many literal anchors occur in a text, in one pass over it:
    an Aho-Corasick automaton (pyahocorasick, in C), built in the process
    that first searches (the prefilter is handed to the workers as data).
    An `in` test per anchor would scan each file once per anchor: four times
    the time on a job-heavy application's 4,000 files."""

    def __init__(self, anchors: Iterable[bytes]) -> None:
        self.anchors = frozenset(anchors)
        self._automaton: Any = None

    def __getstate__(self) -> frozenset[bytes]:
        return self.anchors

    def __setstate__(self, anchors: frozenset[bytes]) -> None:
        self.anchors = anchors
        self._automaton = None

    def present(self, lowered: bytes) -> frozenset[bytes]:
        if not self.anchors:
            return frozenset()
        automaton = self._automaton
        if automaton is None:
            automaton = self._automaton = anchor_automaton(self.anchors)
        # Latin-1 maps each byte to one character: offsets and matches are the bytes'.
        return frozenset(map(_FOUND, automaton.iter(lowered.decode("latin-1"))))


# An automaton's match: (where it ends, the anchor).
_FOUND = operator.itemgetter(1)


def anchor_automaton(anchors: Iterable[bytes]) -> Any:
    """An Aho-Corasick automaton finding `anchors` in a latin-1 decoded text."""
    import ahocorasick  # here: a warm run never screens

    automaton = ahocorasick.Automaton()
    for anchor in anchors:
        automaton.add_word(anchor.decode("latin-1"), anchor)
    automaton.make_automaton()
    return automaton


@dataclass(frozen=True, slots=True)
class Decision:
    """Lint the file, or confirm these triggers on its AST first, or skip it.

    `codes`: the rules whose triggers matched (None: every selected rule), the
    only ones worth running on the file: a rule can't fire where none of its
    triggers is (what makes the prefilter conservative, tested rule by rule).
    `confirm`: per AST check, the rules it would add."""

    wanted: bool
    confirm: tuple[tuple[str, frozenset[str]], ...] = ()
    codes: frozenset[str] | None = frozenset()
    # A gated trigger (`.send(`) is in the file, whatever it names.
    gated: bool = False
    # The rules of its gated triggers, which count if an AST check confirms
    # the file: it is linted then.
    gated_codes: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Tables:
    """The checks built from the shared trigger vocabulary."""

    defines_jobs: _Checks
    # The triggers of the facts the whole-project rules read, and their checks.
    project_fact_triggers: tuple[Trigger, ...]
    project_facts: tuple[_Check, ...]
    project_settings: _Checks
    project_limits: _Checks
    project_delays: _Checks
    # What opens a transaction in a file's own code, and the shapes of a
    # function run inside another's (a request handler, a signal receiver).
    openings: _Checks
    handler_shapes: _Checks
    commits: _Check
    enqueues: _Checks
    # Contexts a project callable of any name may stand for (`with traced_atomic():`).
    hidden_context: frozenset[bytes]
    # Every anchor `project_facts` reads, searched for in one pass.
    facts_anchors: _AnchorSearch


@functools.cache
def _tables() -> _Tables:
    """The checks, built when a file is first screened: the vocabulary is
    built from every library's tables, which a run replayed from its memo
    never reads."""
    from joblint.knowledge import tokens

    settings = _Checks([_check(t) for t in tokens.PROJECT_SETTINGS])
    limits = _Checks([_check(t) for t in tokens.PROJECT_LIMITS])
    delays = _Checks([_check(t) for t in tokens.PROJECT_DELAYS])
    return _Tables(
        defines_jobs=_Checks([_check(t) for t in tokens.DEFINES_JOBS]),
        project_fact_triggers=tuple(tokens.PROJECT_FACTS),
        project_facts=tuple(_check(t) for t in tokens.PROJECT_FACTS),
        project_settings=settings,
        project_limits=limits,
        project_delays=delays,
        openings=_Checks([_check(t) for t in tokens.OPENING_TRIGGERS]),
        handler_shapes=_Checks([_check(t) for t in tokens.HANDLER_TRIGGERS]),
        commits=_check(tokens.COMMITS),
        enqueues=_Checks([_check(t) for t in tokens.ENQUEUE_TRIGGERS]),
        hidden_context=_encoded(tokens.TRANSACTIONS.anchors),
        facts_anchors=_AnchorSearch(
            anchor
            for checks in (settings, limits, delays)
            for check in checks.checks
            for anchor in (*check.anchors, *(a for group in check.also for a in group))
        ),
    )


def defines_jobs(lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
    """The (lower-cased) file may define a task or a queue object."""
    return _tables().defines_jobs.any(lowered, present)


def project_facts(lowered: bytes, present: frozenset[bytes] | None = None) -> ProjectFacts:
    """The kinds of facts the whole-project rules read (JL5) the (lower-cased)
    file may hold. `present`: the anchors in it, found in one pass here when
    not given (a run naming files asks this alone of every other file)."""
    tables = _tables()
    if present is None:
        present = tables.facts_anchors.present(lowered)
    return ProjectFacts(
        settings=tables.project_settings.any(lowered, present),
        limits=tables.project_limits.any(lowered, present),
        delays=tables.project_delays.any(lowered, present),
    )


@dataclass(frozen=True, slots=True)
class ProjectFacts:
    """Which kinds of whole-project facts a file may hold. Settings count for
    every file; another file's limits only where a finding may name the worst
    of them (a named file sets a broker or a limit itself), its delays only
    where the timeout they are judged against is in a named file."""

    settings: bool = False
    limits: bool = False
    delays: bool = False

    def __bool__(self) -> bool:
        return self.settings or self.limits or self.delays

    def __or__(self, other: ProjectFacts) -> ProjectFacts:
        return ProjectFacts(
            self.settings or other.settings,
            self.limits or other.limits,
            self.delays or other.delays,
        )

    def needed_by(self, named: ProjectFacts) -> bool:
        """Whether a run naming files that hold `named` needs this file's facts."""
        return (
            self.settings
            or (self.limits and (named.settings or named.limits))
            or (self.delays and named.settings)
        )


# Stands for every selected rule in a check's rules.
_ALL_RULES = "*"


class Prefilter:
    """What a file's bytes say the selected rules may report in it. Its
    checks are built when first used: a run replayed from its memo asks only
    for the `signature`."""

    def __init__(self, codes: Iterable[str], extra_names: Iterable[str], project_facts: bool):
        self._codes = sorted(codes)
        self._names = sorted({name.rsplit(".", 1)[-1] for name in extra_names if name})
        self._project_facts = project_facts
        # What the decisions depend on besides the bytes (and joblint's code).
        self.signature = json.dumps([self._codes, self._names, project_facts])
        self._built = False

    def build(self) -> None:
        """The checks of the selected rules' triggers (once)."""
        if self._built:
            return
        self._built = True
        self.checks: list[_Check] = []
        # Triggers on ordinary method names (`.send(`): they count only where the
        # file may define jobs, or names one of the project's tasks (second pass).
        self.gated: list[_Check] = []
        # The rules each check stands for (`_ALL_RULES`: every rule).
        self.codes_of: dict[_Check, set[str]] = {}
        self.disabled = False  # a selected rule declares no triggers: every file is parsed
        self._anchors: set[bytes] = set()
        for code in self._codes:
            if code in registry.BUILTIN_CODES:
                continue  # JL001: reported for files that can't be read or parsed
            triggers = registry.triggers(code)
            if not triggers:
                self.disabled = True
                continue
            # A rule judging suppressions judges them by the rules that ran.
            rule = _ALL_RULES if registry.judges_suppressions(code) else code
            for trigger in triggers:
                self._add(trigger, {rule})
        names = self._names
        # The user's functions may open transactions: their names count as one.
        self._transaction_names = _check(Trigger(tuple(names))) if names else None
        if names:  # the user's enqueue/transaction functions: any rule may use them
            self._add(Trigger(tuple(names)), {_ALL_RULES})
        tables = _tables()
        if self._project_facts:  # facts for the whole-project rules: no per-file rule
            for trigger in tables.project_fact_triggers:
                self._add(trigger, set())
        # The flags screening records.
        flagged = (
            *tables.defines_jobs.checks,
            *tables.project_facts,
            *tables.openings.checks,
            *tables.handler_shapes.checks,
            tables.commits,
        )
        for check in flagged:
            self._anchors.update(check.anchors, *check.also)
        self._search = _AnchorSearch(self._anchors)
        self._checks = _Checks(self.checks)
        self._gated = _Checks(self.gated)

    def _add(self, trigger: Trigger, codes: set[str]) -> None:
        if trigger.confirm:
            ast_checks.step(trigger.confirm)  # a step no family registers: fail now, loudly
        check = _check(trigger)
        where = self.gated if trigger.gated else self.checks
        if check not in where:  # rules sharing triggers: check once
            where.append(check)
            self._anchors.update(check.anchors, *check.also)
        self.codes_of.setdefault(check, set()).update(codes)

    def decide_lowered(self, lowered: bytes, present: frozenset[bytes]) -> Decision:
        gated = self.gated_codes(lowered, present)
        if self.disabled:
            return Decision(True, codes=None, gated=bool(gated))
        wanted = False
        codes: set[str] = set()
        confirm: dict[str, set[str]] = {}
        for check in self._checks.matching(lowered, present):
            if check.confirm:
                confirm.setdefault(check.confirm, set()).update(self.codes_of[check])
            else:
                wanted = True
                codes.update(self.codes_of[check])
        if gated and (wanted or defines_jobs(lowered, present)):
            # Linted anyway: its gated triggers count (the second pass sees only
            # skipped files).
            wanted = True
            codes.update(gated)
        if wanted:  # the AST checks would only add rules: run theirs too
            for extra in confirm.values():
                codes.update(extra)
            return Decision(True, (), every_rule_or(codes), gated=bool(gated))
        checks = tuple(sorted((name, frozenset(c)) for name, c in confirm.items()))
        return Decision(False, checks, frozenset(), bool(gated), frozenset(gated))

    def transactional(self, lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
        """The (lower-cased) file may open a transaction, or hold a request
        handler or a signal receiver, run inside another's."""
        return self.opens_transaction(lowered, present) or self.handler_shaped(lowered, present)

    def opens_transaction(self, lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
        """The (lower-cased) file may open a transaction (or run in a
        framework's) in its own code: more than a handler's or a receiver's shape."""
        self.build()
        names = self._transaction_names
        return _tables().openings.any(lowered, present) or (
            names is not None and names.matches(lowered, present)
        )

    @staticmethod
    def handler_shaped(lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
        """The (lower-cased) file may hold a request handler or a signal
        receiver, run inside another's transaction."""
        return _tables().handler_shapes.any(lowered, present)

    @staticmethod
    def enqueues(lowered: bytes) -> bool:
        """The (lower-cased) file may enqueue a job (by a call's name alone:
        a gated word method counts)."""
        return _tables().enqueues.any(lowered, None)

    def commits(self, lowered: bytes, present: frozenset[bytes] | None = None) -> bool:
        """The (lower-cased) file may commit a transaction explicitly."""
        return _tables().commits.matches(lowered, present)

    @staticmethod
    def has_context(code: str, lowered: bytes) -> bool:
        """Whether the (lower-cased) file may hold what the rule `code`'s
        triggers need besides the enqueue (`Trigger.also`: a commit, a
        transaction): a call in it leading to an enqueue elsewhere may then
        make it report. A transaction may be opened by a project callable of
        any name, so a file always may hold one."""
        return any(
            all(
                not _tables().hidden_context.isdisjoint(_encoded(group))
                or any(anchor in lowered for anchor in _encoded(group))
                for group in t.also
            )
            for t in registry.triggers(code)
        )

    def gated_codes(self, lowered: bytes, present: frozenset[bytes] | None = None) -> set[str]:
        """The rules of the gated triggers in the (lower-cased) file."""
        self.build()
        codes: set[str] = set()
        for check in self._gated.matching(lowered, present):
            codes.update(self.codes_of[check])
        return codes

    def present(self, lowered: bytes) -> frozenset[bytes]:
        """The anchors in the (lower-cased) file, each looked for once however
        many triggers share it."""
        self.build()
        return self._search.present(lowered)


def every_rule_or(codes: set[str]) -> frozenset[str] | None:
    """`codes`, or None (every selected rule) if one of them needs all."""
    return None if _ALL_RULES in codes else frozenset(codes)

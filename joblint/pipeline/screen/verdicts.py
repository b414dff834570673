"""What the prefilter found in a file's bytes, remembered by content hash.

A warm run should cost little more than reading the files: the prefilter's
regular expressions, the second pass's job-library test and the syntax check
of skipped files all depend on the bytes alone (and on joblint's code, the
selected rules and the Python version), so their outcome is stored per content
digest in one file of the cache directory, read once per run and written
atomically at its end. A lost or damaged file only means recomputing.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from joblint import __version__
from joblint.index.ast_walk import quiet_ast_parse
from joblint.pipeline.cache import read_record, write_record
from joblint.pipeline.screen.ast_checks import confirmed, confirmed_in_parts, reads_in_parts
from joblint.pipeline.screen.prefilter import (
    Prefilter,
    ProjectFacts,
    defines_jobs,
    every_rule_or,
    project_facts,
)
from joblint.pipeline.source import budget, syntax_check
from joblint.settings import LintSettings


# Files that may define a task whose call enqueues it (Huey's), on lower-cased bytes.
@functools.cache
def _on_call_tasks() -> re.Pattern[bytes]:
    """What a file defining tasks that enqueue when called holds (Huey's),
    compiled when a file is first screened (the vocabulary is built from every
    library's tables, which a replayed run never reads)."""
    from joblint.knowledge.tokens import DEFINES_ON_CALL_TASKS

    return re.compile(DEFINES_ON_CALL_TASKS.encode())


NO_CODES = LintSettings(frozenset())
# Entries kept from earlier runs besides this run's files (bounded size).
MAX_REMEMBERED = 200_000


@dataclass(slots=True)
class Screening:
    """A file's prefilter verdict, settled: triggers that need Python's AST
    to confirm them (`joblint.pipeline.screen.ast_checks`) have been checked on it."""

    wanted: bool
    # The rules worth running on it, if wanted (None: every selected rule).
    codes: frozenset[str] | None
    defines_jobs: bool
    # A gated trigger (`.send(`): linted if the file names a project task.
    gated: bool
    project_facts: ProjectFacts
    # Names a library whose tasks enqueue when called (Huey): read for task names.
    on_call: bool
    # Opens a transaction somewhere (`atomic`, `.begin(`, ...), or has a
    # request handler's or a signal receiver's shape (run inside the
    # request's or the sender's transaction).
    transactional: bool = False
    # Python parses it (None: not looked at; files LibCST lints aren't).
    parses: bool | None = None
    # Commits explicitly somewhere (`session.commit()`): its calls before a
    # commit are read for chains to an enqueue.
    commits: bool = False
    # Opens a transaction in its own code, not only by a handler's or a
    # receiver's shape: its calls inside one are read for chains to an enqueue
    # (joblint.pipeline.project.call_graph).
    opens_transaction: bool = False
    # Only what a file that is never linted gives the run (`screen_for_facts`):
    # remembered under its own key (`FACTS_KEY`), screened in full if more is asked of it.
    facts_only: bool = False

    def to_json(self) -> list[object]:
        codes = None if self.codes is None else sorted(self.codes)
        flags = [
            self.wanted,
            self.defines_jobs,
            self.gated,
            self.project_facts.settings,
            self.project_facts.limits,
            self.project_facts.delays,
            self.on_call,
            self.transactional,
            self.commits,
            self.opens_transaction,
        ]
        return [*flags, codes, self.parses]

    @classmethod
    def from_json(cls, raw: object) -> Screening | None:
        if not isinstance(raw, list) or len(raw) != 12:
            return None
        *flags, codes, parses = raw
        if not all(isinstance(f, bool) for f in flags) or parses not in (True, False, None):
            return None
        if codes is not None and not (
            isinstance(codes, list) and all(isinstance(c, str) for c in codes)
        ):
            return None
        wanted, defines, gated, settings, limits, delays, on_call, transactional, commits, opens = (
            flags
        )
        rules = None if codes is None else frozenset(codes)
        facts = ProjectFacts(settings, limits, delays)
        return cls(
            wanted, rules, defines, gated, facts, on_call, transactional, parses, commits, opens
        )


def screen_for_facts(data: bytes) -> Screening:
    """What a file outside the paths named gives a run: whether it holds
    project facts and names a library whose tasks enqueue when called. The
    rules' triggers, which only a linted file needs, are not looked for."""
    lowered = data.lower()
    return Screening(
        wanted=False,
        codes=frozenset(),
        defines_jobs=False,
        gated=False,
        project_facts=project_facts(lowered),
        on_call=_on_call_tasks().search(lowered) is not None,
        facts_only=True,
    )


def screen_source(prefilter: Prefilter, data: bytes, check_syntax: bool) -> Screening:
    """Screen a file's bytes; a file not wanted outright is parsed with
    Python's `ast` (the syntax check it needs anyway, when `check_syntax`)
    and the AST checks its triggers call for decide. Runs in the workers."""
    lowered = data.lower()
    present = prefilter.present(lowered)
    decision = prefilter.decide_lowered(lowered, present)
    opens = prefilter.opens_transaction(lowered, present)
    screening = Screening(
        wanted=decision.wanted,
        codes=decision.codes,
        defines_jobs=defines_jobs(lowered, present),
        gated=decision.gated,
        project_facts=project_facts(lowered, present),
        on_call=_on_call_tasks().search(lowered) is not None,
        transactional=opens or prefilter.handler_shaped(lowered, present),
        opens_transaction=opens,
        commits=prefilter.commits(lowered, present),
    )
    if decision.wanted or not (decision.confirm or check_syntax):
        return screening
    if not decision.confirm:
        screening.parses = syntax_check("", data, NO_CODES).parsed
        return screening
    codes = _confirmed_codes(data, lowered, dict(decision.confirm))
    if codes:  # linted: its gated triggers count too
        codes |= decision.gated_codes
    screening.wanted = bool(codes)
    screening.codes = every_rule_or(codes) if codes else frozenset()
    if not screening.wanted:
        screening.parses = True
    return screening


def _confirmed_codes(data: bytes, lowered: bytes, checks: dict[str, frozenset[str]]) -> set[str]:
    """The rules of the AST checks that confirm a trigger. Anything `ast`
    can't take goes to LibCST (with every check's rules), which reports it
    as it would."""
    held: Iterable[str] = checks
    if budget.check_size(len(data)) is None:
        with contextlib.suppress(SyntaxError, ValueError, RecursionError, MemoryError):
            held = _held(data, lowered, checks)
    return {code for name in held for code in checks[name]}


def _held(data: bytes, lowered: bytes, checks: Iterable[str]) -> set[str]:
    """The checks that hold. Where they read only some top-level statements
    and Python certainly parses the file (its syntax check, the symbol
    table: a third of `ast.parse`'s cost), only those are parsed with `ast`."""
    if reads_in_parts(data, lowered, checks) and syntax_check("", data, NO_CODES).parsed:
        found = confirmed_in_parts(data, lowered, checks)
        if found is not None:
            return found
    return confirmed(quiet_ast_parse(data), checks, lowered)


def digest(data: bytes) -> str:
    # SHA-256 has CPU instructions on most machines: ~2.5x faster than BLAKE2 here.
    return hashlib.sha256(data).hexdigest()[:32]


# A facts-only screening (`screen_for_facts`) is remembered under its own key:
# it never stands for the full screening a file that may be linted needs.
FACTS_KEY = "facts:"


class Screener:
    """Screens files with the prefilter; remembers outcomes in `directory`
    (None: in memory only, for `--no-cache` runs)."""

    def __init__(self, prefilter: Prefilter, directory: Path | None, code: str) -> None:
        signature = json.dumps(
            [__version__, code, sys.version_info[:2], prefilter.signature], sort_keys=True
        )
        name = hashlib.blake2b(signature.encode(), digest_size=8).hexdigest()
        self.path = directory / f"screen-{name}.json" if directory is not None else None
        self._known: dict[str, Screening] = self._load()
        self._seen: set[str] = set()
        self._changed = False
        self.saved = False  # this run wrote the record

    def _load(self) -> dict[str, Screening]:
        if self.path is None:
            return {}
        known = {}
        for key, value in read_record(self.path).items():
            found = Screening.from_json(value)
            if found is not None:
                found.facts_only = key.startswith(FACTS_KEY)
                known[key] = found
        return known

    def lookup(self, key: str) -> Screening | None:
        """The remembered screening of these bytes, if any."""
        self._seen.add(key)
        return self._known.get(key)

    def record(self, key: str, screening: Screening) -> None:
        self._known[key] = screening
        self._changed = True

    @property
    def remembers(self) -> bool:
        """Earlier runs left screenings (a warm run, most likely)."""
        return bool(self._known)

    def parses(self, key: str, ok: bool) -> None:
        found = self._known.get(key)
        if found is not None and found.parses is not ok:
            found.parses = ok
            self._changed = True

    def save(self) -> None:
        if self.path is None or not self._changed:
            return
        self.saved = True
        known = self._known
        if len(known) > MAX_REMEMBERED:
            known = {k: v for k, v in known.items() if k in self._seen}
        payload = json.dumps({k: v.to_json() for k, v in known.items()}, separators=(",", ":"))
        write_record(self.path, payload, self.path.parent)

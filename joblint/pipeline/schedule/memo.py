"""A run's outcome, remembered by everything it was decided from.

Past the first pass, a run decides round by round what else to read: the
second pass over files naming the project's tasks, the facts findings depend
on, the modules the project model's calls lead to, the files where a chain
reports. On a warm cache each job is a cache hit, but the decisions are
recomputed from the merged results every round (merging them into the
project index, searching the call graph, searching file bytes for names),
and on a large application that is most of a warm run. Every decision is a
function of the files (their paths as shown, module names and content
digests), the settings each file is linted with, the screening's
signature and joblint's own code, so a run whose inputs are all the same
as a remembered run's ends with the same results: the memo keeps, per such
key, the cache entries of the run's final results and context, and a run
that finds its key loads those and skips the rounds. Nothing is assumed
beyond the key: a missing entry means running the rounds.

The memo also keeps what the run reported (its findings, the count of those
hidden in test code, its warnings and internal errors), with a fingerprint
of what settling the results depends on besides them (the configurations in
use: project settings, test code). A run with both the same reports that
without settling anything or decoding an entry; its results and context,
which only re-linting a file with the project around it needs (fixes, the
language server), are decoded when first asked for.

One JSON file in the cache directory (a few recent keys), written
atomically; a lost or damaged one only means running the rounds.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from joblint import __version__
from joblint.models import FileResult, Finding
from joblint.pipeline.cache import (
    ENTRY_FORMAT,
    ResultCache,
    code_fingerprint,
    decode,
    encode,
    read_record,
    settings_fingerprint,
    write_record,
)
from joblint.settings import LintSettings, ModuleInfo

MEMO_NAME = "memo.json"
MAX_MEMOS = 4


@dataclass(frozen=True, slots=True)
class Input:
    """One file as a run's decisions see it."""

    shown: str
    module: ModuleInfo
    digest: str
    settings: LintSettings


@dataclass(frozen=True, slots=True)
class PartShape:
    """One part of a run modelled apart (`subprojects`): how many of the
    run's results and of its context it holds, and its sub-projects'
    directories."""

    results: int
    context: int
    homes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    results: list[FileResult]
    context: list[FileResult]
    named: frozenset[str] | None  # the named files linted, in a run naming files
    # The parts modelled apart, in order. Empty: one part, all of them.
    shapes: tuple[PartShape, ...] = ()

    def parts(self) -> list[tuple[tuple[list[FileResult], list[FileResult]], tuple[str, ...]]]:
        """Each part's results and context, and its sub-projects' directories."""
        homes = [shape.homes for shape in self.shapes] or [()]
        return list(zip(cut(self.results, self.context, self.shapes), homes, strict=True))


def cut(
    results: list[FileResult], context: list[FileResult], shapes: tuple[PartShape, ...]
) -> list[tuple[list[FileResult], list[FileResult]]]:
    """`results` and `context` cut into the parts `shapes` tells of."""
    if not shapes:
        return [(results, context)]
    found, own, read = [], 0, 0
    for shape in shapes:
        found.append((results[own : own + shape.results], context[read : read + shape.context]))
        own, read = own + shape.results, read + shape.context
    return found


@dataclass(frozen=True, slots=True)
class Settled:
    """What a run reported, settled from its outcome; `by`: the fingerprint
    of what settling depended on besides the outcome."""

    findings: list[Finding]
    hidden_in_tests: int
    internal_errors: list[str]
    warnings: list[str]
    by: str


class Remembered:
    """A remembered run: what it reported, when recorded, and its outcome,
    whose entries are decoded when first asked for."""

    def __init__(
        self,
        cache: ResultCache,
        keys: tuple[list[str], list[str]],
        named: frozenset[str] | None,
        settled: Settled | None,
        shapes: tuple[PartShape, ...] = (),
    ) -> None:
        self._cache = cache
        self._keys = keys
        self.named = named
        self.shapes = shapes
        self.settled = settled
        self._outcome: Outcome | None = None

    def outcome(self) -> Outcome | None:
        """The run's results and context; None if an entry is gone since."""
        if self._outcome is None:
            results = self._entries(self._keys[0])
            context = self._entries(self._keys[1])
            if results is None or context is None:
                return None
            self._outcome = Outcome(results, context, self.named, self.shapes)
        return self._outcome

    def _entries(self, keys: list[str]) -> list[FileResult] | None:
        found = []
        for key in keys:
            result = self._cache.get(key)
            if result is None:
                return None  # pruned since, or damaged
            found.append(result)
        return found


def stat_signature(paths: list[Path]) -> list[str]:
    """Files read every run, as the memo tells them apart: path, size and
    modification time (those that can't be read are left out)."""
    found: list[str] = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            continue
        found.append(f"{path.as_posix()}:{info.st_size}:{info.st_mtime_ns}")
    return found


def run_key(own: list[Input], others: list[Input], how: list[object]) -> str:
    """`own`: the run's files; `others`: the rest of the project, read for
    facts (a run naming files); `how`: whatever else the run's decisions
    depend on (the screening's signature, the run's options)."""
    digest = hashlib.sha256()
    head = [__version__, ENTRY_FORMAT, code_fingerprint(), list(sys.version_info[:2]), how]
    digest.update(json.dumps(head, sort_keys=True, default=str).encode())
    fingerprints: dict[LintSettings, str] = {}  # files of one configuration share settings
    for group in (own, others):
        digest.update(b"\1")
        for item in group:
            known = fingerprints.get(item.settings)
            if known is None:
                known = fingerprints[item.settings] = settings_fingerprint(item.settings)
            for part in (item.shown, item.module.name, str(item.module.is_package), item.digest):
                digest.update(part.encode("utf-8", "surrogateescape"))
                digest.update(b"\0")
            digest.update(known.encode())
    return digest.hexdigest()


class Memo:
    """The memo, for the run whose key is `key` (`run_key`)."""

    def __init__(self, cache: ResultCache, key: str) -> None:
        self.cache = cache
        self.key = key
        self.path = cache.directory / MEMO_NAME

    def load(self, settling: str) -> Remembered | None:
        """The run remembered under the key, if every entry it needs is still
        cached; what it reported with it when settled with `settling` too."""
        entry = read_record(self.path).get(self.key)
        if not isinstance(entry, dict):
            return None
        results, context, named = entry.get("results"), entry.get("context"), entry.get("named")
        if not (_strings(results) and _strings(context)):
            return None
        if named is not None and not _strings(named):
            return None
        shapes = _shapes(entry.get("parts", []), len(results), len(context))
        if shapes is None:
            return None
        if not all(self.cache.has(key) for key in (*results, *context)):
            return None
        settled = _settled(entry.get("settled"), settling)
        named_files = None if named is None else frozenset(named)
        return Remembered(self.cache, (results, context), named_files, settled, shapes)

    def save(
        self,
        outcome: Outcome,
        entries: dict[int, tuple[str, FileResult]],
        settled: Settled | None = None,
    ) -> None:
        """Remember the outcome, if every result in it came from a cache entry
        (`entries`: each such result's entry, by the result's id), and what
        the run reported (`settled`)."""
        results = _entry_keys(outcome.results, entries)
        context = _entry_keys(outcome.context, entries)
        if results is None or context is None:
            return  # a result no entry holds: nothing to replay it from
        named = None if outcome.named is None else sorted(outcome.named)
        record = read_record(self.path)
        record.pop(self.key, None)
        kept = dict(list(record.items())[-(MAX_MEMOS - 1) :])
        kept[self.key] = {
            "results": results,
            "context": context,
            "named": named,
            "parts": [[p.results, p.context, list(p.homes)] for p in outcome.shapes],
        }
        if settled is not None:
            kept[self.key]["settled"] = {
                "by": settled.by,
                "findings": encode(settled.findings),
                "hidden": settled.hidden_in_tests,
                "internal_errors": settled.internal_errors,
                "warnings": settled.warnings,
            }
        payload = json.dumps(kept, separators=(",", ":"))
        write_record(self.path, payload, self.cache.directory)


def _entry_keys(
    results: list[FileResult], entries: dict[int, tuple[str, FileResult]]
) -> list[str] | None:
    keys = []
    for result in results:
        found = entries.get(id(result))
        if found is None or found[1] is not result:
            return None
        keys.append(found[0])
    return keys


def _shapes(value: object, results: int, context: int) -> tuple[PartShape, ...] | None:
    """The parts as recorded, if well formed and adding up to the outcome."""
    if not isinstance(value, list):
        return None
    shapes = []
    for shape in value:
        if not (isinstance(shape, list) and len(shape) == 3):
            return None
        own, read, homes = shape
        if not (type(own) is int and type(read) is int and _strings(homes)):
            return None
        shapes.append(PartShape(own, read, tuple(homes)))
    if shapes and (sum(p.results for p in shapes), sum(p.context for p in shapes)) != (
        results,
        context,
    ):
        return None
    return tuple(shapes)


def _strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _settled(value: Any, settling: str) -> Settled | None:
    """What the run reported, if recorded, settled as `settling` says, and well formed."""
    if not isinstance(value, dict) or value.get("by") != settling:
        return None
    try:
        findings = decode(value["findings"])
        hidden = value["hidden"]
        errors, warnings = value["internal_errors"], value["warnings"]
    except (KeyError, TypeError, ValueError):
        return None
    well_formed = (
        isinstance(findings, tuple)
        and all(isinstance(f, Finding) for f in findings)
        and isinstance(hidden, int)
        and _strings(errors)
        and _strings(warnings)
    )
    if not well_formed:
        return None
    return Settled(list(findings), hidden, errors, warnings, settling)

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

One JSON file in the cache directory (a few recent keys), written
atomically; a lost or damaged one only means running the rounds.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass

from joblint import __version__
from joblint.models import FileResult
from joblint.pipeline.cache import (
    ENTRY_FORMAT,
    ResultCache,
    code_fingerprint,
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
class Outcome:
    results: list[FileResult]
    context: list[FileResult]
    named: frozenset[str] | None  # the named files linted, in a run naming files


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

    def load(self) -> Outcome | None:
        """The run's remembered outcome, if every entry is still cached."""
        entry = read_record(self.path).get(self.key)
        if not isinstance(entry, dict):
            return None
        try:
            results = self._entries(entry["results"])
            context = self._entries(entry["context"])
            named = entry["named"]
        except (KeyError, TypeError, ValueError):
            return None
        if named is not None and not (
            isinstance(named, list) and all(isinstance(n, str) for n in named)
        ):
            return None
        return Outcome(results, context, None if named is None else frozenset(named))

    def _entries(self, keys: object) -> list[FileResult]:
        if not isinstance(keys, list):
            raise ValueError(keys)
        found = []
        for key in keys:
            result = self.cache.get(key) if isinstance(key, str) else None
            if result is None:
                raise ValueError(key)  # pruned since, or damaged: run the rounds
            found.append(result)
        return found

    def save(self, outcome: Outcome, entries: dict[int, tuple[str, FileResult]]) -> None:
        """Remember the outcome, if every result in it came from a cache entry
        (`entries`: each such result's entry, by the result's id)."""
        results = _entry_keys(outcome.results, entries)
        context = _entry_keys(outcome.context, entries)
        if results is None or context is None:
            return  # a result no entry holds: nothing to replay it from
        named = None if outcome.named is None else sorted(outcome.named)
        record = read_record(self.path)
        record.pop(self.key, None)
        kept = dict(list(record.items())[-(MAX_MEMOS - 1) :])
        kept[self.key] = {"results": results, "context": context, "named": named}
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

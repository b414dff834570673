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
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from joblint import __version__
from joblint.cache import ensure_marker_files
from joblint.prefilter import Prefilter, defines_jobs, has_project_facts

# Entries kept from earlier runs besides this run's files (bounded size).
MAX_REMEMBERED = 200_000


@dataclass(slots=True)
class Screening:
    wanted: bool
    # AST checks that must confirm a trigger before the file is linted.
    confirm: tuple[str, ...]
    defines_jobs: bool
    # A gated trigger (`.send(`): linted if the file names a project task.
    gated: bool
    project_facts: bool
    # Python parses it (None: not known yet). Known only for files not linted.
    parses: bool | None = None

    def to_json(self) -> list[object]:
        return [
            self.wanted,
            list(self.confirm),
            self.defines_jobs,
            self.gated,
            self.project_facts,
            self.parses,
        ]

    @classmethod
    def from_json(cls, raw: object) -> Screening | None:
        if not isinstance(raw, list) or len(raw) != 6 or not isinstance(raw[1], list):
            return None
        wanted, confirm, defines, gated, facts, parses = raw
        flags = (wanted, defines, gated, facts)
        if not all(isinstance(f, bool) for f in flags) or parses not in (True, False, None):
            return None
        if not all(isinstance(c, str) for c in confirm):
            return None
        return cls(wanted, tuple(confirm), defines, gated, facts, parses)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Screener:
    """Screens files with the prefilter; remembers outcomes in `directory`
    (None: in memory only, for `--no-cache` runs)."""

    def __init__(self, prefilter: Prefilter, directory: Path | None, code: str) -> None:
        self.prefilter = prefilter
        signature = json.dumps(
            [__version__, code, sys.version_info[:2], prefilter.signature], sort_keys=True
        )
        name = hashlib.blake2b(signature.encode(), digest_size=8).hexdigest()
        self.path = directory / f"screen-{name}.json" if directory is not None else None
        self._known: dict[str, Screening] = self._load()
        self._seen: set[str] = set()
        self._changed = False

    def _load(self) -> dict[str, Screening]:
        if self.path is None:
            return {}
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(raw, dict):
            return {}
        known = {}
        for key, value in raw.items():
            found = Screening.from_json(value)
            if found is not None:
                known[key] = found
        return known

    def screen(self, key: str, data: bytes) -> Screening:
        self._seen.add(key)
        found = self._known.get(key)
        if found is None:
            found = self._compute(data)
            self._known[key] = found
            self._changed = True
        return found

    def _compute(self, data: bytes) -> Screening:
        lowered = data.lower()
        present = self.prefilter.present(lowered)
        decision = self.prefilter.decide_lowered(lowered, present)
        return Screening(
            wanted=decision.wanted,
            confirm=decision.confirm,
            defines_jobs=defines_jobs(lowered, present),
            gated=self.prefilter.has_gated(lowered, present),
            project_facts=has_project_facts(lowered, present),
        )

    def rejected(self, key: str) -> None:
        """The AST checks found nothing: the file parses and is not linted."""
        found = self._known.get(key)
        if found is not None and (found.confirm or found.parses is not True):
            found.confirm, found.parses = (), True
            self._changed = True

    def parses(self, key: str, ok: bool) -> None:
        found = self._known.get(key)
        if found is not None and found.parses is not ok:
            found.parses = ok
            self._changed = True

    def save(self) -> None:
        if self.path is None or not self._changed:
            return
        known = self._known
        if len(known) > MAX_REMEMBERED:
            known = {k: v for k, v in known.items() if k in self._seen}
        payload = json.dumps({k: v.to_json() for k, v in known.items()}, separators=(",", ":"))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ensure_marker_files(self.path.parent)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(payload)
            os.replace(temporary, self.path)
        except OSError:
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(temporary)

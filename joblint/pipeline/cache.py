"""A content-hash cache of per-file results (findings and facts).

Entries live in `.joblint_cache/` at the project root, keyed by the file's
bytes, its shown path and module name, the settings that affect it and
joblint's version. A run writes the entries it computed together, in one
pack (`packs/pack-*.json`: a line of keys and where each entry ends, then
the entries), not a file each: creating a file is the costly part of
writing one (about a millisecond each on some virtual disks, hundreds in a
cold run), and a CI cache restores a few packs much faster than thousands
of small files. JSON, not pickle: a cache directory is data that may come
from anywhere, and loading it must never run code. Packs are written
atomically (temporary file + rename), so concurrent runs never see half of
one; small packs are merged as they pile up, and the entries are bounded
(`ResultCache.prune_if_full`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import itertools
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from joblint import __version__, models
from joblint.settings import LintSettings, ModuleInfo

CACHE_DIR_NAME = ".joblint_cache"
# Bumped when what an entry holds changes within a version.
# Entries are decoded positionally: an entry written before a dataclass gained
# a field would load with that field's default, silently wrong.
ENTRY_FORMAT = "20"
# The joblint package: every module of it (rules, index, knowledge) shapes entries.
PACKAGE_DIR = Path(__file__).resolve().parents[1]
MAX_ENTRIES = 50_000
# Packs kept before they are merged into one (each run that computed
# something writes one: a pre-commit run a small one).
MAX_PACKS = 32
PACKS_DIR = "packs"
# Screening records kept (one per joblint version, code and rule selection).
MAX_SCREENINGS = 4


def _classes(module: ModuleType) -> dict[str, type[Any]]:
    return {
        cls.__name__: cls
        for cls in vars(module).values()
        if isinstance(cls, type) and dataclasses.is_dataclass(cls)
    }


# The classes an entry may hold, by name; a pending finding's requirements
# join them when first met (a run replayed from its memo decodes findings only).
_MODELS: dict[str, type[Any]] = _classes(models)


# Each model's field names, in order: what an entry holds of it.
_FIELDS: dict[type[Any], tuple[str, ...]] = {
    cls: tuple(f.name for f in dataclasses.fields(cls)) for cls in _MODELS.values()
}


def _model(name: str) -> type[Any]:
    """The class an entry names (KeyError for any other: a bad entry, a miss)."""
    found = _MODELS.get(name)
    if found is None:
        from joblint import requirements as module  # a pending finding's, when first met

        requirements = _classes(module)
        _MODELS.update(requirements)
        _FIELDS.update(
            (c, tuple(f.name for f in dataclasses.fields(c))) for c in requirements.values()
        )
        found = _MODELS[name]
    return found


_PLAIN = frozenset({str, int, float, bool, type(None)})


def encode(value: Any) -> Any:
    # As `decode`, plain values (most of an entry) go through without a call.
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is not None:
        fields = [v if type(v) in _PLAIN else encode(v) for v in (getattr(value, n) for n in names)]
        return {"t": kind.__name__, "f": fields}
    if kind is frozenset:
        return {"fs": sorted(encode(v) for v in value)}
    if kind is tuple or kind is list:
        return [v if type(v) in _PLAIN else encode(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _encode_other(value)
    if isinstance(value, frozenset):
        return {"fs": sorted(encode(v) for v in value)}
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    return value


def _encode_other(value: Any) -> Any:
    """A dataclass that is no model (decoding it fails: the entry is a miss)."""
    fields = [encode(getattr(value, f.name)) for f in dataclasses.fields(value)]
    return {"t": type(value).__name__, "f": fields}


_CONTAINERS = frozenset({list, dict})


def decode(value: Any) -> Any:
    # Most values are strings and numbers: they are taken as they are, without
    # a call (a warm run decodes tens of thousands of them).
    kind = type(value)
    if kind is list:
        return tuple([v if type(v) not in _CONTAINERS else decode(v) for v in value])
    if kind is dict:
        members = value.get("fs")
        if members is not None:
            return frozenset([v if type(v) not in _CONTAINERS else decode(v) for v in members])
        cls = _model(value["t"])
        return cls(*[v if type(v) not in _CONTAINERS else decode(v) for v in value["f"]])
    return value


def settings_fingerprint(settings: LintSettings) -> str:
    options = settings.options
    parts = [
        sorted(settings.codes),
        sorted(options.enqueue_functions),
        sorted(options.transaction_functions),
        sorted(options.on_commit_functions),
        options.celery_django_task,  # options that change fixes
        [list(option) for option in options.rule_options],
        None if options.call_enqueues is None else sorted(options.call_enqueues),
        sorted(options.read_only_databases),
    ]
    return json.dumps(parts)


@functools.cache
def code_fingerprint() -> str:
    """joblint's own modules (names, sizes, modification times): a checkout whose
    rules changed within a version never reuses entries computed by the old code."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        try:
            info = path.stat()
        except OSError:
            continue
        digest.update(
            f"{path.relative_to(PACKAGE_DIR)}:{info.st_size}:{info.st_mtime_ns}\0".encode()
        )
    return digest.hexdigest()


def entry_key(
    path: str, content: str, settings: LintSettings, module: ModuleInfo, kind: str = "lint"
) -> str:
    """`content`: the file's content digest (`joblint.pipeline.screen.verdicts.digest`)."""
    return _key(
        kind,
        path,
        module.name,
        str(module.is_package),
        settings_fingerprint(settings),
        content,
    )


def derived_key(result: models.FileResult) -> str:
    """The key of a result no file's content digest identifies: its own
    encoding (with joblint's version and code, as every key)."""
    return _key("derived", json.dumps(encode(result), separators=(",", ":")))


def _key(*parts: str) -> str:
    """A cache key: joblint's version and code, then `parts`."""
    digest = hashlib.sha256()
    for part in (__version__, ENTRY_FORMAT, code_fingerprint(), *parts):
        digest.update(part.encode("utf-8", "surrogateescape"))  # undecodable file names
        digest.update(b"\0")
    return digest.hexdigest()


class ResultCache:
    """The entries of the cache directory's packs, and this run's (written
    in a pack of their own by `flush`)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.packs = directory / PACKS_DIR
        self.hits = 0
        self.writes = 0
        # This run's entries, encoded when put (while the workers run, not at the end).
        self._pending: dict[str, tuple[models.FileResult, str]] = {}
        # key -> (pack, position), read from the packs' first lines when first asked.
        self._index: dict[str, tuple[Path, int]] | None = None
        self._heads: dict[Path, _PackHead] = {}
        self._bodies: dict[Path, bytes] = {}  # packs whose entries were read
        # Why this run's entries could not be written (an unwritable directory), if so.
        self.unwritable: str | None = None

    def has(self, key: str) -> bool:
        return key in self._pending or key in self._keys()

    def get(self, key: str) -> models.FileResult | None:
        pending = self._pending.get(key)
        result = pending[0] if pending is not None else self._from_pack(key)
        if result is not None:
            self.hits += 1
        return result

    def put(self, key: str, result: models.FileResult) -> None:
        """Kept for this run's pack (`flush`)."""
        self._pending[key] = (result, json.dumps(encode(result), separators=(",", ":")))
        self.writes += 1

    def flush(self) -> bool:
        """Write the entries `put` since the last flush as one pack."""
        if not self._pending:
            return True
        entries = {key: text for key, (_, text) in self._pending.items()}
        self._pending = {}
        return self._write_pack(entries) is not None

    def _write_pack(self, entries: dict[str, str]) -> Path | None:
        """The pack written, or None when it couldn't be."""
        head = _PackHead(list(entries), list(itertools.accumulate(map(len, entries.values()))))
        line = head.line()
        target = self.packs / f"pack-{hashlib.sha256(line.encode()).hexdigest()[:24]}.json"
        problem = _write_record(target, line + "".join(entries.values()), self.directory)
        if problem is not None:
            self.unwritable = problem
            return None
        if self._index is not None:
            head.start = len(line)
            self._heads[target] = head
            self._index.update((key, (target, i)) for i, key in enumerate(head.keys))
        return target

    def _keys(self) -> dict[str, tuple[Path, int]]:
        if self._index is None:
            self._index = {}
            for pack in sorted(self._pack_files(), key=_mtime):  # the newest wins
                with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                    head = self._heads[pack] = _PackHead.read(pack)
                    self._index.update((key, (pack, i)) for i, key in enumerate(head.keys))
        return self._index

    def _pack_files(self) -> list[Path]:
        try:
            return [p for p in self.packs.iterdir() if p.suffix == ".json"]
        except OSError:
            return []

    def _from_pack(self, key: str) -> models.FileResult | None:
        found = self._keys().get(key)
        if found is None:
            return None
        pack, position = found
        head = self._heads[pack]
        try:
            body = self._bodies.get(pack)
            if body is None:
                body = self._bodies[pack] = head.body(pack)
            result = decode(json.loads(head.entry(body, position)))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None  # missing or damaged: recompute
        return result if isinstance(result, models.FileResult) else None

    def prune_if_full(self, keep: int = MAX_ENTRIES) -> int:
        """After a run that wrote a pack: past `keep` entries, merge every
        pack into one of the newest packs' entries (`prune`); past MAX_PACKS
        packs, merge all but the largest (a whole run's, usually: the small
        packs of runs that changed a few files are what piles up, and
        rewriting the large one each time would cost as much as the run).
        How many entries went."""
        if not self.writes:
            return 0
        self._keys()
        sizes = {pack: len(head.keys) for pack, head in self._heads.items()}
        if sum(sizes.values()) > keep:
            return self.prune(keep)
        if len(sizes) > MAX_PACKS:
            largest = max(sizes, key=lambda pack: sizes[pack])
            self._merge([pack for pack in self._pack_files() if pack != largest], keep)
        return 0

    def prune(self, keep: int = MAX_ENTRIES) -> int:
        """Merge every pack into one of at most `keep` entries, the newest
        packs' first; how many entries went."""
        return self._merge(self._pack_files(), keep)

    def _merge(self, packs: list[Path], keep: int) -> int:
        """`packs` merged into one of at most `keep` entries, the newest
        packs' first; how many entries went."""
        kept: dict[str, str] = {}
        total = 0
        for pack in sorted(packs, key=_mtime, reverse=True):
            try:
                entries = read_pack(pack)
            except (OSError, ValueError, KeyError, TypeError):
                continue
            total += len(entries)
            for key, text in entries:
                if len(kept) < keep:
                    kept.setdefault(key, text)
        self._index, self._heads, self._bodies = None, {}, {}
        target = self._write_pack(kept)
        if target is None:
            return 0
        for pack in packs:
            if pack != target:
                with contextlib.suppress(OSError):
                    pack.unlink()
        return total - len(kept)


@dataclass(slots=True)
class _PackHead:
    """A pack's first line: its keys, and where each entry ends in the body
    after it (entries are ASCII JSON: characters are bytes), so one entry is
    read without parsing the others."""

    keys: list[str]
    ends: list[int]
    start: int = 0  # where the body starts in the file

    def line(self) -> str:
        return json.dumps({"keys": self.keys, "ends": self.ends}, separators=(",", ":")) + "\n"

    @classmethod
    def read(cls, pack: Path) -> _PackHead:
        with pack.open("rb") as stream:
            line = stream.readline()
        raw = json.loads(line)
        keys, ends = raw["keys"], raw["ends"]
        if not (isinstance(keys, list) and isinstance(ends, list) and len(keys) == len(ends)):
            raise ValueError("not a pack")
        return cls(keys, ends, len(line))

    def body(self, pack: Path) -> bytes:
        with pack.open("rb") as stream:
            stream.seek(self.start)
            return stream.read()

    def entry(self, body: bytes, position: int) -> bytes:
        begin = self.ends[position - 1] if position else 0
        return body[begin : self.ends[position]]


def read_pack(pack: Path) -> list[tuple[str, str]]:
    """Every (key, entry JSON) of a pack."""
    head = _PackHead.read(pack)
    body = head.body(pack)
    return [(key, head.entry(body, i).decode()) for i, key in enumerate(head.keys)]


def prune_screenings(directory: Path, keep: int = MAX_SCREENINGS) -> int:
    """Drop all but the `keep` most recently written screening records
    (`joblint.pipeline.screen.verdicts`): an upgrade or another rule selection starts a new one."""
    return _keep_newest(directory.glob("screen-*.json"), keep)


def _keep_newest(paths: Iterable[Path], keep: int) -> int:
    """Delete all but the `keep` most recently written of `paths`; how many went."""
    removed = 0
    for path in sorted(paths, key=_mtime, reverse=True)[keep:]:
        with contextlib.suppress(OSError):
            path.unlink()
            removed += 1
    return removed


# The directories this process has made (with the cache's marker files): a
# cold run writes hundreds of entries into the same 256, and checking each
# time cost as much as writing. One that went away since (`joblint clean`)
# fails the write, which is tried again after making it anew.
_READY: set[Path] = set()


def write_record(path: Path, payload: str, cache: Path) -> bool:
    """Write `payload` to `path` below the cache directory `cache` atomically
    (a temporary file renamed over it: a reader never sees half of it).
    False when it couldn't be written (the run goes on without it)."""
    return _write_record(path, payload, cache) is None


def _write_record(path: Path, payload: str, cache: Path) -> str | None:
    """`write_record`: None when written, else why not."""
    directory = path.parent
    problem = ""
    for known in (directory in _READY, False):
        temporary = ""
        try:
            if not known:
                directory.mkdir(parents=True, exist_ok=True)
                ensure_marker_files(cache)
                _READY.add(directory)
            handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(payload)
            os.replace(temporary, path)
            return None
        except OSError as exc:
            problem = exc.strerror or str(exc)
            _READY.discard(directory)
            if temporary:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
    return problem


def read_record(path: Path) -> dict[str, Any]:
    """A JSON object `write_record` wrote; {} when it is missing or damaged."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def ensure_marker_files(directory: Path) -> None:
    """A `.gitignore` so the cache is never committed, and a CACHEDIR.TAG."""
    ignore = directory / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Created by joblint: never commit the cache.\n*\n")
        (directory / "CACHEDIR.TAG").write_text(
            "Signature: 8a477f597d28d172789f06886806bc55\n# joblint cache\n"
        )


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def clear(directory: Path) -> int:
    """Remove a cache directory's entries (`joblint clean`); how many."""
    removed = 0
    if not (directory / "CACHEDIR.TAG").exists():
        return 0  # never delete a directory joblint didn't create
    for pack in directory.glob(f"{PACKS_DIR}/*.json"):
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            removed += len(_PackHead.read(pack).keys)
        with contextlib.suppress(OSError):
            pack.unlink()
    for path in directory.glob("*/*.json"):  # one file per entry, as earlier versions wrote
        with contextlib.suppress(OSError):
            path.unlink()
            removed += 1
    for path in directory.glob("screen-*.json"):  # joblint.pipeline.screen.verdicts's records
        with contextlib.suppress(OSError):
            path.unlink()
    for sub in directory.iterdir():
        if sub.is_dir():
            with contextlib.suppress(OSError):
                sub.rmdir()
    return removed

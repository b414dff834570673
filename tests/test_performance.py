"""Prefilter, worker processes and cache must never change what is reported."""

from __future__ import annotations

import gc
import json
import re
import subprocess
import sys
from concurrent import futures
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, indexed_files, our_sources, parsed_files, write
from hypothesis import given
from hypothesis import strategies as st

from joblint.api import RunOptions, lint_paths
from joblint.config import Config
from joblint.index import reading as index_reading
from joblint.models import FileResult
from joblint.pipeline import source
from joblint.pipeline.cache import read_pack
from joblint.pipeline.project import ProjectIndex
from joblint.pipeline.schedule import workers as runner
from joblint.registry import all_rules, examples
from joblint.rule import Invalid
from joblint.settings import LintSettings, ModuleInfo, Options
from joblint.testing import EXAMPLE_PATH

ROOT = Path(__file__).resolve().parents[1]


def _findings(root: Path, config: Config, options: RunOptions) -> list[tuple[str, int, int, str]]:
    run = lint_paths([root], config, options)
    return [(f.path, f.span.line, f.span.column, f.message) for f in run.findings]


def _example_projects() -> list[tuple[str, str, dict[str, str]]]:
    projects = []
    for rule in all_rules():
        for index, example in enumerate(examples(rule).all):
            files = {EXAMPLE_PATH: example.code}
            if isinstance(example, Invalid):
                for module, code in example.project.items():
                    files[module.replace("_", "/") + ".py"] = code
            projects.append((rule.CODE, f"{rule.CODE}-{example.id or index}", files))
    return projects


@pytest.mark.parametrize(
    "code,files",
    [(c, f) for c, _, f in _example_projects()],
    ids=[i for _, i, _ in _example_projects()],
)
def test_prefilter_is_conservative_on_rule_examples(
    code: str, files: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"app/__init__.py": "", **files})
    monkeypatch.chdir(tmp_path)
    # The rule alone, and every rule (preview ones too): a file the prefilter
    # passes runs only the rules whose triggers it found.
    for config in (
        Config(root=tmp_path, select=(code,)),
        Config(root=tmp_path, select=("ALL",), preview=True),
    ):
        with_prefilter = _findings(Path("."), config, RunOptions(use_prefilter=True))
        without = _findings(Path("."), config, RunOptions(use_prefilter=False))
        assert with_prefilter == without


def _multi_module_examples() -> list[tuple[str, str, dict[str, str]]]:
    return [p for p in _example_projects() if len(p[2]) > 1]


@pytest.mark.parametrize(
    "code,files",
    [(c, f) for c, _, f in _multi_module_examples()],
    ids=[i for _, i, _ in _multi_module_examples()],
)
def test_a_run_naming_the_example_finds_what_a_whole_run_finds(
    code: str, files: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pre-commit names only the changed file: what its findings depend on in
    the example's other modules (the app a task's decorator belongs to, a
    model, a helper) is read on demand, and gives the whole run's findings."""
    write(tmp_path, {"app/__init__.py": "", **files})
    monkeypatch.chdir(tmp_path)
    config = Config(root=tmp_path, select=(code,))
    whole = _findings(Path("."), config, RunOptions())
    named = _findings(Path(EXAMPLE_PATH), config, RunOptions())
    # Whole-project findings placed in another file show where they involve it.
    assert set(named) <= set(whole)
    assert [f for f in named if f[0] == EXAMPLE_PATH] == [f for f in whole if f[0] == EXAMPLE_PATH]


@pytest.mark.parametrize("preview", [False, True])
@pytest.mark.parametrize("tree", ["examples", "fixtures"])
def test_prefilter_is_conservative_on_trees(
    tree: str, preview: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    config = Config(root=ROOT, preview=preview)
    on = _findings(Path(tree), config, RunOptions(use_prefilter=True))
    off = _findings(Path(tree), config, RunOptions(use_prefilter=False))
    assert on == off and on


def test_prefilter_skips_files_without_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "plain.py": "def add(a, b):\n    return a + b\n",
            "jobs.py": "from django.db import transaction\nfrom .t import t\n"
            "def f():\n    with transaction.atomic():\n        t.delay()\n",
        },
    )
    parsed = parsed_files(monkeypatch)
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path(".")], Config(root=tmp_path), RunOptions())
    assert run.files_checked == 2
    assert len(parsed) == 1
    assert [f.code for f in run.findings] == ["JL101"]


def test_cache_hits_and_invalidation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        tmp_path,
        {
            "a.py": "from django.db import transaction\nfrom .t import t\n"
            "def f():\n    with transaction.atomic():\n        t.delay()\n",
            "b.py": (
                "from django.db import transaction\n\n@transaction.atomic\ndef g():\n    pass\n"
            ),
        },
    )
    monkeypatch.chdir(tmp_path)
    config = Config(root=tmp_path)
    first = _findings(Path("."), config, RunOptions(cache=True))
    cache_dir = tmp_path / ".joblint_cache"
    assert (cache_dir / ".gitignore").read_text().strip().endswith("*")
    (pack,) = cache_dir.glob("packs/*.json")  # the run's entries, in one file
    # a.py's result and b.py's index (it opens a transaction: the project model
    # reads it); that b.py parses is remembered by the screening record.
    assert len(read_pack(pack)) == 2
    assert list(cache_dir.glob("screen-*.json"))
    assert _findings(Path("."), config, RunOptions(cache=True)) == first
    # A damaged pack is recomputed, never trusted.
    pack.write_text("{not json")
    assert _findings(Path("."), config, RunOptions(cache=True)) == first
    # Changing a file changes its key.
    (tmp_path / "a.py").write_text((tmp_path / "a.py").read_text().replace("t.delay()", "pass"))
    assert _findings(Path("."), config, RunOptions(cache=True)) == []


def test_worker_processes_give_identical_output(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "MIN_FILES_FOR_POOL", 1)
    monkeypatch.chdir(ROOT)
    config = Config(root=ROOT)
    serial = _findings(Path("examples"), config, RunOptions(jobs=1))
    pooled = _findings(Path("examples"), config, RunOptions(jobs=2))
    assert serial == pooled and serial
    one = run("--format", "json", "--no-cache", "-j", "1", "examples", cwd=ROOT)
    two = run("--format", "json", "-j", "2", "examples", cwd=ROOT)
    assert json.loads(one.stdout) == json.loads(two.stdout)
    assert one.stdout == two.stdout


def test_clean_removes_the_cache(run: Run, tmp_path: Path) -> None:
    # A payload the rules read (a module-level name): the file is linted.
    write(tmp_path, {"a.py": "from tasks import send\n\nsend.delay(order)\n"})
    run(".")
    assert list((tmp_path / ".joblint_cache").glob("*/*.json"))
    result = run("clean")
    # Its result, and its index where a later step read one.
    removed = re.search(r"Removed (\d+) cache entries", result.stderr)
    assert result.code == 0 and removed is not None and 1 <= int(removed[1]) <= 2
    assert not list((tmp_path / ".joblint_cache").glob("*/*.json"))
    assert not list((tmp_path / ".joblint_cache").glob("screen-*.json"))


POLL_LOOP = """
import time

def wait_for(path):
    for _ in range(10):
        try:
            return open(path)
        except OSError:
            time.sleep(0.5)
"""
GROWING_SLEEP = """
from time import sleep as nap

def call(fetch):
    for attempt in range(5):
        try:
            return fetch()
        except OSError:
            nap(2 ** attempt)
"""
FOREVER = """
import time

def fetch(get):
    while 1:
        try:
            return get()
        except ConnectionError:
            time.sleep(5)
"""


def test_ast_check_skips_constant_sleeps_without_libcst(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"poll.py": POLL_LOOP, "broken.py": "for x in y:\n    time.sleep(x) +\n"})
    parsed = parsed_files(monkeypatch)
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path(".")], Config(root=tmp_path), RunOptions())
    assert [f.code for f in run.findings] == ["JL001"]
    assert len(parsed) == 1  # only the file Python can't parse goes on to LibCST


@pytest.mark.parametrize("code,expected", [(GROWING_SLEEP, "JL301"), (FOREVER, "JL302")])
def test_ast_check_confirms_retry_loops(
    code: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"retry.py": code})
    monkeypatch.chdir(tmp_path)
    config = Config(root=tmp_path)
    on = _findings(Path("."), config, RunOptions(use_prefilter=True))
    off = _findings(Path("."), config, RunOptions(use_prefilter=False))
    assert on == off
    run = lint_paths([Path(".")], config, RunOptions())
    assert expected in [f.code for f in run.findings]


def test_gated_methods_need_a_project_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`x.send(order)` is linted only where `x` can be one of the project's tasks."""
    write(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/models.py": "from django.db import models\n\n"
            "class Order(models.Model):\n    pass\n",
            "app/actors.py": "import dramatiq\n\n@dramatiq.actor\ndef notify(order):\n    pass\n",
            "app/views.py": "from app.actors import notify\nfrom app.models import Order\n\n"
            "def view(pk):\n    order = Order.objects.get(pk=pk)\n    notify.send(order)\n",
            "app/sockets.py": "def push(conn, data):\n    conn.send(data)\n",
        },
    )
    parsed = parsed_files(monkeypatch)
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path(".")], Config(root=tmp_path), RunOptions())
    assert [(f.path, f.code) for f in run.findings] == [("app/views.py", "JL201")]
    # actors.py defines a task and views.py names it; sockets.py is never parsed.
    assert any("notify.send" in source for source in parsed)
    assert not any("conn.send" in source for source in parsed)


def test_screening_is_remembered_and_a_damaged_record_is_recomputed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "plain.py": "def add(a, b):\n    return a + b\n",
            "broken.py": "def f(:\n",
            "jobs.py": "from django.db import transaction\nfrom .t import t\n"
            "def f():\n    with transaction.atomic():\n        t.delay()\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    config = Config(root=tmp_path)
    first = _findings(Path("."), config, RunOptions(cache=True))
    assert [f[0] for f in first] == ["broken.py", "jobs.py"]
    (record,) = (tmp_path / ".joblint_cache").glob("screen-*.json")
    assert json.loads(record.read_text())  # one entry per file content
    syntax_checks: list[str] = []
    real = source.syntax_check

    def counting(path: str, data: bytes, settings: LintSettings) -> object:
        syntax_checks.append(path)
        return real(path, data, settings)

    monkeypatch.setattr(runner, "syntax_check", counting)
    assert _findings(Path("."), config, RunOptions(cache=True)) == first
    assert syntax_checks == []  # plain.py is known to parse; broken.py's result is cached
    record.write_text("{not json")
    assert _findings(Path("."), config, RunOptions(cache=True)) == first
    assert _findings(Path("."), config, RunOptions(cache=False)) == first


def test_a_skipped_file_in_newer_syntax_than_this_python_is_not_unparseable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.12's `type` aliases and type parameters: LibCST parses them on
    any Python, so a file joblint skips is not JL001 because it was skipped."""
    write(
        tmp_path,
        {
            "aliases.py": "type Pair = tuple[int, int]\n\n"
            "def first[T](items: list[T]) -> T:\n    return items[0]\n",
            "broken.py": "def f(:\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path(".")], Config(root=tmp_path), RunOptions())
    assert [(f.path, f.code) for f in run.findings] == [("broken.py", "JL001")]


def test_a_worker_hands_back_the_memory_of_a_large_file() -> None:
    """After a file over BIG_FILE the worker collects and trims its heap; the
    results are those of the files, whatever the trimming does."""
    body = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(4000))
    assert len(body) > runner.BIG_FILE
    settings = LintSettings(frozenset({"JL001", "JL101"}))
    jobs = [
        runner.Job("big.py", body.encode(), settings, ModuleInfo("big")),
        runner.Job("bad.py", b"def f(:\n", settings, ModuleInfo("bad")),
    ]
    big, bad = runner._run_chunk(jobs)
    assert big.parsed and big.findings == ()
    assert [f.code for f in bad.findings] == ["JL001"]


def test_a_skipped_file_only_the_compiler_would_refuse_is_not_unparseable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The syntax check builds a symbol table, which refuses a module-level
    `nonlocal`: Python's parser (and LibCST) accept it, so it is not JL001,
    as it isn't for a file LibCST lints."""
    write(
        tmp_path,
        {
            "scopes.py": "nonlocal counter\n\ndef f():\n    global f\n    f = 1\n",
            "early.py": "return 42\n",
            "broken.py": "def f(:\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    for use_prefilter in (True, False):
        run = lint_paths(
            [Path(".")], Config(root=tmp_path), RunOptions(use_prefilter=use_prefilter)
        )
        assert [(f.path, f.code) for f in run.findings] == [("broken.py", "JL001")]


WARM_RUN = """
import json, runpy, sys
import concurrent.futures.process as process

forks = []
real = process.ProcessPoolExecutor.__init__

def counting(self, *args, **kwargs):
    forks.append(1)
    real(self, *args, **kwargs)

process.ProcessPoolExecutor.__init__ = counting
sys.argv = ["joblint", "check", "-j", "2", "--format", "json", "."]
try:
    runpy.run_module("joblint", run_name="__main__")
except SystemExit:
    pass
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"libcst", "sqlglot", "rich"})
print(json.dumps({"heavy": heavy, "pools": len(forks)}), file=sys.stderr)
"""


def test_a_warm_run_parses_nothing_and_starts_no_workers(tmp_path: Path) -> None:
    """Everything cached: no LibCST (nor the rules, sqlglot or rich) is even
    imported, and no worker process is started. After one file changes, that
    file alone is screened, in the main process."""
    files = {f"pkg/m{i}.py": f"def f{i}(x):\n    return x * {i}\n" for i in range(40)}
    files["pkg/__init__.py"] = ""
    files["jobs.py"] = (
        "from django.db import transaction\nfrom tasks import t\n\n"
        "def f():\n    with transaction.atomic():\n        t.delay()\n"
    )
    write(tmp_path, files)
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}

    def joblint() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        done = subprocess.run(
            [sys.executable, "-c", WARM_RUN],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        report = json.loads(done.stderr.strip().splitlines()[-1])
        return json.loads(done.stdout), report

    cold, cold_report = joblint()
    assert [f["code"] for f in cold] == ["JL101"]
    assert cold_report["pools"] == 1  # the workers parse; the main process needn't
    warm, warm_report = joblint()
    assert warm == cold
    assert warm_report == {"heavy": [], "pools": 0}
    (tmp_path / "pkg" / "m3.py").write_text("def f3(x):\n    return x * 33\n")
    touched, touched_report = joblint()
    assert touched == cold
    assert touched_report == {"heavy": [], "pools": 0}


class _Everywhere:
    def may_hold(self, node: object) -> bool:
        return True


PRUNING_CASES = [
    "from time import sleep as nap\nfor i in range(3):\n    try:\n        go()\n"
    "    except E:\n        nap(2 ** i)\n",
    "import time\nwhile True:\n    try:\n        go()\n    except E:\n        time \\\n"
    "            .sleep(\n            delay)\n",
    "while 1:\n    try:\n        go()\n    except E:\n        pass\n"
    "    def later():\n        sleep(1)\n",
    "for x in y:\n    [sleep(x) for _ in z]\n    break\n",
]


def _sources_with_sleep() -> list[str]:
    return [s for s in (*our_sources(), *PRUNING_CASES) if "sleep" in s.lower()]


@pytest.mark.parametrize("source", _sources_with_sleep())
def test_the_ast_checks_walk_only_lines_naming_sleep_without_changing_verdicts(
    source: str,
) -> None:
    """Pruning the walk to the lines that name `sleep` (or its import alias)
    gives the checks what the full walk gives."""
    from joblint.index.ast_walk import WordLines, quiet_ast_parse
    from joblint.rules.retries._screen import sleep_check

    tree = quiet_ast_parse(source)
    full = sleep_check.scan_lines(tree, _Everywhere())  # type: ignore[arg-type]
    pruned = sleep_check.scan_lines(tree, WordLines(source.encode().lower(), b"sleep"))
    for check in (sleep_check.sleep_in_retry_loop, sleep_check.while_true_retry):
        assert check(pruned) == check(full)
    assert [call for call, _ in pruned.sleeps if pruned.is_sleep(call)] == [
        call for call, _ in full.sleeps if full.is_sleep(call)
    ]


def test_the_cache_is_bounded(tmp_path: Path) -> None:
    """A run writes its entries as one pack; after a run that wrote one, the
    packs are merged into one when they hold more entries than the limit
    (the newest packs' first) or are more than MAX_PACKS. A run that wrote
    nothing (a warm run) looks at nothing."""
    import hashlib
    import os

    from joblint.pipeline.cache import MAX_PACKS, ResultCache

    directory = tmp_path / "cache"
    assert ResultCache(directory).prune_if_full(keep=1) == 0  # nothing written
    keys = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(600)]
    writer = ResultCache(directory)
    for run in range(6):  # six runs of 100 entries, later ones newer
        writer = ResultCache(directory)
        for key in keys[run * 100 : (run + 1) * 100]:
            writer.put(key, FileResult(f"{key}.py"))
        assert writer.flush()
        newest = max(directory.glob("packs/*.json"), key=lambda p: p.stat().st_mtime_ns)
        os.utime(newest, (1_000_000 + run, 1_000_000 + run))
    assert writer.prune_if_full(keep=10_000) == 0
    assert writer.prune_if_full(keep=250) == 350
    (pack,) = directory.glob("packs/*.json")
    left = {key for key, _ in read_pack(pack)}
    assert len(left) == 250 and set(keys[-200:]) <= left <= set(keys[-300:])
    reader = ResultCache(directory)
    assert all(reader.get(key) == FileResult(f"{key}.py") for key in keys[-200:])
    assert reader.get(keys[0]) is None
    for run in range(MAX_PACKS):  # many small runs: merged, the large pack kept as it is
        writer = ResultCache(directory)
        writer.put(f"{run:064x}", FileResult(f"run{run}.py"))
        assert writer.flush()
    assert writer.prune_if_full() == 0
    assert sorted(len(read_pack(p)) for p in directory.glob("packs/*.json")) == [MAX_PACKS, 250]
    assert pack.exists()
    reader = ResultCache(directory)
    assert reader.get(f"{0:064x}") == FileResult("run0.py") and reader.get(keys[-1])


def test_old_screening_records_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from joblint.pipeline.cache import MAX_SCREENINGS

    write(tmp_path, {"plain.py": "x = 1\n"})
    cache = tmp_path / ".joblint_cache"
    cache.mkdir()
    for age in range(6):  # records of earlier versions or rule selections
        old = cache / f"screen-old{age}.json"
        old.write_text("{}")
        os.utime(old, (1_000_000 + age, 1_000_000 + age))
    monkeypatch.chdir(tmp_path)
    lint_paths([Path(".")], Config(root=tmp_path), RunOptions(cache=True))
    records = sorted(p.name for p in cache.glob("screen-*.json"))
    assert len(records) == MAX_SCREENINGS
    assert [r for r in records if not r.startswith("screen-old")]  # this run's own
    assert "screen-old5.json" in records and "screen-old0.json" not in records


def test_runs_at_once_share_the_cache_safely(tmp_path: Path) -> None:
    """Four cold runs on one cache at the same moment: the same findings from
    each, every entry a complete one, and a warm run after them agrees."""
    from joblint.pipeline.cache import decode as decode_entry

    files = {f"pkg/m{i}.py": f"def f{i}(x):\n    return x * {i}\n" for i in range(30)}
    for i in range(6):
        files[f"pkg/jobs{i}.py"] = (
            "from django.db import transaction\nfrom tasks import t\n\n"
            f"def f{i}():\n    with transaction.atomic():\n        t.delay()\n"
        )
    write(tmp_path, {"pkg/__init__.py": "", **files})
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "joblint", "check", "-j", "2", "--format", "json", "."]
    runs = [
        subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert all(run.returncode == 1 for run in runs)
    assert len(json.loads(outputs[0])) == 6 and len(set(outputs)) == 1
    packs = list((tmp_path / ".joblint_cache").glob("packs/*.json"))
    entries = [entry for pack in packs for _, entry in read_pack(pack)]
    assert entries and all(decode_entry(json.loads(entry)) for entry in entries)
    assert not list((tmp_path / ".joblint_cache").rglob("*.tmp"))  # no half-written files
    warm = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert warm.stdout == outputs[0]


ROW_LOCK_CASES = [
    ('cur.execute("SELECT id FROM jobs LIMIT 1 FOR UPDATE")\n', True),
    ('SQL = "SELECT id FROM jobs ORDER BY id FOR" + " NO KEY UPDATE"\n', True),
    ('LOCK = "for"\nSQL = "select id from jobs " + LOCK + " share"\n', True),
    ('MODE = "FOR UPDATE"\nSQL = f"{BASE} {MODE}"\nBASE = "SELECT id FROM jobs"\n', True),
    # Prose naming no SELECT: no lock the rule reads.
    ('HELP = "Represents an input for update of attribute."\n', False),
    ('raise ValueError(f"Unable to deduce the amount for {event}")\n', False),
    ("job = Job.objects.select_for_update().filter(state='new').first()\n", True),
    (
        "jobs = Job.objects.select_for_update()\nwhile True:\n"
        "    for job in jobs:\n        claim(job)\n",
        True,
    ),
    ("rows = session.query(Job).with_for_update()\nrows[0]\n", True),
    ("self.rows = Job.objects.select_for_update()\nfirst = self.rows.first()\n", True),
    # The pick on a chain of its own, the lock inside an argument: not the
    # lock's chain (the rule reads chains link by link).
    ("jobs = Job.objects.select_for_update()\nwhile True:\n    work(jobs)\n", False),
    ("rows = session.scalars(select(Job).with_for_update())\nrows[0]\n", False),
    # A pick-next method of the result of a statement a session runs picks
    # among the statement's rows (through a name the result is bound to too).
    ("job = session.scalars(select(Job).with_for_update()).first()\n", True),
    (
        "stmt = select(Job).with_for_update()\nresult = await session.execute(stmt)\n"
        "job = result.scalars().first()\n",
        True,
    ),
    ("job = session.scalars(select(Job).with_for_update(skip_locked=True)).first()\n", False),
    ("Job.objects.select_for_update().filter(a=1)\nx = other[0]\n", False),
    # A function's parameter holds nothing the rule follows, whatever a
    # name of that name holds elsewhere; one it assigns itself does.
    (
        "rows = Job.objects.all()[:10]\n"
        "def claim(rows):\n    rows.select_for_update().update(state='taken')\n",
        False,
    ),
    (
        "def claim():\n    rows = Job.objects.all()[:10]\n"
        "    rows.select_for_update().update(state='taken')\n",
        True,
    ),
    # Not a global the function declares: the module's name, followed.
    (
        "rows = Job.objects.all()[:10]\n"
        "def claim():\n    global rows\n    rows.select_for_update().update(state='x')\n",
        True,
    ),
    # A lock that picks, in a function that writes nothing: no claim; one
    # that returns the row hands it to callers who may claim it.
    (
        "def peek():\n    job = Job.objects.select_for_update().first()\n    log(job)\n",
        False,
    ),
    (
        "def peek():\n    return Job.objects.select_for_update().first()\n",
        True,
    ),
    ("def take():\n    job = Job.objects.select_for_update().first()\n    job.save()\n", True),
    ("def take(s):\n    job = s.query(Job).with_for_update().first()\n    job.a = 1\n", True),
    # `self.jobs` may be the class's own attribute.
    (
        "class Worker:\n    jobs = Job.objects.select_for_update()\n"
        "    def take(self):\n        job = self.jobs.first()\n        job.save()\n",
        True,
    ),
    # A lock with nothing picked anywhere: every matching row, or one pinned.
    ("jobs = list(Job.objects.select_for_update().filter(owner=o))\n", False),
    ("job = Job.objects.select_for_update().get(pk=pk)\n", False),
    # Only a comment names the lock.
    ("# take the rows for update\nx = Job.objects.filter(a=1)[0]\n", False),
    # The chain names its row (a key, a filter the rule can't read, a
    # one-row fetch): the rule never reports it, whatever its start holds.
    ("job = Job.objects.select_for_update().filter(pk=pk).first()\njob.save()\n", False),
    ("job = Job.objects.select_for_update().filter(id__in=ids)[0]\njob.save()\n", False),
    ("job = Job.objects.filter(**where).select_for_update().first()\njob.save()\n", False),
    ("job = Job.objects.filter(cond).select_for_update().first()\njob.save()\n", False),
    ("qs = Job.objects.select_for_update()\nqs.filter(pk=1)[0].save()\n", False),
    ("qs = Job.objects.select_for_update()\nqs.get(state='new').save()\n", False),
    (
        "rows = Job.objects.select_for_update().filter(pk=pk)\n"
        "def take():\n    job = rows.first()\n    job.save()\n",
        False,
    ),
    # Equalities with values the code passes, at most one row: a natural
    # key, unless the chain's start may hold more (a name it was assigned).
    ("e = Ev.objects.filter(ref=e.ref, kind=k).select_for_update().first()\ne.save()\n", False),
    ("e = Event.objects.filter(ref=ref).select_for_update()[:1]\ne.save()\n", False),
    ("e = Ev.objects.filter(ref=r).select_for_update().first()\ne.save()\nEv = x[:5]\n", True),
    ("e = Event.objects.filter(ref='a').select_for_update().first()\ne.save()\n", True),
    ("e = E.objects.filter(ref=r).order_by('a').select_for_update().first()\ne.save()\n", True),
    ("e = Event.objects.filter(ref=ref).select_for_update()[:2]\ne.save()\n", True),
    ("e = Event.objects.filter(ref=F('x')).select_for_update().first()\ne.save()\n", True),
    # A condition that is no key (`user__gt`), or a comparison it reads.
    ("job = Job.objects.select_for_update().filter(user__gt=u).first()\njob.save()\n", True),
    ("job = s.query(Job).filter(Job.a > 1).with_for_update().first()\njob.a = 1\n", True),
    # A lock that doesn't wait for a locked row, or may not (the rule
    # leaves it alone); a literal False waits.
    ("job = Job.objects.select_for_update(skip_locked=True).first()\njob.save()\n", False),
    ("job = Job.objects.select_for_update(nowait=flag).first()\njob.save()\n", False),
    ("job = Job.objects.select_for_update(**opts).first()\njob.save()\n", False),
    ("job = Job.objects.select_for_update(skip_locked=False).first()\njob.save()\n", True),
    ("job = Job.objects.select_for_update(of=('self',)).first()\njob.save()\n", True),
    # The rule reads the first lock of the chain a name leads to: one that
    # may wait, held by the name, counts.
    (
        "qs = Job.objects.select_for_update()\n"
        "job = qs.select_for_update(skip_locked=True).first()\njob.save()\n",
        True,
    ),
]


@pytest.mark.parametrize(("source", "expected"), ROW_LOCK_CASES)
def test_the_row_lock_check_confirms_only_locks_the_rule_may_report(
    source: str, expected: bool
) -> None:
    """JL401's AST check: SQL text that locks rows, or an ORM chain that locks
    and picks (through the names it starts from, read where the rule reads
    them, over-approximating its chains), or is iterated in a `while` loop,
    in a function that may write the rows."""
    from joblint.index.ast_walk import quiet_ast_parse
    from joblint.rules.locks._screen.row_lock_check import row_lock_picking_rows

    assert row_lock_picking_rows(quiet_ast_parse(source), source.lower().encode()) is expected


_TRANSACTION_FRAGMENTS = (
    "with transaction.atomic():\n",
    "@atomic\n",
    "non_atomic_requests\n",
    "xatomic = 1\n",
    "    atomic = False\n",
    "RunPython(forwards, atomic=True)\n",
    "if atomic == mode:\n",
    "async with in_transaction():\n",
    "import psycopg\n",
    "session.begin()\n",
    "conn.begin_nested()\n",
    "db.transaction()\n",
    "def save_model(self, request, obj, form, change):\n",
    "undef save_model(x)\n",
    "post_save.connect(f)\n",
    "pre_delete_x = 1\n",
    "admin.site.register(Order)\n",
    "@admin.register(Order)\n",
    "def pay(request):\n",
    "def pay(self,request):\n",
    "def pay( request ):\n",
    "def perform_create(self, serializer):\n",
    "def handler(sender, instance, **kwargs):\n",
    "def handler(sender, *, created):\n",
    "sender = 1\n",
    "x = 1\n",
)


@given(st.lists(st.sampled_from(_TRANSACTION_FRAGMENTS), max_size=6))
def test_the_transaction_triggers_one_at_a_time_match_as_the_whole(fragments: list[str]) -> None:
    """Screening asks every file whether it may open a transaction one
    alternative at a time (`OPENING_TRIGGERS`, `HANDLER_TRIGGERS`); that must
    be exactly the one trigger JL101 reads (`TRANSACTIONS`), whose
    alternatives start with a literal and check the word boundary behind it
    (`\\b` written first)."""
    from joblint.knowledge import tokens
    from joblint.pipeline.screen import prefilter

    lowered = "".join(fragments).lower().encode()
    whole = prefilter._check(tokens.TRANSACTIONS).matches(lowered)
    textbook = tokens.TRANSACTION.replace(tokens._DEF, r"\bdef ").replace(
        tokens._ATOMIC, r"\batomic\b(?!\s*=(?!=))"
    )
    anchors = any(a.lower().encode() in lowered for a in tokens.TRANSACTION_ANCHORS)
    assert whole == (anchors and re.search(textbook.encode(), lowered) is not None)
    assert prefilter.Prefilter([], [], False).transactional(lowered) == whole


def test_the_word_atomic_given_a_value_opens_no_transaction() -> None:
    """A migration run outside a transaction (`atomic = False`) names the
    word and opens none: its module is not read for calls inside one."""
    from joblint.pipeline.screen import prefilter

    screen = prefilter.Prefilter([], [], False)
    migration = b"class Migration(migrations.Migration):\n    atomic = False\n"
    assert not screen.transactional(migration)
    assert not screen.transactional(b"RunPython(forwards, atomic=False)\n")
    assert screen.transactional(migration + b"\n@transaction.atomic\ndef move(apps, editor): ...\n")


@given(
    st.lists(
        st.sampled_from(
            [
                b"x = 1\n",
                b"# -*- coding: latin-1 -*-\n",
                b"# coding: utf-8\n",
                b"\xef\xbb\xbf",
                b"# caf\xc3\xa9\n",
                b"# \xff\n",
                b"s = '\xe9'\n",
                b"def f(:\n",
                b"y = '\x00'\n",
                b"\n",
            ]
        ),
        max_size=4,
    )
)
def test_the_syntax_check_reads_bytes_as_decoding_them_first_would(parts: list[bytes]) -> None:
    """ASCII goes to Python's parser as bytes; anything else is decoded first:
    the verdict is that of decoding everything first (a comment that isn't
    UTF-8 fails the decoding, though the parser would let it through)."""
    data = b"".join(parts)

    def decoded_first() -> bool:
        try:
            text = source.decode(data)
        except source.SourceError:
            return False
        try:
            source.symtable.symtable(text, "<test>", "exec")
        except (SyntaxError, ValueError):
            return False
        return True

    assert source._python_parses(data) is decoded_first()


def _many_files() -> dict[str, str]:
    """A project of more files than the pool needs: plain modules, files
    Python can't parse, one indexed for the project model, enqueues."""
    files = {f"pkg/plain_{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(60)}
    files.update({f"pkg/broken_{i}.py": f"def f{i}(:\n" for i in range(5)})
    files["pkg/__init__.py"] = ""
    files["pkg/tasks.py"] = (
        "from celery import shared_task\n\n@shared_task\ndef send(x):\n    pass\n"
    )
    files["pkg/helpers.py"] = "from .tasks import send\n\ndef notify(x):\n    send.delay(x)\n"
    files["pkg/views.py"] = (
        "from django.db import transaction\nfrom .helpers import notify\nfrom .tasks import send\n"
        "def view(x):\n    with transaction.atomic():\n        notify(x)\n        send.delay(x)\n"
    )
    return files


def test_background_syntax_checks_and_early_screening_change_no_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Skipped files' syntax checks run behind the pool's batches, and files
    are screened while the rest are read: a pooled run, in chunks of one
    file, gives the serial run's findings, JL001 included, with and without
    a cache."""
    write(tmp_path, _many_files())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "BACKGROUND_CHUNK_BYTES", 1)
    monkeypatch.setattr(runner, "CHUNK_BYTES", 1)
    config = Config(root=tmp_path)
    serial = _findings(Path("."), config, RunOptions(jobs=1))
    assert sum(f[0].startswith("pkg/broken_") for f in serial) == 5
    assert any(f[0] == "pkg/views.py" for f in serial)
    assert _findings(Path("."), config, RunOptions(jobs=2)) == serial
    assert _findings(Path("."), config, RunOptions(jobs=2, cache=True)) == serial  # cold
    assert _findings(Path("."), config, RunOptions(jobs=2, cache=True)) == serial  # warm


def test_a_cold_run_naming_one_file_reads_the_project_with_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pre-commit names one file: the rest of the project is read for its
    facts, so the workers start (ready to parse) even for that one file, and
    each other file is screened for its facts as it is read. The findings
    are the serial run's."""
    from joblint.pipeline.schedule import state

    files = _many_files()
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "CHUNK_BYTES", 1)
    monkeypatch.setattr(state, "CHUNK_BYTES", 1)
    pools: list[tuple[int, bool]] = []
    early: list[str] = []
    real_pool, real_soon = state.WorkerPool, state.screen_soon

    def pool(workers: int, *args: Any, **kwargs: Any) -> runner.WorkerPool:
        pools.append((workers, kwargs["ready_to_parse"]))
        return real_pool(workers, *args, **kwargs)

    def soon(items: list[tuple[bytes, str]], pool: runner.WorkerPool) -> Any:
        early.extend(depth for _, depth in items)
        return real_soon(items, pool)

    monkeypatch.setattr(state, "WorkerPool", pool)
    monkeypatch.setattr(state, "screen_soon", soon)
    config = Config(root=tmp_path)
    named = Path("pkg/views.py")
    serial = _findings(named, config, RunOptions(jobs=1))
    assert [f[0] for f in serial] == ["pkg/views.py"] * 2
    assert pools == [(1, True)] and not early
    assert _findings(named, config, RunOptions(jobs=2)) == serial
    assert pools[1:] == [(2, True)]
    assert early.count(runner.FACTS) == len(files) - 1  # every other file, for its facts
    pools.clear()
    assert _findings(named, config, RunOptions(jobs=2, cache=True)) == serial  # cold
    assert _findings(named, config, RunOptions(jobs=2, cache=True)) == serial  # warm
    # A warm run expects no work: its pool starts only if some turns up, unready.
    assert pools == [(2, True), (2, False)]


def test_the_main_process_screens_the_chunks_no_worker_has_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files are screened as they are read; when the screenings are wanted,
    the chunks no worker has started are screened in the main process (from
    the last back) instead of waited for, and every file has its screening."""
    import time

    from joblint.pipeline.schedule import state
    from joblint.pipeline.schedule.selection import Selector
    from joblint.pipeline.schedule.sources import Source

    monkeypatch.setattr(state, "CHUNK_BYTES", 1)
    here: list[int] = []
    real_here = state.screen_here

    def screen_here(items: list[tuple[bytes, str]], prefilter: Any) -> Any:
        here.append(len(items))
        return real_here(items, prefilter)

    monkeypatch.setattr(state, "screen_here", screen_here)
    config = Config(root=tmp_path)
    run = state.Run(config, RunOptions(jobs=2), Selector(config))
    run.prefilter.build()
    run.start_pool(100, reads_project=False)
    pool = run.work_pool()
    try:
        busy = [pool.executor.submit(time.sleep, 1) for _ in range(2)]  # type: ignore[union-attr]
        code = [f"def f{i}(x):\n    return x.delay({i})\n" for i in range(20)]
        sources = [
            Source(tmp_path / f"m{i}.py", f"m{i}.py", c.encode()) for i, c in enumerate(code)
        ]
        for source in sources:
            run.screen_early(source, runner.FACTS)
        run.screen_all(sources, runner.FACTS)
        assert not any(future.done() for future in busy)  # screened while the workers were busy
    finally:
        pool.close()
    assert here and sum(here) >= 15  # a few chunks are queued for the workers already
    assert all(s.screening is not None and s.screening.facts_only for s in sources)


def test_the_index_of_a_round_is_shared_among_the_workers() -> None:
    """A round of the project model's reading is a few dozen files: its
    index jobs go out in batches costing about one batch of syntax checks,
    largest first, after the LibCST jobs and before the syntax checks."""
    settings = LintSettings(frozenset({"JL001"}))

    def job(name: str, size: int, **kind: bool) -> runner.Job:
        return runner.Job(name, b"x" * size, settings, ModuleInfo(name), **kind)

    index_size = runner.CHUNK_BYTES // runner.INDEX_COST // 2
    jobs = [job(f"i{n}.py", index_size + n, index_only=True) for n in range(6)]
    jobs += [job("lint.py", 10), job("s1.py", 10, syntax_only=True)]
    jobs += [job("s2.py", 10, syntax_only=True)]
    chunks = [[jobs[i].path for i in chunk] for chunk in runner._chunks(jobs)]
    assert chunks == [
        ["lint.py"],
        ["i5.py", "i4.py"],
        ["i3.py", "i2.py"],
        ["i1.py", "i0.py"],
        ["s1.py", "s2.py"],
    ]


def test_background_work_yields_to_a_batch_and_skips_what_is_no_longer_needed() -> None:
    """Background chunks not handed to a worker are taken back when a batch
    is submitted, and sent again behind it; a job no longer needed when its
    turn comes is not run."""
    settings = LintSettings(frozenset({"JL001"}))
    jobs = [
        runner.Job(
            f"f{i}.py", f"x = {i}\n".encode(), settings, ModuleInfo(f"f{i}"), syntax_only=True
        )
        for i in range(200)
    ]
    jobs.append(runner.Job("bad.py", b"def f(:\n", settings, ModuleInfo("bad"), syntax_only=True))
    skipped = {"f7.py", "f150.py"}
    pool = runner.WorkerPool(2)
    try:
        pool.meanwhile(jobs, lambda job: job.path not in skipped)
        batch = [runner.Job("g.py", b"y = 1\n", settings, ModuleInfo("g"), syntax_only=True)]
        with pool.batch():
            background = pool._background
            assert background is not None
            assert all(future.running() or future.done() for _, future in background._sent)
        assert runner.run_jobs(batch * 30, pool, None)[0].parsed
        futures.wait([future for _, future in background._sent])  # sent again behind it
        done = pool.done_meanwhile()
    finally:
        pool.close()
    assert set(done) == {job.path for job in jobs} - skipped
    assert [f.code for f in done["bad.py"].findings] == ["JL001"]
    assert all(result.parsed for path, result in done.items() if path != "bad.py")


def test_the_background_goes_on_after_a_part_took_its_results() -> None:
    """Taking the background's results (a part's syntax pass) keeps them and
    the jobs not done yet, but for those the taker computes itself: a later
    part finds every other one, none checked twice."""
    settings = LintSettings(frozenset({"JL001"}))
    jobs = [
        runner.Job(
            f"f{i}.py", f"x = {i}\n".encode(), settings, ModuleInfo(f"f{i}"), syntax_only=True
        )
        for i in range(200)
    ]
    pool = runner.WorkerPool(2)
    try:
        pool.meanwhile(jobs, lambda job: True)
        mine = {f"f{i}.py" for i in range(0, 200, 7)}
        done_first = dict(pool.done_meanwhile(mine))  # the background adds to what it gives
        batch = [runner.Job("g.py", b"y = 1\n", settings, ModuleInfo("g"), syntax_only=True)]
        assert runner.run_jobs(batch * 30, pool, None)[0].parsed  # the rest is sent behind it
        background = pool._background
        assert background is not None
        futures.wait([future for _, future in background._sent])
        later = pool.done_meanwhile()
        pool.stop_meanwhile()
        assert pool._background is None
    finally:
        pool.close()
    assert set(later) == {job.path for job in jobs} - (mine - set(done_first))
    assert all(later[path] is result for path, result in done_first.items())


def test_each_skipped_file_of_a_monorepo_is_syntax_checked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The syntax pass of each part takes what the background checked for
    it: no file is checked again, and each part's broken file is JL001."""
    log = tmp_path / "checked.log"
    run_job = runner._run

    def logged(job: runner.Job) -> FileResult:
        if job.syntax_only:
            with log.open("a") as out:  # from the worker processes too
                out.write(job.path + "\n")
        return run_job(job)

    monkeypatch.setattr(runner, "_run", logged)
    monkeypatch.setattr(runner, "MIN_FILES_FOR_POOL", 1)
    files: dict[str, str] = {}
    for project in ("billing", "search"):
        files[f"{project}/pyproject.toml"] = f"[project]\nname = '{project}'\n"
        files[f"{project}/{project}/__init__.py"] = ""
        files[f"{project}/{project}/broken.py"] = "def total(:\n"
        files[f"{project}/{project}/tasks.py"] = (
            "from celery import shared_task\n\n@shared_task\ndef sync(key):\n    return key\n"
        )
        for n in range(30):
            files[f"{project}/{project}/plain_{n}.py"] = f"def value_{n}():\n    return {n}\n"
    root = tmp_path / "repo"
    write(root, files)
    monkeypatch.chdir(root)
    result = lint_paths([Path(".")], Config(root=root), RunOptions(jobs=2))
    checked = log.read_text().split()
    assert len(checked) == len(set(checked)) > 60
    broken = sorted(f.path for f in result.findings if f.code == "JL001")
    assert broken == ["billing/billing/broken.py", "search/search/broken.py"]


@pytest.mark.parametrize(
    ("source", "wanted"),
    [
        ("@shared_task(max_retries=None)\ndef f():\n    pass\n", True),
        ("class Sync(Task):\n    max_retries = None\n", True),
        ("class Sync(Task):\n    max_retries: int | None = None\n", True),
        ("@app.task(retry_kwargs={'max_retries': None})\ndef f():\n    pass\n", True),
        ("def run(self):\n    self.retry(max_retries=NEVER)\n", True),
        # The word in another name, or compared: no attempt bound is set.
        ("def test_send_when_max_retries_exceeded():\n    pass\n", False),
        ("if task.request.retries == task.max_retries:\n    pass\n", False),
        ("backend = Backend(result_backend_max_retries=2)\n", False),
    ],
)
def test_the_attempt_bound_trigger_wants_the_option_given_a_value(
    source: str, wanted: bool
) -> None:
    from joblint.pipeline.screen.prefilter import Prefilter

    lowered = source.encode().lower()
    prefilter = Prefilter(["JL302"], [], project_facts=False)
    assert prefilter.decide_lowered(lowered, prefilter.present(lowered)).wanted is wanted


# A manager method's result handed to a task: what it returns is asked of the
# models module's facts by every round of reading on demand, the project
# model's rounds after the first pass's included.
ON_DEMAND_PROJECT = {
    "app/__init__.py": "",
    "app/models.py": """
from django.db import models


class PayloadManager(models.Manager):
    def create_with_file(self, data):
        return self.create(data=data)


class Payload(models.Model):
    data = models.TextField()
    objects = PayloadManager()
""",
    "app/tasks.py": """
from celery import shared_task


@shared_task
def deliver(payload):
    return payload
""",
    "app/views.py": """
from app.models import Payload
from app.tasks import deliver


def publish(data):
    payload = Payload.objects.create_with_file(data)
    deliver.delay(payload)
""",
    "app/orders.py": """
from django.db import transaction

from app.views import publish


def save(data):
    with transaction.atomic():
        publish(data)
""",
}


def test_a_run_reads_the_facts_of_a_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, ON_DEMAND_PROJECT)
    parsed = parsed_files(monkeypatch)
    found = _findings(tmp_path, Config(root=tmp_path), RunOptions(jobs=1, cache=False))
    assert parsed.count(ON_DEMAND_PROJECT["app/models.py"]) == 1
    assert [(Path(path).name, line, message[:4]) for path, line, _, message in found] == [
        ("orders.py", 9, "publ")
    ]


# A chain through a package's re-export, and one straight to a module: the
# packages above a module a call names are never read for its names.
PACKAGES_PROJECT = {
    "shop/__init__.py": "SHOP_MARKER = 'the top package'\n",
    "shop/billing/__init__.py": "from shop.billing.mailer import receipt_later\n",
    "shop/billing/mailer.py": """
from shop.tasks import send_receipt


def receipt_later(order_id):
    send_receipt.delay(order_id)


def refund_later(order_id):
    send_receipt.delay(order_id)
""",
    "shop/tasks.py": """
from celery import shared_task


@shared_task
def send_receipt(order_id):
    return order_id
""",
    "shop/orders.py": """
from django.db import transaction

from shop.billing import receipt_later


def place(order_id):
    with transaction.atomic():
        receipt_later(order_id)
""",
    "shop/refunds.py": """
from django.db import transaction

from shop.billing.mailer import refund_later


def refund(order_id):
    with transaction.atomic():
        refund_later(order_id)
""",
}


def test_the_packages_above_a_module_are_not_read_for_its_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, PACKAGES_PROJECT)
    parsed = parsed_files(monkeypatch)
    indexed = indexed_files(monkeypatch)
    found = _findings(tmp_path, Config(root=tmp_path), RunOptions(jobs=1, cache=False))
    assert [(Path(path).name, line) for path, line, _, _ in found] == [
        ("orders.py", 9),
        ("refunds.py", 9),
    ]
    top = PACKAGES_PROJECT["shop/__init__.py"]
    assert top not in parsed and not any(p.endswith("shop/__init__.py") for p in indexed)
    assert any(p.endswith("shop/billing/__init__.py") for p in indexed)  # the re-export


# Modules whose AST checks read some top-level statements only: the answer
# depends on statements elsewhere (what a chain starts from, what a lock is
# assigned to, through other names; an import alias), or the cut falls in a string.
PARTS_CASES = [
    # A lock assigned at module level, picked and written in a function.
    "pending = Job.objects.select_for_update()\n\n"
    "def helper():\n    return 1\n\n"
    "def claim():\n    job = pending.first()\n    job.save()\n",
    # The pick is what the name the lock starts from was assigned, elsewhere.
    "rows = Job.objects.order_by('id')[:10]\n\n"
    "def claim():\n    rows.select_for_update().update(state='taken')\n",
    # Through another name, in a third definition.
    "queue = Job.objects.select_for_update()\n\ndef make():\n    return 1\n\n"
    "waiting = queue\n\ndef helper():\n    pass\n\n"
    "def take():\n    row = waiting.first()\n    row.save()\n",
    # A natural key, unless the name it starts from is assigned (anywhere).
    "Ev = x[:5]\n\ndef other():\n    pass\n\n"
    "def take(r):\n    e = Ev.objects.filter(ref=r).select_for_update().first()\n    e.save()\n",
    "def take(r):\n    e = Ev.objects.filter(ref=r).select_for_update().first()\n    e.save()\n",
    # A class's attribute, read by another method; decorators kept with their definition.
    "import functools\n\n@functools.cache\n@other\ndef f():\n    pass\n\n"
    "class Worker:\n    jobs = Job.objects.select_for_update()\n\n"
    "    def take(self):\n        job = self.jobs.first()\n        job.save()\n",
    # A definition's line inside a docstring: the cut falls in a string.
    'def doc():\n    """Example:\n\ndef fake():\n'
    '    Job.objects.select_for_update().first().save()\n"""\n\n'
    "def take():\n    job = Job.objects.select_for_update().first()\n    job.save()\n",
    # On-commit registrations: an alias imported in one statement, called in a loop in another.
    "from django.db.transaction import on_commit as later\n\n"
    "def a():\n    pass\n\ndef notify(ids):\n    for i in ids:\n        later(lambda: send(i))\n",
    "from django.db import transaction\n\ndef notify(ids):\n    transaction.on_commit(send)\n"
    "    for i in ids:\n        pass\n",
    # An on-commit registration whose only `for` is a comprehension's, a
    # docstring's; one under an alias written with capitals, in a loop.
    "from django.db import transaction\n\ndef a():\n    pass\n\ndef notify(ids):\n"
    '    """Sends for each id."""\n    transaction.on_commit(lambda: [send(i) for i in ids])\n',
    "from django.db.transaction import on_commit as Later\n\n"
    "def notify(ids):\n    for i in ids:\n        Later(lambda: send(i))\n",
    # SQL written out, a carriage return: the whole tree decides.
    'SQL = "SELECT id FROM jobs FOR UPDATE"\n\ndef f():\n    Job.objects.select_for_update()\n',
    "def take():\r\n    job = Job.objects.select_for_update().first()\r\n    job.save()\r\n",
]


def _sources_with_row_locks_or_on_commit() -> list[str]:
    sources = our_sources() + [source for source, _ in ROW_LOCK_CASES] + PARTS_CASES
    return [s for s in sources if "for_update" in s or "on_commit" in s]


@pytest.mark.parametrize("source", _sources_with_row_locks_or_on_commit())
def test_the_checks_on_parts_of_a_module_answer_as_on_the_whole(source: str) -> None:
    from joblint.index.ast_walk import quiet_ast_parse
    from joblint.pipeline.screen import ast_checks

    data = source.encode()
    for check, step in ast_checks.steps().items():
        if step.in_parts is None:
            continue
        if not ast_checks.reads_in_parts(data, data.lower(), [check]):
            continue  # the whole tree decides
        whole = ast_checks.confirmed(quiet_ast_parse(data), [check], data.lower())
        parts = ast_checks.confirmed_in_parts(data, data.lower(), [check])
        assert parts is None or parts == whole, check


def _parsed_parts(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """What the AST checks parse with `ast` on parts of a module, from now on."""
    from joblint.index import ast_walk

    parsed: list[bytes] = []
    real = ast_walk.quiet_ast_parse

    def counting(source: bytes) -> Any:
        parsed.append(source)
        return real(source)

    monkeypatch.setattr(ast_walk, "quiet_ast_parse", counting)
    return parsed


def test_the_checks_parse_only_the_parts_they_read(monkeypatch: pytest.MonkeyPatch) -> None:
    from joblint.pipeline.screen import ast_checks

    parsed = _parsed_parts(monkeypatch)
    pending, rows, alias, natural, _, _, in_string, on_commit, _, _, _, sql, carriage = PARTS_CASES
    for code, check, unread in [
        (pending, "row-lock-picking-rows", b"def helper"),
        (rows, "row-lock-picking-rows", None),
        (alias, "row-lock-picking-rows", b"def helper"),
        (natural, "row-lock-picking-rows", b"def other"),
        (on_commit, "on-commit-in-loop", b"def a()"),
    ]:
        parsed.clear()
        data = code.encode()
        assert ast_checks.reads_in_parts(data, data.lower(), [check])
        assert ast_checks.confirmed_in_parts(data, data.lower(), [check]) == {check}
        # Not the definitions that name nothing the answer depends on.
        assert parsed and all(unread is None or unread not in p for p in parsed)
    # A cut inside a string: a part that doesn't parse on its own.
    data = in_string.encode()
    assert ast_checks.confirmed_in_parts(data, data.lower(), ["row-lock-picking-rows"]) is None
    # SQL written out, a lone carriage return: not read in parts at all.
    for code in (sql, carriage):
        data = code.encode()
        assert not ast_checks.reads_in_parts(data, data.lower(), ["row-lock-picking-rows"])
    assert not ast_checks.reads_in_parts(b"x = 1\n", b"x = 1\n", ["sleep-in-retry-loop"])


def test_a_method_is_read_in_a_class_of_its_own_only_inside_its_class() -> None:
    """A definition at four spaces is cut out of a class's part; one in a
    loop at module level after the class is not (in a class of its own it
    would lose the loop around it)."""
    from joblint.index.ast_walk import ModuleParts
    from joblint.pipeline.screen import ast_checks

    source = (
        "class Notifier:\n    kind = 1\n\n    def a(self):\n        pass\n\n"
        "    @property\n    def b(self):\n        return 2\n\n"
        "for item in items:\n    def c():\n        transaction.on_commit(send)\n"
    )
    data = source.encode()
    parts = ModuleParts(data, data.lower())
    heads = [data[start:end].split(b"\n")[0] for start, end in parts.spans]
    # The loop after the class stays in the part before it, `c` inside its loop.
    assert heads == [b"class Notifier:", b"    def a(self):", b"    @property"]
    assert parts.methods == {1, 2}
    assert ast_checks.confirmed_in_parts(data, data.lower(), ["on-commit-in-loop"]) == {
        "on-commit-in-loop"
    }


PLAIN_FUNCTION_PROJECT = {
    "shop/__init__.py": "",
    "shop/mail.py": """
__all__ = ["subject_for"]


def subject_for(order):
    return f"Order {order.number}"
""",
    "shop/receipts.py": """
from dataclasses import dataclass


@dataclass
class Receipt:
    number: str
""",
    "shop/tasks.py": """
from celery import shared_task


@shared_task
def send_mail(subject):
    return subject
""",
    "shop/views.py": """
from shop.mail import subject_for
from shop.receipts import Receipt
from shop.tasks import send_mail


def notify(order):
    send_mail.delay(subject_for(order))
    send_mail.delay(Receipt(order.number))
""",
}


@pytest.mark.parametrize("told", [True, False])
def test_a_plain_function_s_module_is_not_read_for_its_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, told: bool
) -> None:
    """Whether `subject_for(order)` is a dataclass's constructor: the index
    of its module, read for what it returns, shows it is a plain function,
    so its module's facts are not read with LibCST; the findings are those of
    a run whose index tells no plain functions."""
    write(tmp_path, PLAIN_FUNCTION_PROJECT)
    if not told:
        monkeypatch.setattr(index_reading, "plain_functions", lambda tree, text: [])
    parsed = parsed_files(monkeypatch)
    found = _findings(tmp_path, Config(root=tmp_path), RunOptions(jobs=1, cache=False))
    assert [(Path(path).name, line, message[:40]) for path, line, _, message in found] == [
        ("views.py", 9, "'Receipt(order.number)' is a dataclass i")
    ]
    assert (PLAIN_FUNCTION_PROJECT["shop/mail.py"] in parsed) is not told
    assert PLAIN_FUNCTION_PROJECT["shop/receipts.py"] in parsed  # a class: its facts tell


def test_the_checks_a_file_s_anchors_lead_to_are_the_checks_that_match() -> None:
    """Screening asks only the checks whose anchors a file holds: on every
    rule example, fixture and example project the decision, and the checks
    of each kind of fact, are those of asking every check."""
    from joblint.pipeline.screen import prefilter

    screen = prefilter.Prefilter([rule.CODE for rule in all_rules()], ["atomic_job"], True)
    screen.build()
    tables = prefilter._tables()
    sets = [
        screen._checks,
        screen._gated,
        tables.defines_jobs,
        tables.project_settings,
        tables.openings,
        tables.handler_shapes,
    ]
    sources = [code for _, _, files in _example_projects() for code in files.values()]
    sources += our_sources()
    matched = 0
    for code in sources:
        lowered = code.lower().encode()
        present = screen.present(lowered)
        for checks in sets:
            found = checks.matching(lowered, present)
            assert found == [c for c in checks.checks if c.matches(lowered)], code[:80]
            matched += len(found)
    assert matched > 1000


@given(
    st.lists(
        st.sampled_from(
            [
                "app = Celery('proj')\n",
                "app.conf.visibility_timeout = 10\n",
                "CELERY_TASK_TIME_LIMIT = 60\n",
                "send.apply_async(countdown=5)\n",
                "send.apply_async(eta = when)\n",
                "beta = 1\n",
                "x = 1\n",
            ]
        ),
        max_size=5,
    )
)
def test_the_facts_screening_finds_the_anchors_as_one_test_each_would(lines: list[str]) -> None:
    """A run naming files screens every other file for facts alone, its
    anchors found in one pass: the kinds of fact are those of asking each
    check with `in` tests."""
    from joblint.pipeline.screen import prefilter

    lowered = "".join(lines).lower().encode()
    expected = prefilter.ProjectFacts(
        *(
            any(check.matches(lowered) for check in checks.checks)
            for checks in (
                prefilter._tables().project_settings,
                prefilter._tables().project_limits,
                prefilter._tables().project_delays,
            )
        )
    )
    assert prefilter.project_facts(lowered) == expected


def test_registrations_with_no_loop_statement_around_are_not_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No line of the parts naming an on-commit registration starts a loop
    (`for`, `while`): their tree has no loop, and none of them is parsed. A
    registration under an alias written with capitals counts."""
    from joblint.pipeline.screen import ast_checks

    parsed = _parsed_parts(monkeypatch)
    check = "on-commit-in-loop"
    comprehension, capitals = PARTS_CASES[-4:-2]
    data = comprehension.encode()
    assert ast_checks.confirmed_in_parts(data, data.lower(), [check]) == set()
    assert not parsed
    data = capitals.encode()
    assert ast_checks.confirmed_in_parts(data, data.lower(), [check]) == {check}
    tree = source.quiet_ast_parse(data)
    assert ast_checks.confirmed(tree, [check], data.lower()) == {check}
    # A `while` loop is a loop.
    data = (
        b"from django.db import transaction\n\ndef a():\n    pass\n\n"
        b"def drain(queue):\n    while queue:\n        transaction.on_commit(queue.pop())\n"
    )
    assert ast_checks.confirmed_in_parts(data, data.lower(), [check]) == {check}


UNPARSEABLE_HELPER_PROJECT = {
    "pyproject.toml": '[project]\nname = "shop"\n',
    "shop/__init__.py": "",
    "shop/views.py": (
        "from django.db import transaction\n\nfrom shop import helpers\n\n\n"
        "def place(request):\n    with transaction.atomic():\n"
        "        helpers.notify(request.user.pk)\n"
    ),
    "shop/helpers.py": "from shop.tasks import send\n\ndef notify(pk:\n    send.delay(pk)\n",
    "shop/tasks.py": (
        "from celery import shared_task\n\n@shared_task\ndef send(pk):\n    return pk\n"
    ),
}


def test_a_module_python_can_t_parse_is_indexed_once_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three passes ask for the helper's index; it has none to give."""
    write(tmp_path, UNPARSEABLE_HELPER_PROJECT)
    indexed = indexed_files(monkeypatch)
    monkeypatch.chdir(tmp_path)
    found = _findings(Path("shop/views.py"), Config(root=tmp_path), RunOptions(jobs=1))
    assert found == []  # what the helper does can't be told
    assert indexed.count("shop/helpers.py") == 1


# Views calling a helper that enqueues: one through a function of its module
# calling it inside a project context manager that opens a transaction
# (defined in a module that opens it), one plainly.
VIEWS_PROJECT = {
    "shop/__init__.py": "",
    "shop/tasks.py": (
        "from celery import shared_task\n\n\n@shared_task\ndef send_receipt(order_id):\n    pass\n"
    ),
    "shop/billing.py": (
        "from shop.tasks import send_receipt\n\n\n"
        "def charge(order_id):\n    send_receipt.delay(order_id)\n"
    ),
    "shop/locking.py": (
        "from contextlib import contextmanager\n\nfrom django.db import transaction\n\n\n"
        "@contextmanager\ndef order_lock():\n    with transaction.atomic():\n        yield\n"
    ),
    "shop/views.py": (
        "from shop.billing import charge\nfrom shop.locking import order_lock\n\n\n"
        "def pay(request, order_id):\n    settle(order_id)\n\n\n"
        "def settle(order_id):\n    with order_lock():\n        charge(order_id)\n"
    ),
    "shop/pages.py": (
        "from shop.billing import charge\n\n\n"
        "def receipt(request, order_id):\n    charge(order_id)\n"
    ),
    "shop/receivers.py": (
        "from shop.billing import charge\n\n\n"
        "def on_paid(sender, instance, **kwargs):\n    charge(instance.pk)\n"
    ),
}


def test_a_view_whose_code_opens_no_transaction_is_not_read_for_calls_inside_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request handler's shape is no transaction where the settings make
    requests none, nor a receiver's that nothing connects: the module is
    read for calls inside one where its code names a function that opens
    one (found from that function's module)."""
    write(tmp_path, VIEWS_PROJECT)
    indexed = indexed_files(monkeypatch)
    found = _findings(tmp_path, Config(root=tmp_path), RunOptions(jobs=1, cache=False))
    assert [(Path(path).name, line) for path, line, _, _ in found] == [("views.py", 11)]
    assert any(p.endswith("shop/views.py") for p in indexed)
    assert not any(p.endswith(("shop/pages.py", "shop/receivers.py")) for p in indexed)


def test_a_module_s_index_is_freed_when_dropped_not_by_the_cyclic_collector() -> None:
    """Reading an index leaves no cycle behind: one through its readers held
    the module's whole `ast` tree until a collection found it, which cost a
    long module more than its reading did."""
    sources = our_sources()
    gc.collect()
    gc.disable()
    try:
        read = sum(
            index_reading.index_source(text, ModuleInfo("app.m"), Options()) is not None
            for text in sources
        )
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert read > 100


def test_the_workers_keep_what_they_loaded_out_of_the_cyclic_collector_s_reach() -> None:
    """LibCST, the rules and the index's readers, loaded as a worker starts,
    are frozen: a full collection after a large file walks only what the
    files made."""
    pool = runner.WorkerPool(2, ready_to_parse=True)
    try:
        executor = pool.executor
        assert executor is not None
        frozen = [executor.submit(gc.get_freeze_count).result() for _ in range(4)]
    finally:
        pool.close()
    assert min(frozen) > 100_000


def test_a_released_project_index_is_freed_when_dropped() -> None:
    """The views of a project index refer back to it: released after its
    `with` block, it and all they computed are freed as the block ends, not
    left for the cyclic collector (a monorepo builds about a hundred)."""
    examples_root = ROOT / "examples"
    run = lint_paths([examples_root], Config(root=examples_root), RunOptions(jobs=1, cache=False))
    results = [*run.results, *run.context]
    gc.collect()
    gc.disable()
    try:
        with ProjectIndex.built(results) as index:
            forwarders = index.graph.payload_forwarders()
            held = [
                index.holds(requirement, r.path, p.finding.span.line)
                for r in results
                for p in r.pending
                for requirement in p.requires
            ]
        del index
        assert gc.collect() == 0
        kept = ProjectIndex.build(results)
        kept.graph.payload_forwarders()
        del kept
        assert gc.collect() > 0  # what the release spares the collector
    finally:
        gc.enable()
    assert forwarders is not None and len(held) > 10

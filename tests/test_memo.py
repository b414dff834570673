"""The run memo: a run whose every input (files, module names, digests,
settings, joblint's code) is a remembered run's ends as that run ended,
without the rounds; any change to an input runs them again. And a file's
facts taken from an earlier run's lint of it."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import joblint.pipeline.schedule.on_demand as on_demand
import joblint.pipeline.schedule.outcome as outcome
from joblint.api import RunOptions, lint_paths
from joblint.config import Config
from joblint.pipeline import index as indexing
from joblint.pipeline.cache import CACHE_DIR_NAME, ResultCache, read_pack
from joblint.pipeline.lint import lint_source
from joblint.pipeline.schedule import workers
from joblint.pipeline.schedule.memo import MEMO_NAME
from joblint.registry import all_codes, all_rules, examples
from joblint.rule import Invalid
from joblint.settings import LintSettings, ModuleInfo
from joblint.testing import EXAMPLE_PATH

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "project_model"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "project_model")
    monkeypatch.chdir(tmp_path)
    return tmp_path


class Rounds:
    """Counts the project model's rounds (none when a run is replayed)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = on_demand.wanted

        def counting(*args: object, **kwargs: object) -> object:
            self.count += 1
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(on_demand, "wanted", counting)


def _findings(root: Path, paths: list[str], config: Config | None = None) -> list[str]:
    run = lint_paths(
        [Path(p) for p in paths], config or Config(root=root), RunOptions(cache=True, jobs=1)
    )
    assert run.errors == [] and run.internal_errors == []
    return [f"{f.path}:{f.span.line}:{f.code}:{f.message}" for f in run.findings]


def _cold(root: Path, paths: list[str]) -> list[str]:
    run = lint_paths([Path(p) for p in paths], Config(root=root), RunOptions(cache=False))
    return [f"{f.path}:{f.span.line}:{f.code}:{f.message}" for f in run.findings]


@pytest.mark.parametrize(
    "paths", [["project_model"], ["project_model/bakery/views.py", "project_model/ledger"]]
)
def test_a_run_with_the_same_inputs_ends_as_the_remembered_one(
    project: Path, monkeypatch: pytest.MonkeyPatch, paths: list[str]
) -> None:
    first = _findings(project, paths)
    assert first == _cold(project, paths) and any("JL101" in f for f in first)
    assert (project / CACHE_DIR_NAME / MEMO_NAME).exists()
    rounds = Rounds(monkeypatch)
    assert _findings(project, paths) == first
    assert rounds.count == 0  # replayed


def test_an_edited_helper_runs_the_rounds_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _findings(project, ["project_model"])
    db = project / "project_model" / "bakery" / "db.py"
    opened = "        with transaction.atomic():\n            yield\n"
    db.write_text(db.read_text(encoding="utf-8").replace(opened, "        yield\n"))
    rounds = Rounds(monkeypatch)
    after = _findings(project, ["project_model"])
    assert rounds.count > 0 and after == _cold(project, ["project_model"])
    assert len(after) < len(before)


def test_other_settings_run_the_rounds_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per-file ignores change no trigger: the files' settings are in the key."""
    everything = _findings(project, ["project_model"])
    rounds = Rounds(monkeypatch)
    quieter = Config(root=project, per_file_ignores=(("views.py", ("JL101",)),))
    found = _findings(project, ["project_model"], quieter)
    assert rounds.count > 0
    assert found == [f for f in everything if not ("/views.py:" in f and ":JL101:" in f)]
    assert found != everything


def test_a_pruned_entry_or_a_damaged_memo_runs_the_rounds(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _findings(project, ["project_model"])
    memo = project / CACHE_DIR_NAME / MEMO_NAME
    (remembered,) = json.loads(memo.read_text()).values()
    entry = remembered["context"][0]
    (pack,) = (project / CACHE_DIR_NAME / "packs").glob("*.json")
    kept = [(key, text) for key, text in read_pack(pack) if key != entry]
    ends = list(itertools.accumulate(len(text) for _, text in kept))
    head = json.dumps({"keys": [key for key, _ in kept], "ends": ends})
    pack.write_text(head + "\n" + "".join(text for _, text in kept))
    rounds = Rounds(monkeypatch)
    assert _findings(project, ["project_model"]) == first
    assert rounds.count > 0
    memo.write_text("{not json")
    assert _findings(project, ["project_model"]) == first


def _sources() -> list[tuple[str, str]]:
    """Every rule example's files and every file of the examples and fixtures."""
    found = [
        (f"{code}-{index}-{name}", text)
        for rule in all_rules()
        for index, example in enumerate(examples(rule).all)
        for code in [rule.CODE]
        for name, text in [
            (EXAMPLE_PATH, example.code),
            *(
                (f"{m}.py", c)
                for m, c in (example.project.items() if isinstance(example, Invalid) else ())
            ),
        ]
    ]
    for tree in ("examples", "fixtures"):
        found += [
            (str(p), p.read_text(encoding="utf-8")) for p in sorted((ROOT / tree).rglob("*.py"))
        ]
    return found


def test_a_lints_facts_do_not_depend_on_the_rules_that_ran() -> None:
    """What lets a run take a file's facts from an earlier run's lint of it."""
    every = LintSettings(frozenset(all_codes()))
    none = LintSettings(frozenset())
    differing = [
        name
        for name, text in _sources()
        if lint_source(name, text.encode(), every, ModuleInfo("app.m")).facts
        != lint_source(name, text.encode(), none, ModuleInfo("app.m")).facts
    ]
    assert differing == []


def test_a_named_run_after_a_whole_run_parses_no_file_it_linted_for_facts(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = ["project_model/bakery/views.py"]
    parsed: list[str] = []
    real = workers._run

    def counting(job: workers.Job) -> object:
        if not job.index_only and not job.syntax_only and not job.settings.codes:
            parsed.append(job.path)
        return real(job)

    monkeypatch.setattr(workers, "_run", counting)
    cold = _cold(project, named)
    assert parsed  # the named file's findings need facts of files it doesn't name
    whole = lint_paths([Path("project_model")], Config(root=project), RunOptions(cache=True))
    linted = {r.path for r in whole.results}
    parsed.clear()
    assert _findings(project, named) == cold
    assert not linted & set(parsed)  # facts of files the whole run skipped only


def test_a_cache_restored_into_another_checkout_path_gives_hits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI restores the cache into a checkout at another path (`actions/cache`):
    entries are keyed by content, shown paths and settings, never by absolute
    paths, so an unchanged project is replayed whole (no file linted), and
    one edited file is the only one linted again."""
    first = tmp_path / "runner-1" / "shop"
    shutil.copytree(FIXTURE, first / "project_model")
    monkeypatch.chdir(first)
    cold = _findings(first, ["project_model"])
    assert cold
    second = tmp_path / "runner-2" / "work" / "shop"
    shutil.copytree(first, second)  # the checkout and its restored `.joblint_cache`
    assert (second / CACHE_DIR_NAME).is_dir()
    monkeypatch.chdir(second)
    kinds: list[str] = []
    run = lint_paths(
        [Path("project_model")],
        Config(root=second),
        RunOptions(cache=True, jobs=1, on_file=lambda kind, size: kinds.append(kind)),
    )
    assert [f"{f.path}:{f.span.line}:{f.code}:{f.message}" for f in run.findings] == cold
    assert "checked" not in kinds and "cached" in kinds
    edited = next(second.rglob("*.py"))
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    kinds.clear()
    lint_paths(
        [Path("project_model")],
        Config(root=second),
        RunOptions(cache=True, jobs=1, on_file=lambda kind, size: kinds.append(kind)),
    )
    assert kinds.count("checked") <= 1


def _run(root: Path, config: Config | None = None) -> outcome.RunResult:
    return lint_paths(
        [Path("project_model")], config or Config(root=root), RunOptions(cache=True, jobs=1)
    )


def _shown(run: outcome.RunResult) -> list[str]:
    return [f"{f.path}:{f.span.line}:{f.code}:{f.message}" for f in run.findings]


def test_a_replayed_run_reports_what_was_reported_reading_no_entry_until_asked(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _run(project)
    hidden, paths = first.hidden_in_tests, sorted(r.path for r in first.results)
    read: list[str] = []
    real = ResultCache.get
    monkeypatch.setattr(ResultCache, "get", lambda cache, key: read.append(key) or real(cache, key))

    def unexpected(*args: object, **kwargs: object) -> None:
        raise AssertionError("a replayed run settled its results again")

    monkeypatch.setattr(outcome, "settle_scoped", unexpected)
    again = _run(project)
    assert _shown(again) == _shown(first) and again.hidden_in_tests == hidden
    assert read == []
    # Re-linting a file with its project (fixes, the language server) reads them.
    assert sorted(r.path for r in again.results) == paths and read


def test_a_setting_only_settling_reads_settles_the_remembered_results_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Test paths decide which findings are shown, not what a file's lint
    finds: the remembered results are settled again with them."""
    first = _shown(_run(project))
    assert any("/views.py:" in f for f in first)
    views_are_tests = Config(root=project, extend_test_paths=("views.py",))
    rounds = Rounds(monkeypatch)
    found = _shown(_run(project, views_are_tests))
    assert rounds.count == 0  # the outcome was replayed, and settled again
    assert found == [f for f in first if "/views.py:" not in f]


def test_a_damaged_record_of_what_was_reported_settles_the_results_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _shown(_run(project))
    memo = project / CACHE_DIR_NAME / MEMO_NAME
    record = json.loads(memo.read_text())
    (key,) = record
    record[key]["settled"]["findings"] = [{"t": "Finding", "f": ["not", "a finding"]}]
    memo.write_text(json.dumps(record))
    settled: list[int] = []
    real = outcome.settle_scoped
    monkeypatch.setattr(
        outcome, "settle_scoped", lambda *a, **k: settled.append(1) or real(*a, **k)
    )
    assert _shown(_run(project)) == first
    assert settled


def test_a_run_that_indexed_a_test_module_is_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test module's index tells no plain functions (its facts are read):
    still a result of the cache like any other, so the memo of the run
    holds and the next run is replayed."""
    files = {
        "shop/__init__.py": "",
        "shop/testing/__init__.py": "",
        "shop/testing/jobs.py": "def rebuild(pk):\n    return pk\n",
        "shop/tasks.py": "from celery import shared_task\n\n\n@shared_task\n"
        "def send(pk):\n    return pk\n",
        "shop/views.py": "from django.db import transaction\n"
        "from shop.tasks import send\nfrom shop.testing.jobs import rebuild\n\n\n"
        "def checkout(order):\n    with transaction.atomic():\n"
        "        rebuild.delay(order.pk)\n        send.delay(order.pk)\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    indexed: list[str] = []
    real = indexing.index_file

    def counting(path: str, *args: object) -> object:
        indexed.append(path)
        return real(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(indexing, "index_file", counting)
    first = _findings(tmp_path, ["shop"])
    assert [f.split(":")[:3] for f in first] == [["shop/views.py", "9", "JL101"]]
    assert any(p.endswith("testing/jobs.py") for p in indexed)
    rounds = Rounds(monkeypatch)
    assert _findings(tmp_path, ["shop"]) == first
    assert rounds.count == 0  # replayed


def test_a_run_that_read_the_projects_config_and_deployment_files_is_replayed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Their facts are made in the main process, from no linted file; they
    are remembered as results are, and editing either file runs the rounds."""
    pytest_ini = project / "pytest.ini"
    pytest_ini.write_text("[pytest]\nDJANGO_SETTINGS_MODULE = observatory.settings.staging\n")
    dotenv = project / ".env"
    dotenv.write_text("QUEUE_HOST=queue.production.internal\n")
    first = _findings(project, ["project_model"])
    assert (project / CACHE_DIR_NAME / MEMO_NAME).exists()
    rounds = Rounds(monkeypatch)
    assert _findings(project, ["project_model"]) == first
    assert rounds.count == 0
    for edited, text in ((dotenv, "QUEUE_HOST=other\n"), (pytest_ini, "[pytest]\n")):
        edited.write_text(text)
        before = rounds.count
        assert _findings(project, ["project_model"]) == _cold(project, ["project_model"])
        assert rounds.count > before


# What a replayed run never needs: the passes after the replay, the project
# model, the requirement types, the index's readers and LibCST.
NOT_REPLAYING = (
    "joblint.pipeline.schedule.checking",
    "joblint.pipeline.project.project_index",
    "joblint.pipeline.project.loading",
    "joblint.requirements",
    "joblint.index.reading",
    "libcst",
)


def test_a_replayed_run_imports_none_of_what_only_running_the_passes_needs(
    project: Path,
) -> None:
    """Start-up is most of a warm run: a run the memo replays stops before
    the modules only the passes use are imported."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from joblint.api import RunOptions, lint_paths\n"
        "from joblint.config import Config\n"
        "options = RunOptions(cache=True)\n"
        "run = lint_paths([Path('project_model')], Config(root=Path('.')), options)\n"
        "print(len(run.findings))\n"
        f"print(*[m for m in {NOT_REPLAYING!r} if m in sys.modules])\n"
    )
    root = Path(__file__).resolve().parents[1]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{root}:{root / 'runtime' / 'src'}"}

    def loaded() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=project, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    cold, warm = loaded(), loaded()
    assert cold[0] == warm[0] != "0"  # the same findings, some
    assert cold[1].split() == list(NOT_REPLAYING)  # a run of the passes needs them all
    assert warm[1] == ""

"""Where rules report: production code by default; test code and migrations
on request (`--include-tests`, `include-tests`), with the count of what was
not shown; JL0 everywhere; test code gives production findings no facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ENQUEUE_IN_ATOMIC, Run, write

from joblint.config import DEFAULT_TEST_PATHS
from joblint.pipeline.project.scope import TestCode


def _paths(result_stdout: str) -> list[str]:
    return sorted({f["path"] for f in json.loads(result_stdout)})


def test_test_code_is_hidden_and_counted(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "shop/views.py": ENQUEUE_IN_ATOMIC,
            "shop/tests/test_views.py": ENQUEUE_IN_ATOMIC,
            "shop/test_orders.py": ENQUEUE_IN_ATOMIC,
            "conftest.py": ENQUEUE_IN_ATOMIC,
        },
    )
    result = run(".")
    assert result.code == 1
    assert "shop/views.py:8:9: JL101" in result.stdout
    assert "test_views.py" not in result.stdout and "conftest.py" not in result.stdout
    assert "Found 1 finding in 1 file (4 files checked)." in result.stderr
    assert "3 findings in test code and migrations not shown (--include-tests shows them)." in (
        result.stderr
    )
    everything = run("--include-tests", "--format", "json", ".")
    assert _paths(everything.stdout) == [
        "conftest.py",
        "shop/test_orders.py",
        "shop/tests/test_views.py",
        "shop/views.py",
    ]
    assert "not shown" not in everything.stderr


def test_all_checks_passed_still_says_what_was_hidden(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"tests/test_checkout.py": ENQUEUE_IN_ATOMIC})
    result = run(".")
    assert result.code == 0 and result.stdout == ""
    assert "All checks passed (1 file checked)." in result.stderr
    assert "1 finding in test code and migrations not shown" in result.stderr


def test_config_keys(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "shop/views.py": ENQUEUE_IN_ATOMIC,
            "tests/test_views.py": ENQUEUE_IN_ATOMIC,
            "qa/checks.py": ENQUEUE_IN_ATOMIC,
        },
    )
    assert _paths(run("--format", "json", ".").stdout) == ["qa/checks.py", "shop/views.py"]
    write(tmp_path, {"joblint.toml": "extend-test-paths = ['qa/']\n"})
    assert _paths(run("--format", "json", ".").stdout) == ["shop/views.py"]
    write(tmp_path, {"joblint.toml": "include-tests = true\n"})
    assert len(_paths(run("--format", "json", ".").stdout)) == 3
    assert _paths(run("--no-include-tests", "--format", "json", ".").stdout) == [
        "qa/checks.py",
        "shop/views.py",
    ]
    write(tmp_path, {"joblint.toml": "test-paths = []\n"})
    assert len(_paths(run("--format", "json", ".").stdout)) == 3


def test_invalid_test_path_is_a_one_line_config_error(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"joblint.toml": "test-paths = ['!']\n", "a.py": ENQUEUE_IN_ATOMIC})
    result = run(".")
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert "'test-paths' has an invalid pattern '!'" in result.stderr


def test_migrations_and_their_run_python_functions(run: Run, tmp_path: Path) -> None:
    data_migration = """from django.db import migrations, transaction
from shop.tasks import reindex


def backfill(apps, schema_editor):
    with transaction.atomic():
        reindex.delay(1)


def unrelated(order):
    with transaction.atomic():
        reindex.delay(order.pk)


OPERATIONS = [migrations.RunPython(backfill, reverse_code=migrations.RunPython.noop)]
"""
    write(
        tmp_path,
        {
            "shop/migrations/0007_backfill.py": ENQUEUE_IN_ATOMIC,
            "shop/data_fixes.py": data_migration,
        },
    )
    found = json.loads(run("--format", "json", ".").stdout)
    assert [(f["path"], f["line"]) for f in found] == [("shop/data_fixes.py", 12)]
    everything = json.loads(run("--include-tests", "--format", "json", ".").stdout)
    assert [(f["path"], f["line"]) for f in everything] == [
        ("shop/data_fixes.py", 7),
        ("shop/data_fixes.py", 12),
        ("shop/migrations/0007_backfill.py", 8),
    ]


def test_unparseable_test_file_is_still_reported(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"tests/test_broken.py": "def broken(:\n    pass\n"})
    result = run("--format", "concise", ".")
    assert result.stdout.startswith("tests/test_broken.py:1:12: JL001")


def test_suppression_used_by_a_hidden_finding_is_not_unused(run: Run, tmp_path: Path) -> None:
    suppressed = ENQUEUE_IN_ATOMIC.replace(
        "send_receipt.delay(order.pk)", "send_receipt.delay(order.pk)  # joblint: ignore[JL101]"
    )
    write(tmp_path, {"tests/test_views.py": suppressed})
    result = run("--select", "JL002,JL101", ".")
    assert result.code == 0, result.stdout
    assert "not shown" not in result.stderr  # suppressed, so nothing was held back


def test_test_settings_do_not_exempt_production_code(run: Run, tmp_path: Path) -> None:
    """A test project's django-q ORM broker makes no production enqueue transactional."""
    view = """from django.db import transaction
from django_q.tasks import async_task


def checkout(order):
    with transaction.atomic():
        async_task("shop.tasks.send_receipt", order.pk)
"""
    write(
        tmp_path,
        {
            "shop/views.py": view,
            "tests/settings.py": "Q_CLUSTER = {'name': 'test', 'orm': 'default'}\n",
        },
    )
    assert _paths(run("--format", "json", ".").stdout) == ["shop/views.py"]
    # Showing test code too changes nothing for production code.
    assert _paths(run("--include-tests", "--format", "json", ".").stdout) == ["shop/views.py"]


def test_a_test_module_production_imports_gives_facts(run: Run, tmp_path: Path) -> None:
    view = """from django.db import transaction
from shop.testing.jobs import rebuild


def checkout(order):
    with transaction.atomic():
        rebuild.delay(order.pk)
"""
    plain_function = "def rebuild(pk):\n    return pk\n"
    write(
        tmp_path,
        {
            "shop/__init__.py": "",
            "shop/views.py": view,
            "shop/testing/__init__.py": "",
            "shop/testing/jobs.py": plain_function,
        },
    )
    # The imported test module says `rebuild` is a plain function: no enqueue.
    assert _paths(run("--format", "json", ".").stdout) == []


def test_stdin_filename_in_test_code(run: Run) -> None:
    result = run("--stdin-filename", "tests/test_views.py", "-", stdin=ENQUEUE_IN_ATOMIC)
    assert result.code == 0 and "1 finding in test code" in result.stderr
    shown = run(
        "--include-tests", "--stdin-filename", "tests/test_views.py", "-", stdin=ENQUEUE_IN_ATOMIC
    )
    assert shown.code == 1 and "JL101" in shown.stdout


def test_fix_leaves_test_code_alone(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"tests/test_views.py": ENQUEUE_IN_ATOMIC, "views.py": ENQUEUE_IN_ATOMIC})
    run("--fix", "--unsafe-fixes", ".")
    assert (tmp_path / "tests/test_views.py").read_text() == ENQUEUE_IN_ATOMIC
    assert (tmp_path / "views.py").read_text() != ENQUEUE_IN_ATOMIC


@pytest.mark.parametrize(
    ("path", "is_test"),
    [
        ("tests/test_a.py", True),
        ("pkg/tests/helpers.py", True),
        ("pkg/test/helpers.py", True),
        ("pkg/testing/helpers.py", True),
        ("pkg/test_models.py", True),
        ("pkg/models_test.py", True),
        ("pkg/tests.py", True),
        ("conftest.py", True),
        ("pkg/migrations/0001_initial.py", True),
        ("pkg/testimonials.py", False),
        ("pkg/latest.py", False),
        ("pkg/contest/views.py", False),
        ("pkg/tasks.py", False),
        ("pkg/test.py", True),
        ("pkg/testdata.py", False),
    ],
)
def test_default_test_paths(path: str, is_test: bool, tmp_path: Path) -> None:
    tests = TestCode(tmp_path, DEFAULT_TEST_PATHS)
    assert (str(tmp_path / path) in tests) is is_test


def test_directories_above_the_project_do_not_count(tmp_path: Path) -> None:
    root = tmp_path / "tests" / "shop"
    tests = TestCode(root, DEFAULT_TEST_PATHS)
    assert str(root / "views.py") not in tests
    assert str(root / "tests" / "test_views.py") in tests


@pytest.mark.parametrize(
    "path",
    ["app/tests/test_x.py", "x.py", "../elsewhere/tests/a.py", "/abs/tests/b.py", "."],
)
def test_a_path_below_the_root_is_read_as_pathlib_reads_it(
    path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Test code is matched below the project root; the string arithmetic
    that finds the part below it gives what `Path.relative_to` gives."""
    from joblint.pipeline.project.scope import _relative

    monkeypatch.chdir(tmp_path)
    for root in (tmp_path, tmp_path.parent, tmp_path / "app"):
        try:
            expected = Path(path).absolute().relative_to(root).as_posix()
        except ValueError:
            expected = Path(path).as_posix()
        assert _relative(path, root) == expected

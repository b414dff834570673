"""The progress bar: counts per kind, and only where a person is watching."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

from joblint.api import RunOptions, lint_paths
from joblint.config import Config
from joblint.pipeline.report import progress


def test_every_file_is_counted_once_with_what_happened_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "plain.py": "def add(a, b):\n    return a + b\n",
            "actors.py": "import dramatiq\n\n@dramatiq.actor\ndef notify(pk):\n    pass\n",
            "views.py": "from actors import notify\n\ndef view(order):\n    notify.send(order)\n",
            "jobs.py": "from django.db import transaction\nfrom t import t\n"
            "def f():\n    with transaction.atomic():\n        t.delay()\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    bar = progress.FileProgress(enabled=False)
    options = RunOptions(cache=True, on_file=bar.advance, on_total=bar.set_total)
    lint_paths([Path(".")], Config(root=tmp_path), options)
    assert (bar.total, bar.done, bar.cached) == (4, 4, 0)
    assert bar.skipped == 3  # views.py and actors.py come back in the second pass, uncounted
    again = progress.FileProgress(enabled=False)
    lint_paths([Path(".")], Config(root=tmp_path), RunOptions(cache=True, on_file=again.advance))
    assert (again.done, again.skipped, again.cached) == (4, 3, 1)
    assert again.details == "3 skipped by the prefilter, 1 from the cache"


def test_the_bar_measures_the_bytes_left_to_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Skipped files take their share of screening only: the work left is
    the bytes of the files to parse, and a finished run has done it all."""
    big = "from django.db import transaction\nfrom t import t\n" + (
        "def f():\n    with transaction.atomic():\n        t.delay()\n" * 200
    )
    write(tmp_path, {"jobs.py": big, **{f"plain{n}.py": "x = 1\n" * 50 for n in range(20)}})
    monkeypatch.chdir(tmp_path)
    bar = progress.FileProgress(enabled=False)
    options = RunOptions(on_file=bar.advance, on_total=bar.set_total)
    lint_paths([Path(".")], Config(root=tmp_path), options)
    plain = 20 * len("x = 1\n" * 50)
    assert (bar.done, bar.skipped) == (21, 20)
    assert bar.work_total == pytest.approx(len(big) + plain * progress.SCREEN_SHARE)
    assert bar.work_done == pytest.approx(bar.work_total)
    # After the screening, the big file is nearly all of the work left.
    screened = progress.FileProgress(enabled=False)
    screened.set_total(21, len(big) + plain)
    for _ in range(20):
        screened.advance(progress.SKIPPED, plain // 20)
    assert screened.work_done / screened.work_total < 0.02
    assert screened.files == "20/21 files"


@pytest.mark.parametrize(
    "tty,ci,output_format,to_file,expected",
    [
        (True, "", "full", False, True),
        (True, "", "concise", False, True),
        (False, "", "full", False, False),  # a pipe or a log
        (True, "true", "full", False, False),  # CI
        (True, "", "json", False, False),  # machine-readable
        (True, "", "full", True, False),  # --output-file
    ],
)
def test_the_bar_is_only_for_people_at_a_terminal(
    tty: bool,
    ci: str,
    output_format: str,
    to_file: bool,
    expected: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stderr.isatty", lambda: tty)
    monkeypatch.setenv("CI", ci)
    assert progress.wanted(output_format, to_file) is expected

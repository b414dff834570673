"""`--diff-from REF`: only changed Python files are linted, with whole-project facts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import CLEAN, ENQUEUE_IN_ATOMIC, Run, write

SETTINGS = (
    "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
    "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 1800}\n"
)
CELERY_APP = (
    "from celery import Celery\n"
    "app = Celery('proj')\n"
    "app.config_from_object('proj.settings', namespace='CELERY')\n"
)
SHORT_TASK = "from proj.celery import app\n\n@app.task(time_limit=60)\ndef short():\n    pass\n"
LONG_TASK = "\n@app.task(time_limit=7200)\ndef long():\n    pass\n"


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def _repo(root: Path, files: dict[str, str | bytes]) -> None:
    _git(root, "init", "-q", "-b", "main")
    write(root, files)
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "feature")


def test_only_changed_committed_uncommitted_and_untracked_files(run: Run, tmp_path: Path) -> None:
    _repo(
        tmp_path,
        {"old.py": ENQUEUE_IN_ATOMIC, "a.py": CLEAN, "b.py": CLEAN, "c.py": CLEAN, "d.py": CLEAN},
    )
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC})
    _git(tmp_path, "commit", "-qam", "committed change")
    write(tmp_path, {"b.py": ENQUEUE_IN_ATOMIC, "new.py": ENQUEUE_IN_ATOMIC, "notes.txt": "x"})
    (tmp_path / "d.py").unlink()
    write(tmp_path, {".gitignore": "ignored.py\n", "ignored.py": ENQUEUE_IN_ATOMIC})
    result = run("--diff-from", "main", "--format", "concise")
    assert result.code == 1
    paths = sorted(line.split(":", 1)[0] for line in result.stdout.splitlines())
    assert paths == ["a.py", "b.py", "new.py"]
    assert "(3 files checked)" in result.stderr
    # Restricted to the paths given; nothing changed there: clean, nothing linted.
    assert run("--diff-from", "main", "a.py", "--format", "concise").stdout.startswith("a.py:")
    nothing = run("--diff-from", "main", "c.py")
    assert nothing.code == 0 and "0 files checked" in nothing.stderr


def test_whole_project_facts_come_from_unchanged_files(run: Run, tmp_path: Path) -> None:
    _repo(
        tmp_path,
        {
            "proj/__init__.py": "",
            "proj/settings.py": SETTINGS,
            "proj/celery.py": CELERY_APP,
            "proj/tasks.py": SHORT_TASK,
        },
    )
    assert run("--diff-from", "main").code == 0
    write(tmp_path, {"proj/tasks.py": SHORT_TASK + LONG_TASK})
    result = run("--diff-from", "main", "--format", "concise", "--select", "JL501")
    assert result.code == 1
    assert result.stdout.startswith("proj/settings.py:2:")  # the setting, in an unchanged file
    assert "7200" in result.stdout


def test_bad_ref_and_no_repository(run: Run, tmp_path: Path) -> None:
    _repo(tmp_path, {"a.py": CLEAN})
    bad = run("--diff-from", "no-such-branch")
    assert bad.code == 2 and bad.stderr.startswith("joblint: error: --diff-from no-such-branch:")
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / ".git").rename(tmp_path / "git-moved")
    result = run("--diff-from", "main", cwd=outside)
    assert result.code == 2 and len(result.stderr.splitlines()) == 1

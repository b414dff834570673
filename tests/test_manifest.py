"""The manifest: a named run takes the digests of the project's unchanged
files from what `stat` says of them, and reads a file only where a job needs
its bytes; whatever changed is read again."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import write

import joblint.pipeline.schedule.sources as sources
from joblint.api import RunOptions, lint_paths
from joblint.config import Config
from joblint.pipeline.cache import CACHE_DIR_NAME
from joblint.pipeline.manifest import MANIFEST_NAME, Manifest

SETTINGS = (
    "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
    "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 1800}\n"
)
FILES = {
    ".git/HEAD": "ref\n",
    "proj/__init__.py": "",
    "proj/celery.py": (
        "import os\nfrom celery import Celery\n\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'proj.settings')\n"
        "app = Celery('proj')\n"
        "app.config_from_object('django.conf:settings', namespace='CELERY')\n"
    ),
    "proj/settings.py": SETTINGS,
    "proj/tasks.py": (
        "from celery import shared_task\n\n"
        "@shared_task(time_limit=3600)\ndef rebuild():\n    pass\n"
    ),
    "proj/views.py": (
        "from django.db import transaction\nfrom proj.mail import notify\n\n"
        "def place(order):\n    with transaction.atomic():\n        notify(order.pk)\n"
    ),
    "proj/mail.py": "from proj.tasks import rebuild\n\ndef notify(pk):\n    rebuild.delay()\n",
}


def _settle(root: Path) -> None:
    """Date every file back a minute: the manifest remembers only files that
    haven't just been written (they could change again within one tick)."""
    past = time.time() - 60
    for path in root.rglob("*.py"):
        os.utime(path, (past, past))


def _named(root: Path, *paths: str) -> list[str]:
    run = lint_paths([Path(p) for p in paths], Config(root=root), RunOptions(cache=True))
    return [f"{f.path}:{f.span.line}:{f.code}" for f in run.findings]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, FILES)
    _settle(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _manifest(root: Path) -> dict[str, list[object]]:
    found = json.loads((root / CACHE_DIR_NAME / MANIFEST_NAME).read_text())
    assert isinstance(found, dict)
    return found


def test_a_warm_named_run_finds_what_a_cold_one_finds(project: Path) -> None:
    cold = _named(project, "proj/tasks.py", "proj/views.py")
    assert cold == ["proj/settings.py:2:JL501", "proj/views.py:6:JL101"]
    remembered = _manifest(project)
    assert str(project / "proj" / "mail.py") in remembered  # not named: by its stat
    assert str(project / "proj" / "views.py") not in remembered  # named: always read
    assert _named(project, "proj/tasks.py", "proj/views.py") == cold


def test_a_changed_file_is_read_again(project: Path) -> None:
    assert _named(project, "proj/tasks.py") == ["proj/settings.py:2:JL501"]
    settings = project / "proj" / "settings.py"
    before = _manifest(project)[str(settings)]
    # Same size, and the modification time put back: the change time still moves.
    text = settings.read_text().replace("1800", "7200")
    stat = settings.stat()
    settings.write_text(text)
    os.utime(settings, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _named(project, "proj/tasks.py") == []
    assert _manifest(project)[str(settings)] != before


def test_a_helper_changed_on_disk_changes_the_chain(project: Path) -> None:
    assert "proj/views.py:6:JL101" in _named(project, "proj/views.py")
    (project / "proj" / "mail.py").write_text("def notify(pk):\n    return pk\n")
    _settle(project)
    assert _named(project, "proj/views.py") == []


def test_a_file_written_just_now_is_not_remembered(project: Path) -> None:
    fresh = project / "proj" / "fresh.py"
    fresh.write_text("x = 1\n")
    _named(project, "proj/tasks.py")
    assert str(fresh) not in _manifest(project)
    assert str(project / "proj" / "mail.py") in _manifest(project)


def test_a_damaged_manifest_only_means_reading(project: Path) -> None:
    cold = _named(project, "proj/tasks.py", "proj/views.py")
    (project / CACHE_DIR_NAME / MANIFEST_NAME).write_text("{not json")
    assert _named(project, "proj/tasks.py", "proj/views.py") == cold
    assert (
        Manifest(project / CACHE_DIR_NAME).digest(
            project / "proj" / "mail.py", os.stat(project / "proj" / "mail.py")
        )
        is not None
    )


def test_a_whole_warm_run_reads_no_unchanged_file_and_reads_a_changed_one(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole run takes its own files' digests from the manifest too: a run
    replayed from the memo reads none of them, and a file changed since
    (a new `stat`) is read again, with what it now says (the others only
    where the rounds the changed file brings need their bytes)."""
    whole = lint_paths([Path(".")], Config(root=project), RunOptions(cache=True))
    assert _manifest(project) and any(f.code == "JL101" for f in whole.findings)
    read: list[str] = []
    real = sources.read_file

    def reading(path: Path) -> bytes | str:
        read.append(path.as_posix())
        return real(path)

    monkeypatch.setattr(sources, "read_file", reading)
    warm = lint_paths([Path(".")], Config(root=project), RunOptions(cache=True))
    assert warm.findings == whole.findings and not [p for p in read if p.endswith(".py")]
    changed = project / "proj/mail.py"
    changed.write_text("def notify(pk):\n    return pk\n")
    past = time.time() - 60  # dated back, as `_settle` does, this file only
    os.utime(changed, (past, past))
    again = lint_paths([Path(".")], Config(root=project), RunOptions(cache=True))
    assert "proj/mail.py" in read  # the others only where a job needed their bytes
    assert not any(f.code == "JL101" for f in again.findings)

"""An enqueue a request handler reaches through files with no enqueue token
of their own is reported alike by every kind of run: cold, warm (the cache
and the run memo), without the prefilter, and naming one file (pre-commit,
the editor)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

from joblint.api import lint_paths
from joblint.config import Config
from joblint.pipeline.schedule.run import RunOptions

PROJECT = {
    "press/__init__.py": "",
    # The only place naming the settings: no manage.py.
    "press/celery.py": (
        "import os\n\n"
        'os.environ.setdefault("DJANGO_SETTINGS_MODULE", "press.settings.production")\n'
    ),
    "press/settings/__init__.py": "",
    "press/settings/base.py": (
        'DATABASES = {"default": env.db("DATABASE_URL")}\n'
        'DATABASES["default"]["ATOMIC_REQUESTS"] = True\n'
    ),
    "press/settings/production.py": "from .base import *  # noqa: F403\n",
    "press/models.py": (
        "from django.db import models\n\n\nclass Book(models.Model):\n"
        "    ordered = models.BooleanField(default=False)\n"
    ),
    "press/tasks.py": (
        "from celery import shared_task\n\nfrom press.models import Book\n\n\n@shared_task\n"
        "def bind(book_id):\n    return Book.objects.get(pk=book_id)\n"
    ),
    # No enqueue token in the view, nor in the service between.
    "press/views.py": (
        "from press.models import Book\nfrom press.services import orders\n\n\n"
        "def order_book(request, book_id):\n"
        "    Book.objects.filter(pk=book_id).update(ordered=True)\n"
        "    orders.place(book_id)\n"
    ),
    "press/services/__init__.py": "",
    "press/services/orders.py": (
        "from press.services import binding\n\n\ndef place(book_id):\n    binding.queue(book_id)\n"
    ),
    "press/services/binding.py": (
        "from press.tasks import bind\n\n\ndef queue(book_id):\n    bind.delay(book_id)\n"
    ),
}
EXPECTED = ["press/services/binding.py:5:JL101"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, PROJECT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _found(project: Path, paths: list[str], options: RunOptions) -> list[str]:
    run = lint_paths([Path(p) for p in paths], Config(root=project), options)
    return sorted(f"{f.path}:{f.span.line}:{f.code}" for f in run.findings)


def test_cold_and_warm_runs_report_the_enqueue(project: Path) -> None:
    assert _found(project, ["."], RunOptions(cache=True)) == EXPECTED
    assert _found(project, ["."], RunOptions(cache=True)) == EXPECTED


def test_a_run_without_the_prefilter_reports_the_same(project: Path) -> None:
    assert _found(project, ["."], RunOptions(use_prefilter=False)) == EXPECTED


def test_naming_the_enqueues_file_alone_reports_it(project: Path) -> None:
    named = ["press/services/binding.py"]
    assert _found(project, named, RunOptions()) == EXPECTED
    assert _found(project, named, RunOptions(cache=True)) == EXPECTED
    assert _found(project, named, RunOptions(cache=True)) == EXPECTED


def test_the_finding_names_the_view_and_each_call(project: Path) -> None:
    run = lint_paths([Path(".")], Config(root=project), RunOptions())
    (finding,) = run.findings
    assert "order_book(), a view run inside the request's transaction" in finding.message
    assert "orders.place() at press/views.py:7" in finding.message
    related = {(r.path, r.span.line) for r in finding.related}
    assert ("press/views.py", 5) in related
    assert ("press/services/orders.py", 5) in related
    assert ("press/settings/base.py", 1) in related


def test_without_atomic_requests_nothing_is_reported(project: Path) -> None:
    (project / "press/settings/base.py").write_text(
        'DATABASES = {"default": env.db("DATABASE_URL")}\n'
    )
    assert _found(project, ["."], RunOptions()) == []


@pytest.mark.parametrize(
    "options", [RunOptions(), RunOptions(cache=True), RunOptions(use_prefilter=False)]
)
def test_a_request_writing_nothing_the_job_reads_is_no_finding(
    project: Path, options: RunOptions
) -> None:
    # The view only reads: the job can't see an uncommitted row of its.
    view = (project / "press/views.py").read_text()
    (project / "press/views.py").write_text(
        view.replace("    Book.objects.filter(pk=book_id).update(ordered=True)\n", "")
    )
    assert _found(project, ["."], options) == []
    assert _found(project, ["press/services/binding.py"], options) == []


FASTAPI_PROJECT = {
    "mill/__init__.py": "",
    "mill/db.py": (
        "from sqlalchemy.orm import sessionmaker\n\nSessionLocal = sessionmaker()\n\n\n"
        "def get_session():\n    session = SessionLocal()\n    yield session\n"
        "    session.commit()\n"
    ),
    "mill/models.py": (
        "from sqlalchemy import Column, Integer\nfrom sqlalchemy.orm import declarative_base\n\n"
        "Base = declarative_base()\n\n\nclass Batch(Base):\n    __tablename__ = 'batches'\n"
        "    id = Column(Integer, primary_key=True)\n"
    ),
    "mill/tasks.py": (
        "from celery import shared_task\n\nfrom mill.db import SessionLocal\n"
        "from mill.models import Batch\n\n\n@shared_task\ndef grind(batch_id):\n"
        "    return SessionLocal().get(Batch, batch_id)\n"
    ),
    # No enqueue token in the route module.
    "mill/api.py": (
        "from fastapi import APIRouter, Depends\n\nfrom mill.db import get_session\n"
        "from mill.services import start\n\nrouter = APIRouter()\n\n\n"
        "@router.post('/batches')\nasync def create(session=Depends(get_session)):\n"
        "    return await start(session)\n"
    ),
    "mill/services.py": (
        "from mill.models import Batch\nfrom mill.tasks import grind\n\n\n"
        "async def start(session):\n    batch = Batch()\n    session.add(batch)\n"
        "    grind.delay(batch.id)\n    return batch\n"
    ),
}


@pytest.fixture
def fastapi_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, FASTAPI_PROJECT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_fastapi_session_dependency_is_reported_alike_by_every_run(
    fastapi_project: Path,
) -> None:
    expected = ["mill/services.py:8:JL101"]
    cold = _found(fastapi_project, ["."], RunOptions(cache=True))
    warm = _found(fastapi_project, ["."], RunOptions(cache=True))
    alone = _found(fastapi_project, ["mill/services.py"], RunOptions(cache=True))
    alone_warm = _found(fastapi_project, ["mill/services.py"], RunOptions(cache=True))
    unfiltered = _found(fastapi_project, ["."], RunOptions(use_prefilter=False))
    assert cold == warm == alone == alone_warm == unfiltered == expected


def test_a_fastapi_dependency_that_commits_nothing_is_no_transaction(
    fastapi_project: Path,
) -> None:
    (fastapi_project / "mill/db.py").write_text(
        "from sqlalchemy.orm import sessionmaker\n\nSessionLocal = sessionmaker()\n\n\n"
        "def get_session():\n    with SessionLocal() as session:\n        yield session\n"
    )
    assert _found(fastapi_project, ["."], RunOptions()) == []


# A view running a management command (`call_command("rebind")`): nobody
# calls the command's handler by its name, the view names its module.
COMMAND_PROJECT = {
    **{k: v for k, v in PROJECT.items() if not k.startswith("press/services/")},
    "press/views.py": (
        "from django.core.management import call_command\n\nfrom press.models import Book\n\n\n"
        "def rebind(request):\n"
        "    Book.objects.update(ordered=True)\n"
        '    call_command("rebind", verbosity=0)\n'
    ),
    "press/management/__init__.py": "",
    "press/management/commands/__init__.py": "",
    "press/management/commands/rebind.py": (
        "from django.core.management.base import BaseCommand\n\n"
        "from press.models import Book\nfrom press.tasks import bind\n\n\n"
        "def bind_all():\n"
        "    for book in Book.objects.all():\n"
        "        bind.delay(book.pk)\n\n\n"
        "class Command(BaseCommand):\n"
        "    def handle(self, *args, **options):\n"
        "        bind_all()\n"
    ),
}
COMMAND_FILE = "press/management/commands/rebind.py"


@pytest.mark.parametrize(
    "options", [RunOptions(), RunOptions(cache=True), RunOptions(use_prefilter=False)]
)
@pytest.mark.parametrize("paths", [["."], [COMMAND_FILE]])
def test_a_view_running_a_management_command_reaches_its_enqueue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: RunOptions, paths: list[str]
) -> None:
    write(tmp_path, COMMAND_PROJECT)
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path(p) for p in paths], Config(root=tmp_path), options)
    (finding,) = run.findings
    assert (finding.path, finding.span.line, finding.code) == (COMMAND_FILE, 9, "JL101")
    assert 'call_command("rebind") at press/views.py:8' in finding.message
    assert f"bind_all() at {COMMAND_FILE}:14" in finding.message


def test_a_view_running_a_command_by_a_name_it_is_given_reaches_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = COMMAND_PROJECT["press/views.py"].replace(
        '("rebind", verbosity=0)', "(request.POST['command'])"
    )
    write(tmp_path, {**COMMAND_PROJECT, "press/views.py": view})
    monkeypatch.chdir(tmp_path)
    assert _found(tmp_path, ["."], RunOptions()) == []

"""An enqueue a request handler reaches through files with no enqueue token
of their own is reported alike by every kind of run: cold, warm (the cache
and the run memo), without the prefilter, and naming one file (pre-commit,
the editor)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import indexed_files, parsed_files, write

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


# A Flask blueprint's view reaching an enqueue two modules away; the app's
# teardown, registered in its factory, commits the request's session.
FLASK_PROJECT = {
    "press/__init__.py": "",
    "press/db.py": (
        "from sqlalchemy.orm import scoped_session, sessionmaker\n\n"
        "db_session = scoped_session(sessionmaker())\n"
    ),
    "press/models.py": (
        "from sqlalchemy import Column, Integer\nfrom sqlalchemy.orm import declarative_base\n\n"
        "Base = declarative_base()\n\n\nclass Book(Base):\n    __tablename__ = 'books'\n"
        "    id = Column(Integer, primary_key=True)\n"
    ),
    "press/tasks.py": (
        "from celery import shared_task\n\nfrom press.db import db_session\n"
        "from press.models import Book\n\n\n@shared_task\ndef bind(book_id):\n"
        "    return db_session.get(Book, book_id)\n"
    ),
    "press/app.py": (
        "from flask import Flask\n\nfrom press.db import db_session\n"
        "from press.views import books\n\n\n"
        "def create_app():\n    app = Flask(__name__)\n    app.register_blueprint(books)\n\n"
        "    @app.teardown_request\n    def commit(exception=None):\n"
        "        db_session.commit()\n        db_session.remove()\n\n    return app\n"
    ),
    # No enqueue token in the views module, nor in the service between.
    "press/views.py": (
        "from flask import Blueprint\n\nfrom press.db import db_session\n"
        "from press.models import Book\n"
        "from press.services import orders\n\nbooks = Blueprint('books', __name__)\n\n\n"
        "@books.post('/books')\ndef order_book():\n    book = Book()\n    db_session.add(book)\n"
        "    orders.place(book)\n    return {}\n"
    ),
    "press/services/__init__.py": "",
    "press/services/orders.py": (
        "from press.services import binding\n\n\ndef place(book):\n    binding.queue(book.id)\n"
    ),
    "press/services/binding.py": (
        "from press.tasks import bind\n\n\ndef queue(book_id):\n    bind.delay(book_id)\n"
    ),
}
FLASK_FINDING = "press/services/binding.py:5:JL101"


@pytest.fixture
def flask_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, FLASK_PROJECT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_flask_teardown_commit_is_reported_alike_by_every_run(flask_project: Path) -> None:
    cold = _found(flask_project, ["."], RunOptions(cache=True))
    warm = _found(flask_project, ["."], RunOptions(cache=True))
    alone = _found(flask_project, ["press/services/binding.py"], RunOptions(cache=True))
    alone_warm = _found(flask_project, ["press/services/binding.py"], RunOptions(cache=True))
    unfiltered = _found(flask_project, ["."], RunOptions(use_prefilter=False))
    assert cold == warm == alone == alone_warm == unfiltered == [FLASK_FINDING]


def test_the_flask_finding_names_the_view_and_the_teardown(flask_project: Path) -> None:
    run = lint_paths([Path(".")], Config(root=flask_project), RunOptions())
    (finding,) = run.findings
    assert "order_book(), a Flask view run inside the session the app commits" in finding.message
    assert "enqueue after the commit in the function that commits it" in finding.message
    related = {(r.path, r.span.line, r.message) for r in finding.related}
    assert ("press/app.py", 12, "commit() commits after the handler returns") in related


def test_a_flask_teardown_that_only_removes_the_session_is_no_transaction(
    flask_project: Path,
) -> None:
    app = FLASK_PROJECT["press/app.py"].replace("        db_session.commit()\n", "")
    (flask_project / "press/app.py").write_text(app)
    assert _found(flask_project, ["."], RunOptions()) == []


def test_a_blueprints_own_teardown_runs_after_its_views_alone(flask_project: Path) -> None:
    teardown = "\n\n@other.teardown_request\ndef commit(exception=None):\n    db_session.commit()\n"
    (flask_project / "press/app.py").write_text(
        "from flask import Blueprint, Flask\n\nfrom press.db import db_session\n\n"
        "app = Flask(__name__)\nother = Blueprint('other', __name__)" + teardown
    )
    assert _found(flask_project, ["."], RunOptions()) == []
    views = (flask_project / "press/views.py").read_text()
    (flask_project / "press/views.py").write_text(views + teardown.replace("other", "books"))
    assert _found(flask_project, ["."], RunOptions()) == [FLASK_FINDING]


def test_flask_sqlalchemys_commit_on_teardown_commits_after_the_view(
    flask_project: Path,
) -> None:
    (flask_project / "press/app.py").write_text(
        "from flask import Flask\n\n\ndef create_app():\n    app = Flask(__name__)\n"
        "    app.config['SQLALCHEMY_COMMIT_ON_TEARDOWN'] = True\n    return app\n"
    )
    assert _found(flask_project, ["."], RunOptions()) == [FLASK_FINDING]
    assert _found(flask_project, ["press/services/binding.py"], RunOptions()) == [FLASK_FINDING]


# An async FastAPI route and an async service (no enqueue token in the
# route module); a Starlette middleware commits what the route wrote.
STARLETTE_PROJECT = {
    **{k: v for k, v in FASTAPI_PROJECT.items() if k != "mill/db.py"},
    "mill/db.py": "from sqlalchemy.orm import sessionmaker\n\nSessionLocal = sessionmaker()\n",
    "mill/api.py": (
        "from fastapi import APIRouter, Request\n\nfrom mill.services import start\n\n"
        "router = APIRouter()\n\n\n@router.post('/batches')\n"
        "async def create(request: Request):\n    return await start(request.state.db)\n"
    ),
    "mill/middleware.py": (
        "from starlette.middleware.base import BaseHTTPMiddleware\n\n"
        "from mill.db import SessionLocal\n\n\nclass Sessions(BaseHTTPMiddleware):\n"
        "    async def dispatch(self, request, call_next):\n"
        "        request.state.db = SessionLocal()\n"
        "        response = await call_next(request)\n"
        "        request.state.db.commit()\n        return response\n"
    ),
    "mill/main.py": (
        "from fastapi import FastAPI\nfrom starlette.middleware import Middleware\n\n"
        "from mill.api import router\nfrom mill.middleware import Sessions\n\n"
        "app = FastAPI(middleware=[Middleware(Sessions)])\napp.include_router(router)\n"
    ),
}


@pytest.fixture
def starlette_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, STARLETTE_PROJECT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_starlette_middleware_commit_is_reported_alike_by_every_run(
    starlette_project: Path,
) -> None:
    expected = ["mill/services.py:8:JL101"]
    cold = _found(starlette_project, ["."], RunOptions(cache=True))
    warm = _found(starlette_project, ["."], RunOptions(cache=True))
    alone = _found(starlette_project, ["mill/services.py"], RunOptions(cache=True))
    alone_warm = _found(starlette_project, ["mill/services.py"], RunOptions(cache=True))
    unfiltered = _found(starlette_project, ["."], RunOptions(use_prefilter=False))
    assert cold == warm == alone == alone_warm == unfiltered == expected


def test_a_middleware_committing_before_the_endpoint_is_no_transaction(
    starlette_project: Path,
) -> None:
    middleware = STARLETTE_PROJECT["mill/middleware.py"].replace(
        "        response = await call_next(request)\n        request.state.db.commit()\n",
        "        request.state.db.commit()\n        response = await call_next(request)\n",
    )
    (starlette_project / "mill/middleware.py").write_text(middleware)
    assert _found(starlette_project, ["."], RunOptions()) == []


@pytest.mark.parametrize("paths", [["."], ["press/services/binding.py"]])
def test_a_blueprints_own_teardown_registered_elsewhere_is_its_own(
    flask_project: Path, paths: list[str]
) -> None:
    # The hook's module names the blueprint another module defines: that
    # module tells it is a blueprint, not the app.
    (flask_project / "press/app.py").write_text(
        "from flask import Flask\n\napp = Flask(__name__)\n"
    )
    (flask_project / "press/other.py").write_text(
        "from flask import Blueprint\n\nother = Blueprint('other', __name__)\n"
    )
    (flask_project / "press/hooks.py").write_text(
        "from press.db import db_session\nfrom press.other import other\n\n\n"
        "@other.teardown_request\ndef commit(exception=None):\n    db_session.commit()\n"
    )
    assert _found(flask_project, paths, RunOptions()) == []


def test_the_search_up_reads_no_test_module(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test calls what it tests and no request runs a test: the modules
    holding tests are not read for callers (a test app's views module,
    which holds none, still is)."""
    write(
        project,
        {
            "press/tests/__init__.py": "",
            "press/tests/test_orders.py": (
                "from press.services import binding, orders\n\n\n"
                "def test_place():\n    orders.place(1)\n\n\n"
                "def test_queue():\n    binding.queue(1)\n"
            ),
            "press/tests/views.py": (
                "from press.services import orders\n\n\n"
                "def reorder(request, book_id):\n    orders.place(book_id)\n"
            ),
        },
    )
    indexed = indexed_files(monkeypatch)
    assert _found(project, ["."], RunOptions()) == EXPECTED
    assert "press/tests/views.py" in indexed
    assert "press/tests/test_orders.py" not in indexed


# A view outside a views module: a view because the URLconf registers it.
REGISTERED_VIEW = {
    "press/pages.py": (
        "from press.models import Book\nfrom press.tasks import bind\n\n\n"
        "def reorder(request, book_id):\n"
        "    Book.objects.filter(pk=book_id).update(ordered=True)\n"
        "    bind.delay(book_id)\n"
    ),
    "press/urls.py": (
        "from django.urls import path\n\nfrom press import pages\n\n"
        'urlpatterns = [path("reorder/<int:book_id>/", pages.reorder)]\n'
    ),
}


def test_a_urlconf_is_read_where_requests_are_transactions(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The views a URLconf registers make a function a view where requests
    are transactions; elsewhere nothing asks, and the URLconf, which holds
    nothing else, is not parsed with LibCST."""
    write(project, REGISTERED_VIEW)
    parsed = parsed_files(monkeypatch)
    urlconf = REGISTERED_VIEW["press/urls.py"]
    assert _found(project, ["."], RunOptions()) == ["press/pages.py:7:JL101", *EXPECTED]
    assert urlconf in parsed
    assert _found(project, ["press/pages.py"], RunOptions()) == ["press/pages.py:7:JL101"]
    (project / "press/settings/base.py").write_text(
        'DATABASES = {"default": env.db("DATABASE_URL")}\n'
    )
    parsed.clear()
    assert _found(project, ["."], RunOptions()) == []
    assert urlconf not in parsed

"""Library-specific names need the library: a name or shape heuristic of one
library applies only where that library is in reach, a project's own class or
object is judged as the project's, and a message names a library only when the
call resolves to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

from joblint.api import lint_paths
from joblint.config import Config

VIEW = """from django.db import transaction
from shop.tasks import send_receipt


def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.delay(order.pk)
"""


def _messages(root: Path, files: dict[str, str], select: str = "JL101") -> list[str]:
    write(root, {"shop/__init__.py": "", **files})
    run = lint_paths([root], Config(root=root, select=(select,)))
    return [f.message for f in run.findings]


@pytest.mark.parametrize(
    ("tasks", "subject"),
    [
        (
            "from celery import shared_task\n\n@shared_task\ndef send_receipt(pk): ...\n",
            "Celery task",
        ),
        ("from rq.decorators import job\n\n@job('mail')\ndef send_receipt(pk): ...\n", "RQ job"),
        (
            "from shop.celery import app\n\n@app.task\ndef send_receipt(pk): ...\n",
            "Celery task",
        ),
    ],
)
def test_the_message_names_the_library_the_task_resolves_to(
    tmp_path: Path, tasks: str, subject: str
) -> None:
    files = {
        "shop/views.py": VIEW,
        "shop/tasks.py": tasks,
        "shop/celery.py": "from celery import Celery\n\napp = Celery('shop')\n",
    }
    (message,) = _messages(tmp_path, files)
    assert message.startswith(f"{subject} 'send_receipt' is enqueued inside"), message
    on_commit_hint = "send_receipt.delay_on_commit(...)" in message
    assert on_commit_hint is (subject == "Celery task")


def test_a_task_the_files_linted_do_not_show_names_no_library(tmp_path: Path) -> None:
    (message,) = _messages(tmp_path, {"shop/views.py": VIEW})
    assert message.startswith("task 'send_receipt' is enqueued inside transaction.atomic()")
    assert "Celery" not in message and "delay_on_commit" not in message


def test_a_project_object_with_a_delay_method_is_no_task(tmp_path: Path) -> None:
    processor = (
        "class Processor:\n"
        "    def delay(self, name, *args):\n"
        "        return name, args\n\n"
        "send_receipt = Processor()\n"
    )
    assert _messages(tmp_path, {"shop/views.py": VIEW, "shop/tasks.py": processor}) == []


def test_a_project_class_is_no_task(tmp_path: Path) -> None:
    model = "class send_receipt:\n    @classmethod\n    def delay(cls, pk):\n        return pk\n"
    assert _messages(tmp_path, {"shop/views.py": VIEW, "shop/tasks.py": model}) == []


ENQUEUE_JOB = """from django.db import transaction
{imports}

async def schedule(pool, export):
    with transaction.atomic():
        export.save()
        await pool.enqueue_job("export", export.pk)
"""


def _enqueue_job(root: Path, imports: str, **modules: str) -> list[str]:
    files = {"shop/views.py": ENQUEUE_JOB.format(imports=imports)}
    files.update({f"shop/{name}.py": source for name, source in modules.items()})
    return _messages(root, files)


def test_enqueue_job_without_arq_or_rq_is_not_an_enqueue(tmp_path: Path) -> None:
    assert _enqueue_job(tmp_path, "import json") == []


def test_enqueue_job_with_arq_imported_here(tmp_path: Path) -> None:
    (message,) = _enqueue_job(tmp_path, "import arq")
    assert message.startswith("arq job 'export' is enqueued")


def test_enqueue_job_with_rq_imported_here(tmp_path: Path) -> None:
    (message,) = _enqueue_job(tmp_path, "from rq import Queue")
    assert message.startswith("RQ job 'export' is enqueued")


def test_enqueue_job_with_arq_in_reach_through_project_modules(tmp_path: Path) -> None:
    found = _enqueue_job(
        tmp_path,
        "from shop.settings import POOL_NAME",
        settings="from shop.worker import WorkerSettings\n\nPOOL_NAME = 'jobs'\n",
        worker="from arq.connections import RedisSettings\n\nclass WorkerSettings: ...\n",
    )
    assert [m.split(" is ")[0] for m in found] == ["arq job 'export'"]


def test_a_library_further_than_three_imports_away_is_out_of_reach(tmp_path: Path) -> None:
    chain = {
        "a": "from shop.b import B\n",
        "b": "from shop.c import C\nB = 1\n",
        "c": "from shop.d import D\nC = 1\n",
        "d": "import arq\nD = 1\n",
    }
    assert _enqueue_job(tmp_path, "from shop.a import A", **chain) == []
    chain["a"] = "from shop.c import C\n"
    assert len(_enqueue_job(tmp_path, "from shop.a import A", **chain)) == 1


def test_payloads_of_a_project_method_named_like_arq(tmp_path: Path) -> None:
    view = """from shop.models import Export, Report


def request_export(request):
    report = Report.objects.get(pk=request.POST["report"])
    Export.enqueue_job(request.user, report)
"""
    models = """from django.db import models


class Report(models.Model): ...


class Export(models.Model):
    @classmethod
    def enqueue_job(cls, owner, report):
        return cls.objects.create(owner=owner, report=report)
"""
    files = {"shop/views.py": view, "shop/models.py": models}
    assert _messages(tmp_path, files, select="JL201") == []


def test_a_library_constructing_its_own_api_class_in_its_module(tmp_path: Path) -> None:
    """Linting the library itself: the module that defines the class is its
    internals; a use of the class elsewhere is a use of its API."""
    library = """class RetryStrategy:
    def __init__(self, max_attempts=None, wait=0):
        self.max_attempts = max_attempts


def strategy_for(retry):
    if retry is True:
        return RetryStrategy()
    return None
"""
    user = "from procrastinate.retry import RetryStrategy\n\nFOREVER = RetryStrategy(wait=5)\n"
    files = {
        "procrastinate/__init__.py": "",
        "procrastinate/retry.py": library,
        "app/settings.py": user,
    }
    write(tmp_path, files)
    run = lint_paths([tmp_path], Config(root=tmp_path, select=("JL302",)))
    assert [(Path(f.path).name, f.span.line) for f in run.findings] == [("settings.py", 3)]

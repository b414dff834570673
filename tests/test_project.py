"""Whole-project facts: the class and task index across files."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import parsed_files, write

from joblint.api import RunOptions, lint_paths
from joblint.config import Config

PROJECT = {
    "core/__init__.py": "",
    "core/models.py": (
        "from django.db import models\n\n"
        "class TimeStamped(models.Model):\n"
        "    class Meta:\n"
        "        abstract = True\n"
    ),
    "billing/__init__.py": "",
    "billing/models.py": (
        "from core.models import TimeStamped\n\n"
        "class Invoice(TimeStamped):\n"
        "    pass\n\n"
        "def make_invoice():\n"
        "    return None\n"
    ),
    "billing/tasks.py": (
        "from celery import shared_task\n\n"
        "@shared_task\n"
        "def render(invoice_id, queue=None):\n"
        "    pass\n"
    ),
    "billing/views.py": (
        "from .models import Invoice, make_invoice\n"
        "from .tasks import render\n\n"
        "def issue(invoice: Invoice):\n"
        "    render.delay(invoice)\n"
        "    render.delay(Invoice())\n"
        "    render.delay(make_invoice())\n"
        "    render.delay(invoice.pk, queue='fast')\n"
        "    render.delay(invoice.pk, countdown=5)\n"
    ),
}


def _run(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, str]]:
    monkeypatch.chdir(root)
    run = lint_paths([Path(".")], Config(root=root))
    return [(f.path, f.span.line, f.code) for f in run.findings]


def test_model_resolved_through_relative_import_and_inheritance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, PROJECT)
    assert _run(tmp_path, monkeypatch) == [
        ("billing/views.py", 5, "JL201"),
        ("billing/views.py", 6, "JL201"),
        ("billing/views.py", 9, "JL103"),
    ]


def test_without_the_model_files_nothing_is_guessed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {k: v for k, v in PROJECT.items() if not k.endswith("models.py")}
    files["billing/views.py"] = files["billing/views.py"].replace(".models", ".schema")
    write(tmp_path, files)
    assert [f for f in _run(tmp_path, monkeypatch) if f[2] == "JL201"] == []


def test_each_file_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, PROJECT)
    calls = parsed_files(monkeypatch)
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path(".")], Config(root=tmp_path))
    assert run.findings and run.files_checked == len(PROJECT)
    # The packages (empty) are never read: their modules are files of their own.
    # Nor is billing/models.py: the index tells its class (its facts: its
    # bases) and its function are plain; the base's module tells the kind.
    unread = ("__init__.py", "billing/models.py")
    modules = [code for path, code in PROJECT.items() if not path.endswith(unread)]
    assert sorted(map(str, calls)) == sorted(modules)


LOCKING = {
    "store/__init__.py": "",
    "store/base.py": (
        "from django.db import models\n\n"
        "class Coded(models.Model):\n"
        "    code = models.CharField(max_length=10, unique=True)\n\n"
        "    class Meta:\n"
        "        abstract = True\n"
    ),
    "store/models.py": (
        "from django.db import models\n"
        "from .base import Coded\n\n"
        "class Coupon(Coded):\n"
        "    kind = models.CharField(max_length=10)\n"
        "    state = models.CharField(max_length=10)\n"
    ),
    "store/jobs.py": (
        "from django.db import transaction\n"
        "from .models import Coupon\n\n"
        "def redeem(code, kind):\n"
        "    with transaction.atomic():\n"
        "        one = Coupon.objects.select_for_update().filter(code=code, state='new').first()\n"
        "        one.state = 'used'\n"
        "        one.save()\n"
        "        any_ = Coupon.objects.select_for_update().filter(kind=kind, state='new').first()\n"
        "        any_.state = 'used'\n"
        "        any_.save()\n"
    ),
}


CACHE_LOCK_PROJECT = {
    "proj/__init__.py": "",
    "proj/settings.py": 'CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache"}}\n',
    "proj/jobs.py": (
        "from django.core.cache import cache\n\n"
        "def sweep():\n"
        "    with cache.lock('sweep'):\n"
        "        pass\n"
    ),
}


@pytest.mark.parametrize("named", [".", "store/jobs.py"])
def test_row_lock_pinned_by_a_unique_field_of_a_base_in_another_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    # The model files hold nothing JL401 looks for: their facts are read on demand.
    write(tmp_path, LOCKING)
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path(named)], Config(root=tmp_path))
    assert [(f.path, f.span.line, f.code) for f in run.findings] == [("store/jobs.py", 9, "JL401")]


@pytest.mark.parametrize(
    "select,named,cache",
    [((), False, False), (("JL402",), False, False), ((), True, False), ((), False, True)],
    ids=["project", "select-JL402", "named-file", "cached"],
)
def test_cache_lock_keyword_comes_from_the_settings_file(
    select: tuple[str, ...],
    named: bool,
    cache: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write(tmp_path, CACHE_LOCK_PROJECT)
    monkeypatch.chdir(tmp_path)
    target = Path("proj/jobs.py") if named else Path(".")
    config = Config(root=tmp_path, select=select) if select else Config(root=tmp_path)
    for _ in range(2 if cache else 1):  # the second run reads the cached facts
        run = lint_paths([target], config, RunOptions(cache=cache))
        messages = [f.message for f in run.findings if f.code == "JL402"]
        assert len(messages) == 1
        assert "without timeout=" in messages[0] and "expire=" not in messages[0]

"""Settings belong to the project that loads them: an example project's
settings in a library repository say nothing of the library's own code."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

from joblint.api import lint_paths
from joblint.config import Config
from joblint.pipeline.project.settings_scope import project_directory

ORM_BROKER = "Q_CLUSTER = {'name': 'shop', 'orm': 'default'}\n"
ENQUEUE = """from django.db import transaction
from django_q.tasks import async_task


def run_due(schedule):
    with transaction.atomic():
        schedule.save()
        async_task("jobs.send", schedule.pk)
"""
WSGI = """import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "{settings}")
"""


def _reported(root: Path, files: dict[str, str]) -> list[str]:
    write(root, files)
    run = lint_paths([root], Config(root=root, select=("JL101", "JL501")))
    return sorted(Path(f.path).relative_to(root).as_posix() for f in run.findings)


def test_an_example_projects_settings_leave_the_library_alone(tmp_path: Path) -> None:
    files = {
        "djq/__init__.py": "",
        "djq/scheduler.py": ENQUEUE,
        "example/__init__.py": "",
        "example/settings.py": ORM_BROKER,
        "example/wsgi.py": WSGI.format(settings="example.settings"),
        "example/views.py": ENQUEUE,
    }
    # The ORM broker makes the example's own enqueues transactional, not the library's.
    assert _reported(tmp_path, files) == ["djq/scheduler.py"]


def test_a_projects_settings_apply_to_its_apps(tmp_path: Path) -> None:
    files = {
        "manage.py": WSGI.format(settings="shop.settings"),
        "shop/__init__.py": "",
        "shop/settings.py": ORM_BROKER,
        "shop/wsgi.py": WSGI.format(settings="shop.settings"),
        "orders/__init__.py": "",
        "orders/views.py": ENQUEUE,
    }
    assert _reported(tmp_path, files) == []


def test_split_settings_are_loaded_through_their_sibling(tmp_path: Path) -> None:
    files = {
        "manage.py": WSGI.format(settings="config.settings.production"),
        "config/__init__.py": "",
        "config/settings/__init__.py": "",
        "config/settings/base.py": ORM_BROKER,
        "config/settings/production.py": "from .base import *\n",
        "orders/__init__.py": "",
        "orders/views.py": ENQUEUE,
    }
    assert _reported(tmp_path, files) == []


def test_settings_no_entry_point_names_apply_everywhere(tmp_path: Path) -> None:
    files = {
        "shop/__init__.py": "",
        "shop/settings.py": ORM_BROKER,
        "orders/__init__.py": "",
        "orders/views.py": ENQUEUE,
    }
    assert _reported(tmp_path, files) == []


def test_environment_assignment_and_celery_config_name_settings(tmp_path: Path) -> None:
    files = {
        "djq/__init__.py": "",
        "djq/scheduler.py": ENQUEUE,
        "example/__init__.py": "",
        "example/settings.py": ORM_BROKER,
        "example/asgi.py": 'import os\nos.environ["DJANGO_SETTINGS_MODULE"] = "example.settings"\n',
        "worker/__init__.py": "",
        "worker/celeryconfig.py": ORM_BROKER,
        "worker/app.py": "from celery import Celery\napp = Celery()\n"
        "app.config_from_object('worker.celeryconfig')\n",
        "worker/jobs.py": ENQUEUE,
    }
    assert _reported(tmp_path, files) == ["djq/scheduler.py"]


def test_the_cache_backend_of_an_example_project_is_not_the_librarys(tmp_path: Path) -> None:
    lock = (
        "from django.core.cache import cache\n\n\n"
        "def sweep():\n    with cache.lock('sweep'):\n        pass\n"
    )
    backend = "CACHES = {'default': {'BACKEND': 'redis_lock.django_cache.RedisCache'}}\n"
    files = {
        "lib/__init__.py": "",
        "lib/sweeper.py": lock,
        "demo/__init__.py": "",
        "demo/settings.py": backend,
        "demo/wsgi.py": WSGI.format(settings="demo.settings"),
        "demo/jobs.py": lock,
    }
    write(tmp_path, files)
    run = lint_paths([tmp_path], Config(root=tmp_path, select=("JL402",)))
    messages = {Path(f.path).parent.name: f.message for f in run.findings}
    assert "without expire=" in messages["demo"]
    assert "timeout= for django-redis, expire= for python-redis-lock" in messages["lib"]


@pytest.mark.parametrize(
    ("path", "module", "directory"),
    [
        ("repo/manage.py", "manage", "repo"),
        ("manage.py", "manage", "."),
        ("repo/shop/wsgi.py", "shop.wsgi", "repo/shop"),
        ("repo/src/config/settings/prod.py", "config.settings.prod", "repo/src/config"),
        ("repo/loose.py", "", "repo"),
    ],
)
def test_project_directory(path: str, module: str, directory: str) -> None:
    assert project_directory(path, module) == directory

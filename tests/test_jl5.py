"""Whole-project rules JL501/JL502 over small multi-file projects."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Run, write

from joblint.api import lint_paths
from joblint.config import Config

CELERY_APP = (
    "import os\n"
    "from celery import Celery\n\n"
    "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'proj.settings')\n"
    "app = Celery('proj')\n"
    "app.config_from_object('django.conf:settings', namespace='CELERY')\n"
)
TASKS = (
    "from datetime import timedelta\n"
    "from celery import shared_task\n"
    "from proj.limits import REBUILD_LIMIT\n\n"
    "@shared_task(time_limit=REBUILD_LIMIT)\n"
    "def rebuild_index():\n"
    "    pass\n\n"
    "@shared_task(time_limit=timedelta(hours=2).total_seconds())\n"
    "def export_all():\n"
    "    pass\n"
)


def _project(settings: str, tasks: str = TASKS) -> dict[str, str]:
    return {
        "proj/__init__.py": "",
        "proj/celery.py": CELERY_APP,
        "proj/settings.py": settings,
        "proj/limits.py": "REBUILD_LIMIT = 60 * 60\n",
        "proj/tasks.py": tasks,
    }


def _findings(root: Path, monkeypatch: pytest.MonkeyPatch, *paths: str) -> list[str]:
    monkeypatch.chdir(root)
    targets = [Path(p) for p in paths] or [Path(".")]
    run = lint_paths(targets, Config(root=root, select=("JL5",)))
    return [f"{f.path}:{f.span.line}:{f.code} {f.message}" for f in run.findings]


def test_namespaced_setting_below_constant_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = (
        "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
        "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 1800}\n"
    )
    write(tmp_path, _project(settings))
    found = _findings(tmp_path, monkeypatch)
    assert len(found) == 1
    assert found[0].startswith("proj/settings.py:2:JL501 broker visibility_timeout is 1800 s")
    # The longest exceeding limit is named: export_all, 2 h via timedelta.
    assert "task 'export_all' has time_limit 7200 s (proj/tasks.py:9)" in found[0]
    assert "Set visibility_timeout >= 7260 s" in found[0]


def test_redis_default_with_no_visibility_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, _project("CELERY_BROKER_URL = 'redis://redis:6379/0'\n"))
    found = _findings(tmp_path, monkeypatch)
    # 3600 s limit + 60 s margin > 3600 s default; 7200 s too.
    assert [f.split(" ")[0] for f in found] == [
        "proj/tasks.py:5:JL501",
        "proj/tasks.py:9:JL501",
    ]
    assert "default visibility_timeout of 3600 s" in found[0]


def test_sqs_broker_from_env_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = "import os\nCELERY_BROKER_URL = os.environ.get('BROKER', 'sqs://')\n"
    tasks = (
        "from celery import shared_task\n\n@shared_task(time_limit=1780)\ndef sync():\n    pass\n"
    )
    write(tmp_path, _project(settings, tasks))
    found = _findings(tmp_path, monkeypatch)
    assert len(found) == 1 and "SQS broker" in found[0] and "1800 s" in found[0]


def test_clean_project_with_large_enough_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = (
        "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
        "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 3 * 60 * 60}\n"
        "CELERY_TASK_TIME_LIMIT = 600\n"
    )
    write(tmp_path, _project(settings))
    assert _findings(tmp_path, monkeypatch) == []


def test_unknown_values_are_never_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = (
        "import os\n"
        "CELERY_BROKER_URL = os.environ['BROKER_URL']\n"
        "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': int(os.environ['VT'])}\n"
    )
    write(tmp_path, _project(settings))
    assert _findings(tmp_path, monkeypatch) == []


def test_countdown_beyond_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = (
        "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
        "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 7300}\n"
    )
    tasks = TASKS + (
        "\ndef later():\n"
        "    export_all.apply_async(countdown=3 * 3600)\n"
        "    export_all.apply_async(countdown=600)\n"
    )
    write(tmp_path, _project(settings, tasks))
    found = _findings(tmp_path, monkeypatch)
    assert [f.split(" ")[0] for f in found] == ["proj/tasks.py:14:JL502"]
    assert "countdown of 10800 s is longer than the Redis broker's visibility_timeout" in found[0]


def test_celeryconfig_module_and_app_conf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "worker/__init__.py": "",
        "worker/app.py": (
            "from celery import Celery\n"
            "app = Celery('worker')\n"
            "app.config_from_object('worker.celeryconfig')\n"
            "app.conf.update(task_time_limit=5400)\n"
        ),
        "worker/celeryconfig.py": (
            "broker_url = 'redis://localhost'\n"
            "broker_transport_options = {'visibility_timeout': 3600}\n"
        ),
    }
    write(tmp_path, files)
    found = _findings(tmp_path, monkeypatch)
    assert len(found) == 1
    assert found[0].startswith("worker/celeryconfig.py:2:JL501")
    assert "task_time_limit is 5400 s (worker/app.py:4)" in found[0]


def test_pre_commit_run_naming_only_tasks_finds_setting_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = (
        "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
        "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 1800}\n"
    )
    write(tmp_path, {**_project(settings), ".git/HEAD": "ref\n"})
    found = _findings(tmp_path, monkeypatch, "proj/tasks.py")
    assert len(found) == 1 and found[0].startswith("proj/settings.py:2:JL501")
    # A file that involves neither the setting nor a limit reports nothing.
    assert _findings(tmp_path, monkeypatch, "proj/celery.py") == []


def test_named_runs_read_the_limits_and_delays_their_findings_involve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another file's limits count where a finding names the worst of them,
    its delays where the timeout is in a named file; each named file reports
    what the whole run reports involving it."""
    settings = (
        "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
        "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 1800}\n"
    )
    files = {
        ".git/HEAD": "ref\n",
        **_project(settings, "from celery import shared_task\n"),
        "proj/short.py": "from celery import shared_task\n\n"
        "@shared_task(time_limit=3600)\ndef tidy():\n    pass\n",
        "proj/long.py": "from celery import shared_task\n\n"
        "@shared_task(time_limit=7200)\ndef rebuild():\n    pass\n",
        "proj/later.py": "from proj.long import rebuild\n\n"
        "def schedule():\n    rebuild.apply_async(countdown=4000)\n",
    }
    write(tmp_path, files)
    whole = _findings(tmp_path, monkeypatch)
    assert [f.split(" ")[0] for f in whole] == [
        "proj/later.py:4:JL502",
        "proj/settings.py:2:JL501",
    ]
    assert "(proj/long.py:3)" in whole[1]
    # The worst limit is another file's: the finding doesn't involve this one.
    assert _findings(tmp_path, monkeypatch, "proj/short.py") == []
    assert _findings(tmp_path, monkeypatch, "proj/long.py") == [whole[1]]
    assert _findings(tmp_path, monkeypatch, "proj/later.py") == [whole[0]]
    assert _findings(tmp_path, monkeypatch, "proj/settings.py") == whole


def test_suppressed_on_the_setting_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = (
        "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
        "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 1800}  # joblint: ignore[JL501]\n"
    )
    write(tmp_path, _project(settings))
    assert _findings(tmp_path, monkeypatch) == []


def test_cli_reports_jl501(run: Run, tmp_path: Path) -> None:
    settings = "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
    write(tmp_path, _project(settings))
    result = run("--format", "concise", "--select", "JL501", ".")
    assert result.code == 1
    assert result.stdout.count("JL501") == 2


def test_naming_one_file_reports_only_that_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        ".git/HEAD": "ref\n",
        "app/__init__.py": "",
        "app/jobs.py": "from huey import RedisHuey\nhuey = RedisHuey()\n\n@huey.task()\n"
        "def resize(x):\n    pass\n",
        "app/other.py": "from django.db import transaction\nfrom .jobs import resize\n\n"
        "def f(x):\n    with transaction.atomic():\n        resize(x)\n",
        "app/named.py": "from django.db import transaction\nfrom .jobs import resize\n\n"
        "def g(x):\n    with transaction.atomic():\n        resize(x)\n",
    }
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path("app/named.py")], Config(root=tmp_path))
    assert [(f.path, f.code) for f in run.findings] == [("app/named.py", "JL101")]


_LAYERED = {
    "shop/__init__.py": "",
    "shop/celery.py": (
        "import os\n"
        "from celery import Celery\n\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'shop.settings.prod')\n"
        "app = Celery('shop')\n"
        "app.config_from_object('django.conf:settings', namespace='CELERY')\n"
    ),
    "shop/settings/__init__.py": "",
    "shop/settings/base.py": (
        "CELERY_BROKER_URL = 'redis://queue:6379/0'\n"
        "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 1800}\n"
    ),
    "shop/settings/prod.py": (
        "from .base import *\n\n"
        "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 4 * 3600}\n"
    ),
    "shop/jobs.py": (
        "from celery import shared_task\n\n"
        "@shared_task\n"
        "def export(order_id):\n"
        "    pass\n\n"
        "def later(order):\n"
        "    options = {'countdown': 2 * 3600}\n"
        "    export.apply_async(args=(order.pk,), **options)\n"
    ),
}


def test_settings_module_overrides_what_it_star_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, _LAYERED)
    assert _findings(tmp_path, monkeypatch) == []


def test_leaf_settings_module_keeps_the_base_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        **_LAYERED,
        "shop/settings/staging.py": "from .base import *\n\nCELERY_TASK_ACKS_LATE = True\n",
    }
    write(tmp_path, files)
    found = _findings(tmp_path, monkeypatch)
    assert len(found) == 1
    assert found[0].startswith("shop/jobs.py:8:JL502 countdown of 7200 s")
    assert "visibility_timeout of 1800 s (shop/settings/base.py:2)" in found[0]
    # Pre-commit naming only the enqueue's file: the settings are read for facts.
    assert _findings(tmp_path, monkeypatch, "shop/jobs.py") == found


def test_settings_class_named_by_django_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "lab/__init__.py": "",
        "lab/celery.py": (
            "import os\n"
            "from celery import Celery\n\n"
            "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'lab.settings')\n"
            "os.environ.setdefault('DJANGO_CONFIGURATION', 'Prod')\n"
            "app = Celery('lab')\n"
            "app.config_from_object('django.conf:settings', namespace='CELERY')\n"
        ),
        "lab/settings.py": (
            "from configurations import Configuration, values\n\n"
            "class Base(Configuration):\n"
            "    CELERY_BROKER_URL = values.Value('sqs://')\n\n"
            "class Prod(Base):\n"
            "    CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 900}\n\n"
            "class Canary(Prod):\n"
            "    CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 7200}\n"
        ),
        "lab/jobs.py": (
            "from celery import shared_task\n\n"
            "@shared_task(time_limit=1800)\n"
            "def sequence(sample_id):\n"
            "    pass\n"
        ),
    }
    write(tmp_path, files)
    found = _findings(tmp_path, monkeypatch)
    assert len(found) == 1
    assert found[0].startswith("lab/settings.py:7:JL501 broker visibility_timeout is 900 s")

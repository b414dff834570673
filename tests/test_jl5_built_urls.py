"""JL501/JL502 where the broker URL is built of parts, chosen by a test, or
the settings in force are chosen by the deployment files: each shape with
the look-alikes on which the rules must stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

from joblint.api import lint_paths
from joblint.config import Config

APP = (
    "import os\n"
    "from celery import Celery\n\n"
    "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'farm.settings')\n"
    "app = Celery('farm')\n"
    "app.config_from_object('django.conf:settings', namespace='CELERY')\n"
)
TASKS = (
    "from celery import shared_task\n\n"
    "@shared_task(time_limit=3 * 3600)\n"
    "def harvest():\n"
    "    pass\n"
)
READS = (
    "import os\n"
    "QUEUE_SCHEME = os.environ.get('QUEUE_SCHEME', '')\n"
    "QUEUE_HOST = os.environ.get('QUEUE_HOST', 'localhost')\n"
)
COMPOSE_REDIS = "services:\n  worker:\n    environment:\n      QUEUE_SCHEME: redis\n"


def _run(root: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> list[str]:
    write(
        root,
        {
            "farm/__init__.py": "",
            "farm/celery.py": APP,
            "farm/tasks.py": TASKS,
            **files,
        },
    )
    monkeypatch.chdir(root)
    run = lint_paths([Path(".")], Config(root=root, select=("JL5",)))
    return [f"{f.path}:{f.span.line}:{f.code} {f.message}" for f in run.findings]


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("'{}://{}:6379/0'.format(QUEUE_SCHEME, QUEUE_HOST)", id="str-format"),
        pytest.param("'{0}://{host}/0'.format(QUEUE_SCHEME, host=QUEUE_HOST)", id="fields"),
        pytest.param("f'{QUEUE_SCHEME}://{QUEUE_HOST}:6379/0'", id="f-string"),
        pytest.param("'%s://%s/0' % (QUEUE_SCHEME, QUEUE_HOST)", id="percent"),
        pytest.param("QUEUE_SCHEME + '://' + QUEUE_HOST", id="concatenation"),
        pytest.param("make_url(scheme=QUEUE_SCHEME, host=QUEUE_HOST)", id="project-helper"),
    ],
)
def test_scheme_variable_the_deployment_files_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    helper = "def make_url(scheme, host):\n    return scheme + '://' + host\n\n"
    settings = f"{READS}\n{helper}CELERY_BROKER_URL = {url}\n"
    found = _run(
        tmp_path,
        monkeypatch,
        {"farm/settings.py": settings, "docker-compose.yml": COMPOSE_REDIS},
    )
    assert [f.split(" ")[0] for f in found] == ["farm/tasks.py:3:JL501"]
    assert "QUEUE_SCHEME is redis in docker-compose.yml:4" in found[0]


def test_scheme_variable_through_a_star_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "farm/settings/__init__.py": "",
        "farm/settings/base.py": READS,
        "farm/settings/live.py": (
            "from .base import *\n\nCELERY_BROKER_URL = f'{QUEUE_SCHEME}://{QUEUE_HOST}/1'\n"
        ),
        ".env": "QUEUE_SCHEME=rediss\n",
    }
    found = _run(tmp_path, monkeypatch, files)
    assert [f.split(" ")[0] for f in found] == ["farm/tasks.py:3:JL501"]
    assert "QUEUE_SCHEME is rediss in .env:1" in found[0]


@pytest.mark.parametrize(
    "deployment",
    [
        pytest.param({}, id="no-value-anywhere"),
        pytest.param({".env": "QUEUE_SCHEME=amqp\n"}, id="amqp"),
        pytest.param(
            {".env": "QUEUE_SCHEME=redis\n", "compose.yml": COMPOSE_REDIS.replace("redis", "amqp")},
            id="files-disagree",
        ),
    ],
)
def test_scheme_variable_unknown_or_not_redelivering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deployment: dict[str, str]
) -> None:
    settings = f"{READS}CELERY_BROKER_URL = '{{}}://{{}}'.format(QUEUE_SCHEME, QUEUE_HOST)\n"
    assert _run(tmp_path, monkeypatch, {"farm/settings.py": settings, **deployment}) == []


def test_scheme_after_a_static_scheme_is_no_hole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = f"{READS}CELERY_BROKER_URL = f'redis://{{QUEUE_HOST}}:6379/0'\n"
    found = _run(tmp_path, monkeypatch, {"farm/settings.py": settings})
    assert [f.split(" ")[0] for f in found] == ["farm/tasks.py:3:JL501"]


# --- a URL chosen by a test ------------------------------------------------------------

CHOSEN = (
    "import environ\n\n"
    "env = environ.Env(QUEUE_URL=(str, ''), QUEUE_KIND=(str, 'sqla+sqlite'))\n\n"
    "def make_url(scheme, host):\n"
    "    return f'{scheme}://{host}'\n\n"
    "CELERY_BROKER_URL = (\n"
    "    env('QUEUE_URL') if len(env('QUEUE_URL')) > 0\n"
    "    else make_url(scheme=env('QUEUE_KIND'), host='db')\n"
    ")\n"
)


def test_deployment_files_decide_the_arm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"farm/settings.py": CHOSEN, ".env": "QUEUE_URL=redis://queue:6379/0\n"}
    found = _run(tmp_path, monkeypatch, files)
    assert [f.split(" ")[0] for f in found] == ["farm/tasks.py:3:JL501"]
    assert "QUEUE_URL is redis:// in .env:1" in found[0]


def test_undecided_arms_that_disagree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing sets QUEUE_URL: the arms are an unknown URL and a SQLAlchemy one.
    assert _run(tmp_path, monkeypatch, {"farm/settings.py": CHOSEN}) == []


ARMS = (
    "import os\n"
    "CELERY_BROKER_URL = (\n"
    "    os.environ['SHARED_QUEUE'] if os.environ.get('USE_SHARED') else 'redis://local:6379/0'\n"
    ")\n"
)


def test_arms_that_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"farm/settings.py": ARMS, ".env": "SHARED_QUEUE=redis://shared:6379/3\n"}
    found = _run(tmp_path, monkeypatch, files)
    assert [f.split(" ")[0] for f in found] == ["farm/tasks.py:3:JL501"]


def test_arms_that_disagree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"farm/settings.py": ARMS, ".env": "SHARED_QUEUE=amqp://rabbit//\n"}
    assert _run(tmp_path, monkeypatch, files) == []


GUARDED = (
    "import json\nimport os\n\n"
    "CELERY_BROKER_URL = os.environ['QUEUE_URL']\n"
    "if os.environ.get('QUEUE_OPTIONS', ''):\n"
    "    CELERY_BROKER_TRANSPORT_OPTIONS = json.loads(os.environ['QUEUE_OPTIONS'])\n"
)


def test_options_under_a_test_the_deployment_files_leave_false(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"farm/settings.py": GUARDED, ".env": "QUEUE_URL=redis://queue:6379/0\n"}
    found = _run(tmp_path, monkeypatch, files)
    assert [f.split(" ")[0] for f in found] == ["farm/tasks.py:3:JL501"]


def test_options_the_deployment_files_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = "QUEUE_URL=redis://queue:6379/0\nQUEUE_OPTIONS='{\"visibility_timeout\": 43200}'\n"
    assert _run(tmp_path, monkeypatch, {"farm/settings.py": GUARDED, ".env": env}) == []


def test_options_under_a_test_with_a_static_url_stay_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No deployment file says the environment: the options may be set.
    settings = GUARDED.replace("os.environ['QUEUE_URL']", "'redis://queue:6379/0'")
    assert _run(tmp_path, monkeypatch, {"farm/settings.py": settings}) == []


# --- the settings in force, chosen by the deployment files ------------------------------

BASE = "CELERY_BROKER_URL = 'redis://queue:6379/0'\n"
DELAYS = (
    "from django.conf import settings\n"
    "from farm.tasks import harvest\n\n"
    "def later():\n"
    "    harvest.apply_async(countdown=getattr(settings, 'HARVEST_DELAY', 600))\n"
    "    harvest.apply_async(countdown=settings.HARVEST_DELAY)\n"
    "    harvest.apply_async(countdown=getattr(settings, 'RESEED_DELAY', 3 * 3600) + 60)\n"
    "    harvest.apply_async(countdown=getattr(settings, 'WATER_DELAY', 600))\n"
    "    harvest.apply_async(countdown=DRY_DELAY)\n\n"
    "DRY_DELAY = getattr(settings, 'HARVEST_DELAY', 60)\n"
)
SPLIT = {
    "farm/settings/__init__.py": "",
    "farm/settings/base.py": BASE + "HARVEST_DELAY = 300\nWATER_DELAY = 120\n",
    "farm/settings/live.py": "from .base import *\n\nHARVEST_DELAY = 2 * 3600\n",
    "farm/settings/fast.py": (
        "from .base import *\n\nCELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 60}\n"
    ),
    "farm/planning.py": DELAYS,
    "farm/tasks.py": "from celery import shared_task\n\n@shared_task\ndef harvest():\n    pass\n",
}
SELECT_LIVE = (
    "services:\n  web:\n    environment:\n      DJANGO_SETTINGS_MODULE: farm.settings.live\n"
)


def test_settings_read_in_the_module_the_deployment_files_select(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = _run(tmp_path, monkeypatch, {**SPLIT, "docker-compose.yml": SELECT_LIVE})
    assert [f.split(" ")[0] for f in found] == [
        "farm/planning.py:5:JL502",
        "farm/planning.py:6:JL502",
        "farm/planning.py:7:JL502",
        "farm/planning.py:9:JL502",
    ]
    assert "countdown of 7200 s" in found[0]
    assert "countdown of 10860 s" in found[2]


def test_settings_module_not_selected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the compose file, `fast` (60 s) is a configuration too: every
    # delay but the shortest is beyond it.
    found = _run(tmp_path, monkeypatch, SPLIT)
    assert "farm/planning.py:8:JL502" in [f.split(" ")[0] for f in found]
    select_base = SELECT_LIVE.replace("live", "base")
    found = _run(tmp_path, monkeypatch, {**SPLIT, "docker-compose.yml": select_base})
    assert [f.split(" ")[0] for f in found] == ["farm/planning.py:7:JL502"]


def test_selected_settings_run_jobs_eagerly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    eager = {
        **SPLIT,
        "farm/settings/live.py": (
            SPLIT["farm/settings/live.py"] + "CELERY_TASK_ALWAYS_EAGER = True\n"
        ),
        "docker-compose.yml": SELECT_LIVE,
    }
    assert _run(tmp_path, monkeypatch, eager) == []

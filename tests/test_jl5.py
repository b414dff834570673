"""Whole-project rules JL501/JL502 over small multi-file projects."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Run, write
from hypothesis import given
from hypothesis import strategies as st

from joblint.api import lint_paths
from joblint.config import Config, ConfigError, load_file
from joblint.pipeline.schedule.deployment_files import compose_entries, env_entries
from joblint.pipeline.schedule.run import RunOptions

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


# --- the transport from the deployment files, where the code reads the URL from the environment

ENV_SETTINGS = "import os\nCELERY_BROKER_URL = os.environ['CELERY_BROKER_URL']\n"


def _deployed(
    root: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str | bytes], **config: str
) -> list[str]:
    write(root, {**_project(ENV_SETTINGS), **files})
    monkeypatch.chdir(root)
    run = lint_paths([Path(".")], Config(root=root, select=("JL5",), **config))  # type: ignore[arg-type]
    return [f"{f.path}:{f.span.line}:{f.code} {f.message}" for f in run.findings]


def test_env_file_says_redis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _deployed(
        tmp_path, monkeypatch, {".env": "# local\nCELERY_BROKER_URL=redis://r:6379/0\n"}
    )
    assert [f.split(" ")[0] for f in found] == ["proj/tasks.py:5:JL501", "proj/tasks.py:9:JL501"]
    assert (
        "the Redis broker (proj/settings.py:2; CELERY_BROKER_URL is redis:// in .env:2)" in found[0]
    )
    assert "redis://r" not in found[0]  # the value itself may hold a password


def test_compose_mapping_with_interpolation_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compose = (
        "services:\n"
        "  worker:\n"
        "    image: proj\n"
        "    environment:\n"
        "      DEBUG: 'false'\n"
        "      CELERY_BROKER_URL: ${CELERY_BROKER_URL:-redis://redis:6379/0}\n"
        "    command: celery worker\n"
    )
    found = _deployed(tmp_path, monkeypatch, {"docker-compose.yml": compose})
    assert len(found) == 2
    assert "CELERY_BROKER_URL is redis:// in docker-compose.yml:6" in found[0]


def test_compose_list_form_in_a_config_directory_says_sqs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compose = (
        'services:\n  worker:\n    environment:\n    - DEBUG=0\n    - "CELERY_BROKER_URL=sqs://"\n'
    )
    found = _deployed(tmp_path, monkeypatch, {"docker/docker-compose.prod.yaml": compose})
    assert len(found) == 2
    assert "default visibility_timeout of 1800 s" in found[0]
    assert "in docker/docker-compose.prod.yaml:5" in found[0]


def test_test_and_ci_files_are_no_deployment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files: dict[str, str | bytes] = {
        "docker-compose.yml": "services:\n  w:\n    environment:\n      - CELERY_BROKER_URL=redis://r\n",
        "docker-compose.override.unit_tests.yml": "services:\n  w:\n    environment:\n"
        "      - CELERY_BROKER_URL=sqla+sqlite:///celery.db\n",
        ".env.ci": "CELERY_BROKER_URL=memory://\n",
    }
    assert len(_deployed(tmp_path, monkeypatch, files)) == 2
    # Alone, a test file says nothing.
    assert (
        _deployed(tmp_path / "b", monkeypatch, {".env.test": "CELERY_BROKER_URL=redis://r\n"}) == []
    )


def test_env_directory_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _deployed(tmp_path, monkeypatch, {"envs/.env.prod": "CELERY_BROKER_URL='rediss://r'\n"})
    assert len(found) == 2


def test_compose_value_from_the_env_file_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files: dict[str, str | bytes] = {
        ".env": "BROKER=redis://cache:6379/1\n",
        "compose.yml": "services:\n  w:\n    environment:\n      CELERY_BROKER_URL: ${BROKER}\n",
    }
    found = _deployed(tmp_path, monkeypatch, files)
    assert len(found) == 2
    assert "CELERY_BROKER_URL is redis:// in compose.yml:4" in found[0]


@pytest.mark.parametrize(
    "files",
    [
        pytest.param({".env": "CELERY_BROKER_URL=amqp://guest@rabbit//\n"}, id="amqp-in-env-file"),
        pytest.param({".env": "RESULT_URL=redis://r:6379/0\n"}, id="variable-not-named-in-code"),
        pytest.param(
            {
                ".env": "CELERY_BROKER_URL=redis://r:6379/0\n",
                "docker-compose.yml": "services:\n  w:\n    environment:\n"
                "      - CELERY_BROKER_URL=amqp://rabbit//\n",
            },
            id="files-disagree",
        ),
        pytest.param({".env.example": "CELERY_BROKER_URL=change-me\n"}, id="not-a-url"),
        pytest.param(
            {"docs/.env": "CELERY_BROKER_URL=redis://r:6379/0\n"}, id="not-a-config-directory"
        ),
        pytest.param(
            {
                ".env/pyvenv.cfg": "home = /usr/bin\n",
                "env/bin/activate": "export CELERY_BROKER_URL=redis://r\n",
            },
            id="virtualenvs-named-env",
        ),
        pytest.param(
            {"docker-compose.yml": "x-env: &env\n  CELERY_BROKER_URL: redis://r\nservices: {}\n"},
            id="compose-key-outside-environment",
        ),
        pytest.param(
            {
                ".env": b"\x00\xff\xfe binary",
                "docker-compose.yml": "environment: [unclosed\n  - :\n",
            },
            id="bad-files",
        ),
    ],
)
def test_deployment_files_that_say_no_redelivering_transport(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str | bytes]
) -> None:
    assert _deployed(tmp_path, monkeypatch, files) == []


def test_explicit_visibility_timeout_wins_over_the_transport_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = ENV_SETTINGS + "CELERY_BROKER_TRANSPORT_OPTIONS = {'visibility_timeout': 7300}\n"
    write(tmp_path, {**_project(settings), ".env": "CELERY_BROKER_URL=redis://r:6379/0\n"})
    assert _findings(tmp_path, monkeypatch) == []


def test_literal_default_in_code_is_the_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The code's own default counts, as before: the deployment files aren't asked."""
    settings = "import os\nCELERY_BROKER_URL = os.getenv('CELERY_BROKER_URL', 'amqp://rabbit//')\n"
    write(tmp_path, {**_project(settings), ".env": "CELERY_BROKER_URL=redis://r:6379/0\n"})
    assert _findings(tmp_path, monkeypatch) == []


@pytest.mark.parametrize(
    "settings",
    [
        pytest.param(
            "import os\nCELERY_BROKER_URL = os.getenv('BROKER', '')\n", id="empty-default"
        ),
        pytest.param(
            "import os\nCELERY_BROKER_URL = os.environ.get('BROKER', None)\n", id="none-default"
        ),
        pytest.param(
            "import environ\nenv = environ.Env()\nCELERY_BROKER_URL = env('BROKER')\n",
            id="django-environ-call",
        ),
        pytest.param(
            "import environ\nenv = environ.Env()\nCELERY_BROKER_URL = env.str('BROKER')\n",
            id="django-environ-str",
        ),
        pytest.param(
            "from decouple import config\nCELERY_BROKER_URL = config('BROKER')\n", id="decouple"
        ),
        pytest.param(
            "import os\n_BROKER = os.environ['BROKER']\nCELERY_BROKER_URL = _BROKER\n",
            id="through-a-constant",
        ),
    ],
)
def test_environment_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: str) -> None:
    write(tmp_path, {**_project(settings), ".env": "BROKER=redis://r:6379/0\n"})
    assert len(_findings(tmp_path, monkeypatch)) == 2


def test_countdown_beyond_the_deployed_transport_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = (
        "from celery import shared_task\n\n"
        "@shared_task\n"
        "def remind():\n"
        "    pass\n\n"
        "def later():\n"
        "    remind.apply_async(countdown=2 * 3600)\n"
    )
    files = {**_project(ENV_SETTINGS, tasks), ".env.prod": "CELERY_BROKER_URL=redis://r\n"}
    write(tmp_path, files)
    found = _findings(tmp_path, monkeypatch)
    assert [f.split(" ")[0] for f in found] == ["proj/tasks.py:8:JL502"]
    assert (
        "default visibility_timeout of 3600 s (CELERY_BROKER_URL is redis:// in .env.prod:1)"
        in found[0]
    )


def test_broker_setting_of_joblint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _deployed(tmp_path, monkeypatch, {}, broker="sqs")
    assert len(found) == 2
    assert "the SQS broker (proj/settings.py:2; joblint's `broker` setting)" in found[0]
    # It is the project's own word: it decides over the deployment files.
    assert (
        _deployed(
            tmp_path, monkeypatch, {".env": "CELERY_BROKER_URL=redis://r\n"}, broker="amqp://rabbit"
        )
        == []
    )


@pytest.mark.parametrize("value", ["redis", "redis://cache:6379/0", "sqla+sqlite:///db"])
def test_broker_setting_accepts_transports_and_urls(tmp_path: Path, value: str) -> None:
    write(tmp_path, {"joblint.toml": f'broker = "{value}"\n'})
    assert load_file(tmp_path / "joblint.toml").broker == value


@pytest.mark.parametrize("value", ["rediss-cluster", "", "cache:6379", "3"])
def test_broker_setting_rejects_other_values(tmp_path: Path, value: str) -> None:
    text = f'broker = "{value}"\n' if value != "3" else "broker = 3\n"
    write(tmp_path, {"joblint.toml": text})
    with pytest.raises(ConfigError, match=r"'broker' must be a broker transport or URL") as error:
        load_file(tmp_path / "joblint.toml")
    assert "\n" not in str(error.value)


def test_editing_a_deployment_file_is_seen_by_a_warm_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's memo (replaying a run whose inputs are all the same) knows the files."""
    write(tmp_path, {**_project(ENV_SETTINGS), ".env": "DEBUG=1\n"})
    monkeypatch.chdir(tmp_path)
    config = Config(root=tmp_path, select=("JL5",), cache_dir=tmp_path / "cache")

    def count() -> int:
        return len(lint_paths([Path(".")], config, RunOptions(cache=True)).findings)

    assert count() == 0
    assert (tmp_path / "cache" / "memo.json").exists()
    write(tmp_path, {".env": "CELERY_BROKER_URL=redis://r\n"})
    assert count() == 2
    assert count() == 2


def test_django_environ_declared_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`Env(NAME=(cast, default))` declares the default `env("NAME")` falls back to."""
    settings = (
        "import environ\n"
        "env = environ.Env(TASK_LIMIT=(int, 7200), BROKER=(str, ''))\n"
        "CELERY_TASK_TIME_LIMIT = env('TASK_LIMIT')\n"
        "CELERY_BROKER_URL = env('BROKER')\n"
    )
    tasks = "from celery import shared_task\n\n@shared_task\ndef rebuild_index():\n    pass\n"
    write(tmp_path, {**_project(settings, tasks), ".env": "BROKER=redis://r:6379/0\n"})
    found = _findings(tmp_path, monkeypatch)
    assert [f.split(" ")[0] for f in found] == ["proj/settings.py:3:JL501"]
    assert "CELERY_TASK_TIME_LIMIT is 7200 s" in found[0]


@pytest.mark.parametrize(
    "compose",
    [
        pytest.param(
            "x-env: &common\n"
            "  CELERY_BROKER_URL: redis://r:6379/0\n"
            "services:\n"
            "  worker:\n"
            "    environment:\n"
            "      <<: *common\n"
            "      DEBUG: 0\n",
            id="merged-anchor",
        ),
        pytest.param(
            "x-env:\n"
            "  &common\n"
            "  CELERY_BROKER_URL: redis://r:6379/0\n"
            "services:\n"
            "  worker:\n"
            "    environment: *common\n",
            id="anchor-on-its-own-line-used-as-the-environment",
        ),
        pytest.param(
            "services:\n  worker:\n    environment: {CELERY_BROKER_URL: 'redis://r', DEBUG: 0}\n",
            id="flow-mapping",
        ),
    ],
)
def test_compose_anchors_and_flow_forms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compose: str
) -> None:
    assert len(_deployed(tmp_path, monkeypatch, {"docker-compose.yml": compose})) == 2


def test_compose_anchor_no_environment_merges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service template merged into a service, not into its environment, is no environment."""
    compose = (
        "x-worker: &worker\n"
        "  CELERY_BROKER_URL: redis://r:6379/0\n"
        "services:\n"
        "  worker:\n"
        "    <<: *worker\n"
        "    environment:\n"
        "      - CELERY_BROKER_URL=amqp://rabbit//\n"
    )
    assert _deployed(tmp_path, monkeypatch, {"docker-compose.yml": compose}) == []


@given(st.text() | st.text(alphabet=" \n-:&*<>{}[],#=$'\"environmentAB_x"))
def test_deployment_readers_never_raise(text: str) -> None:
    for variable, _value, line in [*env_entries(text), *compose_entries(text, {"A": "x"})]:
        assert variable.isidentifier() or "." in variable
        assert line >= 1


def test_pre_commit_run_naming_only_the_tasks_reads_the_deployment_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {**_project(ENV_SETTINGS), ".env": "CELERY_BROKER_URL=redis://r:6379/0\n"})
    found = _findings(tmp_path, monkeypatch, "proj/tasks.py")
    assert [f.split(" ")[0] for f in found] == ["proj/tasks.py:5:JL501", "proj/tasks.py:9:JL501"]


PYDANTIC_CONFIG = (
    "from pydantic import Field\n"
    "from pydantic_settings import BaseSettings, SettingsConfigDict\n\n"
    "class Settings(BaseSettings):\n"
    "    model_config = SettingsConfigDict(env_prefix={prefix!r})\n"
    "    celery_broker_url: str\n"
    "    result_url: str = Field(validation_alias='RESULTS')\n"
    "    debug: bool = False\n\n"
    "settings = Settings()\n"
)
WORKER = (
    "from celery import Celery\n"
    "from app.config import settings\n\n"
    "app = Celery('app', broker=settings.{field})\n\n"
    "@app.task(time_limit=7200)\n"
    "def rebuild():\n"
    "    pass\n"
)


@pytest.mark.parametrize(
    ("prefix", "field", "env", "reported"),
    [
        pytest.param("", "celery_broker_url", "CELERY_BROKER_URL=redis://r\n", 1, id="field"),
        pytest.param("APP_", "celery_broker_url", "APP_CELERY_BROKER_URL=sqs://\n", 1, id="prefix"),
        pytest.param("APP_", "result_url", "RESULTS=redis://r\n", 1, id="alias"),
        pytest.param(
            "APP_", "celery_broker_url", "CELERY_BROKER_URL=redis://r\n", 0, id="no-prefix"
        ),
        pytest.param("", "celery_broker_url", "CELERY_BROKER_URL=amqp://r//\n", 0, id="amqp"),
    ],
)
def test_pydantic_settings_fields(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    prefix: str,
    field: str,
    env: str,
    reported: int,
) -> None:
    files: dict[str, str | bytes] = {
        "app/__init__.py": "",
        "app/config.py": PYDANTIC_CONFIG.format(prefix=prefix),
        "app/worker.py": WORKER.format(field=field),
        ".env": env,
    }
    write(tmp_path, files)
    found = _findings(tmp_path, monkeypatch)
    assert [f.split(" ")[0] for f in found] == ["app/worker.py:6:JL501"] * reported


@pytest.mark.parametrize(
    ("base", "exponent", "expected"),
    [(10.0, 2.0, 100.0), (2.0, -1.0, 0.5), (0.0, -1.0, None), (-8.0, 0.5, None), (2.0, 1e3, None)],
)
def test_a_power_is_evaluated_only_where_it_is_a_real_duration(
    base: float, exponent: float, expected: float | None
) -> None:
    from joblint.analysis.evaluation import evaluate

    assert evaluate(("op", "**", ("num", base), ("num", exponent)), {}) == expected

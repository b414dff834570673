"""The full example suite of `joblint.rules.visibility.visibility_timeout_below_time_limit` (its
class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

_TASK_3600 = """
from celery import shared_task

@shared_task(time_limit=3600)
def rebuild_index():
    ...
"""

_SPLIT_BASE = """
CELERY_BROKER_URL = "redis://queue:6379/0"
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 1800}
"""

_CLASS_SETTINGS = """
from configurations import Configuration, values

class Base(Configuration):
    CELERY_BROKER_URL = values.Value("redis://queue:6379/0")
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 1800}
"""

# A Django project whose app reads the settings under the CELERY namespace.
_DJANGO_APP = (
    "from celery import Celery\n\n"
    "app = Celery('proj')\n"
    "app.config_from_object('django.conf:settings', namespace='CELERY')\n"
)

VALID = (
    Valid(
        _TASK_3600,
        id="one-transport-option-raised-after-the-app-is-made",
        project={
            "proj_celery": _DJANGO_APP
            + 'app.conf.broker_transport_options["visibility_timeout"] = 4 * 3600\n',
            "proj_settings": (
                'CELERY_BROKER_URL = "redis://queue:6379/0"\nCELERY_TASK_TIME_LIMIT = 3000\n'
            ),
        },
    ),
    Valid(
        _TASK_3600,
        id="legacy-names-with-a-timeout-raised-by-update",
        project={
            "proj_celery": _DJANGO_APP,
            "proj_settings": (
                'BROKER_URL = "redis://queue:6379/0"\n'
                'BROKER_TRANSPORT_OPTIONS = {"fanout_prefix": True}\n'
                'BROKER_TRANSPORT_OPTIONS.update({"visibility_timeout": 2 * 3600})\n'
                "CELERYD_TASK_TIME_LIMIT = 3000\n"
            ),
        },
    ),
    Valid(
        _TASK_3600,
        id="settings-module-that-imports-the-base-raises-the-timeout",
        project={
            "proj_settings_base": _SPLIT_BASE,
            "proj_settings_prod": (
                "from .base import *\n\n"
                'CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 7200}\n'
            ),
        },
    ),
    Valid(
        _TASK_3600,
        id="settings-subclass-raises-the-timeout",
        project={
            "proj_settings": _CLASS_SETTINGS
            + """
class Prod(Base):
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 7200}
""",
        },
    ),
    Valid(
        _TASK_3600,
        id="eager-test-settings",
        project={
            "proj_settings_base": (
                'CELERY_BROKER_URL = "redis://queue:6379/0"\n'
                'CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 7200}\n'
            ),
            "proj_settings_testing": (
                "from .base import *\n\n"
                "CELERY_TASK_ALWAYS_EAGER = True\n"
                'CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 5}\n'
            ),
        },
    ),
    Valid(
        _TASK_3600,
        id="memory-broker-in-a-settings-leaf",
        project={
            "proj_settings_base": (
                'CELERY_BROKER_URL = "redis://queue:6379/0"\n'
                'CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 7200}\n'
            ),
            "proj_settings_dev": (
                'from .base import *\n\nCELERY_BROKER_URL = "memory://"\n'
                'CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 60}\n'
            ),
        },
    ),
    Valid(
        """
from .tasks import rebuild_index

QUICK = {"time_limit": 600}

def refresh():
    options = {"time_limit": 900, "queue": "fast"}
    rebuild_index.apply_async(**options)
    rebuild_index.apply_async(**QUICK)
    rebuild_index.s().set(time_limit=300).apply_async()
""",
        id="enqueue-options-with-safe-time-limits",
        project={"proj_settings": _SPLIT_BASE},
    ),
    Valid(
        """
from celery import Celery, shared_task

app = Celery("proj", broker="sqs://")
app.conf.broker_transport_options = {
    "region": "eu-west-1",
    "predefined_queues": {"jobs": {"url": "https://sqs.example/jobs"}},
}

@shared_task(time_limit=7200)
def rebuild_index():
    ...
""",
        id="sqs-predefined-queues-keep-their-own-timeout",
    ),
    Valid(
        _TASK_3600,
        id="broker-url-from-the-environment-no-deployment-file-names",
        project={
            "proj_settings": (
                "import environ\n\n"
                "env = environ.Env()\n"
                'CELERY_BROKER_URL = env("CELERY_BROKER_URL")\n'
            ),
        },
    ),
    Valid(
        _TASK_3600,
        id="environment-default-is-amqp",
        project={
            "proj_settings": (
                "from decouple import config\n\n"
                'CELERY_BROKER_URL = config("BROKER_URL", default="amqp://rabbit:5672//")\n'
            ),
        },
    ),
    Valid(
        _TASK_3600,
        id="url-arms-that-disagree-with-nothing-deciding",
        project={
            "proj_settings": (
                "import os\n\n"
                "CELERY_BROKER_URL = (\n"
                '    "amqp://rabbit//" if os.environ.get("USE_RABBIT") else "redis://queue:6379/0"\n'
                ")\n"
            ),
        },
    ),
    Valid(
        _TASK_3600,
        id="url-scheme-from-a-variable-nothing-sets",
        project={
            "proj_settings": (
                "import os\n\n"
                'QUEUE_SCHEME = os.environ.get("QUEUE_SCHEME", "")\n'
                'CELERY_BROKER_URL = f"{QUEUE_SCHEME}://queue:6379/0"\n'
            ),
        },
    ),
)

INVALID = (
    invalid(
        """
from celery import shared_task

HOURS_23 = 23 * 60 * 60

@shared_task(time_limit=HOURS_23, soft_time_limit=HOURS_23)
def nightly_maintenance():
    ...
""",
        (
            "proj/settings.py",
            3,
            27,
            "broker visibility_timeout is 6000 s (proj/settings.py:3) but task "
            "'nightly_maintenance' has time_limit 82800 s",
        ),
        id="a-timeout-written-with-a-power",
        proj_settings=(
            'CELERY_BROKER_URL = "redis://queue:6379/0"\n'
            "CELERY_BROKER_TRANSPORT_OPTIONS = {\n"
            '    "visibility_timeout": 60 * (10**2),\n'
            "}\n"
        ),
    ),
    invalid(
        _TASK_3600,
        (
            "proj/settings/base.py",
            3,
            58,
            "broker visibility_timeout is 1800 s (proj/settings/base.py:3), in force in "
            "proj.settings.staging, but task 'rebuild_index' has time_limit 3600 s",
        ),
        id="settings-module-inherits-the-timeout-it-star-imports",
        proj_settings_base=_SPLIT_BASE,
        proj_settings_staging=(
            'from .base import *\n\nCELERY_BROKER_URL = "redis://staging-queue:6379/0"\n'
        ),
    ),
    invalid(
        _TASK_3600,
        (
            "proj/settings.py",
            6,
            62,
            "visibility_timeout is 1800 s (proj/settings.py:6), in force in "
            "proj.settings.Prod, but task 'rebuild_index' has time_limit 3600 s",
        ),
        id="settings-subclass-inherits-the-timeout",
        proj_settings=_CLASS_SETTINGS + "\nclass Prod(Base):\n    DEBUG = False\n",
    ),
    invalid(
        """
from .tasks import export_all

def nightly():
    options = {"time_limit": 2 * 3600, "queue": "slow"}
    export_all.apply_async(**options)
""",
        (
            "proj/settings.py",
            3,
            58,
            "visibility_timeout is 1800 s (proj/settings.py:3) but export_all.apply_async() "
            "passes time_limit 7200 s (app/example.py:5)",
        ),
        id="options-dict-spread-into-apply-async",
        proj_settings=_SPLIT_BASE,
    ),
    invalid(
        """
from celery import Celery

LONG_JOB = {"time_limit": 2 * 3600, "acks_late": True}

app = Celery("proj", broker="redis://queue:6379/0")

@app.task(**LONG_JOB)
def export_all():
    ...

def nightly():
    export_all.signature((), options={"time_limit": 3 * 3600}).apply_async()
""",
        (4, 27, "task 'export_all' has time_limit 7200 s (app/example.py:4) but the Redis"),
        (13, 53, "export_all.signature() passes time_limit 10800 s"),
        id="task-defaults-dict-and-signature-options-on-redis-default",
    ),
    invalid(
        """
from celery import Celery

class CeleryConfig:
    broker_url = "redis://queue:6379/0"
    broker_transport_options = {"visibility_timeout": 600}
    task_time_limit = 1200

app = Celery("proj")
app.config_from_object(CeleryConfig)
""",
        (6, 55, "visibility_timeout is 600 s (app/example.py:6) but task_time_limit is 1200 s"),
        id="config-from-object-class",
    ),
    invalid(
        """
from celery import Celery, shared_task

app = Celery("proj", broker="sqs://")
app.conf.broker_transport_options = {
    "visibility_timeout": 7200,
    "sqs-creation-attributes": {"VisibilityTimeout": "900"},
}

@shared_task(time_limit=3600)
def rebuild_index():
    ...
""",
        (5, 37, "visibility_timeout is 900 s"),
        id="sqs-creation-attributes-override-the-option",
    ),
    invalid(
        _TASK_3600,
        (4, 25, "but the Redis broker (proj/settings.py:4) redelivers"),
        id="django-environ-default-is-redis",
        proj_settings=(
            "import environ\n\n"
            "env = environ.Env()\n"
            'CELERY_BROKER_URL = env.str("CELERY_BROKER", "redis://cache:6379/2")\n'
        ),
    ),
    invalid(
        """
from celery import shared_task

@shared_task(time_limit=2 * 3600)
def rebuild_index():
    ...
""",
        (
            4,
            25,
            "task 'rebuild_index' has time_limit 7200 s (app/example.py:4) but the Redis broker "
            "(proj/settings.py:4) redelivers",
        ),
        id="url-built-from-a-scheme-setting",
        proj_settings=(
            'QUEUE_SCHEME = "redis"\n'
            'QUEUE_HOST = "queue.internal"\n\n'
            'CELERY_BROKER_URL = "{}://{}:6379/0".format(QUEUE_SCHEME, QUEUE_HOST)\n'
        ),
    ),
    invalid(
        """
from celery import Celery

app = Celery("proj", broker="redis://queue:6379/0")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.broker_transport_options["visibility_timeout"] = 1800
app.conf.update(task_time_limit=3600)
""",
        (6, 59, "visibility_timeout is 1800 s (app/example.py:6) but task_time_limit is 3600 s"),
        id="one-transport-option-set-on-the-app-after-it-is-made",
    ),
    invalid(
        _TASK_3600,
        (
            "proj/settings.py",
            4,
            57,
            "visibility_timeout is 1800 s (proj/settings.py:4) but CELERYD_TASK_TIME_LIMIT "
            "is 5400 s",
        ),
        id="legacy-uppercase-names-read-through-the-django-namespace",
        proj_celery=_DJANGO_APP,
        proj_settings=(
            'BROKER_URL = "redis://queue:6379/0"\n'
            "CELERYD_TASK_TIME_LIMIT = 90 * 60\n"
            'CELERY_BROKER_TRANSPORT_OPTIONS = {"fanout_prefix": True}\n'
            'CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] = 1800\n'
        ),
    ),
)

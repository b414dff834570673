"""Celery configuration: setting spellings, transports and their defaults, as data.

Facts from Celery's and kombu's source (shared/reference/job-libraries.md §5).
"""

from __future__ import annotations

# Canonical setting -> every spelling that sets it: the new lower-case name, the
# Django `namespace="CELERY"` name, and the legacy upper-case names.
SETTING_SPELLINGS: dict[str, frozenset[str]] = {
    "broker_url": frozenset({"broker_url", "CELERY_BROKER_URL", "BROKER_URL"}),
    "broker_transport_options": frozenset(
        {
            "broker_transport_options",
            "CELERY_BROKER_TRANSPORT_OPTIONS",
            "BROKER_TRANSPORT_OPTIONS",
        }
    ),
    "task_time_limit": frozenset(
        {
            "task_time_limit",
            "CELERY_TASK_TIME_LIMIT",
            "CELERYD_TASK_TIME_LIMIT",
            "CELERYD_TIME_LIMIT",
        }
    ),
}
SPELLING_TO_SETTING: dict[str, str] = {
    spelling: setting for setting, spellings in SETTING_SPELLINGS.items() for spelling in spellings
}
# `Celery(..., broker=...)` keyword -> setting.
APP_KEYWORDS: dict[str, str] = {
    "broker": "broker_url",
    "broker_url": "broker_url",
    "broker_transport_options": "broker_transport_options",
    "task_time_limit": "task_time_limit",
}

VISIBILITY_TIMEOUT_KEY = "visibility_timeout"
PREDEFINED_QUEUES_KEY = "predefined_queues"

# Broker URL scheme -> (transport, kombu's default visibility timeout in seconds).
TRANSPORT_DEFAULTS: dict[str, tuple[str, float]] = {
    "redis": ("Redis", 3600.0),
    "rediss": ("Redis", 3600.0),
    "sentinel": ("Redis", 3600.0),
    "sqs": ("SQS", 1800.0),
}

# `config_from_object("django.conf:settings", namespace="CELERY")` points at
# Django's settings; a module is taken as a settings module when a component of
# its dotted name is one of these (proj.settings, config.settings.production).
DJANGO_SETTINGS_OBJECT = "django.conf:settings"
SETTINGS_MODULE_COMPONENTS = frozenset({"settings"})
# Config modules found by name when nothing points at them.
CONFIG_MODULE_NAMES = frozenset({"celeryconfig", "celery_config", "celerysettings"})

CELERY_APP_CLASSES = frozenset({"celery.Celery", "celery.app.Celery", "celery.app.base.Celery"})
CONF_UPDATE_METHODS = frozenset({"update", "setdefault"})
CONFIG_FROM_OBJECT = "config_from_object"

# Task options (decorator keywords / Task subclass attributes).
TIME_LIMIT_OPTION = "time_limit"
# Libraries whose task decorators take Celery's `time_limit` (in seconds);
# "" is a task decorator whose receiver wasn't resolved (`@app.task` of an
# imported app), which in practice is Celery.
TIME_LIMIT_LIBRARIES = frozenset({"celery", ""})

# Delays: `apply_async(countdown=N)`, `self.retry(countdown=N)`, `eta=now() + timedelta(...)`.
COUNTDOWN_KEYWORDS = frozenset({"countdown", "eta"})
COUNTDOWN_METHODS = frozenset({"apply_async", "retry"})
NOW_FUNCTIONS = frozenset(
    {
        "django.utils.timezone.now",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.now",
        "datetime.utcnow",
    }
)

# Functions whose literal default is the value (`os.environ.get("X", "redis://")`).
ENV_DEFAULT_FUNCTIONS = frozenset({"os.environ.get", "os.getenv", "os.environ.setdefault"})
DJANGO_SETTINGS_ENV = "DJANGO_SETTINGS_MODULE"

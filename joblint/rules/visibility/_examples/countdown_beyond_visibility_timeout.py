"""The full example suite of `joblint.rules.visibility.countdown_beyond_visibility_timeout` (its
class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

_REDIS = """
CELERY_BROKER_URL = "redis://queue:6379/0"
"""

# A Django project whose app reads the settings under the CELERY namespace
# and sets its transport options once made.
_DJANGO_APP = (
    "from celery import Celery\n\n"
    "app = Celery('proj')\n"
    "app.config_from_object('django.conf:settings', namespace='CELERY')\n"
    "app.conf.broker_transport_options = {'visibility_timeout': 2 * 3600}\n"
)

# A service module: plain functions (no task) that enqueue with a delay.
_SERVICES = """
from datetime import timedelta
from django.conf import settings
from .tasks import remind

def follow_up(user):
    remind.apply_async(args=(user.pk,), countdown=settings.FOLLOW_UP_DELAY)

def last_call(user):
    remind.apply_async((user.pk,), countdown=timedelta(hours=3).total_seconds())
"""

VALID = (
    Valid(
        _SERVICES,
        id="service-delays-below-a-timeout-the-app-raises",
        project={
            "proj_celery": _DJANGO_APP.replace("2 * 3600", "4 * 3600"),
            "proj_settings": 'CELERY_BROKER_URL = "redis://queue:6379/0"\nFOLLOW_UP_DELAY = 3600\n',
        },
    ),
    Valid(
        _SERVICES,
        id="service-delays-below-a-timeout-raised-by-a-single-option",
        project={
            "proj_celery": (
                "from celery import Celery\n\napp = Celery('proj')\n"
                "app.config_from_object('django.conf:settings')\n"
            ),
            "proj_settings": (
                'BROKER_URL = "redis://queue:6379/0"\n'
                "BROKER_TRANSPORT_OPTIONS = {}\n"
                'BROKER_TRANSPORT_OPTIONS["visibility_timeout"] = 6 * 3600\n'
                "FOLLOW_UP_DELAY = 5 * 3600\n"
            ),
        },
    ),
    Valid(
        """
from .tasks import remind

def later(user):
    remind.s(user.pk).set(countdown=15 * 60).apply_async()
    remind.signature((user.pk,), options={"countdown": 30 * 60}).apply_async()
""",
        id="short-delays-in-set-and-signature-options",
        project={"proj_settings": _REDIS},
    ),
    Valid(
        """
from celery import Celery
from .tasks import remind

app = Celery("proj", broker="sqs://")
app.conf.broker_transport_options = {"predefined_queues": {"jobs": {"url": "https://q"}}}

def later(user):
    remind.apply_async(args=(user.pk,), countdown=4 * 3600)
""",
        id="sqs-predefined-queues-timeout-unknown",
    ),
    Valid(
        """
from .tasks import remind

def later(user):
    remind.apply_async(args=(user.pk,), countdown=2 * 3600)
""",
        id="settings-subclass-raises-the-timeout",
        project={
            "proj_settings": """
from configurations import Configuration

class Base(Configuration):
    CELERY_BROKER_URL = "redis://queue:6379/0"

class Prod(Base):
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 4 * 3600}

class Testing(Base):
    CELERY_TASK_ALWAYS_EAGER = True
""",
        },
    ),
    Valid(
        """
from django.conf import settings
from .tasks import remind

def later(user):
    remind.apply_async(args=(user.pk,), countdown=getattr(settings, "REMINDER_DELAY", 900))
    remind.apply_async(args=(user.pk,), countdown=settings.FOLLOW_UP_DELAY)
""",
        id="setting-unset-with-a-short-default-and-an-unknown-setting",
        project={"proj_settings": 'CELERY_BROKER_URL = "redis://queue:6379/0"\n'},
    ),
)

INVALID = (
    invalid(
        """
from .tasks import remind

DELAYED = {"countdown": 3 * 3600}

def later(user):
    options = {"countdown": 2 * 3600, "queue": "mail"}
    remind.apply_async(args=(user.pk,), **options)
    remind.apply_async(args=(user.pk,), **DELAYED)
    remind.s(user.pk).set(countdown=5 * 3600).apply_async()
""",
        (7, 29, "countdown of 7200 s is longer than the Redis broker's default"),
        (4, 25, "countdown of 10800 s"),
        (10, 27, "countdown of 18000 s"),
        id="options-dicts-and-set",
        proj_settings=_REDIS,
    ),
    invalid(
        """
from .tasks import remind

def later(user):
    remind.apply_async(args=(user.pk,), countdown=2 * 3600)
""",
        (5, 41, "visibility_timeout of 3600 s (proj/settings.py:6)"),
        id="settings-subclass-inherits-the-timeout",
        proj_settings="""
from configurations import Configuration

class Base(Configuration):
    CELERY_BROKER_URL = "redis://queue:6379/0"
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}

class Prod(Base):
    DEBUG = False
""",
    ),
    invalid(
        """
from django.conf import settings
from .tasks import remind

def later(user):
    remind.apply_async(args=(user.pk,), countdown=getattr(settings, "REMINDER_DELAY", 900))
    remind.apply_async(args=(user.pk,), countdown=settings.REMINDER_DELAY + 60)
""",
        (6, 41, "countdown of 7200 s is longer than the Redis broker's default"),
        (7, 41, "countdown of 7260 s"),
        id="delay-read-from-the-settings-in-force",
        proj_settings='CELERY_BROKER_URL = "redis://queue:6379/0"\nREMINDER_DELAY = 2 * 3600\n',
    ),
    invalid(
        _SERVICES,
        (
            7,
            41,
            "countdown of 10800 s is longer than the Redis broker's visibility_timeout of 7200 s",
        ),
        (10, 36, "countdown of 10800 s"),
        id="service-delays-beyond-the-timeout-the-app-sets",
        proj_celery=_DJANGO_APP,
        proj_settings='CELERY_BROKER_URL = "redis://queue:6379/0"\nFOLLOW_UP_DELAY = 3 * 3600\n',
    ),
    invalid(
        _SERVICES,
        (
            7,
            41,
            "countdown of 5400 s is longer than the Redis broker's visibility_timeout of 1800 s",
        ),
        (10, 36, "countdown of 10800 s"),
        id="service-delays-beyond-a-legacy-settings-timeout",
        proj_celery=(
            "from celery import Celery\n\napp = Celery('proj')\n"
            "app.config_from_object('django.conf:settings')\n"
        ),
        proj_settings=(
            'BROKER_URL = "redis://queue:6379/0"\n'
            'BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 1800}\n'
            "FOLLOW_UP_DELAY = 90 * 60\n"
        ),
    ),
)

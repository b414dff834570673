"""JL502 countdown-beyond-visibility-timeout.

Countdown or ETA longer than the broker visibility timeout: the job runs twice.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL502` show) and its teaching examples."""

from __future__ import annotations

from collections.abc import Iterator

from joblint.analysis.broker_view import Configuration
from joblint.knowledge.tokens import PROJECT_FACTS
from joblint.models import Place
from joblint.rule import ProjectFinding, ProjectRule, ProjectView, Valid, invalid, where

SETTINGS = """
CELERY_BROKER_URL = "redis://localhost:6379/0"
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
"""


class CountdownBeyondVisibilityTimeout(ProjectRule):
    """
    ## What it does
    Finds `apply_async(countdown=N)`, `self.retry(countdown=N)` and
    `eta=now() + timedelta(...)` delays (also in `**options`,
    `.signature(options=...)` and `.set(countdown=...)`) statically longer
    than the visibility timeout in force on a Redis or SQS broker (the one the
    project's settings set, or the transport's default: Redis 3600 s, SQS
    1800 s), in the shortest of the configurations the project runs with (as
    JL501 reads them). A delay read from Django's settings
    (`countdown=settings.REMINDER_DELAY`, `getattr(settings,
    "REMINDER_DELAY", 900)`) is read in each configuration: its value there
    (also one a settings module star-imports), else the default.

    ## Why is this bad?
    Celery keeps a delayed message unacknowledged in the worker until its ETA.
    On Redis and SQS the broker takes it back after the visibility timeout and
    delivers it again — to another worker, which also waits for the ETA. The
    job then runs two (or more) times.

    ## Example
    ```python
    send_reminder.apply_async(args=(user.pk,), countdown=2 * 60 * 60)  # Redis: 3600 s
    ```

    ## Use instead
    ```python
    # Schedule far-future work in the database (a beat/cron job picks it up),
    # or raise the visibility timeout above the longest delay you use.
    Reminder.objects.create(user=user, due_at=now() + timedelta(hours=2))
    ```

    ## Fix safety
    No automatic fix: the right answer (a schedule table, a periodic task or a
    larger timeout) is a design decision.

    ## Known limits
    - Only statically known delays and brokers are compared; the same value
      and configuration rules as JL501 apply (a broker URL read from the
      environment takes its transport from joblint's `broker` setting or the
      project's deployment files). When one configuration's broker or timeout
      can't be known (an environment URL no deployment file names, files that
      disagree, SQS `predefined_queues`), the delays of the files it applies
      to are not compared. RabbitMQ's
      `consumer_timeout` (30 min) is not checked.
    """

    CODE = "JL502"
    TRIGGERS = PROJECT_FACTS
    READS_SETTINGS = True
    SUMMARY = "Countdown or ETA longer than the broker visibility timeout: the job runs twice"
    HELP = "Keep delays below visibility_timeout, or schedule far-future jobs from the database"

    VALID = (
        Valid(
            """
from .tasks import remind

def later(user):
    remind.apply_async(args=(user.pk,), countdown=15 * 60)
""",
            id="short-countdown",
        ),
        Valid(
            """
from celery import Celery
from .tasks import remind

app = Celery("proj", broker="amqp://guest@localhost//")

def later(user):
    remind.apply_async(args=(user.pk,), countdown=4 * 3600)
""",
            id="not-redis-or-sqs",
        ),
    )

    INVALID = (
        invalid(
            """
from datetime import timedelta
from django.utils import timezone
from .tasks import remind

def later(user):
    remind.apply_async(args=(user.pk,), countdown=2 * 60 * 60)
    remind.apply_async(args=(user.pk,), eta=timezone.now() + timedelta(hours=3))
""",
            (
                7,
                41,
                "countdown of 7200 s is longer than the Redis broker's visibility_timeout "
                "of 3600 s (proj/settings.py:3)",
            ),
            (8, 41, "eta of 10800 s"),
            id="countdown-and-eta",
            proj_settings=SETTINGS,
        ),
        invalid(
            """
from celery import Celery, shared_task

app = Celery("proj", broker="sqs://")

@shared_task(bind=True)
def sync(self):
    raise self.retry(countdown=3600)
""",
            (8, 22, "longer than the SQS broker's default visibility_timeout of 1800 s"),
            id="sqs-default-retry",
        ),
    )

    @classmethod
    def check(cls, project: ProjectView) -> Iterator[ProjectFinding]:
        configurations = project.brokers.configurations
        for delay in project.brokers.delays:
            threshold = _threshold([c for c in configurations if delay in c.delays])
            if threshold is None:
                continue
            limit, described, sources, transport = threshold
            if delay.seconds > limit:
                message = (
                    f"{delay.keyword} of {delay.seconds:g} s is longer than the "
                    f"{transport} broker's {described}: the broker redelivers the waiting "
                    "message to a second worker and the job runs twice. Keep delays below the "
                    "timeout or schedule far-future work from the database"
                )
                yield cls.finding(delay.place, message, *sources)


Threshold = tuple[float, str, tuple[Place, ...], str]


def _threshold(configurations: list[Configuration]) -> Threshold | None:
    """The shortest visibility timeout in force across the configurations: (seconds,
    its description, where it is set (and the deployment files saying the
    transport), the transport). None when one of them can't be known (a broker
    URL or a timeout that isn't static): then nothing is compared."""
    found: list[Threshold] = []
    for configuration in configurations:
        transport = configuration.transport
        if transport is None:
            return None
        if not configuration.visibility:
            seconds = transport.default_seconds
            said = f" ({transport.source})" if transport.source else ""
            found.append(
                (
                    seconds,
                    f"default visibility_timeout of {seconds:g} s{said}",
                    (transport.place, *transport.source_places),
                    transport.name,
                )
            )
        for visibility in configuration.visibility:
            if visibility.seconds is None:
                return None
            described = (
                f"visibility_timeout of {visibility.seconds:g} s ({where(visibility.place)})"
            )
            found.append((visibility.seconds, described, (visibility.place,), transport.name))
    return min(found, key=lambda item: item[0]) if found else None

"""JL501 visibility-timeout-below-time-limit.

Broker visibility timeout shorter than a job's time limit: a second worker runs it.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL501` show) and its teaching examples."""

from __future__ import annotations

import math
from collections.abc import Iterator

from joblint.analysis.broker_view import Configuration, Limit, Visibility, described
from joblint.knowledge.tokens import PROJECT_FACTS
from joblint.rule import ProjectFinding, ProjectRule, ProjectView, Valid, invalid, where

SETTINGS = """
from datetime import timedelta

CELERY_BROKER_URL = "redis://localhost:6379/0"
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 1800}
CELERY_TASK_TIME_LIMIT = timedelta(minutes=20).total_seconds()
"""


def _seconds(value: float) -> str:
    return f"{value:g} s"


class VisibilityTimeoutBelowTimeLimit(ProjectRule):
    """
    ## What it does
    Compares, across the files linted together, the Celery broker's visibility
    timeout (`broker_transport_options={"visibility_timeout": N}` on the app,
    in `app.conf`, in a `config_from_object` module or object, or in Django
    settings as `CELERY_BROKER_TRANSPORT_OPTIONS`/`BROKER_TRANSPORT_OPTIONS`;
    also the one option set alone once the dict exists:
    `app.conf.broker_transport_options["visibility_timeout"] = N`,
    `app.conf["broker_transport_options"] = {...}`, the options' `.update(...)`,
    and the same on a settings module's dict)
    with the job time limits (`task_time_limit`/`CELERY_TASK_TIME_LIMIT`, every
    task's `time_limit=`, also from `@app.task(**DEFAULTS)`, and the
    `time_limit` an enqueue passes: `apply_async(time_limit=...)`,
    `apply_async(**options)`, `.signature(options=...)`, `.set(...)`). With no
    visibility timeout set, a `redis://` broker's default (3600 s) or an
    `sqs://` broker's (1800 s) is used.

    Where the broker URL is read from an environment variable with no static
    default (`os.environ["X"]`, `os.getenv("X")`, django-environ's
    `env("X")`/`env.str("X")`, python-decouple's `config("X")`, a
    pydantic-settings field `broker_url: str` of `settings = Settings()`), the
    transport is the one joblint's `broker` setting names, else the one the
    project's deployment files give that variable: `.env*` files and the
    `environment:` of `docker-compose*.y*ml`/`compose*.y*ml` services, in the
    project root and its `docker/`, `deploy/`, `config/`, `envs/`...
    directories (not files named for tests or CI: `.env.test`,
    `docker-compose.ci.yml`). Files that disagree (redis in one, amqp in
    another) leave it unknown. A URL built of parts (`str.format`, `%`, `+`,
    an f-string, a URL helper's `scheme=`) takes its transport from the part
    before `://`, a variable or setting resolved the same way; a URL chosen
    by a test (`a if test else b`) from the arm the deployment files decide,
    else from both arms when they agree. Where the deployment files set
    `DJANGO_SETTINGS_MODULE`, that settings module is the configuration in
    force, and a setting assigned under a top-level `if` they decide false
    is not.

    Settings are read per configuration the project can run with: a settings
    module that star-imports another (`from .base import *`) overrides what it
    imports, a settings class (django-configurations' `class Prod(Base)`)
    overrides its bases, and only the leaves (or what `DJANGO_SETTINGS_MODULE`,
    `DJANGO_CONFIGURATION` or `config_from_object` names) are in force.
    Settings that run jobs eagerly (`CELERY_TASK_ALWAYS_EAGER = True`) or on a
    broker without visibility timeouts (`memory://`, `amqp://`) are none.

    ## Why is this bad?
    Redis and SQS hide a delivered message for the visibility timeout, then
    hand it to another worker if it wasn't acknowledged. A job allowed to run
    longer than that (with `acks_late`, or an ETA/countdown) gets a second
    worker running it at the same time: double emails, double charges,
    duplicate rows.

    ## Example
    ```python
    # settings.py
    CELERY_BROKER_URL = "redis://redis:6379/0"
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 1800}

    # tasks.py
    @shared_task(time_limit=3600)
    def rebuild_index(): ...
    ```

    ## Use instead
    ```python
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3660}  # >= longest limit + margin
    ```

    ## Fix safety
    No automatic fix: raising the timeout delays redelivery after a real crash.

    ## Known limits
    - Values must be static: numbers, `60 * 60`, module constants (also
      imported from another project module), `timedelta(...).total_seconds()`,
      the literal default of an environment read (`os.environ.get(...)`,
      `env.str(...)`, `config(...)`) or of a django-configurations value
      (`values.IntegerValue(3600)`). Anything else is unknown and never
      reported, except a broker URL read from the environment (above).
    - A setting assigned under a top-level `if` counts unless the test can
      be decided with the deployment files (when they also said the
      transport, a variable they leave unset has the code's default: `if
      os.environ.get("X", ""):` is false); nested or `elif` branches always
      count.
    - Deployment files are read with a small line reader, not a YAML parser:
      an `environment:` block (mapping or `- KEY=value` list, a one-line
      `[...]`/`{...}`, a block anchored elsewhere and merged in with
      `<<: *env`), `${VAR}`/`${VAR:-default}` from the `.env` beside the
      compose file. `env_file:` references, Kubernetes manifests and Helm
      values are not read. A broker URL the code doesn't set at all (Celery
      then reads `CELERY_BROKER_URL` itself) is not decided by any of them.
    - Only hard limits count; soft limits alone and tasks with no limit are
      not findings. The margin is `visibility-margin-seconds` (default 60).
    - Module-level settings count in modules named by `config_from_object`,
      in `celeryconfig`-style modules, and (upper-case `CELERY_`/legacy names)
      in modules with a `settings` component; class attributes count in
      classes deriving from a settings base class or loaded by
      `config_from_object`. Within one module or class every assignment of a
      setting counts (branches are not told apart); a module's own settings
      override every module it star-imports, whatever the order.
    - Heuristic: a settings layer nothing else builds on is taken to be a
      configuration the project runs with, unless it runs jobs eagerly or on
      a broker without visibility timeouts.
    - kombu's SQS transport applies `visibility_timeout` only to the queues it
      creates (`sqs-creation-attributes` `VisibilityTimeout` wins there);
      `predefined_queues` keep the timeout set on each queue outside the code,
      so they are not checked, nor is an SQS queue created with boto3, nor an
      existing queue's own attribute.
    - Settings apply to the project whose entry point loads them. When only
      some files are named (pre-commit), the rest of the project's settings
      are read from the project root; the finding is reported when the
      setting or the time limit is in a named file.
    """

    CODE = "JL501"
    # Findings sit where the settings and limits are.
    TRIGGERS = PROJECT_FACTS
    READS_SETTINGS = True
    SUMMARY = "Broker visibility timeout shorter than a job's time limit: a second worker runs it"
    HELP = "Set broker_transport_options visibility_timeout >= the longest time_limit + margin"

    VALID = (
        Valid(
            """
from celery import shared_task

@shared_task(time_limit=1500)
def rebuild_index():
    ...
""",
            id="limit-fits",
        ),
        Valid(
            """
from celery import shared_task

@shared_task(soft_time_limit=7200)
def rebuild_index():
    ...

@shared_task
def report():
    ...
""",
            id="soft-limit-and-no-limit",
        ),
    )

    INVALID = (
        invalid(
            """
from celery import shared_task

@shared_task(time_limit=60 * 60)
def rebuild_index():
    ...
""",
            (
                "proj/settings.py",
                5,
                58,
                "broker visibility_timeout is 1800 s (proj/settings.py:5) but task "
                "'rebuild_index' has time_limit 3600 s",
            ),
            id="explicit-visibility-below-task-limit",
            proj_settings=SETTINGS,
        ),
        invalid(
            """
from celery import Celery

app = Celery("proj", broker="redis://localhost:6379/0")
app.conf.task_time_limit = 2 * 3600
""",
            (
                5,
                28,
                "task_time_limit is 7200 s (app/example.py:5) but the Redis broker "
                "(app/example.py:4) redelivers unacknowledged jobs after its default "
                "visibility_timeout of 3600 s",
            ),
            id="redis-default-below-global-limit",
        ),
    )

    @classmethod
    def check(cls, project: ProjectView) -> Iterator[ProjectFinding]:
        brokers = project.brokers
        for configuration in brokers.configurations:
            limits = [*configuration.limits, *configuration.task_limits]
            if configuration.visibility:
                for visibility in configuration.visibility:
                    found = cls._explicit(visibility, limits, project.margin)
                    if found is not None:
                        yield found
            elif configuration.transport is not None:
                for limit in limits:
                    if configuration.transport.default_seconds < limit.seconds + project.margin:
                        yield cls._default(configuration, limit, project.margin)

    @classmethod
    def _explicit(
        cls, visibility: Visibility, limits: list[Limit], margin: float
    ) -> ProjectFinding | None:
        if visibility.seconds is None:
            return None
        exceeding = [lim for lim in limits if visibility.seconds < lim.seconds + margin]
        if not exceeding:
            return None
        worst = max(exceeding, key=lambda lim: lim.seconds)
        needed = math.ceil(worst.seconds + margin)
        in_force = f", in force in {visibility.inherited_by}," if visibility.inherited_by else ""
        message = (
            f"broker visibility_timeout is {_seconds(visibility.seconds)} "
            f"({where(visibility.place)}){in_force} but {worst.label} {_seconds(worst.seconds)} "
            f"({where(worst.place)}): the broker will hand the job to a second worker while "
            f"the first still runs it. Set visibility_timeout >= {needed} s"
        )
        return cls.finding(visibility.place, message, worst.place)

    @classmethod
    def _default(cls, configuration: Configuration, limit: Limit, margin: float) -> ProjectFinding:
        transport = configuration.transport
        assert transport is not None
        needed = math.ceil(limit.seconds + margin)
        message = (
            f"{limit.label} {_seconds(limit.seconds)} ({where(limit.place)}) but the "
            f"{transport.name} broker ({described(transport)}) redelivers unacknowledged "
            f"jobs after its default visibility_timeout of {_seconds(transport.default_seconds)}: "
            "a second worker will run the job while the first still does. Set "
            f"broker_transport_options={{'visibility_timeout': {needed}}}"
        )
        return cls.finding(limit.place, message, transport.place, *transport.source_places)

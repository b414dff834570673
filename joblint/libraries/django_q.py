"""django-q (django-q2): `async_task` and friends; with the ORM broker the queue
is a database table and an enqueue is part of the transaction."""

from __future__ import annotations

from joblint.libraries.base import Library, PayloadShape, SettingsFlag
from joblint.libraries.retry_api import (
    AttemptBound,
    Bound,
    BoundParams,
    Param,
    RetrySetting,
    Says,
    Value,
)

ORM_BROKER = "django_q.orm_broker"

# Keywords `async_task` takes itself: not the task's arguments.
_RESERVED = frozenset(
    {
        "hook",
        "group",
        "save",
        "sync",
        "cached",
        "ack_failure",
        "iter_count",
        "iter_cached",
        "chain",
        "broker",
        "cluster",
        "timeout",
        "task_name",
        "q_options",
    }
)

LIBRARIES = (
    Library(
        "django_q",
        "django-q",
        modules=("django_q",),
        enqueue_functions=(
            "django_q.tasks.async_task",
            "django_q.tasks.async_chain",
            "django_q.tasks.async_iter",
        ),
        transactional_when=ORM_BROKER,
        settings_flags=(SettingsFlag("Q_CLUSTER", "orm", ORM_BROKER),),
        # `async_task(func, *args, **kwargs)`
        payload_shapes=(("async_task", PayloadShape(skip_positional=1, reserved=_RESERVED)),),
    ),
)

# --- retries (django-q2 `conf.py`) ----------

CLUSTER_SETTING = "Q_CLUSTER"
MAX_ATTEMPTS = "max_attempts"
# A task's `attempt_count` is 1 after its first run and it is given up once
# `attempt_count >= max_attempts`.
MAX_ATTEMPTS_BOUND = AttemptBound(MAX_ATTEMPTS, counts_first_run=True)

# `Q_CLUSTER = {"max_attempts": 0}`: 0 means unlimited.
RETRY_SETTINGS = (
    RetrySetting(
        CLUSTER_SETTING,
        BoundParams(
            ((Param(MAX_ATTEMPTS), Bound.ATTEMPTS),),
            MAX_ATTEMPTS_BOUND,
            Says(
                f"{LIBRARIES[0].display} {MAX_ATTEMPTS}=0 means unlimited attempts",
                f"Set {MAX_ATTEMPTS_BOUND.advice()}",
            ),
            default=Bound.ATTEMPTS,
            unbounded=frozenset({Value.ZERO}),
        ),
    ),
)

"""Huey: calling a task enqueues it; djhuey's decorators, `.schedule()`."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, PayloadShape, Receiver
from joblint.libraries.job_work import RerunOption, Reruns
from joblint.libraries.locking import LockApi

# Keywords calling a Huey task takes itself (`send_email(to, delay=60)`).
_CALL_OPTIONS = frozenset(
    {
        "eta",
        "delay",
        "retries",
        "retry_delay",
        "retry_backoff",
        "priority",
        "expires",
        "timeout",
        "id",
    }
)

LIBRARIES = (
    Library(
        "huey",
        "Huey",
        modules=("huey",),
        delay_options=("delay", "eta"),
        delayed_methods=("schedule",),
        task_decorators=(
            "huey.contrib.djhuey.task",
            "huey.contrib.djhuey.db_task",
            "huey.contrib.djhuey.periodic_task",
            "huey.contrib.djhuey.db_periodic_task",
        ),
        task_decorator_methods=(
            "task",
            "periodic_task",
            "db_task",
            "db_periodic_task",
            "context_task",
        ),
        queue_constructors=(
            "huey.Huey",
            "huey.RedisHuey",
            "huey.RedisExpireHuey",
            "huey.PriorityRedisHuey",
            "huey.PriorityRedisExpireHuey",
            "huey.SqliteHuey",
            "huey.MemoryHuey",
            "huey.FileHuey",
            "huey.api.Huey",
            "huey.contrib.djhuey.HUEY",
        ),
        # djhuey builds its `HUEY` from the settings when imported (huey 2.5,
        # huey/contrib/djhuey/__init__.py): `@HUEY.task()` makes a Huey task.
        queue_objects=("huey.contrib.djhuey.HUEY",),
        enqueue_methods=(
            ("schedule", EnqueueMethod((), Receiver.TASK)),
            # `huey.enqueue(task.s(...))`; `task.map(items)` enqueues one task
            # per item (huey 3.3.0, huey/api.py `Huey.enqueue`, `TaskWrapper.map`).
            ("enqueue", EnqueueMethod((), Receiver.QUEUE)),
            # `.map(` is everywhere: only where Huey is imported.
            ("map", EnqueueMethod((), Receiver.TASK, reach=("huey",))),
        ),
        enqueues_on_call=True,
        message_methods=("s",),
        payload_shapes=(
            (
                "schedule",
                PayloadShape(
                    args_keyword="args",
                    kwargs_keyword="kwargs",
                    args_position=0,
                    kwargs_position=1,
                    rest_is_payload=False,
                ),
            ),
            # Calling the task: its option keywords are taken by Huey, not the task.
            ("__call__", PayloadShape(reserved=_CALL_OPTIONS)),
        ),
    ),
    # djhuey's `on_commit_task` defers itself to COMMIT: never an enqueue race.
    Library(
        "huey_on_commit",
        "Huey",
        task_decorators=("huey.contrib.djhuey.on_commit_task",),
    ),
)

# --- locks --------------------------------------------------------------------------

# djhuey's `lock_task(lock_name)` and `Huey.lock_task(lock_name)`: no TTL, no
# owner token. A killed worker's lock stays until the consumer flushes locks.
_LOCK_WITHOUT_EXPIRY = "Pair it with a task time limit (timeout=) and flush_locks"
LOCK_APIS = (
    LockApi(
        "lock_task(...)",
        qualname="huey.contrib.djhuey.lock_task",
        no_expiry_advice=_LOCK_WITHOUT_EXPIRY,
    ),
    # The method name is Huey's alone.
    LockApi(".lock_task(...)", method="lock_task", no_expiry_advice=_LOCK_WITHOUT_EXPIRY),
)


# --- running a task more than once (JL601) -----------------------------------------

# Huey retries a failed task only as many times as its `retries=` says (0 by default).
RERUNS = tuple(
    Reruns(key, options=(RerunOption("retries", counts=True),))
    for key in ("huey", "huey_on_commit")
)

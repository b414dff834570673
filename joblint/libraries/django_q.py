"""django-q (django-q2): `async_task` and friends; with the ORM broker the queue
is a database table and an enqueue is part of the transaction."""

from __future__ import annotations

from joblint.libraries.base import Library, PayloadShape, SettingsFlag

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

"""procrastinate: its queue lives in the database (`defer` is part of the transaction)."""

from __future__ import annotations

from joblint.libraries.base import Library

LIBRARIES = (
    Library(
        "procrastinate",
        "procrastinate",
        modules=("procrastinate",),
        task_decorator_methods=("task", "periodic"),
        queue_constructors=("procrastinate.App", "procrastinate.Blueprint"),
        async_enqueue_methods=(("defer_async", False),),
    ),
)

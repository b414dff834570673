"""Celery: tasks, canvas, enqueue methods and their on-commit twins."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, Receiver

_CANVAS = tuple(
    f"{module}.{name}"
    for module in ("celery", "celery.canvas")
    for name in ("chain", "group", "chord", "chunks")
)

LIBRARIES = (
    Library(
        "celery",
        "Celery",
        modules=("celery",),
        task_decorators=("celery.shared_task", "celery.app.shared_task", "celery.task"),
        task_decorator_methods=("task",),
        queue_constructors=("celery.Celery", "celery.app.Celery", "celery.app.base.Celery"),
        enqueue_methods=(
            ("delay", EnqueueMethod((), Receiver.TASK_LIKE)),
            ("apply_async", EnqueueMethod((), Receiver.TASK_LIKE)),
            ("send_task", EnqueueMethod((), Receiver.ANY, reach=("celery",))),
        ),
        canvas_callables=_CANVAS,
        signature_functions=(
            *_CANVAS,
            "celery.signature",
            "celery.subtask",
            "celery.canvas.signature",
            "celery.canvas.Signature",
        ),
        signature_methods=(
            "s",
            "si",
            "signature",
            "subtask",
            "set",
            "clone",
            "chunks",
            "map",
            "starmap",
        ),
        # Celery >= 5.4's DjangoTask defers these to `transaction.on_commit`.
        on_commit_variants=(("delay", "delay_on_commit"), ("apply_async", "apply_async_on_commit")),
    ),
)

# `app.config_from_object("proj.celeryconfig")`: the settings module a Celery
# app loads (`"django.conf:settings"` names Django's).
CONFIG_FROM_OBJECT_METHOD = "config_from_object"

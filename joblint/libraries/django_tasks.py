"""Django's tasks framework (Django 6 `django.tasks`, and the django-tasks backport)."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, PayloadShape, Receiver

LIBRARIES = (
    Library(
        "django_tasks",
        "Django",
        modules=("django.tasks", "django_tasks"),
        task_decorators=("django.tasks.task", "django_tasks.task"),
        enqueue_methods=(
            ("enqueue", EnqueueMethod((), Receiver.TASK, payload_shape="task.enqueue")),
            ("aenqueue", EnqueueMethod((), Receiver.TASK_LIKE)),
        ),
        payload_shapes=(("aenqueue", PayloadShape()), ("task.enqueue", PayloadShape())),
        async_enqueue_methods=(("aenqueue", False),),
        # `Task.using(priority=..., queue_name=..., run_after=..., backend=...)`
        # returns a copy of the task (django/tasks/base.py, Django 6.0).
        task_copy_methods=("using",),
    ),
)

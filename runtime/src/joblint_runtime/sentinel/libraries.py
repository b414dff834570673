"""Where each queue library sends a job: its own dispatch point, as data.

Each point is a method (or function) every enqueue of the library goes
through, read from the library's source: Celery 5.x ``Task.apply_async``
(``delay`` and signatures call it; in eager mode it runs the task instead,
and the bug is the same) and ``Celery.send_task``; RQ 2.x/3.x
``Queue.enqueue*`` and ``enqueue_job``/``schedule_job``; Dramatiq
``Actor.send_with_options`` (``send`` calls it); Huey ``Huey.enqueue``
(calling a task and ``schedule`` go through it); django-q2 ``async_task``;
Django's tasks (``django.tasks`` and the ``django_tasks`` backport)
``Task.enqueue``. ``payload`` gives the job's arguments where the point sees
them apart from the library's own options.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Arguments = Mapping[str, Any]  # the point's call, bound to its signature
Payload = tuple[Sequence[Any], Mapping[str, Any]]


@dataclass(frozen=True)
class EnqueuePoint:
    library: str
    module: str
    owner: str  # the class in `module`; "" for a module-level function
    method: str
    job: Callable[[Arguments], str]
    payload: Callable[[Arguments], Payload] | None = None


def _name(value: Any) -> str:
    """A job's name as its library records it: a dotted path for a function."""
    if isinstance(value, str):
        return value
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    module = getattr(value, "__module__", None)
    if name and module:
        return f"{module}.{name}"
    return str(name or value)


def _own(arguments: Arguments, name: str) -> Any:
    return arguments.get(name)


def _args_kwargs(arguments: Arguments) -> Payload:
    return tuple(arguments.get("args") or ()), dict(arguments.get("kwargs") or {})


def _job_of(arguments: Arguments) -> Payload:
    job = arguments["job"]
    return tuple(job.args or ()), dict(job.kwargs or {})


def _huey_task(arguments: Arguments) -> Payload:
    task = arguments["task"]
    return tuple(task.args or ()), dict(task.kwargs or {})


# django-q2's `async_task` options, which it takes out of the keywords (`django_q/tasks.py`).
DJANGO_Q_OPTIONS = frozenset(
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
        "q_options",
        "task_name",
    }
)


def _django_q(arguments: Arguments) -> Payload:
    kwargs = {
        k: v for k, v in dict(arguments.get("kwargs") or {}).items() if k not in DJANGO_Q_OPTIONS
    }
    return tuple(arguments.get("args") or ()), kwargs


def _django_task(arguments: Arguments) -> Payload:
    return tuple(arguments.get("args") or ()), dict(arguments.get("kwargs") or {})


def _rq_job(arguments: Arguments) -> str:
    job = arguments["job"]
    return str(getattr(job, "func_name", None) or job)


POINTS = (
    EnqueuePoint(
        "Celery",
        "celery.app.task",
        "Task",
        "apply_async",
        lambda a: str(a["self"].name),
        _args_kwargs,
    ),
    EnqueuePoint(
        "Celery", "celery.app.base", "Celery", "send_task", lambda a: _name(a["name"]), _args_kwargs
    ),
    EnqueuePoint("RQ", "rq.queue", "Queue", "enqueue", lambda a: _name(a["f"])),
    EnqueuePoint("RQ", "rq.queue", "Queue", "enqueue_call", lambda a: _name(a["func"])),
    EnqueuePoint("RQ", "rq.queue", "Queue", "enqueue_at", lambda a: _name(a["f"])),
    EnqueuePoint("RQ", "rq.queue", "Queue", "enqueue_in", lambda a: _name(a["func"])),
    EnqueuePoint("RQ", "rq.queue", "Queue", "enqueue_many", lambda a: "several jobs"),
    EnqueuePoint("RQ", "rq.queue", "Queue", "enqueue_job", _rq_job, _job_of),
    EnqueuePoint("RQ", "rq.queue", "Queue", "schedule_job", _rq_job, _job_of),
    EnqueuePoint(
        "Dramatiq",
        "dramatiq.actor",
        "Actor",
        "send_with_options",
        lambda a: str(a["self"].actor_name),
        _args_kwargs,
    ),
    EnqueuePoint(
        "Huey",
        "huey.api",
        "Huey",
        "enqueue",
        lambda a: str(getattr(a["task"], "name", a["task"])),
        _huey_task,
    ),
    EnqueuePoint(
        "django-q", "django_q.tasks", "", "async_task", lambda a: _name(a["func"]), _django_q
    ),
    EnqueuePoint(
        "Django tasks",
        "django.tasks.base",
        "Task",
        "enqueue",
        lambda a: _name(getattr(a["self"], "name", a["self"])),
        _django_task,
    ),
    EnqueuePoint(
        "Django tasks",
        "django_tasks.base",
        "Task",
        "enqueue",
        lambda a: _name(getattr(a["self"], "name", a["self"])),
        _django_task,
    ),
)

# The names code calls to enqueue: a project's own wrapper of one (a task
# base class overriding `apply_async`) is not where the enqueue is written.
DISPATCH_NAMES = frozenset(
    {point.method for point in POINTS} | {"delay", "send", "apply_async", "kiq", "s", "si"}
)

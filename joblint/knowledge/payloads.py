"""What job payloads look like, and which values must not be in them, as data.

Used by the payload rules (JL201, JL202), the option rule (JL103) and the
class index. Qualified names have `QualifiedNameProvider` meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from joblint.libraries import collect, python
from joblint.libraries.objects import Family as Family
from joblint.libraries.objects import ManagerFetches as ManagerFetches
from joblint.libraries.objects import ObjectKind as ObjectKind
from joblint.libraries.objects import ParameterAttribute as ParameterAttribute
from joblint.libraries.objects import SessionFetches as SessionFetches
from joblint.libraries.objects import TableFlagBase as TableFlagBase

# --- class kinds ---------------------------------------------------------------

# Each library declares the kinds of its values and how its classes get them
# (`joblint.libraries.objects`); merged here.
OBJECT_KINDS: dict[str, ObjectKind] = {kind.key: kind for kind in collect("OBJECT_KINDS")}
# A class of one of these kinds is a database model (JL201) or a rich type (JL202).
ORM_KINDS = frozenset(k for k, kind in OBJECT_KINDS.items() if kind.family is Family.ROW)
RICH_KINDS = frozenset(k for k, kind in OBJECT_KINDS.items() if kind.family is Family.RICH)
# Several rows of a model: a queryset, a list of instances.
ROWS_KINDS = frozenset(k for k, kind in OBJECT_KINDS.items() if kind.family is Family.ROWS)
# A member of an enum (`Color.RED`), the kind the payload analysis tells by shape.
ENUM = python.ENUM

# A class whose base is one of these has that kind.
BASE_CLASS_KINDS: dict[str, str] = dict(collect("BASE_CLASS_KINDS"))
# `class X(SQLModel, table=True)`: the class keyword says the kind.
TABLE_FLAG_BASES: dict[str, TableFlagBase] = {b.base: b for b in collect("TABLE_FLAG_BASES")}
# Decorators that give a class a kind (called or bare).
CLASS_DECORATOR_KINDS: dict[str, str] = dict(collect("CLASS_DECORATOR_KINDS"))
# `Name = factory(...)` at module level makes `Name` a class-like of that kind.
CLASS_FACTORIES: dict[str, str] = dict(collect("CLASS_FACTORIES"))
# `db = SQLAlchemy(app)`: `db.Model` is a declarative base.
MODEL_ATTRIBUTE_FACTORIES: dict[str, str] = dict(collect("MODEL_ATTRIBUTE_FACTORIES"))
# When a class can't be resolved in the project, one narrow heuristic: a class
# imported from a module of one of these names is taken to have the kind.
UNRESOLVED_MODEL_MODULES: dict[str, str] = dict(collect("UNRESOLVED_MODEL_MODULES"))
# `request.user` of a parameter `request`: a value of a known kind.
PARAMETER_ATTRIBUTES: dict[tuple[str, str], ParameterAttribute] = {
    (a.parameter, a.attribute): a for a in collect("PARAMETER_ATTRIBUTES")
}

# --- ORM fetches ---------------------------------------------------------------

# `X.objects.<method>(...)`: a manager's chains fetching instances or querysets.
MANAGER_FETCHES: tuple[ManagerFetches, ...] = collect("MANAGER_FETCHES")
# `session.query(X)...<method>()`, `session.scalars(select(X)).<method>()`,
# `session.get(X, pk)`.
SESSION_FETCHES: tuple[SessionFetches, ...] = collect("SESSION_FETCHES")

# --- where the payload is in an enqueue call ------------------------------------


@dataclass(frozen=True, slots=True)
class PayloadShape:
    """Which arguments of an enqueue call end up in the job's payload."""

    skip_positional: int = 0  # leading positionals that aren't payload (func, eta)
    args_keyword: str = ""  # keyword holding a list/tuple of positional payload
    kwargs_keyword: str = ""  # keyword holding a dict of keyword payload
    args_position: int = -1  # positional index of the args list, when allowed
    kwargs_position: int = -1
    rest_is_payload: bool = True  # other positionals / keywords are payload too
    reserved: frozenset[str] = frozenset()  # option keywords that aren't payload
    reserved_prefix: str = ""  # arq: `_job_id`, `_defer_by`, ...


_RQ_RESERVED = frozenset(
    {
        "job_timeout",
        "description",
        "result_ttl",
        "ttl",
        "failure_ttl",
        "depends_on",
        "job_id",
        "at_front",
        "meta",
        "retry",
        "repeat",
        "on_success",
        "on_failure",
        "on_stopped",
        "rate_limit",
        "webhooks",
        "pipeline",
        "unique",
        "args",
        "kwargs",
    }
)
_HUEY_OPTIONS = frozenset(
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
_DJANGO_Q_RESERVED = frozenset(
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

PAYLOAD_SHAPES: dict[str, PayloadShape] = {
    "delay": PayloadShape(),
    "s": PayloadShape(),
    "si": PayloadShape(),
    "apply_async": PayloadShape(
        args_keyword="args",
        kwargs_keyword="kwargs",
        args_position=0,
        kwargs_position=1,
        rest_is_payload=False,
    ),
    "send_task": PayloadShape(
        skip_positional=1,
        args_keyword="args",
        kwargs_keyword="kwargs",
        args_position=1,
        kwargs_position=2,
        rest_is_payload=False,
    ),
    "send": PayloadShape(),
    "send_with_options": PayloadShape(
        args_keyword="args", kwargs_keyword="kwargs", rest_is_payload=False
    ),
    "kiq": PayloadShape(),
    "enqueue": PayloadShape(
        skip_positional=1, args_keyword="args", kwargs_keyword="kwargs", reserved=_RQ_RESERVED
    ),
    "enqueue_call": PayloadShape(
        skip_positional=1,
        args_keyword="args",
        kwargs_keyword="kwargs",
        args_position=1,
        kwargs_position=2,
        rest_is_payload=False,
    ),
    "enqueue_at": PayloadShape(skip_positional=2, reserved=_RQ_RESERVED),
    "enqueue_in": PayloadShape(skip_positional=2, reserved=_RQ_RESERVED),
    "enqueue_job": PayloadShape(skip_positional=1, reserved_prefix="_"),
    "aenqueue": PayloadShape(),
    "task.enqueue": PayloadShape(),
    "schedule": PayloadShape(
        args_keyword="args",
        kwargs_keyword="kwargs",
        args_position=0,
        kwargs_position=1,
        rest_is_payload=False,
    ),
    # Huey: calling the task; option keywords are taken by Huey, not the task.
    "__call__": PayloadShape(reserved=_HUEY_OPTIONS),
    # django-q `async_task(func, *args, **kwargs)`.
    "async_task": PayloadShape(skip_positional=1, reserved=_DJANGO_Q_RESERVED),
}

# `partial(enqueue_method, *args, **kwargs)`: the enqueue's payload, bound now.
PARTIAL_FUNCTIONS = frozenset({"functools.partial"})

# --- JL103: execution options given to a call that forwards them to the task -----


# method -> (library, option keywords that are swallowed, where they belong)
@dataclass(frozen=True, slots=True)
class ForwardedOptions:
    libraries: frozenset[str]
    options: frozenset[str]
    fix: str


FORWARDED_OPTIONS: dict[str, ForwardedOptions] = {
    "delay": ForwardedOptions(
        frozenset({"celery"}),
        frozenset(
            {
                "countdown",
                "eta",
                "expires",
                "queue",
                "priority",
                "retry",
                "retry_policy",
                "routing_key",
                "exchange",
                "headers",
                "link",
                "link_error",
                "shadow",
                "time_limit",
                "soft_time_limit",
            }
        ),
        "pass it to {task}.apply_async(args=..., kwargs=..., {option}=...)",
    ),
    "send": ForwardedOptions(
        frozenset({"dramatiq"}),
        frozenset({"delay"}),
        "use {task}.send_with_options(args=..., {option}=...)",
    ),
    "enqueue": ForwardedOptions(
        frozenset({"rq"}),
        frozenset({"timeout"}),
        "RQ's option is job_timeout=",
    ),
}

# --- JL105: enqueue calls that return a coroutine --------------------------------

# method -> whether the receiver must be known to be async (RQ's `enqueue_job` is sync).
ASYNC_ENQUEUE_METHODS: dict[str, bool] = {
    "kiq": False,
    "defer_async": False,
    "aenqueue": False,
    "enqueue_job": True,
}
ASYNC_QUEUE_LIBRARIES = frozenset({"arq"})

"""What job payloads look like, and which values must not be in them, as data.

Used by the payload rules (JL201, JL202), the option rule (JL103) and the
class index. Qualified names have `QualifiedNameProvider` meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- class kinds ---------------------------------------------------------------

DJANGO_MODEL = "django_model"
SQLALCHEMY_MODEL = "sqlalchemy_model"
PYDANTIC = "pydantic"
ENUM = "enum"
DATACLASS = "dataclass"
ATTRS = "attrs"
NAMEDTUPLE = "namedtuple"

ORM_KINDS = frozenset({DJANGO_MODEL, SQLALCHEMY_MODEL})
RICH_KINDS = frozenset({ENUM, DATACLASS, ATTRS, PYDANTIC, NAMEDTUPLE})

# A class whose base is one of these has that kind.
BASE_CLASS_KINDS: dict[str, str] = {
    "django.db.models.Model": DJANGO_MODEL,
    "django.db.models.base.Model": DJANGO_MODEL,
    "django.contrib.auth.models.AbstractUser": DJANGO_MODEL,
    "django.contrib.auth.models.AbstractBaseUser": DJANGO_MODEL,
    "django.contrib.auth.models.User": DJANGO_MODEL,
    "django.contrib.auth.models.Group": DJANGO_MODEL,
    "django.db.models.TextChoices": ENUM,
    "django.db.models.IntegerChoices": ENUM,
    "django.db.models.Choices": ENUM,
    "django.db.models.enums.TextChoices": ENUM,
    "django.db.models.enums.IntegerChoices": ENUM,
    "django.db.models.enums.Choices": ENUM,
    "sqlalchemy.orm.DeclarativeBase": SQLALCHEMY_MODEL,
    "sqlalchemy.orm.DeclarativeBaseNoMeta": SQLALCHEMY_MODEL,
    "sqlalchemy.orm.decl_api.DeclarativeBase": SQLALCHEMY_MODEL,
    "pydantic.BaseModel": PYDANTIC,
    "pydantic.main.BaseModel": PYDANTIC,
    "pydantic.v1.BaseModel": PYDANTIC,
    "pydantic_settings.BaseSettings": PYDANTIC,
    "enum.Enum": ENUM,
    "enum.IntEnum": ENUM,
    "enum.StrEnum": ENUM,
    "enum.Flag": ENUM,
    "enum.IntFlag": ENUM,
    "typing.NamedTuple": NAMEDTUPLE,
    "typing_extensions.NamedTuple": NAMEDTUPLE,
}

# `class X(SQLModel, table=True)` is a table model; without `table=True` it is pydantic.
SQLMODEL_BASE = "sqlmodel.SQLModel"

# Decorators that give a class a kind (called or bare).
CLASS_DECORATOR_KINDS: dict[str, str] = {
    "dataclasses.dataclass": DATACLASS,
    "pydantic.dataclasses.dataclass": DATACLASS,
    "attr.s": ATTRS,
    "attr.attrs": ATTRS,
    "attr.define": ATTRS,
    "attr.frozen": ATTRS,
    "attr.mutable": ATTRS,
    "attr.dataclass": ATTRS,
    "attrs.define": ATTRS,
    "attrs.frozen": ATTRS,
    "attrs.mutable": ATTRS,
}

# `Name = factory(...)` at module level makes `Name` a class-like of that kind.
CLASS_FACTORIES: dict[str, str] = {
    "collections.namedtuple": NAMEDTUPLE,
    "typing.NamedTuple": NAMEDTUPLE,
    "sqlalchemy.orm.declarative_base": SQLALCHEMY_MODEL,
    "sqlalchemy.ext.declarative.declarative_base": SQLALCHEMY_MODEL,
    "enum.Enum": ENUM,
    "enum.IntEnum": ENUM,
    "enum.StrEnum": ENUM,
}

# `db = SQLAlchemy(app)`: `db.Model` is a declarative base (Flask-SQLAlchemy).
MODEL_ATTRIBUTE_FACTORIES: dict[str, str] = {
    "flask_sqlalchemy.SQLAlchemy": SQLALCHEMY_MODEL,
}

# When a class can't be resolved in the project, one narrow heuristic: a class
# imported from a module named `models` is taken as a Django model.
MODELS_MODULE_NAME = "models"

# --- ORM fetches ---------------------------------------------------------------

# `X.objects.<method>(...)` (Django manager) returning one instance.
DJANGO_INSTANCE_METHODS = frozenset(
    {
        "get",
        "create",
        "first",
        "last",
        "latest",
        "earliest",
        "get_or_create",
        "update_or_create",
        "aget",
        "acreate",
        "afirst",
        "alast",
        "alatest",
        "aearliest",
        "aget_or_create",
        "aupdate_or_create",
    }
)
# ... returning `(instance, created)`.
DJANGO_PAIR_METHODS = frozenset(
    {"get_or_create", "update_or_create", "aget_or_create", "aupdate_or_create"}
)
# ... returning a queryset.
DJANGO_QUERYSET_METHODS = frozenset(
    {
        "all",
        "filter",
        "exclude",
        "order_by",
        "select_related",
        "prefetch_related",
        "annotate",
        "values",
        "values_list",
        "distinct",
        "only",
        "defer",
        "using",
        "select_for_update",
        "none",
        "reverse",
        "alias",
        "union",
        "intersection",
        "difference",
    }
)
DJANGO_MANAGER_ATTRIBUTE = "objects"
DJANGO_INSTANCE_FUNCTIONS = frozenset(
    {"django.shortcuts.get_object_or_404", "django.shortcuts.aget_object_or_404"}
)
DJANGO_QUERYSET_FUNCTIONS = frozenset({"django.shortcuts.get_list_or_404"})

# SQLAlchemy: `session.query(X)...<method>()` / `session.scalars(select(X)).<method>()`.
SQLALCHEMY_INSTANCE_METHODS = frozenset(
    {"first", "one", "one_or_none", "scalar_one", "scalar_one_or_none"}
)
SQLALCHEMY_QUERY_METHODS = frozenset({"query", "scalars", "execute"})
# `session.get(X, pk)`: the class is the first argument.
SQLALCHEMY_GET_METHODS = frozenset({"get", "get_one"})

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

"""What job payloads look like, and which values must not be in them, as data.

Used by the payload rules (JL201, JL202), the option rule (JL103) and the
class index. Qualified names have `QualifiedNameProvider` meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from joblint.libraries import all_libraries
from joblint.libraries.base import PayloadShape as PayloadShape

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


def _payload_shapes() -> dict[str, PayloadShape]:
    shapes: dict[str, PayloadShape] = {}
    for lib in all_libraries():
        for method, shape in lib.payload_shapes:
            known = shapes.setdefault(method, shape)
            if known != shape:
                raise ValueError(f"{lib.key}: payload shape of {method!r} disagrees")
    return shapes


# enqueue method ("__call__" for a task called, or a shape name) -> its payload.
PAYLOAD_SHAPES: dict[str, PayloadShape] = _payload_shapes()

# `partial(enqueue_method, *args, **kwargs)`: the enqueue's payload, bound now.
PARTIAL_FUNCTIONS = frozenset({"functools.partial"})

# --- JL103: execution options given to a call that forwards them to the task -----


@dataclass(frozen=True, slots=True)
class ForwardedBy:
    """Options a method forwards to the job, for the libraries whose method it is."""

    libraries: frozenset[str]
    options: frozenset[str]
    fix: str


FORWARDED_OPTIONS: dict[str, ForwardedBy] = {
    method: ForwardedBy(frozenset({lib.key}), forwarded.options, forwarded.fix)
    for lib in all_libraries()
    for method, forwarded in lib.forwarded_options
}

# --- JL105: enqueue calls that return a coroutine --------------------------------

# method -> whether the receiver must be known to be async (RQ's `enqueue_job` is sync).
ASYNC_ENQUEUE_METHODS: dict[str, bool] = {
    method: needs_async
    for lib in all_libraries()
    for method, needs_async in lib.async_enqueue_methods
}
ASYNC_QUEUE_LIBRARIES = frozenset(lib.key for lib in all_libraries() if lib.async_queues)

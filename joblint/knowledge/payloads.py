"""What job payloads look like, and which values must not be in them, as data.

Used by the payload rules (JL201, JL202), the option rule (JL103) and the
class index. Qualified names have `QualifiedNameProvider` meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from joblint.libraries import all_libraries, collect, python
from joblint.libraries.base import PayloadShape as PayloadShape
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

# The parameter a model signal's receiver is handed the written instance by.
RECEIVED_INSTANCE_NAMES = frozenset(
    s.instance_keyword for s in collect("MODEL_SIGNALS") if s.instance_keyword
)

# A parameter a function uses so is a model instance (`order.refresh_from_db()`,
# `order.save()` with no positional argument, `order._meta`).
MODEL_INSTANCE_METHODS = frozenset(collect("MODEL_INSTANCE_METHODS"))
MODEL_INSTANCE_ATTRIBUTES = frozenset(collect("MODEL_INSTANCE_ATTRIBUTES"))

# A name saying its value is a key, not an object (`order_id`, `pks`).
KEY_NAMES = frozenset({"id", "ids", "pk", "pks", "uuid", "uuids", "key", "keys"})
KEY_NAME_SUFFIXES = tuple(f"_{name}" for name in sorted(KEY_NAMES))


def names_a_key(name: str) -> bool:
    lowered = name.lower()
    return lowered in KEY_NAMES or lowered.endswith(KEY_NAME_SUFFIXES)


# --- ORM fetches ---------------------------------------------------------------

# `X.objects.<method>(...)`: a manager's chains fetching instances or querysets.
MANAGER_FETCHES: tuple[ManagerFetches, ...] = collect("MANAGER_FETCHES")
# `session.query(X)...<method>()`, `session.scalars(select(X)).<method>()`,
# `session.get(X, pk)`.
SESSION_FETCHES: tuple[SessionFetches, ...] = collect("SESSION_FETCHES")

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

# The method names of enqueues (and signatures): a call named so is read as
# an enqueue or not at all, never as a helper handing its arguments on.
ENQUEUE_METHOD_NAMES = frozenset(
    {key.rsplit(".", 1)[-1] for key in PAYLOAD_SHAPES if key != "__call__"} | {"s", "si"}
)

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

"""What a library module declares about the objects a job payload must not carry, as data.

The kinds a module may define (module-level tuples gathered by
`joblint.libraries.collect`; `joblint.knowledge.payloads` merges them into the
lookups the class index and the payload analysis read):

- `OBJECT_KINDS` (`ObjectKind`): what a value is (a model instance, a
  queryset, an enum member...), and how messages name it.
- `BASE_CLASS_KINDS`, `CLASS_DECORATOR_KINDS`, `CLASS_FACTORIES`,
  `MODEL_ATTRIBUTE_FACTORIES` (`(qualified name, kind)` pairs): a class whose
  base is the name, a class decorated with it, `Name = factory(...)`, and
  `db = factory(app)` whose `db.Model` is a base, have that kind.
- `TABLE_FLAG_BASES` (`TableFlagBase`): a base whose class keyword decides the kind.
- `UNRESOLVED_MODEL_MODULES` (`(module name, kind)` pairs): a class the project
  doesn't define, imported from a module of that name, is taken to have the kind.
- `PARAMETER_ATTRIBUTES` (`ParameterAttribute`): `request.user` of a parameter,
  `self.get_object()`, `form.save()`: values of a known kind by what they are called.
- `MANAGER_FETCHES` (`ManagerFetches`) and `SESSION_FETCHES`
  (`SessionFetches`): the ORM calls that fetch rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Family(Enum):
    """What a kind of value is to a job payload."""

    # One database row (a model instance): stale by the time the job runs.
    ROW = "row"
    # Several rows (a queryset, a list of instances).
    ROWS = "rows"
    # A rich value the serializer can't keep (an enum member, a dataclass...).
    RICH = "rich"


@dataclass(frozen=True, slots=True)
class ObjectKind:
    """A kind of value, as a payload finding names it."""

    # The kind as class facts and requirements spell it ("django_model").
    key: str
    family: Family
    # How a message names a value of the kind ("a Django model instance").
    what: str
    # What to pass instead, `{text}` standing for the value's source text.
    instead: str
    # The attribute holding its primary key (`order.pk`): the fix passes it.
    key_attribute: str = ""


@dataclass(frozen=True, slots=True)
class TableFlagBase:
    """`class X(SQLModel, table=True)`: the base's class keyword says the kind."""

    base: str
    keyword: str
    kind_when_true: str
    kind_otherwise: str


@dataclass(frozen=True, slots=True)
class ParameterAttribute:
    """`request.user` where `request` is a parameter: a value of a known kind.
    `attribute` may be dotted (`self.request.user`); `called`: the value is
    what calling it returns (`self.get_object()`); `local_too`: the root may
    also be a local bound to a call (`form = OrderForm(request.POST)`)."""

    parameter: str
    attribute: str
    kind: str
    class_name: str
    called: bool = False
    local_too: bool = False


@dataclass(frozen=True, slots=True)
class ManagerFetches:
    """`Model.objects.<method>(...)`: a model's manager attribute, whose chains fetch rows."""

    manager_attribute: str
    row_kind: str
    rows_kind: str
    # Chains ending in these return one instance ...
    row_methods: tuple[str, ...]
    # ... or several (indexed or iterated: one instance).
    rows_methods: tuple[str, ...]
    # In the chain, these make the rows plain values (`values_list(...)`).
    plain_methods: tuple[str, ...] = ()
    # Functions (qualified names) whose first argument is the model, returning
    # one instance or several.
    row_functions: tuple[str, ...] = ()
    rows_functions: tuple[str, ...] = ()
    # Row methods returning the instance in a pair (`obj, created = ...`): a
    # function returning their result returns a tuple, not the instance.
    pair_methods: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SessionFetches:
    """`session.query(Model).first()`, `session.scalars(select(Model)).one()`,
    `session.get(Model, key)`: a session's calls that fetch rows."""

    row_kind: str
    rows_kind: str
    # `session.get(Model, key)`: the class is the first argument.
    get_methods: tuple[str, ...]
    # Calls whose first argument is the model ...
    entity_methods: tuple[str, ...]
    # ... or a statement made by one of `select_functions` (by last name).
    statement_methods: tuple[str, ...]
    select_functions: tuple[str, ...]
    # The chain ends in these: one instance, or a list of them.
    row_methods: tuple[str, ...]
    rows_methods: tuple[str, ...]

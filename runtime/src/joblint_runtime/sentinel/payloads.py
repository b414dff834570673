"""What a job's arguments should not hold: live objects (JL201) and rich types (JL202).

JSON primitives, lists, tuples and string-keyed dicts of them travel; so do
the values every serializer of the queue libraries carries (dates and times,
decimals, UUIDs, bytes). A model instance, a queryset or another live object
is stale (or unpicklable) by the time the job runs: JL201. An enum member, a
dataclass, attrs, pydantic or NamedTuple instance breaks when its class is
renamed or changed, with pickle even for str/int enums: JL202.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import sys
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

_PLAIN = (str, int, float, bool, type(None))
_CARRIED = (datetime.date, datetime.time, datetime.timedelta, decimal.Decimal, uuid.UUID, bytes)


def problems(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(code, where, what) for each value a job should not be sent."""
    for index, value in enumerate(args):
        yield from _problems(value, f"args[{index}]")
    for key, value in kwargs.items():
        yield from _problems(value, f"kwargs[{key!r}]")


def _problems(value: Any, where: str) -> Iterator[tuple[str, str, str]]:
    if isinstance(value, _PLAIN) and not isinstance(value, enum.Enum):
        return
    rich = _rich(value)
    if rich:
        yield "JL202", where, rich
        return
    if isinstance(value, _CARRIED):
        return
    if isinstance(value, list | tuple | set | frozenset):
        for index, item in enumerate(value):
            yield from _problems(item, f"{where}[{index}]")
        return
    wrapped = _lazily_wrapped(value)
    if wrapped is not None:
        yield from _problems(wrapped, where)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _problems(item, f"{where}[{key!r}]")
        return
    yield "JL201", where, _live(value)


def _lazily_wrapped(value: Any) -> Any:
    """What a Django lazy object (`request.user`) stands for, once evaluated;
    None when it isn't one, or not evaluated yet (evaluating it is a query)."""
    functional = sys.modules.get("django.utils.functional")
    lazy = getattr(functional, "LazyObject", None)
    if lazy is None or not isinstance(value, lazy):
        return None
    wrapped = value._wrapped  # LazyObject hands its own attribute out as it is
    if wrapped is None or wrapped is getattr(functional, "empty", None):
        return None
    return wrapped


def _rich(value: Any) -> str:
    kind = type(value)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if isinstance(value, enum.Enum):
        return f"the enum member {kind.__qualname__}.{value.name}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return f"a dataclass instance ({name})"
    if hasattr(kind, "__attrs_attrs__"):
        return f"an attrs instance ({name})"
    if hasattr(kind, "model_fields") and hasattr(value, "model_dump"):
        return f"a pydantic model ({name})"
    if isinstance(value, tuple) and hasattr(kind, "_fields"):
        return f"a NamedTuple ({name})"
    return ""


def _live(value: Any) -> str:
    kind = type(value)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if hasattr(value, "_sa_instance_state"):
        return f"a SQLAlchemy model instance ({name})"
    modules = {base.__module__ for base in kind.__mro__}
    if "django.db.models.base" in modules:
        return f"a Django model instance ({name})"
    if "django.db.models.query" in modules:
        return f"a Django queryset ({name})"
    return f"a live object ({name})"

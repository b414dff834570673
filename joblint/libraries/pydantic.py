"""pydantic (and pydantic-settings): models, and its dataclasses."""

from __future__ import annotations

from joblint.libraries.objects import Family, ObjectKind
from joblint.libraries.python import DATACLASS

PYDANTIC = "pydantic"

OBJECT_KINDS = (
    ObjectKind(PYDANTIC, Family.RICH, "a pydantic model", "{text}.model_dump(mode='json')"),
)

BASE_CLASS_KINDS = (
    ("pydantic.BaseModel", PYDANTIC),
    ("pydantic.main.BaseModel", PYDANTIC),
    ("pydantic.v1.BaseModel", PYDANTIC),
    ("pydantic_settings.BaseSettings", PYDANTIC),
)
# `@pydantic.dataclasses.dataclass`: a standard dataclass, validated.
CLASS_DECORATOR_KINDS = (("pydantic.dataclasses.dataclass", DATACLASS),)

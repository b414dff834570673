"""pydantic (and pydantic-settings): models, and its dataclasses."""

from __future__ import annotations

from joblint.libraries.base import SettingsModel
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

# `BaseSettings` fields read environment variables: `env_prefix=""` and
# `case_sensitive=False` by default, a string `validation_alias` (or `alias`,
# which sets it) is the variable's whole name (pydantic_settings/main.py and
# sources/base.py, pydantic-settings 2.15.0); pydantic 1's `BaseSettings`
# takes `Field(env="X")` and a `class Config`.
SETTINGS_MODELS = (
    SettingsModel(
        "pydantic-settings",
        bases=(
            "pydantic_settings.BaseSettings",
            "pydantic_settings.main.BaseSettings",
            "pydantic.BaseSettings",
            "pydantic.v1.BaseSettings",
        ),
        field_functions=("pydantic.Field", "pydantic.fields.Field", "pydantic.v1.Field"),
        alias_keywords=("validation_alias", "alias", "env"),
    ),
)

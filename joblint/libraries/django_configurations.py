"""django-configurations: Django settings written as classes
(`class Prod(Base)`, where `Base` derives from `configurations.Configuration`)."""

from __future__ import annotations

from joblint.libraries.base import SettingsClasses

# `values.Value(default=None, environ=True, ...)`: every value class takes the
# default first (`values.IntegerValue(3600)`, `values.DictValue({...})`).
SETTINGS_CLASSES = (
    SettingsClasses(
        "django-configurations",
        bases=("configurations.Configuration", "configurations.base.Configuration"),
        value_prefix="configurations.values.",
        value_suffix="Value",
        class_variable="DJANGO_CONFIGURATION",
    ),
)

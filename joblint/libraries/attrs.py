"""attrs: classes made by its decorators."""

from __future__ import annotations

from joblint.libraries.objects import Family, ObjectKind

ATTRS = "attrs"

OBJECT_KINDS = (
    ObjectKind(ATTRS, Family.RICH, "an attrs instance", "attrs.asdict({text}) (primitive values)"),
)

CLASS_DECORATOR_KINDS = (
    ("attr.s", ATTRS),
    ("attr.attrs", ATTRS),
    ("attr.define", ATTRS),
    ("attr.frozen", ATTRS),
    ("attr.mutable", ATTRS),
    ("attr.dataclass", ATTRS),
    ("attrs.define", ATTRS),
    ("attrs.frozen", ATTRS),
    ("attrs.mutable", ATTRS),
)

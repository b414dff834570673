"""Per-file class facts for the project's class index: what each class is (a
model, an enum, a dataclass, ... as the libraries' `knowledge.payloads` kinds
say) as far as this file tells, plus its bases so the project step can follow
inheritance."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.model_keys import self_set_fields, unique_keys
from joblint.analysis.names import Resolver, unwrap
from joblint.knowledge import payloads
from joblint.models import ClassFacts


def _decorator_target(decorator: cst.Decorator) -> cst.BaseExpression:
    expr = decorator.decorator
    return expr.func if isinstance(expr, cst.Call) else expr


def _flag_set(node: cst.ClassDef, name: str) -> bool:
    """`class X(Base, <name>=True)`."""
    return any(
        kw.keyword is not None
        and kw.keyword.value == name
        and isinstance(kw.value, cst.Name)
        and kw.value.value == "True"
        for kw in node.keywords
    )


def class_facts(node: cst.ClassDef, qualname: str, resolver: Resolver) -> ClassFacts:
    bases: list[str] = []
    kinds: set[str] = set()
    for base in resolver.base_qualnames(node):
        flagged = payloads.TABLE_FLAG_BASES.get(base)
        if flagged is not None:
            on = _flag_set(node, flagged.keyword)
            kinds.add(flagged.kind_when_true if on else flagged.kind_otherwise)
        elif base in payloads.BASE_CLASS_KINDS:
            kinds.add(payloads.BASE_CLASS_KINDS[base])
        else:
            bases.append(base)
    for decorator in node.decorators:
        name = resolver.qualified_name(_decorator_target(decorator))
        if name is not None and name in payloads.CLASS_DECORATOR_KINDS:
            kinds.add(payloads.CLASS_DECORATOR_KINDS[name])
    return ClassFacts(
        qualname,
        tuple(bases),
        tuple(sorted(kinds)),
        unique_keys(node),
        self_set_fields(node),
    )


def assigned_class_facts(
    qualname: str, value: cst.BaseExpression, resolver: Resolver
) -> ClassFacts | None:
    """`Point = namedtuple(...)`, `Base = declarative_base()`, `Color = Enum(...)`."""
    value = unwrap(value)
    if not isinstance(value, cst.Call):
        return None
    factory = resolver.qualified_name(value.func)
    if factory is None or factory not in payloads.CLASS_FACTORIES:
        return None
    return ClassFacts(qualname, (), (payloads.CLASS_FACTORIES[factory],))


def model_factory_kind(value: cst.BaseExpression, resolver: Resolver) -> str | None:
    """`db = SQLAlchemy(app)`: the kind of classes deriving from `db.Model`."""
    value = unwrap(value)
    if not isinstance(value, cst.Call):
        return None
    factory = resolver.qualified_name(value.func)
    if factory is None:
        return None
    return payloads.MODEL_ATTRIBUTE_FACTORIES.get(factory)

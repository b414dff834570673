"""Receivers of model signals: functions a framework calls while a model is
written, inside the writer's transaction (Django's `post_save`).

A receiver is connected with a decorator (`@receiver(post_save, sender=Order)`,
also a list of signals) or by the signal's `connect` method
(`post_save.connect(on_order_saved, sender=Order)`, at module level or in a
method such as `AppConfig.ready`, naming a function of the module or a
method of the class making the call). Its body is a transaction for JL101 if
the project writes the model inside a transaction somewhere: the scope
carries that as a requirement, settled by the project step
(`joblint.pipeline.project.writes`). A receiver for every sender, a sender
that isn't a class (`"shop.Order"`, `get_user_model()`), and a handler
defined in another module are not followed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from joblint.analysis.names import Resolver
from joblint.analysis.transactions import TxScope
from joblint.knowledge import jobs
from joblint.knowledge.jobs import ModelSignals, TxFamily
from joblint.models import M2M, WRITTEN, WRITTEN_IN_TRANSACTION, Requirement

_VERBS = {"save": "saves", "delete": "deletes", M2M: "changes"}


@dataclass(frozen=True, slots=True)
class Receiving:
    """What a receiver is connected to: signals of one kind of write of one model."""

    signal: str  # as the message names it: "post_save"
    writes: frozenset[str]
    model: str
    m2m_field: str = ""

    def scope(self, node: cst.FunctionDef) -> TxScope:
        """The receiver's body as the transaction of whoever writes the model."""
        model = self.model.rsplit(".", 1)[-1]
        verb = " or ".join(sorted(_VERBS[w] for w in self.writes))
        requirement = Requirement(
            WRITTEN_IN_TRANSACTION,
            self.model,
            self.writes,
            reach=(self.m2m_field,) if self.m2m_field else (),
        )
        return TxScope(
            node,
            f"{node.name.value}(), receiving {model}'s {self.signal}",
            TxFamily.DJANGO,
            requires=(requirement,),
            alias_known=False,
            after=f", sent inside the transaction that {verb} the {model} ({WRITTEN})",
        )


def decorated_receiving(node: cst.FunctionDef, resolver: Resolver) -> Receiving | None:
    """`@receiver(post_save, sender=Order)` (the first such decorator)."""
    for decorator in node.decorators:
        call = decorator.decorator
        if not isinstance(call, cst.Call):
            continue
        signals = jobs.RECEIVER_DECORATORS.get(resolver.qualified_name(call.func) or "")
        if signals is not None:
            found = _receiving(call.args, signals, resolver, signal_at=0, sender_at=None)
            if found is not None:
                return found
    return None


def connected_receivers(module: cst.Module, resolver: Resolver) -> dict[str, Receiving]:
    """The module's functions and methods connected by `signal.connect(...)`,
    by key ("on_saved", "ShopConfig.on_saved"), the first connection of each."""
    found: dict[str, Receiving] = {}
    for call, class_name in _calls(module.body, ""):
        func = call.func
        if not isinstance(func, cst.Attribute):
            continue
        written = jobs.SIGNAL_WRITES.get(resolver.qualified_name(func.value) or "")
        if written is None or func.attr.value != written[0].connect_method:
            continue
        signals, _ = written
        handler = _argument(call.args, 0, signals.receiver_keyword)
        key = _handler_key(handler, class_name) if handler is not None else None
        if key is None or key in found:
            continue
        receiving = _receiving(
            [cst.Arg(func.value), *call.args], signals, resolver, signal_at=0, sender_at=2
        )
        if receiving is not None:
            found[key] = receiving
    return found


def _receiving(
    args: Sequence[cst.Arg],
    signals: ModelSignals,
    resolver: Resolver,
    signal_at: int,
    sender_at: int | None,
) -> Receiving | None:
    signal = _argument(args, signal_at, "signal")
    sender = _argument(args, sender_at, signals.sender_keyword)
    if signal is None or sender is None:
        return None
    named = signal.elements if isinstance(signal, cst.List | cst.Tuple) else [signal]
    kinds: dict[str, str] = {}
    for element in named:
        value = element.value if isinstance(element, cst.BaseElement) else element
        qualname = resolver.qualified_name(value) or ""
        if qualname in jobs.SIGNAL_WRITES:
            kinds[qualname.rsplit(".", 1)[-1]] = jobs.SIGNAL_WRITES[qualname][1]
    if not kinds:
        return None
    model = resolver.qualified_name(sender) or ""
    m2m_field = ""
    owner, _, last = model.rpartition(".")
    if last == signals.through_attribute:  # `Order.tags.through`: the m2m field's table
        model, _, m2m_field = owner.rpartition(".")
        kinds = {s: w for s, w in kinds.items() if w == M2M}
    elif M2M in kinds.values():
        kinds = {s: w for s, w in kinds.items() if w != M2M}
    if not model or not kinds:
        return None
    return Receiving(" or ".join(sorted(kinds)), frozenset(kinds.values()), model, m2m_field)


def _argument(
    args: Sequence[cst.Arg], position: int | None, keyword: str
) -> cst.BaseExpression | None:
    for arg in args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in args if a.keyword is None and not a.star]
    if position is not None and position < len(positional):
        return positional[position].value
    return None


def _handler_key(handler: cst.BaseExpression, class_name: str) -> str | None:
    if isinstance(handler, cst.Name):
        return handler.value
    if (
        class_name
        and isinstance(handler, cst.Attribute)
        and isinstance(handler.value, cst.Name)
        and handler.value.value in {"self", "cls", class_name}
    ):
        return f"{class_name}.{handler.attr.value}"
    return None


def _calls(body: Sequence[cst.CSTNode], class_name: str) -> Iterator[tuple[cst.Call, str]]:
    """Calls that are statements of their own, at module level and in the
    bodies of classes and functions (with the class they are in)."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    yield small.value, class_name
        elif isinstance(statement, cst.ClassDef):
            yield from _calls(_block(statement.body), statement.name.value)
        elif isinstance(statement, cst.FunctionDef):
            yield from _calls(_block(statement.body), class_name)
        elif isinstance(statement, cst.If | cst.Try | cst.With | cst.For):
            yield from _calls(_block(statement.body), class_name)
            orelse = getattr(statement, "orelse", None)
            if orelse is not None and not isinstance(orelse, cst.If):
                yield from _calls(_block(orelse.body), class_name)


def _block(body: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return body.body if isinstance(body, cst.IndentedBlock) else ()

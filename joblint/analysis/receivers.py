"""Receivers of model signals: functions a framework calls while a model is
written, inside the writer's transaction (Django's `post_save`).

A receiver is connected with a decorator (`@receiver(post_save, sender=Order)`,
also a list of signals) or by the signal's `connect` method
(`post_save.connect(on_order_saved, sender=Order)`, at module level or in a
method such as `AppConfig.ready`, naming a function of the module or a
method of the class making the call). Its body is a transaction for JL101 if
the project writes the model inside a transaction somewhere: the scope
carries that as a requirement, settled by the project step
(`joblint.pipeline.project.writes`). A receiver for every sender runs for a
write of any model. A sender that isn't a class (`"shop.Order"`,
`get_user_model()`, a model a loop over a registry picks) names models the
project model can't tell: only the signals Django sends inside its own
transaction are followed for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from joblint.analysis.names import BindingKind, Resolver, dotted_parts, import_bindings
from joblint.analysis.transactions import TxScope
from joblint.knowledge import jobs
from joblint.knowledge.jobs import ModelSignals, TxFamily
from joblint.libraries import django
from joblint.models import (
    M2M,
    RECEIVED,
    WRITE_VERBS,
    WRITTEN,
    ReceiverFact,
)
from joblint.requirements import Receives, WrittenInTransaction

# The parameters every receiver of a model signal is passed (as keywords).
_RECEIVER_PARAMETERS = frozenset({"sender", "instance"})


@dataclass(frozen=True, slots=True)
class Receiving:
    """What a receiver is connected to: signals of one kind of write of one model."""

    signal: str  # as the message names it: "post_save"
    writes: frozenset[str]
    model: str
    m2m_field: str = ""
    # The framework's own transaction the signal is always sent in ("": none,
    # it depends on the writer): how a message names the write it wraps.
    own_transaction: str = ""
    # The keyword the receiver is handed the written instance by, and that
    # value's kind (`ModelSignals.instance_keyword`/`instance_kind`).
    instance_keyword: str = ""
    instance_kind: str = ""

    def fact(self, handler: str, line: int) -> ReceiverFact:
        """As the project step learns it: `handler` connected at `line`."""
        return ReceiverFact(
            handler,
            self.signal,
            tuple(sorted(self.writes)),
            self.model,
            line,
            self.m2m_field,
            self.own_transaction,
        )

    def scope(self, node: cst.FunctionDef) -> TxScope:
        """The receiver's body as the transaction of whoever writes the model
        (or the one the framework opens for the write)."""
        model = self.model.rsplit(".", 1)[-1]
        described = f"{node.name.value}(), receiving {_whose(model)}{self.signal}"
        if self.own_transaction:
            opens = f"the transaction it opens for {self.own_transaction}"
            after = f", which Django sends inside {opens}"
            return TxScope(node, described, TxFamily.DJANGO, alias_known=False, after=after)
        verb = " or ".join(sorted(WRITE_VERBS[w] for w in self.writes))
        requirement = WrittenInTransaction(self.model, self.writes, self.m2m_field)
        return TxScope(
            node,
            described,
            TxFamily.DJANGO,
            requires=(requirement,),
            alias_known=False,
            after=f", sent inside the transaction that {verb} {_which(model)} ({WRITTEN})",
        )


def _which(model: str) -> str:
    """ "the Order" ("a model" for a receiver of every model's)."""
    return f"the {model}" if model else "a model"


def _whose(model: str) -> str:
    """ "Order's " (nothing when the sender isn't known: any model's)."""
    return f"{model}'s " if model else ""


def looks_like_receiver(node: cst.FunctionDef) -> bool:
    """A function a signal may call: it takes `sender` (or `instance`) and
    `**kwargs`, as every receiver must."""
    params = node.params
    named = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    takes_all = isinstance(params.star_kwarg, cst.Param)
    return takes_all and not named.isdisjoint(_RECEIVER_PARAMETERS) and node.asynchronous is None


def connected_elsewhere(node: cst.FunctionDef, qualname: str) -> TxScope:
    """The body of a function another module may connect to a model signal:
    a transaction if the project step finds such a connection (`Receives`)."""
    return TxScope(
        node,
        f"{node.name.value}()",
        TxFamily.DJANGO,
        requires=(Receives(qualname),),
        alias_known=False,
        after=f", receiving {RECEIVED}",
    )


def decorated_receiving(node: cst.FunctionDef, resolver: Resolver) -> Receiving | None:
    """`@receiver(post_save, sender=Order)` (the first such decorator)."""
    for decorator in node.decorators:
        call = decorator.decorator
        if not isinstance(call, cst.Call):
            continue
        signals = jobs.RECEIVER_DECORATORS.get(resolver.qualified_name(call.func) or "")
        if signals is not None:
            found = _receiving(
                call.args, signals, resolver.qualified_name, signal_at=0, sender_at=None
            )
            if found is not None:
                return found
    return None


@dataclass(frozen=True, slots=True)
class Connections:
    """What a module's `signal.connect(...)` calls connect: its own functions
    and methods by key, and other modules' functions (with the call)."""

    local: dict[str, Receiving]
    external: list[tuple[str, Receiving, cst.Call]]


def connected_receivers(module: cst.Module, resolver: Resolver) -> Connections:
    """The functions `signal.connect(...)` calls connect, the first
    connection of each: the module's own ("on_saved", "ShopConfig.on_saved")
    and other modules' (`handlers.on_saved`, also imported in the function
    making the call, as `AppConfig.ready` often does)."""
    local: dict[str, Receiving] = {}
    external: dict[str, tuple[Receiving, cst.Call]] = {}
    for call, class_name, imports in _calls(module.body, "", {}, resolver):
        func = call.func
        if not isinstance(func, cst.Attribute):
            continue

        def qualify(node: cst.BaseExpression, imports: dict[str, str] = imports) -> str | None:
            parts = dotted_parts(node)
            if parts is not None and parts[0] in imports:
                return ".".join([imports[parts[0]], *parts[1:]])
            return resolver.qualified_name(node)

        written = jobs.SIGNAL_WRITES.get(qualify(func.value) or "")
        if written is None or func.attr.value != written[0].connect_method:
            continue
        signals, _ = written
        handler = _argument(call.args, 0, signals.receiver_keyword)
        if handler is None:
            continue
        receiving = _receiving(
            [cst.Arg(func.value), *call.args], signals, qualify, signal_at=0, sender_at=2
        )
        if receiving is None:
            continue
        key = _handler_key(handler, class_name, resolver, imports)
        if key is not None:
            local.setdefault(key, receiving)
            continue
        target = qualify(handler)
        if target is not None and jobs.may_be_project_code(target):
            external.setdefault(target, (receiving, call))
    return Connections(local, [(name, *found) for name, found in external.items()])


def _receiving(
    args: Sequence[cst.Arg],
    signals: ModelSignals,
    qualify: Callable[[cst.BaseExpression], str | None],
    signal_at: int,
    sender_at: int | None,
) -> Receiving | None:
    """What a connection receives. The sender matters only for signals sent
    inside the writer's transaction (`post_save`); for those Django sends
    inside its own (`post_delete`, `m2m_changed`), any sender will do: none
    (every model), a name bound at run time, `apps.get_model(...)`; with
    no sender, a write of any model sends the others too."""
    signal = _argument(args, signal_at, "signal")
    if signal is None:
        return None
    named = signal.elements if isinstance(signal, cst.List | cst.Tuple) else [signal]
    kinds: dict[str, str] = {}
    for element in named:
        value = element.value if isinstance(element, cst.BaseElement) else element
        qualname = qualify(value) or ""
        if qualname in jobs.SIGNAL_WRITES:
            kinds[qualname.rsplit(".", 1)[-1]] = jobs.SIGNAL_WRITES[qualname][1]
    sender = _argument(args, sender_at, signals.sender_keyword)
    model = (qualify(sender) if sender is not None else None) or ""
    m2m_field = ""
    owner, _, last = model.rpartition(".")
    if last == signals.through_attribute:  # `Order.tags.through`: the m2m field's table
        model, _, m2m_field = owner.rpartition(".")
        kinds = {s: w for s, w in kinds.items() if w == M2M}
    elif model and M2M in kinds.values():  # a model's own class sends no m2m_changed
        kinds = {s: w for s, w in kinds.items() if w != M2M}
    own_kinds = {write for write, _ in signals.own_transactions}
    if not model and sender is not None:  # one model, named as no reading tells
        kinds = {s: w for s, w in kinds.items() if w in own_kinds}
    if not kinds:
        return None
    writes = frozenset(kinds.values())
    own = next((text for write, text in signals.own_transactions if write in writes), "")
    return Receiving(
        " or ".join(sorted(kinds)),
        writes,
        model,
        m2m_field,
        own,
        signals.instance_keyword,
        signals.instance_kind,
    )


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


def _handler_key(
    handler: cst.BaseExpression, class_name: str, resolver: Resolver, imports: dict[str, str]
) -> str | None:
    """The key of the module's own function or method `handler` names."""
    if isinstance(handler, cst.Name):
        binding = resolver.module_scope.names.get(handler.value)
        own = binding is not None and binding.kind is BindingKind.DEF
        return handler.value if own and handler.value not in imports else None
    if (
        class_name
        and isinstance(handler, cst.Attribute)
        and isinstance(handler.value, cst.Name)
        and handler.value.value in {"self", "cls", class_name}
    ):
        return f"{class_name}.{handler.attr.value}"
    return None


def _calls(
    body: Sequence[cst.CSTNode], class_name: str, imports: dict[str, str], resolver: Resolver
) -> Iterator[tuple[cst.Call, str, dict[str, str]]]:
    """Calls that are statements of their own, at module level and in the
    bodies of classes and functions, with the class they are in and the
    names the enclosing function imports."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    yield small.value, class_name, imports
        elif isinstance(statement, cst.ClassDef):
            yield from _calls(_block(statement.body), statement.name.value, imports, resolver)
        elif isinstance(statement, cst.FunctionDef):
            inner = _block(statement.body)
            local = {**imports, **_imports(inner, resolver), **_model_lookups(inner, resolver)}
            yield from _calls(inner, class_name, local, resolver)
        elif isinstance(statement, cst.If | cst.Try | cst.With | cst.For):
            yield from _calls(_block(statement.body), class_name, imports, resolver)
            orelse = getattr(statement, "orelse", None)
            if orelse is not None and not isinstance(orelse, cst.If):
                yield from _calls(_block(orelse.body), class_name, imports, resolver)


def _imports(body: Sequence[cst.CSTNode], resolver: Resolver) -> dict[str, str]:
    """What a function body's own import statements bind (`from .models import Order`)."""
    found: dict[str, str] = {}
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import | cst.ImportFrom):
                found.update(import_bindings(small, resolver.module, resolver.is_package))
    return found


def _model_lookups(body: Sequence[cst.CSTNode], resolver: Resolver) -> dict[str, str]:
    """The names a function body binds to a model looked up by its app's
    label (`Action = apps.get_model("actstream", "Action")`): the class in
    the models module of the package the default label names,
    `actstream.models.Action`. A nested app's label (`documents` for
    `shop.apps.documents`) names no such module: no class matches it."""
    found: dict[str, str] = {}
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                continue
            target, value = small.targets[0].target, small.value
            if not isinstance(target, cst.Name) or not isinstance(value, cst.Call):
                continue
            if resolver.qualified_name(value.func) not in django.MODEL_LOOKUPS:
                continue
            model = _looked_up(value.args)
            if model is not None:
                found[target.value] = model
    return found


def _looked_up(args: Sequence[cst.Arg]) -> str | None:
    """`"shop", "Order"` or `"shop.Order"` (also by keyword): `shop.models.Order`."""
    texts: dict[str, str] = {}
    positional: list[str] = []
    for arg in args:
        if not isinstance(arg.value, cst.SimpleString):
            return None
        text = arg.value.evaluated_value
        if not isinstance(text, str):
            return None
        if arg.keyword is None:
            positional.append(text)
        else:
            texts[arg.keyword.value] = text
    label_key, model_key = django.MODEL_LOOKUP_KEYWORDS
    parts = [*positional, *(texts[k] for k in (label_key, model_key) if k in texts)]
    if len(parts) == 1 and parts[0].count(".") == 1:
        parts = parts[0].split(".")
    if len(parts) != 2 or not all(p.isidentifier() for p in parts):
        return None
    label, name = parts
    return f"{label}.models.{name}"


def _block(body: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return body.body if isinstance(body, cst.IndentedBlock) else ()

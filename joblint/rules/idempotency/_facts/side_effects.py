"""Side effects outside the database in a function's body, and what claims
its work before it is done (an idempotency guard), from the tables of
`joblint.knowledge.work`. The index reads the same for the project's other
functions (`joblint.index.calls`: `ProjectCall.idempotent`,
`FunctionSummary.claims`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from joblint.analysis.names import BindingKind, Resolver, dotted_parts
from joblint.analysis.walk import children
from joblint.knowledge import work
from joblint.libraries.job_work import SideEffect

# How many locals a receiver may be followed through (`s = boto3.Session()`,
# `ses = s.client("ses")`, `ses.send_email(...)`).
_MAX_BINDINGS = 4


@dataclass(frozen=True, slots=True)
class EffectCall:
    effect: SideEffect
    qualname: str  # what is called, as the table names it
    # It passes one of the provider's idempotency keywords: done once.
    keyed: bool = False


def effect_call(call: cst.Call, resolver: Resolver) -> EffectCall | None:
    """The side effect `call` has, if any."""
    qualname = _called(call.func, resolver, _MAX_BINDINGS)
    effect = work.effect_of(qualname) if qualname is not None else None
    if effect is None or qualname is None:
        return None
    keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    keyed = bool(keywords & set(effect.idempotency_keywords))
    return EffectCall(effect, qualname, keyed or work.reads_only(effect, *_read_evidence(call)))


def _read_evidence(call: cst.Call) -> tuple[list[str], list[str]]:
    """What tells a read: the names and strings the call's URL (its first
    argument, or `url=`) is built from, lower-cased, and the string keys
    of the dict literals it passes (as `joblint.index.calls` reads them)."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    named = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "url"]
    words: list[str] = []
    stack: list[cst.CSTNode] = list((positional or named)[:1])
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            words.append(node.value.lower())
        elif isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
            words.append(node.evaluated_value.lower())
        elif isinstance(node, cst.FormattedStringText):
            words.append(node.value.lower())
        stack.extend(children(node))
    keys = [
        element.key.evaluated_value
        for arg in call.args
        if isinstance(arg.value, cst.Dict)
        for element in arg.value.elements
        if isinstance(element, cst.DictElement)
        and isinstance(element.key, cst.SimpleString)
        and isinstance(element.key.evaluated_value, str)
    ]
    return words, keys


def _called(func: cst.BaseExpression, resolver: Resolver, depth: int) -> str | None:
    """The qualified name of what is called, a local's or an object's method
    named after what made the object (`msg = EmailMessage(...)`; `msg.send`
    is `django.core.mail.EmailMessage.send`, as is `EmailMessage(...).send`)."""
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
        maker = _called(func.value.func, resolver, depth - 1) if depth else None
        return f"{maker}.{func.attr.value}" if maker is not None else None
    parts = dotted_parts(func)
    if parts is None:
        return None
    binding = resolver.lookup(parts[0])
    if binding is None:
        return None
    if binding.kind in (BindingKind.IMPORT, BindingKind.DEF):
        return resolver.library_name(func)
    made = binding.expr
    if (
        depth == 0
        or not isinstance(made, cst.Call)
        or binding.unpack_index is not None
        or binding.iterated
    ):
        return None
    maker = _called(made.func, resolver, depth - 1)
    return ".".join([maker, *parts[1:]]) if maker is not None else None


# --- claims -------------------------------------------------------------------------


def claims_work(function: cst.FunctionDef, resolver: Resolver) -> bool:
    """Whether the function claims its work before doing it: its decorators
    or its body name the runtime's guard (`@idempotent`, `IdempotencyGuard`)
    or call a method of one a variable holds (`guard.claim(conn, key)`),
    a string holds an SQL claim (`INSERT ... ON CONFLICT DO NOTHING`) or an
    idempotency header, an `if` tests the `created` flag of a unique
    get-or-create, or a set-if-absent call (`cache.add`, `SET NX`)."""
    flags: set[str] = set()  # a unique create's `created`
    tested: set[str] = set()  # the names `if`/`while` tests read
    for node in _nodes(function):
        if _claiming(node, resolver):
            return True
        if isinstance(node, cst.Assign):
            flags.update(_created_flags(node))
        elif isinstance(node, cst.If | cst.While | cst.IfExp):
            tested.update(_names_in(node.test))
    return bool(flags & tested)


def own_nodes(function: cst.FunctionDef) -> Iterator[cst.CSTNode]:
    """The nodes of a function's body that run when it does: not the bodies
    of the functions and classes it defines."""
    stack: list[cst.CSTNode] = list(reversed(children(function.body)))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, cst.FunctionDef | cst.ClassDef):
            stack.extend(reversed(children(node)))


def _nodes(function: cst.FunctionDef) -> Iterator[cst.CSTNode]:
    for decorator in function.decorators:
        stack: list[cst.CSTNode] = [decorator]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(children(node))
    yield from own_nodes(function)


def _claiming(node: cst.CSTNode, resolver: Resolver) -> bool:
    if isinstance(node, cst.Name | cst.Attribute):
        qualname = resolver.qualified_name(node)
        return qualname is not None and work.is_guard_name(qualname)
    if isinstance(node, cst.ImportFrom) and node.module is not None:
        return _imports_guard(node)
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        return isinstance(text, str) and work.claims_in_text(text)
    if isinstance(node, cst.FormattedString):
        text = "".join(p.value for p in node.parts if isinstance(p, cst.FormattedStringText))
        return work.claims_in_text(text)
    if isinstance(node, cst.ConcatenatedString):
        return work.claims_in_text(_concatenated(node))
    if isinstance(node, cst.If | cst.While):
        return _tests_set_if_absent(node.test)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return _calls_guard_object(node.func, resolver)
    return False


def _calls_guard_object(method: cst.Attribute, resolver: Resolver) -> bool:
    """A method of a guard the project made and keeps in a variable
    (`guard = IdempotencyGuard()` at module level, `guard.claim(conn, key)`
    in the task): the name of the guard never appears in the task."""
    if not isinstance(method.value, cst.Name):
        return False
    qualname = _called(method, resolver, _MAX_BINDINGS)
    return qualname is not None and work.is_guard_name(qualname)


def _imports_guard(node: cst.ImportFrom) -> bool:
    module = dotted_parts(node.module) if node.module is not None else None
    return module is not None and work.is_guard_name(".".join(module))


def _concatenated(node: cst.ConcatenatedString) -> str:
    texts = []
    for part in (node.left, node.right):
        if isinstance(part, cst.SimpleString) and isinstance(part.evaluated_value, str):
            texts.append(part.evaluated_value)
        elif isinstance(part, cst.ConcatenatedString):
            texts.append(_concatenated(part))
    return "".join(texts)


def _created_flags(node: cst.Assign) -> list[str]:
    """`created` of `order, created = Order.objects.get_or_create(...)`: the
    flag saying this delivery made the row (not `_`, thrown away)."""
    value = node.value.expression if isinstance(node.value, cst.Await) else node.value
    func = value.func if isinstance(value, cst.Call) else None
    if not (isinstance(func, cst.Attribute) and func.attr.value in work.UNIQUE_CREATES):
        return []
    found = []
    for target in node.targets:
        pair = target.target
        if isinstance(pair, cst.Tuple | cst.List) and len(pair.elements) == 2:
            flag = pair.elements[1].value
            if isinstance(flag, cst.Name) and flag.value != "_":
                found.append(flag.value)
    return found


def _names_in(test: cst.BaseExpression) -> set[str]:
    found = set()
    stack: list[cst.CSTNode] = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            found.add(node.value)
        stack.extend(children(node))
    return found


def _tests_set_if_absent(test: cst.BaseExpression) -> bool:
    stack: list[cst.CSTNode] = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            keyword = work.SET_IF_ABSENT.get(node.func.attr.value)
            if keyword is not None and (
                not keyword or any(a.keyword and a.keyword.value == keyword for a in node.args)
            ):
                return True
        stack.extend(children(node))
    return False

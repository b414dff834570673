"""Flag parameters, read from a function's `ast` for the project model.

A helper often enqueues only when a parameter says so (`def update(self,
asynchronous=True): if asynchronous: task.delay(...) else: task(...)`), and a
caller inside a transaction passes `asynchronous=False`. So each call a
summary records carries the parameters of its own function whose truth it
needs (`if flag:` or `if flag and other:` around it: true; `else:` or
`if not flag:`: false), and
what it passes for the callee's parameters: a literal's truth, or one of its
own parameters handed on. A parameter assigned anywhere in its function is no
flag (its value at the `if` is not what the caller passed).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

Guard = tuple[tuple[str, bool], ...]

# What a call passes (`ProjectCall.flags`): a literal's truth, the caller's
# own parameter (its name follows), or, first, that `*args`/`**kwargs` may
# pass anything.
TRUE_FLAG = "1"
FALSE_FLAG = "0"
PASSED_ON = "="
UNKNOWN_PASSING = "*"

_Function = ast.FunctionDef | ast.AsyncFunctionDef
# Literals whose truth a caller fixes (`None`, `False`, `0`, `""` are false).
_LITERALS = (bool, int, str, type(None))


def call_guards(ifs: Iterable[ast.AST], steady: frozenset[str]) -> dict[int, Guard]:
    """For each call under an `if` testing a steady parameter (`ifs`: the
    function's own `ast.If` nodes), by the call's id: the parameters it
    needs true or false."""
    found: dict[int, list[tuple[str, bool]]] = {}
    for node in ifs:
        if not isinstance(node, ast.If):
            continue
        tested = _tested(node.test, steady)
        if tested is None:
            # `if order and notify:` needs each true in its body; its `else`
            # runs when any is false, which tells none.
            for name, when_true in _all_tested(node.test, steady):
                for call in _calls(node.body):
                    found.setdefault(id(call), []).append((name, when_true))
            continue
        name, when_true = tested
        for branch, need in ((node.body, when_true), (node.orelse, not when_true)):
            for call in _calls(branch):
                found.setdefault(id(call), []).append((name, need))
    return {key: tuple(sorted(set(guard))) for key, guard in found.items()}


def call_flags(call: ast.Call, steady: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """What `call` passes, by position or keyword: `TRUE_FLAG`/`FALSE_FLAG`
    for a literal's truth, `PASSED_ON` and the caller's own steady
    parameter, or "" for any other value; `UNKNOWN_PASSING` first where
    `*args` or `**kwargs` may pass anything."""
    flags: list[tuple[str, str]] = []
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        flags.append((UNKNOWN_PASSING, ""))
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        flags.append((str(position), _passed(arg, steady)))
    flags.extend((k.arg, _passed(k.value, steady)) for k in call.keywords if k.arg is not None)
    return tuple(flags)


def command_flags(call: ast.Call, steady: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """What a command runner's call (`call_command("name", dry_run=True)`)
    passes the command's `handle()`: its keywords, which Django hands on as
    options of the same names, behind `UNKNOWN_PASSING`: Django passes every
    option its parser knows (defaults included), and parses the positional
    arguments into options, so no position and no default of `handle()` is
    known."""
    keywords = [(k, v) for k, v in call_flags(call, steady) if not k.isdigit()]
    return ((UNKNOWN_PASSING, ""), *(f for f in keywords if f[0] != UNKNOWN_PASSING))


def parameter_defaults(function: _Function) -> tuple[tuple[str, bool], ...]:
    """The truth of each parameter's literal default."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaulted = positional[len(positional) - len(args.defaults) :]
    pairs = list(zip(defaulted, args.defaults, strict=True))
    keyword = zip(args.kwonlyargs, args.kw_defaults, strict=True)
    pairs.extend((a, d) for a, d in keyword if d is not None)
    return tuple(
        (arg.arg, bool(default.value))
        for arg, default in pairs
        if isinstance(default, ast.Constant) and isinstance(default.value, _LITERALS)
    )


def positional_parameters(function: _Function) -> tuple[str, ...]:
    args = function.args
    return tuple(a.arg for a in (*args.posonlyargs, *args.args))


def _tested(test: ast.expr, steady: frozenset[str]) -> tuple[str, bool] | None:
    """`flag` -> (flag, True); `not flag` -> (flag, False); else None."""
    if isinstance(test, ast.Name) and test.id in steady:
        return test.id, True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _tested(test.operand, steady)
        return (inner[0], not inner[1]) if inner is not None else None
    return None


def _all_tested(test: ast.expr, steady: frozenset[str]) -> list[tuple[str, bool]]:
    """The steady parameters an `and` of tests needs true (or false)."""
    if not isinstance(test, ast.BoolOp) or not isinstance(test.op, ast.And):
        return []
    found: list[tuple[str, bool]] = []
    for value in test.values:
        tested = _tested(value, steady)
        if tested is not None:
            found.append(tested)
        else:
            found.extend(_all_tested(value, steady))
    return found


def _calls(statements: list[ast.stmt]) -> Iterable[ast.Call]:
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call):
                yield node


def call_held(call: ast.Call, steady: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """The caller's steady parameters `call` passes inside a list, tuple,
    set or dict display (`args=[order]`), by the position or keyword of the
    argument holding it (`ProjectCall.held`)."""
    if not steady:
        return ()
    held: list[tuple[str, str]] = []
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        held.extend((str(position), name) for name in _displayed(arg, steady))
    for keyword in call.keywords:
        if keyword.arg is not None:
            held.extend((keyword.arg, name) for name in _displayed(keyword.value, steady))
    return tuple(held)


def _displayed(value: ast.expr, steady: frozenset[str]) -> list[str]:
    """The steady parameters a display holds, at any depth of displays."""
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        elements = value.elts
    elif isinstance(value, ast.Dict):
        elements = [v for v in value.values]
    else:
        return []
    found: list[str] = []
    for element in elements:
        if isinstance(element, ast.Name) and element.id in steady:
            found.append(element.id)
        else:
            found.extend(_displayed(element, steady))
    return found


def _passed(value: ast.expr, steady: frozenset[str]) -> str:
    if isinstance(value, ast.Constant) and isinstance(value.value, _LITERALS):
        return TRUE_FLAG if value.value else FALSE_FLAG
    if isinstance(value, ast.Name) and value.id in steady:
        return PASSED_ON + value.id
    return ""

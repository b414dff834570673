"""Small, conservative analysis of delay expressions.

Answers three questions about an expression inside one function, following
the function's local assignments (flow-insensitively: every assignment to a
name counts) and then the module's:

- does it *depend on* the attempt counter (`self.request.retries`, a loop's
  `attempt`, or a name derived from them)?
- does it *grow* with the attempt: `**`, `<<`, `pow`/`math.pow`, or a
  multiplication by something that depends on it (additive growth does not
  count), or an index into a growing list of constants?
- does it have a *random part*: a call into `random`/`secrets`/`numpy.random`,
  a jitter helper, or a name that says "jitter"/"random" (a heuristic)?
  Calls the analysis doesn't know make the answer `UNKNOWN`, and callers treat
  UNKNOWN like "random": a rule only reports what it can see.

Also: which names count attempts in a loop, and whether a loop retries (it
catches an exception and goes on). The functions' names come from the library
modules, merged in `joblint.knowledge.retries`.
Used by the JL3 rules; kept general so other rules can reuse it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

import libcst as cst

from joblint.analysis.literals import number_value
from joblint.analysis.names import BindingKind, Resolver, dotted_parts
from joblint.analysis.walk import children
from joblint.knowledge import retries as facts
from joblint.libraries.retry_api import GrowthFunction

# How deep the structural recursion goes before giving up (no finding).
_MAX_DEPTH = 40

Assigned = cst.BaseExpression | cst.AugAssign
AttemptTest = Callable[[cst.BaseExpression], bool]


class Randomness(Enum):
    NONE = "none"  # fully visible and deterministic
    RANDOM = "random"
    UNKNOWN = "unknown"  # a call we can't see into: maybe random


# --- literals ----------


def literal_number(node: cst.BaseExpression) -> float | None:
    """The value of `3`, `2.5`, `-1`; None for anything else."""
    if isinstance(node, cst.Integer | cst.Float):
        return float(number_value(node))
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_number(node.expression)
        return -inner if inner is not None else None
    return None


def literal_truth(node: cst.BaseExpression) -> bool | None:
    """Truthiness of `True`/`False`/`None`/a number literal; None when not a literal."""
    if isinstance(node, cst.Name) and node.value in {"True", "False", "None"}:
        return node.value == "True"
    number = literal_number(node)
    return None if number is None else number != 0


def is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def growing_numbers(values: Sequence[float]) -> bool:
    """A schedule that grows: at least two values, never shrinking, last above first."""
    if len(values) < 2:
        return False
    steady = all(b >= a for a, b in itertools.pairwise(values))
    return steady and values[-1] > values[0]


# --- walking a scope without entering nested ones ----------

_NESTED_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def scope_nodes(root: cst.CSTNode, *, include_root: bool = False) -> Iterator[cst.CSTNode]:
    """Every node under `root` in pre-order, not entering nested defs, classes
    or lambdas; content only (`walk.children`: no whitespace, commas, brackets)."""
    stack: list[cst.CSTNode] = [root] if include_root else list(reversed(children(root)))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED_SCOPES):
            stack.extend(reversed(children(node)))


def function_body(node: cst.FunctionDef | cst.Module) -> cst.CSTNode:
    return node.body if isinstance(node, cst.FunctionDef) else node


# --- assignments ----------


@dataclass(slots=True)
class Bindings:
    """Assignments in one scope: name -> every value assigned to it there.

    `opaque` names are bound in ways whose value we can't follow (parameters,
    unpacking, loop targets, `with ... as`, imports, `except ... as`).
    """

    values: dict[str, list[Assigned]] = field(default_factory=dict)
    opaque: set[str] = field(default_factory=set)

    def add(self, name: str, value: Assigned) -> None:
        self.values.setdefault(name, []).append(value)

    def bound(self, name: str) -> bool:
        return name in self.values or name in self.opaque


def collect_bindings(scope: cst.CSTNode) -> Bindings:
    """The assignments made directly in `scope` (a function, module or loop body)."""
    bindings = Bindings()
    if isinstance(scope, cst.FunctionDef):
        bindings.opaque.update(parameter_names(scope.params))
        scope = scope.body
    for node in scope_nodes(scope):
        _bind_node(node, bindings)
    return bindings


def _bind_node(node: cst.CSTNode, bindings: Bindings) -> None:
    if isinstance(node, cst.Assign):
        for target in node.targets:
            _bind_target(target.target, node.value, bindings)
    elif isinstance(node, cst.AnnAssign) and node.value is not None:
        _bind_target(node.target, node.value, bindings)
    elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
        bindings.add(node.target.value, node)
    elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
        bindings.add(node.target.value, node.value)
    elif isinstance(node, cst.For | cst.CompFor):
        _bind_target(node.target, None, bindings)
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        _bind_target(node.asname.name, None, bindings)
    elif isinstance(node, cst.ExceptHandler) and node.name is not None:
        _bind_target(node.name.name, None, bindings)
    elif isinstance(node, cst.FunctionDef | cst.ClassDef):
        bindings.opaque.add(node.name.value)
    elif isinstance(node, cst.Import | cst.ImportFrom):
        _bind_import(node, bindings)


def _bind_target(
    target: cst.BaseExpression, value: cst.BaseExpression | None, bindings: Bindings
) -> None:
    if isinstance(target, cst.Name):
        if value is None:
            bindings.opaque.add(target.value)
        else:
            bindings.add(target.value, value)
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            _bind_target(element.value, None, bindings)
    elif isinstance(target, cst.StarredElement):
        _bind_target(target.value, None, bindings)


def _bind_import(node: cst.Import | cst.ImportFrom, bindings: Bindings) -> None:
    if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
        return
    for alias in node.names:  # type: ignore[union-attr]
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            bindings.opaque.add(alias.asname.name.value)
        else:
            parts = dotted_parts(alias.name)
            if parts:
                bindings.opaque.add(parts[0])


def parameter_names(params: cst.Parameters) -> Iterator[str]:
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        yield param.name.value
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star.name.value


def first_parameter(node: cst.FunctionDef) -> str | None:
    params = (*node.params.posonly_params, *node.params.params)
    return params[0].name.value if params else None


# --- the analysis ----------


_AUG_TO_BINARY: dict[type[cst.BaseAugOp], type[cst.BaseBinaryOp]] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
    cst.FloorDivideAssign: cst.FloorDivide,
    cst.PowerAssign: cst.Power,
    cst.LeftShiftAssign: cst.LeftShift,
    cst.ModuloAssign: cst.Modulo,
}


class DelayAnalysis:
    """Questions about expressions in one scope (see the module docstring).

    `is_attempt` says whether a node *is* the attempt counter; the analysis
    never follows the assignments of such a node. `growing` names are known to
    grow on each pass of a loop (`delay *= 2`), with the node that grows them.
    """

    def __init__(
        self,
        resolver: Resolver,
        local: Bindings,
        module: Bindings | None,
        is_attempt: AttemptTest,
        growing: Mapping[str, cst.CSTNode] | None = None,
    ) -> None:
        self.resolver = resolver
        self.local = local
        self.module = module
        self.is_attempt = is_attempt
        self.growing: Mapping[str, cst.CSTNode] = growing or {}
        self._following: set[str] = set()

    # --- names ----------

    def assigned(self, name: str) -> Sequence[Assigned]:
        """Values assigned to `name` here, else at module level; () when unknown."""
        if self.local.bound(name):
            return self.local.values.get(name, ())
        if self.module is not None and self.module.bound(name):
            return self.module.values.get(name, ())
        return ()

    def _follow(self, name: str, ask: Callable[[Assigned], bool]) -> bool:
        """Ask about each value assigned to `name`, guarding against cycles."""
        if name in self._following:
            return False
        self._following.add(name)
        try:
            return any(ask(value) for value in self.assigned(name))
        finally:
            self._following.discard(name)

    # --- depends on the attempt ----------

    def depends(self, node: Assigned) -> bool:
        if isinstance(node, cst.AugAssign):
            return self.depends(node.target) or self.depends(node.value)
        for sub in scope_nodes(node, include_root=True):
            if isinstance(sub, cst.BaseExpression) and self.is_attempt(sub):
                return True
            if isinstance(sub, cst.Name) and self._follow(sub.value, self.depends):
                return True
        return False

    # --- grows with the attempt ----------

    def growth(self, node: Assigned, depth: int = 0) -> cst.CSTNode | None:
        """The sub-expression that makes `node` grow with the attempt, or None."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.AugAssign):
            op = _AUG_TO_BINARY.get(type(node.operator))
            if op is None:
                return None
            return self._binary_growth(node, op, node.target, node.value, depth)
        while isinstance(node, cst.Await):
            node = node.expression
        if isinstance(node, cst.Name):
            return self._name_growth(node, depth)
        if isinstance(node, cst.BinaryOperation):
            return self._binary_growth(node, type(node.operator), node.left, node.right, depth)
        if isinstance(node, cst.Call):
            return self._call_growth(node, depth)
        if isinstance(node, cst.IfExp):
            return self.growth(node.body, depth + 1) or self.growth(node.orelse, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return self.growth(node.expression, depth + 1)
        if isinstance(node, cst.Subscript):
            return self._schedule_growth(node)
        return None

    def _name_growth(self, node: cst.Name, depth: int) -> cst.CSTNode | None:
        if node.value in self.growing:
            return self.growing[node.value]
        if self.is_attempt(node) or node.value in self._following:
            return None
        self._following.add(node.value)
        try:
            for value in self.assigned(node.value):
                found = self.growth(value, depth + 1)
                if found is not None:
                    return found
            return None
        finally:
            self._following.discard(node.value)

    def _binary_growth(
        self,
        node: cst.CSTNode,
        op: type[cst.BaseBinaryOp],
        left: cst.BaseExpression,
        right: cst.BaseExpression,
        depth: int,
    ) -> cst.CSTNode | None:
        if op in (cst.Power, cst.LeftShift) and (self.depends(left) or self.depends(right)):
            return node
        if op is cst.Multiply and (
            (self.depends(left) and not _shrinks(right))
            or (self.depends(right) and not _shrinks(left))
        ):
            return node
        if op in (cst.Add, cst.Multiply, cst.Power, cst.LeftShift):
            return self.growth(left, depth + 1) or self.growth(right, depth + 1)
        if op in (cst.Subtract, cst.Divide, cst.FloorDivide):
            return self.growth(left, depth + 1)
        return None

    def _call_growth(self, node: cst.Call, depth: int) -> cst.CSTNode | None:
        name = self.callee(node)
        if name is None:
            return None
        args = [arg.value for arg in node.args]
        if name in facts.POWER_FUNCTIONS or name in facts.GROWTH_FUNCTIONS:
            return node if any(self.depends(a) for a in args) else None
        if _is_pure(name):
            for arg in args:
                found = self.growth(arg, depth + 1)
                if found is not None:
                    return found
        return None

    def _schedule_growth(self, node: cst.Subscript) -> cst.CSTNode | None:
        """`DELAYS[attempt]` where DELAYS is a growing list of constants."""
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        index = node.slice[0].slice.value
        numbers = self.numbers(node.value)
        if numbers is not None and growing_numbers(numbers) and self.depends(index):
            return node
        return None

    def numbers(self, node: cst.BaseExpression) -> list[float] | None:
        """The numbers of a literal list/tuple (through one name), else None."""
        if isinstance(node, cst.Name):
            values = self.assigned(node.value)
            if len(values) != 1 or isinstance(values[0], cst.AugAssign):
                return None
            node = values[0]
        if not isinstance(node, cst.List | cst.Tuple):
            return None
        found = [literal_number(e.value) for e in node.elements]
        return None if any(n is None for n in found) else [n for n in found if n is not None]

    # --- random part ----------

    def randomness(self, node: Assigned) -> Randomness:
        result = Randomness.NONE
        if isinstance(node, cst.AugAssign):
            parts: list[cst.BaseExpression] = [node.target, node.value]
        else:
            parts = [node]
        for part in parts:
            for sub in scope_nodes(part, include_root=True):
                found = self._node_randomness(sub)
                if found is Randomness.RANDOM:
                    return found
                if found is Randomness.UNKNOWN:
                    result = found
        return result

    def _node_randomness(self, node: cst.CSTNode) -> Randomness:
        if isinstance(node, cst.Call):
            return self._call_randomness(node)
        if isinstance(node, cst.Name | cst.Attribute):
            parts = dotted_parts(node)
            if parts is not None and _hints_random(parts[-1]):
                return Randomness.RANDOM
        if isinstance(node, cst.Name) and not self.is_attempt(node):
            return self._name_randomness(node.value)
        return Randomness.NONE

    def _name_randomness(self, name: str) -> Randomness:
        if name in self._following:
            return Randomness.NONE
        self._following.add(name)
        try:
            results = {self.randomness(value) for value in self.assigned(name)}
        finally:
            self._following.discard(name)
        for outcome in (Randomness.RANDOM, Randomness.UNKNOWN):
            if outcome in results:
                return outcome
        return Randomness.NONE

    def _call_randomness(self, node: cst.Call) -> Randomness:
        name = self.callee(node)
        parts = dotted_parts(node.func)
        if name is not None:
            if name in facts.JITTER_HELPERS or _in_modules(name, facts.RANDOM_MODULES):
                return Randomness.RANDOM
            if name in facts.GROWTH_FUNCTIONS:
                return _growth_function_randomness(node, facts.GROWTH_FUNCTIONS[name])
            if _is_pure(name) or name in facts.POWER_FUNCTIONS:
                return Randomness.NONE
        if parts is not None and _hints_random(parts[-1]):
            return Randomness.RANDOM
        return Randomness.UNKNOWN

    def callee(self, node: cst.Call) -> str | None:
        """Qualified name of the function called; builtins by their bare name."""
        func = node.func
        if (
            isinstance(func, cst.Name)
            and self.resolver.lookup(func.value) is None
            and not self.local.bound(func.value)
        ):
            return func.value
        name = self.resolver.qualified_name(func)
        if name is None:
            return None
        parts = dotted_parts(func)
        if parts is not None:
            binding = self.resolver.lookup(parts[0])
            if binding is not None and binding.kind is not BindingKind.IMPORT:
                return None  # a function of this module: we don't look inside
        return name

    def unknown_calls(self, node: cst.BaseExpression) -> list[cst.Call] | None:
        """The calls in `node` (through its names) whose randomness the
        analysis can't tell; None when a part of it is surely random."""
        found: list[cst.Call] = []
        if not self._collect_unknown(node, found):
            return None
        return found

    def _collect_unknown(self, node: Assigned, found: list[cst.Call]) -> bool:
        parts = [node.target, node.value] if isinstance(node, cst.AugAssign) else [node]
        for part in parts:
            for sub in scope_nodes(part, include_root=True):
                if isinstance(sub, cst.Call):
                    outcome = self._call_randomness(sub)
                    if outcome is Randomness.RANDOM:
                        return False
                    if outcome is Randomness.UNKNOWN and not any(sub is f for f in found):
                        found.append(sub)
                    continue
                if not isinstance(sub, cst.Name | cst.Attribute):
                    continue
                names = dotted_parts(sub)
                if names is not None and _hints_random(names[-1]):
                    return False
                if (
                    isinstance(sub, cst.Name)
                    and not self.is_attempt(sub)
                    and not self._names_unknown(sub.value, found)
                ):
                    return False
        return True

    def _names_unknown(self, name: str, found: list[cst.Call]) -> bool:
        if name in self._following:
            return True
        self._following.add(name)
        try:
            return all(self._collect_unknown(value, found) for value in self.assigned(name))
        finally:
            self._following.discard(name)

    def attempt_argument(self, call: cst.Call) -> tuple[str, str] | None:
        """Where `call` passes something depending on the attempt: (position,
        "") or ("", keyword) of its first such argument; None for none or
        for an argument unpacked (`*args`)."""
        position = 0
        for arg in call.args:
            if arg.star:
                return None
            if arg.keyword is not None:
                if self.depends(arg.value):
                    return "", arg.keyword.value
                continue
            if self.depends(arg.value):
                return str(position), ""
            position += 1
        return None

    # --- verdict ----------

    def unjittered_growth(self, node: cst.BaseExpression) -> cst.CSTNode | None:
        """The growth node when `node` grows with the attempt and surely has no random part."""
        found = self.growth(node)
        if found is None or self.randomness(node) is not Randomness.NONE:
            return None
        return found


def _shrinks(node: cst.BaseExpression) -> bool:
    """A literal factor that can't make a product grow (`delay * 0.5`)."""
    number = literal_number(node)
    return number is not None and number <= 1


def _hints_random(name: str) -> bool:
    lowered = name.lower()
    return any(hint in lowered for hint in facts.RANDOM_NAME_HINTS)


def _in_modules(name: str, modules: Sequence[str]) -> bool:
    return any(name == m or name.startswith(f"{m}.") for m in modules)


def _is_pure(name: str) -> bool:
    return name in facts.PURE_FUNCTIONS or _in_modules(name, facts.PURE_MODULES)


def _growth_function_randomness(node: cst.Call, function: GrowthFunction) -> Randomness:
    """Randomness of a growth function's result, from its jitter switch."""
    switch: cst.BaseExpression | None = None
    positional = 0
    for arg in node.args:
        if arg.star:
            return Randomness.UNKNOWN
        if arg.keyword is None:
            if positional == function.jitter.position:
                switch = arg.value
            positional += 1
        elif arg.keyword.value == function.jitter.keyword:
            switch = arg.value
    if switch is None:
        return Randomness.RANDOM if function.jitter_default else Randomness.NONE
    truth = literal_truth(switch)
    if truth is None:
        return Randomness.UNKNOWN
    return Randomness.RANDOM if truth else Randomness.NONE


# --- loops ----------

Loop = cst.For | cst.While


def loop_counters(loop: Loop, resolver: Resolver) -> set[str]:
    """Names that count passes of `loop`: `for attempt in range(n)`, the index of
    `enumerate(...)`, and names bumped by a constant in the body (`tries += 1`)."""
    names: set[str] = set()
    if isinstance(loop, cst.For):
        names.update(counting_target(loop, resolver))
    for node in scope_nodes(loop.body):
        if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
            if isinstance(node.target, cst.Name) and literal_number(node.value) is not None:
                names.add(node.target.value)
        elif isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, cst.Name) and _is_increment(target.value, node.value):
                names.add(target.value)
    return names


def counting_target(loop: cst.For | cst.CompFor, resolver: Resolver) -> Iterator[str]:
    """The name a `for` counts with: `for i in range(...)`, `for i, x in enumerate(...)`."""
    source = loop.iter
    if not isinstance(source, cst.Call):
        return
    func = source.func
    name = resolver.qualified_name(func)
    if name is None and isinstance(func, cst.Name) and resolver.lookup(func.value) is None:
        name = func.value  # a builtin
    if name in facts.COUNTING_ITERABLES and isinstance(loop.target, cst.Name):
        yield loop.target.value
    elif name in facts.ENUMERATING_ITERABLES and isinstance(loop.target, cst.Tuple):
        first = loop.target.elements[0].value if loop.target.elements else None
        if isinstance(first, cst.Name):
            yield first.value


def _is_increment(name: str, value: cst.BaseExpression) -> bool:
    """`n = n + 1` / `n = 1 + n`."""
    if not isinstance(value, cst.BinaryOperation) or not isinstance(value.operator, cst.Add):
        return False
    sides = (value.left, value.right)
    has_name = any(isinstance(s, cst.Name) and s.value == name for s in sides)
    return has_name and any(literal_number(s) is not None for s in sides)


def self_growing_names(loop: Loop, resolver: Resolver) -> dict[str, cst.CSTNode]:
    """Names the loop body multiplies by themselves each pass (`delay *= 2`,
    `delay = min(delay * 2, cap)`): they grow with the pass count. Maps each
    to the expression that grows it."""
    body = collect_bindings(loop.body)
    found: dict[str, cst.CSTNode] = {}
    for name, values in body.values.items():
        analysis = DelayAnalysis(resolver, Bindings(), None, _is_name(name))
        for value in values:
            growth = analysis.growth(value)
            if growth is not None:
                found[name] = growth
                break
    return found


def snippet(node: cst.CSTNode, limit: int = 60) -> str:
    """Source text of `node` on one line, shortened for messages."""
    text = " ".join(_EMPTY_MODULE.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_EMPTY_MODULE = cst.Module(body=[])


def _is_name(name: str) -> AttemptTest:
    def test(node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value == name

    return test


def names_test(names: Mapping[str, object] | set[str] | frozenset[str]) -> AttemptTest:
    """An attempt test matching any of `names`."""

    def test(node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value in names

    return test


def retries_on_exception(loop: Loop) -> bool:
    """A loop that retries: an `except` handler in its body (also in a nested
    loop, not in a nested scope) catches an exception and lets the loop go on.
    Whatever sleeps in such a loop follows a caught exception (in the handler,
    after it, or on the next pass); a loop that catches nothing (a result poll
    that sleeps longer each time) doesn't retry."""
    stack: list[tuple[cst.CSTNode, bool]] = [(child, False) for child in children(loop.body)]
    while stack:
        node, nested = stack.pop()
        # `break` in a nested loop's handler leaves that loop, not this one.
        if isinstance(node, cst.ExceptHandler | cst.ExceptStarHandler) and not always_leaves(
            node.body, breaks=not nested
        ):
            return True
        if isinstance(node, _NESTED_SCOPES):
            continue
        inner = nested or isinstance(node, cst.For | cst.While)
        stack.extend((child, inner) for child in children(node))
    return False


def always_leaves(block: cst.BaseSuite, *, breaks: bool = True) -> bool:
    """The block ends by leaving the function or, with `breaks`, the loop
    (`raise`, `return`, `break`), on every branch of a final `if`/`else`."""
    statements = block.body
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and _leaves(last.body[-1], breaks)
    if isinstance(last, cst.BaseSmallStatement):
        return _leaves(last, breaks)
    if isinstance(last, cst.If):
        return always_leaves(last.body, breaks=breaks) and _else_leaves(last.orelse, breaks)
    if isinstance(last, cst.With):
        return always_leaves(last.body, breaks=breaks)
    return False


def _leaves(statement: cst.BaseSmallStatement, breaks: bool) -> bool:
    return isinstance(statement, cst.Raise | cst.Return) or (
        breaks and isinstance(statement, cst.Break)
    )


def _else_leaves(orelse: cst.If | cst.Else | None, breaks: bool) -> bool:
    if orelse is None:
        return False
    if isinstance(orelse, cst.If):
        return always_leaves(orelse.body, breaks=breaks) and _else_leaves(orelse.orelse, breaks)
    return always_leaves(orelse.body, breaks=breaks)


class ScopeValues:
    """Per-file cache of `Bindings` for the module and each function analysed."""

    def __init__(self, module: cst.Module) -> None:
        self._module_node = module
        self._module: Bindings | None = None
        self._functions: dict[int, Bindings] = {}

    @property
    def module(self) -> Bindings:
        if self._module is None:
            self._module = collect_bindings(self._module_node)
        return self._module

    def of(self, scope: cst.FunctionDef | cst.Module) -> Bindings:
        if isinstance(scope, cst.Module):
            return self.module
        key = id(scope)
        if key not in self._functions:
            self._functions[key] = collect_bindings(scope)
        return self._functions[key]

    def analysis(
        self,
        resolver: Resolver,
        scope: cst.FunctionDef | cst.Module,
        is_attempt: AttemptTest,
        growing: Mapping[str, cst.CSTNode] | None = None,
    ) -> DelayAnalysis:
        """A `DelayAnalysis` of expressions in `scope` (module names as fallback)."""
        module = None if isinstance(scope, cst.Module) else self.module
        return DelayAnalysis(resolver, self.of(scope), module, is_attempt, growing)

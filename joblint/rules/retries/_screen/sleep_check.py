"""JL301/JL302's AST checks: a sleep in a hand-written retry loop.

`sleep` is an ordinary word: most files naming it sleep outside any retry
loop. One walk over the tree (`sleep_scan`), entering only the nodes that
span a line naming `sleep` or a name it is imported as, gathers the calls
that may be sleeps with the loops around them and the `while True:` loops;
both checks read that scan, made once per file.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from joblint.index.ast_walk import WordLines, body_nodes
from joblint.index.nodes import child_nodes
from joblint.knowledge import retries
from joblint.knowledge.confirm import confirm_step

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SLEEP = "sleep"
_SLEEP_MODULES = frozenset(q.rsplit(".", 1)[0] for q in retries.SLEEP_FUNCTIONS)


@dataclass(slots=True)
class SleepScan:
    """What the checks look at, gathered in one walk over the tree."""

    sleep_names: set[str] = field(default_factory=lambda: {_SLEEP})
    # Calls that may be sleeps, with the loops around them (also those outside
    # their function: more than the rules look at, never less).
    sleeps: list[tuple[ast.Call, tuple[ast.AST, ...]]] = field(default_factory=list)
    while_true: list[ast.While] = field(default_factory=list)

    def is_sleep(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Attribute):
            return func.attr == _SLEEP
        return isinstance(func, ast.Name) and func.id in self.sleep_names


def sleep_scan(tree: ast.Module, lowered: bytes) -> SleepScan:
    """The scan both checks read, walking only the lines that may hold a sleep."""
    return scan_lines(tree, WordLines(lowered, _SLEEP.encode()))


def scan_lines(tree: ast.Module, lines: WordLines) -> SleepScan:
    """The scan, entering only the nodes spanning one of `lines`."""
    scan = SleepScan()
    stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(tree, ())]
    while stack:
        node, loops = stack.pop()
        for child in child_nodes(node):
            if not lines.may_hold(child):
                continue
            if isinstance(child, _LOOPS):
                if isinstance(child, ast.While) and _always_true(child.test):
                    scan.while_true.append(child)
                stack.append((child, (*loops, child)))
                continue
            if isinstance(child, ast.Call) and loops and _may_sleep(child.func):
                scan.sleeps.append((child, loops))
            elif isinstance(child, ast.ImportFrom) and child.module in _SLEEP_MODULES:
                # `from time import sleep as nap`
                scan.sleep_names.update(
                    a.asname for a in child.names if a.name == _SLEEP and a.asname
                )
            stack.append((child, loops))
    return scan


def _may_sleep(func: ast.expr) -> bool:
    return isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and func.attr == _SLEEP)


def _catches(node: ast.AST) -> bool:
    return isinstance(node, ast.Try | ast.TryStar) and bool(node.handlers)


def _is_retry_loop(loop: ast.AST) -> bool:
    """It catches an exception somewhere inside (the rule asks more: a handler
    of the loop's own that lets it go on)."""
    return any(_catches(n) for n in body_nodes(loop))


def _varies(call: ast.Call) -> bool:
    """An argument that isn't a constant (a delay that may grow)."""
    values = [*call.args, *(k.value for k in call.keywords)]
    return any(not isinstance(v, ast.Constant) for v in values)


def _always_true(test: ast.expr) -> bool:
    """`True`, a non-zero number, or a signed constant (`-1`)."""
    if isinstance(test, ast.UnaryOp):
        return isinstance(test.operand, ast.Constant)
    if not isinstance(test, ast.Constant):
        return False
    value = test.value
    return value is True or (isinstance(value, int | float) and bool(value))


@confirm_step("sleep-in-retry-loop", reads=sleep_scan)
def sleep_in_retry_loop(scan: SleepScan) -> bool:
    """JL301: a sleep with a computed delay in a retry loop."""
    return any(
        scan.is_sleep(call) and _varies(call) and any(_is_retry_loop(loop) for loop in loops)
        for call, loops in scan.sleeps
    )


@confirm_step("while-true-retry", reads=sleep_scan)
def while_true_retry(scan: SleepScan) -> bool:
    """JL302: `while True:` around a try/except and a sleep."""
    for loop in scan.while_true:
        sleeps = any(loop in loops and scan.is_sleep(call) for call, loops in scan.sleeps)
        if sleeps and any(_catches(n) for n in body_nodes(loop)):
            return True
    return False

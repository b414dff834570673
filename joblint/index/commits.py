"""Where a function commits, and when that commit runs for a request:
for the project model's request hooks (a middleware or teardown committing
the request's session commits once the handler has returned, after the
jobs it enqueued may already run).

A commit is an argument-less `.commit()` of what is named like a session,
connection or transaction (the documented heuristic JL102 reads commits
with); the commit settings the tests guarding every commit name
(`if app.config["SQLALCHEMY_COMMIT_ON_TEARDOWN"]:`) make it a commit only
where the project sets one; a middleware's first call of the app it wraps
(`await call_next(request)`) is where it hands the request on.
"""

from __future__ import annotations

import ast
import re
from typing import cast

from joblint.index.nodes import Function, dotted, is_name
from joblint.index.scope import Frame, ModuleScope
from joblint.knowledge import jobs, requests

# What a session, connection or transaction is named: the receiver of a commit.
_COMMIT_RECEIVER = re.compile(jobs.COMMIT_RECEIVER_PATTERN)


def is_commit(call: ast.Call) -> bool:
    """An argument-less `.commit()` of what is named like a session, connection
    or transaction (the documented heuristic JL102 reads commits with)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != jobs.COMMIT_METHOD:
        return False
    if call.args or call.keywords:
        return False
    parts = dotted(func.value)
    if parts is None:
        return False
    return _COMMIT_RECEIVER.search(parts[-1].lower().strip("_")) is not None


def commit_settings(scope: ModuleScope, node: Function, commits: list[int]) -> tuple[str, ...]:
    """The commit settings the tests guarding every one of its commits
    name (`if app.config["SQLALCHEMY_COMMIT_ON_TEARDOWN"]:`), () where a
    commit is not guarded by one."""
    named: set[str] = set()
    spans: list[tuple[int, int]] = []
    for test in cast(list[ast.If], scope.of_kind(node, ast.If)):
        found = _settings_named(test.test)
        if found:
            named |= found
            spans.append((test.body[0].lineno, test.body[-1].end_lineno or test.lineno))
    guarded = all(any(a <= line <= b for a, b in spans) for line in commits)
    return tuple(sorted(named)) if named and guarded else ()


def hands_on(scope: ModuleScope, node: Function, frame: Frame) -> int:
    """The line of a middleware's first call of the app it wraps (`await
    call_next(request)`, `await self.app(scope, receive, send)`), 0 for none."""
    nexts = frame.parameters & requests.NEXT_PARAMETERS
    if not nexts and node.name not in requests.MIDDLEWARE_METHODS:
        return 0
    lines = [
        call.lineno
        for call in cast(list[ast.Call], scope.of_kind(node, ast.Call))
        if (isinstance(call.func, ast.Name) and call.func.id in nexts)
        or (
            isinstance(call.func, ast.Attribute)
            and call.func.attr in requests.NEXT_ATTRIBUTES
            and is_name(call.func.value, "self")
        )
    ]
    return min(lines, default=0)


def _settings_named(test: ast.expr) -> set[str]:
    """The commit settings a test names, as a key or an attribute."""
    found: set[str] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.Name):
            name = node.id
        else:
            continue
        if name in requests.COMMIT_SETTINGS:
            found.add(name)
    return found

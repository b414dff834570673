"""The prefilter's second stage: confirm a trigger on Python's own AST.

Some triggers are ordinary words (`sleep` in a loop); the bytes alone would
send many files to LibCST for nothing. For those, the worker parses the file
with `ast` (many times cheaper than LibCST, and the syntax check the file
needs anyway) and runs a check that over-approximates the rule's condition;
only a confirmed file is linted. Each check must stay conservative: it may
say yes where the rule finds nothing, never no where the rule would report.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from typing import cast

from joblint.index.summaries import child_nodes, last_name
from joblint.knowledge import jobs, locks, retries
from joblint.knowledge.tokens import ENQUEUE_TRIGGERS
from joblint.pipeline.screen.key_check import key_checked_then_set
from joblint.pipeline.screen.payload_check import payload_may_hold_object
from joblint.pipeline.source import quiet_ast_parse

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SLEEP = "sleep"
_SLEEP_MODULES = frozenset(q.rsplit(".", 1)[0] for q in retries.SLEEP_FUNCTIONS)


@dataclass(slots=True)
class _Scan:
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


def _scan(tree: ast.Module, lines: _Lines) -> _Scan:
    scan = _Scan()
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


class _Lines:
    """The lines that may hold a call of `word` (`sleep`): those naming it or
    a name it is imported as. A check looking at such calls and the loops
    around them enters only nodes spanning one of these lines."""

    def __init__(self, lowered: bytes, word: bytes = _SLEEP.encode()) -> None:
        alias = re.compile(rb"\b" + re.escape(word) + rb"\s+as\s+(\w+)")
        words = {word, *alias.findall(lowered)}
        self.words = frozenset(w.decode() for w in words)
        self.numbers = [
            number
            for number, line in enumerate(lowered.splitlines(), start=1)
            if any(word in line for word in words)
        ]

    def may_hold(self, node: ast.AST) -> bool:
        start = getattr(node, "lineno", None)
        end = getattr(node, "end_lineno", None)
        if start is None or end is None:
            return True  # no position (arguments, comprehensions): look inside
        index = bisect.bisect_left(self.numbers, start)
        return index < len(self.numbers) and self.numbers[index] <= end


def _may_sleep(func: ast.expr) -> bool:
    return isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and func.attr == _SLEEP)


def _body_nodes(node: ast.AST, scopes: tuple[type[ast.AST], ...] = _SCOPES) -> Iterator[ast.AST]:
    """The nodes under `node`, not entering nested functions, classes or
    lambdas (or whatever else `scopes` names)."""
    stack = child_nodes(node)
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, scopes):
            stack.extend(child_nodes(child))


def _catches(node: ast.AST) -> bool:
    return isinstance(node, ast.Try | ast.TryStar) and bool(node.handlers)


def _is_retry_loop(loop: ast.AST) -> bool:
    """It catches an exception somewhere inside (the rule asks more: a handler
    of the loop's own that lets it go on)."""
    return any(_catches(n) for n in _body_nodes(loop))


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


def sleep_in_retry_loop(scan: _Scan) -> bool:
    """JL301: a sleep with a computed delay in a retry loop."""
    return any(
        scan.is_sleep(call) and _varies(call) and any(_is_retry_loop(loop) for loop in loops)
        for call, loops in scan.sleeps
    )


def while_true_retry(scan: _Scan) -> bool:
    """JL302: `while True:` around a try/except and a sleep."""
    for loop in scan.while_true:
        sleeps = any(loop in loops and scan.is_sleep(call) for call, loops in scan.sleeps)
        if sleeps and any(_catches(n) for n in _body_nodes(loop)):
            return True
    return False


# A row lock in SQL text: `FOR UPDATE`, `FOR NO KEY UPDATE`, `FOR [KEY] SHARE`,
# or a piece ending in `FOR` that a concatenation completes.
_SQL_ROW_LOCK = re.compile(
    r"\bfor\s+(?:no\s+key\s+)?update\b|\bfor\s+(?:key\s+)?share\b|\bfor\s*$", re.IGNORECASE
)
_SQL_SELECT = re.compile(r"\bselect\b", re.IGNORECASE)
_ROW_LOCKS = locks.ROW_LOCK_METHODS
_PICKS = locks.PICK_NEXT_METHODS
_RESULT_PICKS = locks.RESULT_PICK_METHODS


def row_lock_picking_rows(tree: ast.Module, lowered: bytes) -> bool:
    """JL401: SQL text in the file's strings that locks rows, or an ORM
    chain that locks rows and picks among them (`_OrmLocks`)."""
    scan = _OrmLocks(tree)
    texts = scan.texts
    joined = "\n".join(texts)
    # A lock the rule reads is a SELECT's, whose text is written in the
    # file's strings (SQL from another module is not read): prose such as
    # "an input for update of attribute" has none.
    if _SQL_SELECT.search(joined) and (
        any(_SQL_ROW_LOCK.search(text) for text in texts) or _SQL_ROW_LOCK.search(joined)
    ):
        return True
    return b"for_update" in lowered and scan.pick_next()


@dataclass(frozen=True, slots=True)
class _Chain:
    """What a method chain (`Job.objects.select_for_update().first()`) is
    made of, read link by link as the rule reads it (`joblint.analysis.chains`)."""

    locks: bool  # one of its links is a row lock that may wait for a locked row
    picks: bool  # a pick-next method or a subscript is one of its links
    root: str  # the name (or `self.<name>`) it starts from, followed by the rule
    # One of its links names the row(s) it reads, so the rule never reports
    # the chain, whatever its start holds: a filter pinning the key, a filter
    # the rule can't read, a one-row fetch (`.get()`).
    pinned: bool = False
    # Its filters are equalities with values the code passes, and it neither
    # orders nor takes more than a row: a natural key, unless the name it
    # starts from holds more links (`_OrmLocks._with_holder`).
    natural: bool = False
    # It runs a statement (`session.scalars(stmt)`) and starts from the
    # statement's start: the statement's lock counts only if the statement
    # picks, or a method of the result does (`result_picks`: `.first()`).
    ran: bool = False
    result_picks: bool = False
    # (After `_OrmLocks._with_holder`) it holds a statement's result whose
    # lock a result pick on it would make a pick-next.
    result_locks: bool = False


def _chain(node: ast.expr) -> _Chain:
    locked = picked = pinned = result_picked = False
    links = _Links()
    while True:
        if isinstance(node, ast.Await):
            node = node.value
        elif (statement := _statement_run(node)) is not None:
            # `session.scalars(stmt).first()`: the statement's chain, with
            # what a method of its result picks (as `row_locks` reads it).
            inner = _chain(statement)
            pinned = pinned or inner.pinned
            natural = inner.natural and not links.other
            return _Chain(
                inner.locks, inner.picks, inner.root, pinned, natural, True, result_picked
            )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            locked = locked or (method in _ROW_LOCKS and _may_wait(node, _ROW_LOCKS[method]))
            picked = picked or method in _PICKS
            result_picked = result_picked or method in _RESULT_PICKS
            pinned = pinned or _names_rows(node, method)
            links.read(node, method)
            node = node.func.value
        elif isinstance(node, ast.Subscript):
            picked = True
            links.read_subscript(node)
            node = node.value
        elif isinstance(node, ast.Attribute) and not _names_self(node.value):
            node = node.value
        else:
            break
    return _Chain(
        locked, picked, _root(node), pinned, links.natural_key, result_picks=result_picked
    )


class _Links:
    """Whether a chain's links make a natural key as the rule reads one
    (`_natural_key` of `joblint.rules.for_update_without_skip_locked`): at
    least one condition, every one a keyword equality (`ip_address=ip`) with
    a value that isn't fixed in the code, no exclusion, no ordering, and at
    most the first row taken. (A positional condition is taken for none.)"""

    def __init__(self) -> None:
        self.conditions = 0
        self.other = False  # something that is no natural key

    @property
    def natural_key(self) -> bool:
        return self.conditions > 0 and not self.other

    def read(self, call: ast.Call, method: str) -> None:
        if method in locks.FILTER_METHODS:
            self.other = self.other or bool(call.args) or not all(map(_natural, call.keywords))
            self.conditions += len(call.keywords)
        elif method in locks.EXCLUDE_METHODS or method in locks.ORDERING_METHODS:
            self.other = True
        elif method in locks.LIMIT_METHODS:
            self.other = self.other or not (
                len(call.args) == 1 and not call.keywords and _is_integer(call.args[0], 1)
            )

    def read_subscript(self, node: ast.Subscript) -> None:
        """`[0]` and `[:1]` take the first row; any other subscript more."""
        index = node.slice
        if isinstance(index, ast.Slice):
            first = index.lower is None or _is_integer(index.lower, 0)
            takes_first = first and index.step is None and _is_integer(index.upper, 1)
        else:
            takes_first = _is_integer(index, 0)
        self.other = self.other or not takes_first


def _natural(keyword: ast.keyword) -> bool:
    if keyword.arg is None:
        return False
    _, lookup = locks.keyword_lookup(keyword.arg)
    return lookup in locks.EQUALITY_LOOKUPS and _passed_value(keyword.value)


def _passed_value(node: ast.expr) -> bool:
    """A value the code passes, certainly not one fixed in it (`is_constant`
    of `joblint.analysis.orm_filters`) nor another column (`F("x")`): a
    lower-case name (`ip`), an attribute of one (`event.kind`), an item."""
    if isinstance(node, ast.Name):
        return not node.id.isupper() and node.id not in ("True", "False", "None")
    if isinstance(node, ast.Attribute):
        root: ast.expr = node
        while isinstance(root, ast.Attribute):
            root = root.value
        named = isinstance(root, ast.Name) and not root.id[:1].isupper()
        return named and not node.attr.isupper()
    return isinstance(node, ast.Subscript)


def _is_integer(node: ast.expr | None, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _may_wait(call: ast.Call, api: locks.RowLockApi) -> bool:
    """The rule's test of a lock call: only keywords, none of those that make
    it skip or refuse locked rows (`skip_locked=`, `nowait=`) set to anything
    but a literal `False`/`None` (any other value, a positional argument or
    `**options` may not wait, and the rule leaves the lock alone)."""
    if call.args:
        return False
    for keyword in call.keywords:
        if keyword.arg is None:
            return False
        if keyword.arg in api.non_waiting:
            value = keyword.value
            if not (isinstance(value, ast.Constant) and value.value in (False, None)):
                return False
    return True


# Positional filter conditions the rule reads (a comparison, a call, `a & b`,
# `~a`): any other expression is a condition it can't read.
_READ_CONDITIONS = (ast.Compare, ast.Call, ast.BinOp, ast.UnaryOp)


def _names_rows(call: ast.Call, method: str) -> bool:
    """A link the rule takes for naming the rows (`_Chain.pinned`)."""
    if method in locks.SINGLE_ROW_METHODS:
        return True
    if method not in locks.FILTER_METHODS:
        return False
    if any(not isinstance(arg, _READ_CONDITIONS) for arg in call.args):
        return True  # `*conditions` (a Starred) or a condition built elsewhere
    return any(k.arg is None or locks.keyword_pins_key(k.arg) for k in call.keywords)


def _names_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _statement_run(node: ast.expr) -> ast.expr | None:
    """The statement an execute call runs (`session.scalars(stmt)`)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr not in locks.EXECUTE_METHODS:
        return None
    positional = [arg for arg in node.args if not isinstance(arg, ast.Starred)]
    return positional[0] if positional else None


def _executed(node: ast.expr) -> ast.expr:
    """The statement a session runs and whose rows `node` keeps
    (`session.scalars(stmt).all()`, as `row_locks.executed_statement`
    reads it), else `node`."""
    call = node
    while isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
        method = call.func.attr
        positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
        if method in locks.EXECUTE_METHODS and positional:
            return positional[0]
        if method not in locks.RESULT_ROWS_METHODS:
            return node
        call = call.func.value
    return node


def _root(node: ast.expr) -> str:
    """A name, `self.<name>` (for `cls.` too), or "" (nothing the rule follows)."""
    if isinstance(node, ast.Name):
        return node.id
    return f"self.{node.attr}" if isinstance(node, ast.Attribute) else ""


_HOLDS_NOTHING = (False, False, False)


class _OrmLocks:
    """Whether an ORM chain may lock rows and pick among them as JL401 reads
    it: the lock and the pick on the chain itself or on what a name it starts
    from was assigned (the rule follows a name assigned once in its scope, or
    `self.<name>`; here any assignment of the name anywhere counts), or a
    locking chain a `for` iterates inside a `while` loop (at any depth) or in
    a function (a job's body, or a function a job may run); and the function it is in may claim
    the rows (the rule asks that it write or delete them, or return them to a
    caller that does): here, any save, update or delete call, attribute
    assignment or `return` of a value anywhere in the outermost function
    around it (a chain outside functions always counts). One walk gathers the
    chains and the strings."""

    def __init__(self, tree: ast.Module) -> None:
        self.texts: list[str] = []
        # Of every call and subscript, with the outermost function around it.
        self.chains: list[tuple[_Chain, ast.AST | None]] = []
        # What a `for` in a function or a `while` iterates, with the function around it.
        self.iterated: list[tuple[_Chain, ast.AST | None]] = []
        self._writes: dict[int, bool] = {}  # by the function's id
        # The names bound to the rows of a statement a session runs, with the
        # statement's chain: what a `for` over the name iterates.
        self._executions: list[tuple[str, _Chain, ast.AST | None]] = []
        values: list[tuple[str, _Chain, ast.AST | None]] = []
        stack: list[tuple[ast.AST, bool, ast.AST | None]] = [(tree, False, None)]
        while stack:
            node, in_while, function = stack.pop()
            if isinstance(node, ast.Constant):
                value = node.value
                if isinstance(value, bytes):
                    value = value.decode("latin-1")
                if isinstance(value, str):
                    self.texts.append(value)
                continue
            if isinstance(node, ast.Call | ast.Subscript):
                self.chains.append((_chain(node), function))
            elif isinstance(node, ast.For | ast.AsyncFor) and (in_while or function is not None):
                self.iterated.append((_chain(_executed(node.iter)), function))
            elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                chain = _chain(node.value)
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [n for t in targets if (n := _target_name(t))]
                values.extend((name, chain, function) for name in names)
                statement = _executed(node.value)
                if statement is not node.value:
                    ran = _chain(statement)
                    self._executions.extend((name, ran, function) for name in names)
            inside = in_while or isinstance(node, ast.While)
            if function is None and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                # Its decorators and defaults run where it is defined; its body in it.
                body = {id(statement) for statement in node.body}
                stack.extend(
                    (child, inside, node if id(child) in body else None)
                    for child in child_nodes(node)
                )
                continue
            stack.extend((child, inside, function) for child in child_nodes(node))
        self._values = values
        # (name, None) -> (a value it is assigned anywhere locks rows, one picks);
        # (name, id of a function binding it) -> the same over the function's
        # assignments of it (nested functions' included): where the rule reads it.
        self.holders: dict[tuple[str, int | None], tuple[bool, bool, bool]] = {}
        self._bound: dict[int, frozenset[str]] = {}
        self._assigned: frozenset[str] | None = None

    def _hold(self) -> None:
        """What each name holds, to a fixed point (names assigned from names)."""
        changed = True
        while changed:
            changed = False
            for name, chain, function in self._values:
                keys: list[tuple[str, int | None]] = [(name, None)]
                if function is not None and name in self._own(function):
                    keys.append((name, id(function)))
                held = self._with_holder(chain, function)
                for key in keys:
                    old = self.holders.get(key, _HOLDS_NOTHING)
                    merged = (
                        old[0] or held.locks,
                        old[1] or held.picks,
                        old[2] or held.result_locks,
                    )
                    if merged != old:
                        self.holders[key] = merged
                        changed = True

    def _own(self, function: ast.AST) -> frozenset[str]:
        found = self._bound.get(id(function))
        if found is None:
            assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            found = self._bound[id(function)] = _own_bindings(function)
        return found

    def _with_holder(self, chain: _Chain, function: ast.AST | None) -> _Chain:
        """The chain with what its root name holds, read in the outermost
        function around it where that function binds the name (a parameter
        holds nothing the rule can follow), else anywhere."""
        root = chain.root
        if chain.pinned or (chain.natural and not self._may_hold(root)):
            return _Chain(False, False, root, chain.pinned, chain.natural)
        scope = None
        if function is not None and root in self._own(function):
            scope = id(function)
        held = self.holders.get((root, scope), _HOLDS_NOTHING)
        if root.startswith("self."):  # `self.x` is also a class attribute `x = ...`
            plain = self.holders.get((root.removeprefix("self."), None), _HOLDS_NOTHING)
            held = (held[0] or plain[0], held[1] or plain[1], held[2] or plain[2])
        locks, picks = chain.locks or held[0], chain.picks or held[1]
        if chain.ran:
            # The statement's lock: picked by the statement, or by the result.
            if picks:
                return _Chain(locks, True, root)
            picked = chain.result_picks
            return _Chain(locks and picked, picked, root, result_locks=locks and not picked)
        locks = locks or (held[2] and chain.result_picks)
        return _Chain(locks, picks, root, result_locks=held[2])

    def _may_hold(self, root: str) -> bool:
        """Whether the rule may follow the name a chain starts from to the
        chain it was assigned (it follows plain assignments only)."""
        if self._assigned is None:
            self._assigned = frozenset(name for name, _, _ in self._values)
        plain = root.removeprefix("self.")
        return root in self._assigned or plain in self._assigned

    def followed_names(self) -> tuple[set[str], set[str]]:
        """The names (without `self.`) the answer may depend on elsewhere in
        the module: what a chain that locks starts from (whether and what it
        is assigned there), and what holds a lock, also through other names
        (every chain using it)."""
        self._hold()
        chains = [c for c, _ in (*self.chains, *self.iterated)]
        chains += [c for _, c, _ in (*self._values, *self._executions)]
        starts = {chain.root for chain in chains if chain.locks and chain.root}
        holders = {name for (name, _), held in self.holders.items() if held[0] or held[2]}
        return _plain(starts), _plain(holders)

    def pick_next(self) -> bool:
        if not any(chain.locks for chain, _ in (*self.chains, *self.iterated)) and not any(
            chain.locks for _, chain, _ in (*self._values, *self._executions)
        ):
            return False  # no chain locks, nor anything a name holds
        self._hold()
        for chain, function in self.chains:
            found = self._with_holder(chain, function)
            if found.locks and found.picks and self._may_claim(function):
                return True
        return any(
            self._iterates_locked(chain, function) and self._may_claim(function)
            for chain, function in self.iterated
        )

    def _iterates_locked(self, chain: _Chain, function: ast.AST | None) -> bool:
        """A loop over a locking chain, or over a name bound to the rows of
        a statement a session runs (`rows = session.scalars(stmt).all()`)."""
        if self._with_holder(chain, function).locks:
            return True
        return any(
            self._with_holder(ran, where).locks
            for name, ran, where in self._executions
            if name == chain.root
        )

    def _may_claim(self, function: ast.AST | None) -> bool:
        if function is None:
            return True
        found = self._writes.get(id(function))
        if found is None:
            found = self._writes[id(function)] = any(map(_may_write, _body_nodes(function, ())))
        return found


# What may write or delete a locked row (the rule's claims,
# `joblint.analysis.row_claims`): `row.save()`, `qs.update(...)`,
# `row.delete()`, `bulk_update(...)`, `update(Job)`, `session.delete(row)`,
# `row.status = ...` (SQLAlchemy flushes changed objects); a `return` hands
# the rows to a caller, which may claim them.
_WRITE_METHODS = locks.ROW_SAVE_METHODS | locks.ROW_WRITE_CALLS
_WRITE_FUNCTIONS = locks.ROW_WRITE_CALLS


def _may_write(node: ast.AST) -> bool:
    if isinstance(node, ast.Return):
        return node.value is not None  # to a caller that may claim what it returns
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr in _WRITE_METHODS
        return isinstance(func, ast.Name) and func.id in _WRITE_FUNCTIONS
    return isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)


def _target_name(target: ast.expr) -> str:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute) and _names_self(target.value):
        return f"self.{target.attr}"
    return ""


# Comprehensions bind their targets in a scope of their own.
_OWN_SCOPE_ENDS = (*_SCOPES, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _own_bindings(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """Names the function certainly binds in its own scope (parameters,
    assignment and loop targets, `with ... as`, imports, nested definitions),
    but not those it declares global or nonlocal: the rule looks such a name
    up in the function, never in the module. (A binding missed here only
    means looking wider.)"""
    args = function.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    bound = {a.arg for a in params if a is not None}
    declared: set[str] = set()
    for node in _body_nodes(function, _OWN_SCOPE_ENDS):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
    return frozenset(bound - declared)


_ON_COMMIT = "on_commit"
_STATEMENT_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def on_commit_in_loop(tree: ast.Module, lowered: bytes) -> bool:
    """JL104: an on-commit registration (a call of a name holding
    `on_commit`, or of a name the file imports one as) inside a `for` or
    `while` loop, at any depth (also across the functions defined in it).
    The walk enters only the nodes spanning a line that names one."""
    return _on_commit_in_loop(tree, _Lines(lowered, _ON_COMMIT.encode()))


def _on_commit_in_loop(tree: ast.Module, lines: _Lines) -> bool:
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, looped = stack.pop()
        if looped and isinstance(node, ast.Call) and _registers(node.func, lines.words):
            return True
        inside = looped or isinstance(node, _STATEMENT_LOOPS)
        stack.extend((child, inside) for child in child_nodes(node) if lines.may_hold(child))
    return False


def _registers(func: ast.expr, names: frozenset[str]) -> bool:
    """`names`: lower-cased, as the file's text is read for aliases (`as Later`)."""
    lowered = last_name(func).lower()
    return _ON_COMMIT in lowered or lowered in names


def project_decorated_function(tree: ast.Module, lowered: bytes) -> bool:
    """A module-level function (tasks are) decorated by a name the file
    imports from what may be the project's own code (a relative import, or a
    module of no library joblint knows): a task decorator the project
    builds, perhaps (`@retrying`). Not in a module of tests (a task defined
    there by a project's decorator goes unseen; its findings would be test
    code's, shown only with `--include-tests`)."""
    imported: dict[str, str] = {}
    for node in _body_nodes(tree, ()):
        if isinstance(node, ast.ImportFrom):
            module = "." if node.level else (node.module or "")
            imported.update((a.asname or a.name, module) for a in node.names)
        elif isinstance(node, ast.Import):
            imported.update((a.asname or a.name.split(".")[0], a.name) for a in node.names)
    project = {name for name, module in imported.items() if _may_be_project(module)}
    if not project or _is_test_module(tree):
        return False
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(_root_name(d) in project for d in node.decorator_list)
        for node in _module_level(tree.body)
    )


def _is_test_module(tree: ast.Module) -> bool:
    """A module of tests (`def test_...`, `class Test...`): its decorated
    functions are tests (`@freeze_time`, a project's fixtures), not tasks."""
    return any(
        (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"))
        or (isinstance(node, ast.ClassDef) and node.name.startswith("Test"))
        for node in tree.body
    )


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, inside top-level `if`/`try` blocks too."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If | ast.Try):
            yield from _module_level([*statement.body, *statement.orelse])


def _may_be_project(module: str) -> bool:
    return module == "." or jobs.may_be_project_code(module)


def _root_name(decorator: ast.expr) -> str:
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


# The names of the calls that may enqueue, as the enqueue triggers spell them
# (`.delay(`, `async_task(`, `partial(`), and the calls that may write a row.
_ENQUEUE_WORDS = frozenset(
    anchor.strip(".(") for trigger in ENQUEUE_TRIGGERS for anchor in trigger.anchors
)
_ROW_WRITES = jobs.ROW_WRITE_METHODS | jobs.PINNED_WRITE_METHODS
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def enqueue_then_write(tree: ast.Module, lowered: bytes) -> bool:
    """JL106: in one function (or among the module's own statements), a call
    that may enqueue and after it a call that may write a row (`.save(`,
    `.update(`, `.delete(`). A lambda's or a class's body is read as part of
    the function around it, as the rule reads it."""
    scopes: list[ast.AST] = [tree]
    scopes.extend(node for node in ast.walk(tree) if isinstance(node, _FUNCTIONS))
    for scope in scopes:
        first: tuple[int, int] | None = None
        writes: list[tuple[int, int]] = []
        for node in _body_nodes(scope, _FUNCTIONS):
            if not isinstance(node, ast.Call):
                continue
            where = (node.lineno, node.col_offset)
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _ROW_WRITES:
                writes.append(where)
            if last_name(func) in _ENQUEUE_WORDS and (first is None or where < first):
                first = where
        if first is not None and any(where > first for where in writes):
            return True
    return False


_CACHE = "cache"


def cache_add_call(tree: ast.Module, lowered: bytes) -> bool:
    """JL402/JL404: a cache's `add(...)` (`aadd`) the rules may read as a
    lock: a bare statement (JL404), or one giving its expiry as a literal
    `None` (JL402; without one the cache's default timeout applies). On a
    receiver whose text names a cache, or that holds a name the file binds
    to one (imported from a cache's module, assigned from or annotated with
    something naming a cache). Every framework cache object and cache class
    the rules know is named so; a set's `add` never is."""
    calls: list[ast.Call] = []
    bare: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr):
            value = node.value
            while isinstance(value, ast.Await):
                value = value.value
            bare.add(id(value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in locks.RECEIVER_SETNX_METHODS
        ):
            calls.append(node)
    calls = [call for call in calls if id(call) in bare or _may_take_lock(call)]
    if not calls:
        return False
    cachey = _cache_names(tree)
    return any(_names_cache(cast(ast.Attribute, call.func).value, cachey) for call in calls)


def _may_take_lock(call: ast.Call) -> bool:
    """A conditional set whose result is kept, which a rule may still read:
    one on any receiver but a cache's (whose default timeout applies
    unless a literal `None` is given: `cache.add(key, 1, timeout=None)`)."""
    commands = locks.KEY_LOCK_COMMANDS.get(cast(ast.Attribute, call.func).attr, ())
    cache = [c for c in commands if c.receiver is locks.LockReceiver.CACHE]
    if len(cache) != len(commands):
        return True
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return False  # the rules can't tell its expiry either
    return any(_none_expiry(call, command) for command in cache)


def _none_expiry(call: ast.Call, command: locks.KeyLockCommand) -> bool:
    slots = [k.value for k in call.keywords if k.arg in command.expiry_keywords]
    at = command.expiry_position
    if at is not None and len(call.args) > at:
        slots.append(call.args[at])
    return any(isinstance(v, ast.Constant) and v.value is None for v in slots)


def _cache_names(tree: ast.Module) -> set[str]:
    """The names (and attribute names) the file binds to what may be a cache."""
    found: set[str] = set()
    # (targets, value, whether the value is an annotation)
    bindings: list[tuple[list[ast.expr], ast.expr, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = (node.module or "").lower()
            found.update(
                alias.asname or alias.name
                for alias in node.names
                if _CACHE in module or _CACHE in alias.name.lower()
            )
        elif isinstance(node, ast.Import):
            found.update(
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if _CACHE in alias.name.lower()
            )
        elif isinstance(node, ast.Assign):
            bindings.append((node.targets, node.value, False))
        elif isinstance(node, ast.AnnAssign):
            bindings.append(([node.target], node.annotation, True))
            if node.value is not None:
                bindings.append(([node.target], node.value, False))
        elif isinstance(node, ast.arg) and node.annotation is not None:
            bindings.append(([ast.Name(node.arg)], node.annotation, True))
    for targets, value, annotation in bindings:  # after the imports: `c = cache_alias`
        if _names_cache(value, found) if annotation else _may_be_cache(value, found):
            for target in targets:
                found.update(_bound_words(target))
    return found


def _may_be_cache(value: ast.expr, cachey: set[str]) -> bool:
    """A value that may be a cache object: what names one along the value's
    own chain (`caches["x"]`, `get_cache()`, `self.cache`), not what is
    handed to a call (`build(cached)`) nor a value read from a cache
    (`cache.get(key)`)."""
    while True:
        if isinstance(value, ast.Await | ast.Subscript):
            value = value.value
        elif isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr in _CACHE_VALUE_READS:
                return False
            value = func
        else:
            break
    if isinstance(value, ast.BoolOp):
        return any(_may_be_cache(v, cachey) for v in value.values)
    if isinstance(value, ast.IfExp):
        return _may_be_cache(value.body, cachey) or _may_be_cache(value.orelse, cachey)
    return _names_cache(value, cachey)


# A cache's methods returning a stored value (or a count, or whether a key is
# there): what they give is no cache.
_CACHE_VALUE_READS = locks.GET_METHODS | locks.COUNT_METHODS | locks.EXISTS_METHODS


def _bound_words(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Attribute):
        yield target.attr
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _bound_words(element)


def _names_cache(node: ast.expr, cachey: set[str]) -> bool:
    for part in ast.walk(node):
        word = part.id if isinstance(part, ast.Name) else getattr(part, "attr", None)
        if isinstance(word, str) and (_CACHE in word.lower() or word in cachey):
            return True
    return False


CONFIRMERS: dict[str, Callable[[_Scan], bool]] = {
    "sleep-in-retry-loop": sleep_in_retry_loop,
    "while-true-retry": while_true_retry,
}
# Checks that read the tree itself rather than the sleep scan.
TREE_CONFIRMERS: dict[str, Callable[[ast.Module, bytes], bool]] = {
    "row-lock-picking-rows": row_lock_picking_rows,
    "project-decorated-function": project_decorated_function,
    "on-commit-in-loop": on_commit_in_loop,
    "payload-may-hold-object": payload_may_hold_object,
    "key-checked-then-set": key_checked_then_set,
    "enqueue-then-write": enqueue_then_write,
    "cache-add-call": cache_add_call,
}


def confirmed(tree: ast.Module, checks: Iterable[str], lowered: bytes) -> set[str]:
    """The named checks that hold for the tree (`lowered`: its source, lower-cased)."""
    found: set[str] = set()
    scan: _Scan | None = None
    for check in checks:
        on_tree = TREE_CONFIRMERS.get(check)
        if on_tree is not None:
            holds = on_tree(tree, lowered)
        else:
            scan = scan or _scan(tree, _Lines(lowered))
            holds = CONFIRMERS[check](scan)
        if holds:
            found.add(check)
    return found


# --- reading only some of a module's top-level statements --------------------------

# A line starting a top-level definition, where a module splits into parts that
# parse on their own (a decorator's line starts the definition it decorates).
_PART_START = re.compile(rb"^(?:    )?(?:@|(?:async[ \t]+)?def[ \t])|^class[ \t(:]", re.MULTILINE)
# A line starting at column 0 that is neither blank nor a comment.
_CODE_AT_COLUMN_0 = re.compile(rb"\n[^ \t\r\n#]")
# Escapes that may spell a letter in a string (`\x53ELECT`): such SQL is read
# only on the whole tree.
_LETTER_ESCAPE = re.compile(rb"\\(?:x|u|n\{|[0-7])")
_SQL_SELECT_WORD = re.compile(rb"\bselect\b")
# A loop statement starts a line: after its indentation, `for`, `async for`
# or `while` (a compound statement follows no `;` and no `:` on its line).
# Words in strings and comprehensions only ever make more lines match.
_LOOP_LINE = re.compile(rb"^[ \t\f]*(?:async[ \t]+)?(?:for|while)\b", re.MULTILINE)


class _Parts:
    """A module's source cut before each top-level definition, and a
    top-level class's before each of its methods (at four spaces), each part
    parsed with `ast` only when a check asks for it, at its own lines (so a
    node's line is the file's; a method in a class of its own, `class _:`,
    which no check tells from the real one: a class is no loop and no
    function). A cut inside a string or brackets makes a part that doesn't
    parse: `SyntaxError`, and the caller parses the whole."""

    def __init__(self, data: bytes, lowered: bytes) -> None:
        self.data = data
        self.lowered = lowered
        starts = [0]
        methods: set[int] = set()  # the parts that are a class's methods
        in_class = False
        read = 0  # where the class's lines have been read up to
        for match in _PART_START.finditer(lowered):
            start = match.start()
            indented = lowered.startswith(b" ", start)
            previous = lowered.rfind(b"\n", 0, start - 1) + 1 if start else 0
            decorated = lowered.startswith(b"    @" if indented else b"@", previous)
            if not indented:
                in_class = lowered.startswith(b"class", start)
            elif in_class and _CODE_AT_COLUMN_0.search(lowered, read, start):
                in_class = False  # the class has ended (or a string holds the line)
            read = start
            if not start or decorated or (indented and not in_class):
                continue
            if indented:
                methods.add(len(starts))
            starts.append(start)
        self.spans = list(zip(starts, [*starts[1:], len(data)], strict=True))
        self.methods = methods
        lines = accumulate(data.count(b"\n", start, end) for start, end in self.spans)
        self.first_lines = [1, *(count + 1 for count in lines)][: len(self.spans)]
        self._bodies: dict[int, list[ast.stmt]] = {}

    def having(self, words: Iterable[bytes]) -> set[int]:
        """The parts whose (lower-cased) text holds one of `words`."""
        found = list(words)
        return {
            index
            for index, (start, end) in enumerate(self.spans)
            if any(self.lowered.find(word, start, end) != -1 for word in found)
        }

    def naming(self, names: Iterable[str]) -> set[int]:
        """The parts whose text holds one of `names` as a word."""
        return self._matching(names, rb"\b")

    def assigning(self, names: Iterable[str]) -> set[int]:
        """The parts that may assign one of `names` (`x = `, `self.x: T = `,
        `(x) = `, `a = x = `): the name, then a `=` or `:` after nothing but
        blanks, closing parentheses and line continuations. More than
        assignments (`f(x=1)`, `{x: 1}`), never fewer."""
        return self._matching(names, rb"(?:[\s)\\])*[:=]")

    def _matching(self, names: Iterable[str], after: bytes) -> set[int]:
        words = sorted({name.lower().encode() for name in names})
        if not words:
            return set()
        pattern = re.compile(rb"\b(?:" + b"|".join(map(re.escape, words)) + rb")" + after)
        return {
            index
            for index, (start, end) in enumerate(self.spans)
            if pattern.search(self.lowered, start, end) is not None
        }

    def tree(self, chosen: Iterable[int]) -> ast.Module:
        body: list[ast.stmt] = []
        for index in sorted(chosen):
            if index not in self._bodies:
                start, end = self.spans[index]
                line = self.first_lines[index]
                # A method's part opens its class on the line before its own.
                head = b"\n" * (line - 2) + b"class _:\n" if index in self.methods else b""
                padding = head or b"\n" * (line - 1)
                self._bodies[index] = quiet_ast_parse(padding + self.data[start:end]).body
            body.extend(self._bodies[index])
        return ast.Module(body=body, type_ignores=[])


def _plain(names: set[str]) -> set[str]:
    return {name.removeprefix("self.") for name in names}


def _strings_decide_nothing(lowered: bytes) -> bool:
    """Whether no SQL in the file's strings can make `row_lock_picking_rows`
    hold: no SELECT written out, nor escapes that might spell one (that
    needs every string, the whole tree). A SELECT split across adjacent
    literals, `"SEL" "ECT"`, is not looked for: nor is it by the trigger's
    bytes."""
    return not (_SQL_SELECT_WORD.search(lowered) or _LETTER_ESCAPE.search(lowered))


def _row_lock_in_parts(parts: _Parts) -> bool:
    """`row_lock_picking_rows` (with no SQL to read) on the parts that hold
    a row lock, with the parts that may assign what a locking chain starts
    from and those naming what holds a lock, until no part adds one."""
    if b"for_update" not in parts.lowered:
        return False  # no SQL, no ORM lock: the whole tree says the same
    chosen = parts.having([b"for_update"])
    while True:
        scan = _OrmLocks(parts.tree(chosen))
        starts, holders = scan.followed_names()
        more = (parts.assigning(starts) | parts.naming(holders)) - chosen
        if not more:
            return scan.pick_next()
        chosen |= more


def _on_commit_in_parts(parts: _Parts) -> bool:
    """`on_commit_in_loop` on the parts naming an on-commit registration:
    the only ones its walk enters."""
    lines = _Lines(parts.lowered, _ON_COMMIT.encode())
    chosen = parts.having(word.encode() for word in lines.words)
    if not any(_LOOP_LINE.search(parts.lowered, *parts.spans[index]) for index in chosen):
        return False  # no loop statement in them: their tree has none either
    return _on_commit_in_loop(parts.tree(chosen), lines)


@dataclass(frozen=True, slots=True)
class _PartCheck:
    """A check that reads only some of a module's top-level statements."""

    applies: Callable[[bytes], bool]  # to the (lower-cased) file: else the whole tree
    holds: Callable[[_Parts], bool]


PART_CONFIRMERS: dict[str, _PartCheck] = {
    "row-lock-picking-rows": _PartCheck(_strings_decide_nothing, _row_lock_in_parts),
    "on-commit-in-loop": _PartCheck(lambda lowered: True, _on_commit_in_parts),
}


def reads_in_parts(data: bytes, lowered: bytes, checks: Iterable[str]) -> bool:
    """Whether the checks can be answered on parts of the file: each reads
    only some top-level statements of this file, and no line ends in a lone
    carriage return (a part's lines are counted by its line feeds)."""
    found = [PART_CONFIRMERS.get(name) for name in checks]
    return b"\r" not in data and all(c is not None and c.applies(lowered) for c in found)


def confirmed_in_parts(data: bytes, lowered: bytes, checks: Iterable[str]) -> set[str] | None:
    """`confirmed`, parsing only the top-level statements the checks read,
    for a file `reads_in_parts` allows and Python certainly parses; None
    where a part doesn't parse on its own (a cut inside a string): parse
    the whole file."""
    parts = _Parts(data, lowered)
    try:
        return {name for name in checks if PART_CONFIRMERS[name].holds(parts)}
    except (SyntaxError, ValueError):
        return None

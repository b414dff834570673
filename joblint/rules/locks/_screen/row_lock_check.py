"""JL401's AST check: a row lock the rule may read as a pick among rows.

The rule (`joblint.rules.locks.for_update_without_skip_locked`) reports a lock
without SKIP LOCKED where workers pick among the rows it locks; most files
naming `select_for_update`/`with_for_update` lock one row by its key. This
check says yes where SQL text in the file's strings locks rows, or where an
ORM chain locks rows and picks among them (`first()`, a slice, a loop over
them, rows handed back to a caller), in a function that may claim them.
It reads more than the rule does, never less. Where no SQL can decide, it
reads only the top-level definitions holding an ORM row lock and those they
lead to (`ModuleParts`), not the whole module.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from joblint.index.ast_walk import SCOPES, body_nodes
from joblint.index.nodes import child_nodes
from joblint.knowledge import locks
from joblint.knowledge.confirm import ModuleParts, PartReading, confirm_step

# A row lock in SQL text: `FOR UPDATE`, `FOR NO KEY UPDATE`, `FOR [KEY] SHARE`,
# or a piece ending in `FOR` that a concatenation completes.
_SQL_ROW_LOCK = re.compile(
    r"\bfor\s+(?:no\s+key\s+)?update\b|\bfor\s+(?:key\s+)?share\b|\bfor\s*$", re.IGNORECASE
)
_SQL_SELECT = re.compile(r"\bselect\b", re.IGNORECASE)
_ROW_LOCKS = locks.ROW_LOCK_METHODS
_PICKS = locks.PICK_NEXT_METHODS
_RESULT_PICKS = locks.RESULT_PICK_METHODS
# Escapes that may spell a letter in a string (`\x53ELECT`): such SQL is read
# only on the whole tree.
_LETTER_ESCAPE = re.compile(rb"\\(?:x|u|n\{|[0-7])")
_SQL_SELECT_WORD = re.compile(rb"\bselect\b")


def _strings_decide_nothing(lowered: bytes) -> bool:
    """Whether no SQL in the file's strings can make `row_lock_picking_rows`
    hold: no SELECT written out, nor escapes that might spell one (that
    needs every string, the whole tree). A SELECT split across adjacent
    literals, `"SEL" "ECT"`, is not looked for: nor is it by the trigger's
    bytes."""
    return not (_SQL_SELECT_WORD.search(lowered) or _LETTER_ESCAPE.search(lowered))


def _row_lock_in_parts(parts: ModuleParts) -> bool:
    """`row_lock_picking_rows` (with no SQL to read) on the parts that hold
    a row lock, with the parts that may assign what a locking chain starts
    from and those naming what holds a lock, until no part adds one."""
    if b"for_update" not in parts.lowered:
        return False  # no SQL, no ORM lock: the whole tree says the same
    chosen = parts.having([b"for_update"])
    while True:
        scan = OrmLocks(parts.tree(chosen))
        starts, holders = scan.followed_names()
        more = (parts.assigning(starts) | parts.naming(holders)) - chosen
        if not more:
            return scan.pick_next()
        chosen |= more


@confirm_step(
    "row-lock-picking-rows",
    in_parts=PartReading(_row_lock_in_parts, applies=_strings_decide_nothing),
)
def row_lock_picking_rows(tree: ast.Module, lowered: bytes) -> bool:
    """JL401: SQL text in the file's strings that locks rows, or an ORM
    chain that locks rows and picks among them (`OrmLocks`)."""
    scan = OrmLocks(tree)
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
    # starts from holds more links (`OrmLocks._with_holder`).
    natural: bool = False
    # It runs a statement (`session.scalars(stmt)`) and starts from the
    # statement's start: the statement's lock counts only if the statement
    # picks, or a method of the result does (`result_picks`: `.first()`).
    ran: bool = False
    result_picks: bool = False
    # (After `OrmLocks._with_holder`) it holds a statement's result whose
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
    (`_natural_key` of `joblint.rules.locks.for_update_without_skip_locked`): at
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
    of `joblint.rules.locks._facts.orm_filters`) nor another column (`F("x")`): a
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


class OrmLocks:
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
            found = self._writes[id(function)] = any(map(_may_write, body_nodes(function, ())))
        return found


# What may write or delete a locked row (the rule's claims,
# `joblint.rules.locks._facts.row_claims`): `row.save()`, `qs.update(...)`,
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
_OWN_SCOPE_ENDS = (*SCOPES, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


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
    for node in body_nodes(function, _OWN_SCOPE_ENDS):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
    return frozenset(bound - declared)


def _plain(names: set[str]) -> set[str]:
    return {name.removeprefix("self.") for name in names}

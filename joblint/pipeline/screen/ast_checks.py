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

from joblint.index.nodes import child_nodes, last_name
from joblint.knowledge import jobs, locks, retries
from joblint.knowledge.tokens import ENQUEUE_TRIGGERS
from joblint.pipeline.screen.ast_walk import body_nodes
from joblint.pipeline.screen.key_check import key_checked_then_set
from joblint.pipeline.screen.payload_check import payload_may_hold_object
from joblint.pipeline.screen.row_lock_check import OrmLocks, row_lock_picking_rows
from joblint.pipeline.source import quiet_ast_parse

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
        if sleeps and any(_catches(n) for n in body_nodes(loop)):
            return True
    return False


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
    for node in body_nodes(tree, ()):
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
        for node in body_nodes(scope, _FUNCTIONS):
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
        scan = OrmLocks(parts.tree(chosen))
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

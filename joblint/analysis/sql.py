"""SQL written in Python strings: its static text, and what a SQL parser sees in it.

Two questions, kept apart so later rules can reuse them:

- `static_sql(expr, lookup)`: the static text of an expression that builds a
  string — plain, implicitly concatenated, `+`-concatenated, triple-quoted,
  `%`/`.format` templates, f-strings, wrapped in `text()`/`sql.SQL()`/
  `textwrap.dedent()` — following a name assigned once (a local or a module
  constant, `self.X`) to the literal it holds. Each part whose value isn't
  known becomes a *hole*: an identifier (`joblint_hole_N`) the parser accepts
  where a value, a column or a table name goes.
- `statements(text)`, `locking_reads(text)`, `selected_functions(text, names)`:
  what sqlglot's tokenizer and parser make of the text. Comments and string
  literals are the tokenizer's business, so `FOR UPDATE` in them never counts;
  keywords are case- and whitespace-insensitive. Text that doesn't parse (not
  SQL, or a dialect sqlglot can't read) gives None: callers then report
  nothing. Parsing never raises.

Why sqlglot: it builds a real syntax tree, so the locking clause belongs to a
particular SELECT (a subquery's `FOR UPDATE ... LIMIT 1` inside an `UPDATE ...
WHERE id = (...)` is told apart from the outer statement), the WHERE clause
can be read for "pins the row by key", and strength/`OF`/`NOWAIT`/`SKIP
LOCKED`/`WAIT n` come out as fields. It reads PostgreSQL's `%s`, `%(name)s`,
`$1`, `:name` and `?` placeholders, and it has no dependencies.
"""

from __future__ import annotations

import ast
import logging
import re
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import libcst as cst

from joblint.analysis.assignments import Assignments, ScopeNode
from joblint.analysis.context import FileContext
from joblint.analysis.literals import string_value
from joblint.analysis.names import Resolver
from joblint.knowledge import locks

if TYPE_CHECKING:
    from sqlglot import Token, exp

# sqlglot logs parse warnings through `logging`; a linter's output is its findings.
logging.getLogger("sqlglot").setLevel(logging.CRITICAL)

HOLE_PREFIX = "joblint_hole_"
_MAX_DEPTH = 12  # names followed / nested parts: guards against cycles
_MAX_SQL_CHARS = 50_000  # longer strings are data, not queries we can reason about


# --- following names ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lookup:
    """Where names in an expression are looked up: its scope chain and class."""

    assignments: Assignments
    scopes: tuple[ScopeNode, ...]
    class_name: str = ""
    resolver: Resolver | None = None

    def resolve(self, node: cst.BaseExpression) -> tuple[cst.BaseExpression, Lookup] | None:
        """The one expression a name / `self.attr` holds, and where to read it."""
        if isinstance(node, cst.Name):
            bound = self.assignments.name(node.value, self.scopes)
        elif (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value in ("self", "cls")
            and self.class_name
        ):
            bound = self.assignments.attribute(self.class_name, node.attr.value)
        else:
            return None
        if bound is None or bound.via_with:
            return None
        return bound.value, Lookup(self.assignments, bound.scopes, self.class_name, self.resolver)


def lookup_for(context: FileContext) -> Lookup:
    return Lookup(
        context.assignments,
        context.scope_nodes,
        context.frame.class_name,
        context.resolver,
    )


# --- static text ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SqlText:
    """The static text of a string expression, holes marked."""

    text: str
    # The literal (or concatenation) the text starts in: where findings go.
    anchor: cst.CSTNode
    holes: int = 0
    # Every literal the text was read from (for fixes that edit the SQL).
    literals: tuple[cst.CSTNode, ...] = ()


@dataclass(slots=True)
class _Builder:
    parts: list[str] = field(default_factory=list)
    holes: int = 0
    anchor: cst.CSTNode | None = None
    literals: int = 0
    nodes: list[cst.CSTNode] = field(default_factory=list)

    def text(self, value: str, node: cst.CSTNode, nodes: list[cst.CSTNode] | None = None) -> None:
        if self.anchor is None:
            self.anchor = node
        self.literals += 1
        self.parts.append(value)
        self.nodes.extend([node] if nodes is None else nodes)

    def hole(self) -> None:
        self.parts.append(f"{HOLE_PREFIX}{self.holes}")
        self.holes += 1


def static_sql(expr: cst.BaseExpression, lookup: Lookup) -> SqlText | None:
    """Static text of `expr` if it builds a string from at least one literal."""
    builder = _Builder()
    try:
        ok = _collect(expr, lookup, builder, 0)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        return None
    if not ok or builder.anchor is None:
        return None
    text = "".join(builder.parts)
    if len(text) > _MAX_SQL_CHARS:
        return None
    # The first literal: the start of a concatenation, or the string a followed
    # name holds (where it was written), or the argument of `text(...)`.
    return SqlText(text, builder.anchor, builder.holes, tuple(builder.nodes))


def _collect(node: cst.BaseExpression, lookup: Lookup, out: _Builder, depth: int) -> bool:
    """Append the text of `node`; False when it isn't a string we can read."""
    if depth > _MAX_DEPTH:
        return False
    while isinstance(node, cst.Await):
        node = node.expression
    if isinstance(node, cst.SimpleString):
        evaluated = string_value(node)
        text = evaluated if isinstance(evaluated, str) else evaluated.decode("latin-1")
        out.text(text, node)
        return True
    if isinstance(node, cst.ConcatenatedString):
        return _collect(node.left, lookup, out, depth + 1) and _collect(
            node.right, lookup, out, depth + 1
        )
    if isinstance(node, cst.FormattedString):
        return _collect_fstring(node, lookup, out, depth)
    if isinstance(node, cst.BinaryOperation):
        return _collect_binary(node, lookup, out, depth)
    if isinstance(node, cst.Call):
        return _collect_call(node, lookup, out, depth)
    resolved = lookup.resolve(node)
    if resolved is None:
        return False
    bound, inner = resolved
    return _collect(bound, inner, out, depth + 1)


def _collect_fstring(node: cst.FormattedString, lookup: Lookup, out: _Builder, depth: int) -> bool:
    prefix = node.prefix.lower().replace("f", "")
    quote = node.start[len(node.prefix) :]
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            out.text(_fstring_text(part.value, prefix, quote), node)
        elif isinstance(part, cst.FormattedStringExpression):
            _inline_or_hole(part.expression, lookup, out, depth)
    if not node.parts:
        out.text("", node)
    return True


def _fstring_text(raw: str, prefix: str, quote: str) -> str:
    """An f-string's literal part as Python evaluates it (escapes, `{{`)."""
    text = raw.replace("{{", "{").replace("}}", "}")
    if "r" in prefix or "\\" not in text:
        return text
    try:
        value = ast.literal_eval(f"{prefix}{quote}{text}{quote}")
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, str) else text


def _inline_or_hole(expr: cst.BaseExpression, lookup: Lookup, out: _Builder, depth: int) -> None:
    """A constant string (`{TABLE}`) is inlined; anything else is a hole."""
    inner = _Builder()
    if _collect(expr, lookup, inner, depth + 1) and inner.holes == 0 and inner.literals:
        out.parts.extend(inner.parts)
        out.nodes.extend(inner.nodes)
    else:
        out.hole()


def _collect_binary(node: cst.BinaryOperation, lookup: Lookup, out: _Builder, depth: int) -> bool:
    if isinstance(node.operator, cst.Add):
        before = out.literals
        for side in (node.left, node.right):
            probe = _Builder(holes=out.holes)
            if _collect(side, lookup, probe, depth + 1):
                _merge(out, probe)
            else:
                out.hole()
        return out.literals > before
    if isinstance(node.operator, cst.Modulo):
        template = _Builder()
        if not _collect(node.left, lookup, template, depth + 1) or template.holes:
            return False
        return _apply_percent(node, template, out)
    return False


def _merge(out: _Builder, probe: _Builder) -> None:
    if out.anchor is None:
        out.anchor = probe.anchor
    out.parts.extend(probe.parts)
    out.nodes.extend(probe.nodes)
    out.holes = probe.holes
    out.literals += probe.literals


_PERCENT = re.compile(
    # `[^)%]`: a key ends at the next `%`, so unclosed `%(`s cost one scan each, not n.
    r"%(?:\([^)%]*\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])"
)


def _apply_percent(node: cst.BinaryOperation, template: _Builder, out: _Builder) -> bool:
    """`"..." % args`: each conversion becomes a hole, `%%` a percent sign."""
    text = "".join(template.parts)
    pieces: list[str] = []
    last = 0
    for match in _PERCENT.finditer(text):
        pieces.append(text[last : match.start()])
        if match.group(1) == "%":
            pieces.append("%")
        else:
            pieces.append(f"{HOLE_PREFIX}{out.holes}")
            out.holes += 1
        last = match.end()
    pieces.append(text[last:])
    out.text("".join(pieces), template.anchor or node, template.nodes)
    return True


def _collect_call(node: cst.Call, lookup: Lookup, out: _Builder, depth: int) -> bool:
    func = node.func
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        if method == "format":
            return _apply_format(node, func.value, lookup, out, depth)
        if method in locks.TEXT_METHODS and not node.args:
            return _collect(func.value, lookup, out, depth + 1)
    if _is_text_wrapper(node, lookup) and node.args and node.args[0].keyword is None:
        return _collect(node.args[0].value, lookup, out, depth + 1)
    return False


def _is_text_wrapper(node: cst.Call, lookup: Lookup) -> bool:
    """`text("...")`, `sql.SQL("...")`, `RawSQL(...)`, `textwrap.dedent(...)`."""
    func = node.func
    qualname = lookup.resolver.qualified_name(func) if lookup.resolver is not None else None
    if qualname in locks.SQL_FUNCTIONS or qualname in locks.TEXT_WRAPPERS:
        return True
    if isinstance(func, cst.Attribute):
        last = func.attr.value
    elif isinstance(func, cst.Name):
        last = func.value
    else:
        return False
    return last in locks.SQL_FUNCTION_NAMES or last in locks.TEXT_WRAPPERS


def _apply_format(
    node: cst.Call, receiver: cst.BaseExpression, lookup: Lookup, out: _Builder, depth: int
) -> bool:
    """`"...{}...".format(...)` (also psycopg's `sql.SQL(...).format(...)`)."""
    template = _Builder()
    if not _collect(receiver, lookup, template, depth + 1) or template.holes:
        return False
    text = "".join(template.parts)
    keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    positional = [a.value for a in node.args if a.keyword is None and not a.star]
    pieces: list[str] = []
    auto = 0
    for literal, field_name, _spec, _conversion in string.Formatter().parse(text):
        pieces.append(literal)
        if field_name is None:
            continue
        value: cst.BaseExpression | None
        if field_name == "":
            value = positional[auto] if auto < len(positional) else None
            auto += 1
        elif field_name.isdigit():
            index = int(field_name)
            value = positional[index] if index < len(positional) else None
        else:
            value = keywords.get(field_name)
        _format_field(value, lookup, out, pieces, depth)
    out.text("".join(pieces), template.anchor or node, template.nodes)
    return True


def _format_field(
    value: cst.BaseExpression | None,
    lookup: Lookup,
    out: _Builder,
    pieces: list[str],
    depth: int,
) -> None:
    if value is not None:
        inner = _Builder()
        if _collect(value, lookup, inner, depth + 1) and inner.holes == 0 and inner.literals:
            pieces.append("".join(inner.parts))
            return
    pieces.append(f"{HOLE_PREFIX}{out.holes}")
    out.holes += 1


# --- which strings are SQL -------------------------------------------------------------

_LEADING_NOISE = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/|\()*", re.DOTALL)
_FIRST_WORD = re.compile(r"[A-Za-z_]+")


def looks_like_sql(text: str) -> bool:
    """The text starts (after whitespace, comments, parentheses) with a SQL verb."""
    rest = text[_LEADING_NOISE.match(text).end() :]  # type: ignore[union-attr]
    word = _FIRST_WORD.match(rest)
    return word is not None and word.group(0).lower() in locks.SQL_LEADING_KEYWORDS


def sql_call_method(call: cst.Call) -> str | None:
    """The method name when `call` runs SQL whatever its receiver (`cur.execute`)."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    if method in locks.SQL_METHODS:
        return method
    receiver = func.value
    last = receiver.attr.value if isinstance(receiver, cst.Attribute) else None
    if isinstance(receiver, cst.Name):
        last = receiver.value
    if last is not None and any(w in last.lower() for w in locks.SQL_RECEIVER_WORDS):
        return method
    return None


def sql_arguments(call: cst.Call) -> Iterator[cst.BaseExpression]:
    """Arguments of a call that may carry SQL text: positionals and SQL keywords."""
    for arg in call.args:
        if arg.star:
            continue
        if arg.keyword is None or arg.keyword.value in locks.SQL_KEYWORDS:
            yield arg.value


def call_sql(call: cst.Call, lookup: Lookup) -> Iterator[SqlText]:
    """Static SQL the call is given: every argument of a SQL-running call, and
    arguments of any other call whose text starts like SQL."""
    runs_sql = sql_call_method(call) is not None or _is_text_wrapper(call, lookup)
    for argument in sql_arguments(call):
        found = static_sql(argument, lookup)
        if found is None:
            continue
        if runs_sql or looks_like_sql(found.text):
            yield found


# --- parsing -----------------------------------------------------------------------------

# Tried in order; PostgreSQL's reads the placeholders drivers use (%s, %(x)s, $1).
_DIALECTS = ("postgres", "mysql", "oracle")


@lru_cache(maxsize=4096)
def statements(text: str) -> tuple[exp.Expression, ...] | None:
    """sqlglot syntax trees of the text's statements; None when it doesn't parse."""
    if not text.strip() or len(text) > _MAX_SQL_CHARS:
        return None
    import sqlglot  # deferred (~0.2 s): only files with SQL-looking strings pay for it
    from sqlglot import exp

    for dialect in _DIALECTS:
        try:
            trees = sqlglot.parse(text, read=dialect)
        except Exception:  # any parser failure means "not SQL we can read"
            continue
        found = tuple(t for t in trees if isinstance(t, exp.Expression))
        if found:
            return found
    return None


@dataclass(frozen=True, slots=True)
class LockingRead:
    """One SELECT with a row-locking clause."""

    clause: str  # "FOR UPDATE", "FOR NO KEY UPDATE", "FOR SHARE", "FOR KEY SHARE"
    waits: bool  # no NOWAIT and no SKIP LOCKED in any of its clauses (WAIT n waits)
    picks_next: bool  # has ORDER BY, LIMIT or FETCH FIRST
    pinned_by_key: bool  # WHERE pins id/pk/uuid by equality or IN
    # A hole sits where it could be a whole condition, clause or alias: unknown.
    uncertain: bool


def _might_lock(text: str) -> bool:
    lowered = text.lower()
    return ("for" in lowered and ("update" in lowered or "share" in lowered)) or (
        "lock in share mode" in lowered
    )


@lru_cache(maxsize=4096)
def locking_reads(text: str) -> tuple[LockingRead, ...] | None:
    """Every locking SELECT in the text; None when it isn't SQL we can read."""
    if not _might_lock(text):
        return ()  # no lock keyword at all: no locking read, SQL or not
    trees = statements(text)
    if trees is None:
        return None
    from sqlglot import exp

    found: list[LockingRead] = []
    for tree in trees:
        for select in tree.find_all(exp.Select):
            clauses = [c for c in select.args.get("locks") or [] if isinstance(c, exp.Lock)]
            if clauses and _reads_a_table(select):
                found.append(_locking_read(select, clauses))
    if found and not _lock_clauses_last(text):
        return None
    return tuple(found)


def _reads_a_table(select: exp.Select) -> bool:
    """A lock clause on a SELECT without FROM locks no row: that text is prose the
    parser was lenient with ("select the next job for update, order by age")."""
    # sqlglot names the clause `from_`, or `from` in older releases.
    return bool(select.args.get("from_") or select.args.get("from"))


def _lock_clauses_last(text: str) -> bool:
    """Whether no clause that SQL puts before a locking clause (`FROM`, `WHERE`,
    `GROUP BY`, `ORDER BY`...) follows one in the same (sub)query. The parser
    accepts them in any order; text that has them out of order is prose ("the
    jobs from the queue for update, order by age")."""
    from sqlglot import TokenType
    from sqlglot.dialects.postgres import Postgres

    before_lock = {
        TokenType.FROM,
        TokenType.WHERE,
        TokenType.GROUP_BY,
        TokenType.HAVING,
        TokenType.ORDER_BY,
        TokenType.JOIN,
        TokenType.WINDOW,
    }
    try:
        tokens = Postgres().tokenize(text)
    except Exception:  # a tokenizer failure means "not SQL we can read"
        return False
    locked = [False]  # per parenthesis depth: a locking clause was seen there
    for index, token in enumerate(tokens):
        kind = token.token_type
        if kind is TokenType.L_PAREN:
            locked.append(False)
        elif kind is TokenType.R_PAREN:
            if len(locked) > 1:
                locked.pop()
        elif kind is TokenType.SEMICOLON:
            locked = [False]
        elif kind is TokenType.FOR and _starts_lock_clause(tokens[index + 1 : index + 2]):
            locked[-1] = True
        elif kind in before_lock and locked[-1]:
            return False
    return True


def _starts_lock_clause(following: Sequence[Token]) -> bool:
    """`FOR` followed by UPDATE, SHARE, NO (KEY UPDATE) or KEY (SHARE)."""
    if not following:
        return False
    return following[0].text.lower() in _LOCK_STRENGTH_WORDS


_LOCK_STRENGTH_WORDS = frozenset({"update", "share", "no", "key"})


def _locking_read(select: exp.Select, clauses: list[exp.Lock]) -> LockingRead:
    return LockingRead(
        clause=_clause_name(clauses[0]),
        waits=all(_waits(c) for c in clauses),
        picks_next=_picks_next(select),
        pinned_by_key=_pinned_by_key(select),
        uncertain=_has_risky_hole(select),
    )


def _picks_next(select: exp.Select) -> bool:
    """ORDER BY, or LIMIT/FETCH among filtered rows. `SELECT ... FROM counter
    LIMIT 1 FOR UPDATE` (no WHERE, no ORDER BY) locks a singleton row on purpose."""
    if select.args.get("order"):
        return True
    limited = bool(select.args.get("limit") or select.args.get("fetch"))
    return limited and select.args.get("where") is not None


def _clause_name(lock: exp.Lock) -> str:
    update = bool(lock.args.get("update"))
    key = bool(lock.args.get("key"))
    if update:
        return "FOR NO KEY UPDATE" if key else "FOR UPDATE"
    return "FOR KEY SHARE" if key else "FOR SHARE"


def _waits(lock: exp.Lock) -> bool:
    """sqlglot: wait None = waits, True = NOWAIT, False = SKIP LOCKED, n = WAIT n."""
    wait = lock.args.get("wait")
    return wait is not True and wait is not False


def _pinned_by_key(select: exp.Select) -> bool:
    where = select.args.get("where")
    if where is None:
        return False
    return any(_pins_key(c) for c in _conjuncts(where.this))


def _conjuncts(node: exp.Expr) -> Iterator[exp.Expr]:
    from sqlglot import exp

    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.And):
        yield from _conjuncts(node.left)
        yield from _conjuncts(node.right)
    else:
        yield node


def _pins_key(condition: exp.Expr) -> bool:
    """`id = <value>`, `<value> = t.pk`, `uuid IN (...)`, `id = ANY(%s)`."""
    from sqlglot import exp

    if isinstance(condition, exp.EQ):
        left, right = condition.left, condition.right
        return (_is_key_column(left) and _is_value(right)) or (
            _is_key_column(right) and _is_value(left)
        )
    if isinstance(condition, exp.In):
        return _is_key_column(condition.this)
    return False


def _is_key_column(node: exp.Expr) -> bool:
    from sqlglot import exp

    return isinstance(node, exp.Column) and node.name.lower() in locks.KEY_COLUMNS


def _is_value(node: exp.Expr) -> bool:
    """Not another column (that would be a join condition); a hole is a value."""
    from sqlglot import exp

    if isinstance(node, exp.Column):
        return node.name.startswith(HOLE_PREFIX)
    return True


def _has_risky_hole(select: exp.Select) -> bool:
    """A hole that could stand for a condition, a clause or an alias."""
    from sqlglot import exp

    for identifier in select.find_all(exp.Identifier):
        if not identifier.name.startswith(HOLE_PREFIX):
            continue
        parent = identifier.parent
        if isinstance(parent, exp.Table):
            continue
        if isinstance(parent, exp.Column) and _safe_value_position(parent):
            continue
        return True
    return False


def _safe_value_position(column: exp.Column) -> bool:
    """The hole is an operand or a listed item, not a whole condition."""
    from sqlglot import exp

    parent = column.parent
    if isinstance(parent, exp.Connector | exp.Not | exp.Where | exp.Paren):
        return False
    safe = (exp.Binary, exp.Func, exp.Select, exp.Ordered, exp.Limit, exp.Offset, exp.Tuple)
    return isinstance(parent, (*safe, exp.In, exp.Between, exp.Alias, exp.Order, exp.Group))


def selected_functions(text: str, names: frozenset[str]) -> tuple[str, ...] | None:
    """Calls of the named SQL functions whose result is a column of a top-level
    SELECT (returned to the caller, not used to filter); None when not SQL."""
    lowered = text.lower()
    if not any(name in lowered for name in names):
        return ()
    trees = statements(text)
    if trees is None:
        return None
    from sqlglot import exp

    found: list[str] = []
    for tree in trees:
        if not isinstance(tree, exp.Select):
            continue
        for projection in tree.expressions:
            for func in projection.find_all(exp.Func):
                name = function_name(func)
                if name in names:
                    found.append(name)
    return tuple(found)


def called_functions(text: str, names: frozenset[str]) -> tuple[str, ...] | None:
    """Calls of the named SQL functions anywhere in the text; None when not SQL."""
    lowered = text.lower()
    if not any(name in lowered for name in names):
        return ()
    trees = statements(text)
    if trees is None:
        return None
    from sqlglot import exp

    return tuple(
        name
        for tree in trees
        for func in tree.find_all(exp.Func)
        if (name := function_name(func)) in names
    )


def function_name(func: exp.Func) -> str:
    from sqlglot import exp

    if isinstance(func, exp.Anonymous):
        return str(func.name).lower()
    return func.sql_name().lower()

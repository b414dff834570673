"""Reads of every row of a table, and loops doing work for each row (JL602).

`whole_table_read(iterable, context, cursors)` says whether what a `for`
statement iterates is every row of a table, as the ORMs' and database APIs'
`TABLE_READS` (`joblint.knowledge.work`) describe their reads:

- a model's default manager through methods that keep every row
  (`User.objects.all()`, `.iterator(chunk_size=...)`, `User.query.all()`);
- a session's query of models (`session.query(User)`, iterated or `.all()`);
- a statement over models run by a session (`session.scalars(select(User)).all()`);
- SQL text that selects every row of one table (no WHERE, LIMIT, OFFSET,
  GROUP BY, HAVING, DISTINCT, join, aggregate or subquery, and no part whose
  text isn't known), run by `cursor.execute(...)` and read with `fetchall()`
  or by iterating the cursor or the call.

Any other method, a slice or an index bounds the read: the recogniser says
"whole table" only for what it knows keeps every row. The read is followed
through `list(...)`/`sorted(...)`/`enumerate(...)` and through a name
assigned once (`users = User.objects.all()`). Whether `User` is a model is
the project's to confirm (a `ClassOfKind` requirement) unless this module shows it.

`per_row_work(loop, context)` is the first thing a loop's body does for each
row beyond reading it: a call that isn't a pure builtin, a collection method
(`ids.append(u.id)`), a string or dict method or a log line; an `await`; an
attribute assigned on the loop's row (a session flushes it). A loop that may
stop early (`break`, `return`) is a search, not a walk: None.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import libcst as cst

from joblint.analysis.classes import class_facts
from joblint.analysis.context import FileContext
from joblint.analysis.names import BindingKind, dotted_parts, dotted_text, unwrap
from joblint.analysis.sql import Lookup, call_sql, lookup_for, statements
from joblint.analysis.walk import children
from joblint.knowledge import locks, payloads, retries
from joblint.knowledge.jobs import in_standard_library
from joblint.knowledge.work import TABLE_READS
from joblint.libraries.job_work import TableReads
from joblint.requirements import ClassOfKind, ReachesLibrary, Requirement

_MAX_FOLLOW = 6
_MAX_TEXT = 80

# Python builtins that hand their first argument's items on (the rows are
# still iterated), and those whose result is computed from the rows alone.
_ITERATING_BUILTINS = frozenset({"list", "tuple", "sorted", "reversed", "enumerate", "iter", "set"})
_PURE_BUILTINS = frozenset(
    {
        *_ITERATING_BUILTINS,
        "len",
        "str",
        "int",
        "float",
        "bool",
        "bytes",
        "dict",
        "frozenset",
        "min",
        "max",
        "sum",
        "abs",
        "round",
        "any",
        "all",
        "zip",
        "range",
        "isinstance",
        "issubclass",
        "getattr",
        "hasattr",
        "repr",
        "format",
        "divmod",
        "hash",
        "id",
        "type",
        "ord",
        "chr",
        "print",
    }
)
# Methods of the standard containers, strings and dates that change nothing
# outside the job's memory (`emails.append(u.email)`, `name.lower()`,
# `totals.get(k, 0)`); `update`, `count`, `index` and `pop` are left out: a
# queryset's are queries, a search client's `index` writes.
_PURE_METHODS = frozenset(
    {
        *locks.COLLECT_METHODS,
        "appendleft",
        "setdefault",
        "remove",
        "discard",
        "get",
        "items",
        "keys",
        "values",
        "copy",
        "format",
        "join",
        "lower",
        "upper",
        "title",
        "capitalize",
        "casefold",
        "strip",
        "lstrip",
        "rstrip",
        "split",
        "rsplit",
        "splitlines",
        "partition",
        "rpartition",
        "startswith",
        "endswith",
        "replace",
        "encode",
        "decode",
        "zfill",
        "isoformat",
        "strftime",
        "total_seconds",
        "isdigit",
        "isalpha",
        "isalnum",
    }
)
# A log line (`logger.info(...)`, `log.debug(...)`, `logging.warning(...)`):
# the receiver's last name holds "log".
_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
)

# Standard-library modules whose functions compute without touching the
# outside world (`Decimal(...)`, `json.dumps(...)`, `random.choice(...)`).
_PURE_MODULES = (
    "decimal",
    "datetime",
    "json",
    "re",
    "string",
    "itertools",
    "functools",
    "operator",
    "collections",
    "uuid",
    *retries.RANDOM_MODULES,
)
# What makes a container (`seen = set()`, `totals = defaultdict(int)`): any
# method of it changes only the job's memory (`seen.update(...)`).
_CONTAINER_BUILTINS = frozenset({"set", "dict", "list", "frozenset", "tuple"})
_CONTAINER_NODES = (cst.Set, cst.Dict, cst.List, cst.Tuple, cst.SetComp, cst.DictComp, cst.ListComp)

# Methods that put a value into a container (whose calls' arguments are
# then only collected).
_COLLECTING = frozenset({*locks.COLLECT_METHODS, "appendleft", "setdefault"})

_MANAGERS = frozenset(m for reads in TABLE_READS for m in reads.managers)
_SQL_METHODS = frozenset(m for reads in TABLE_READS for m in reads.sql_methods)
_SQL_FETCH_ALL = frozenset(m for reads in TABLE_READS if reads.sql_methods for m in reads.fetch_all)
_SYSTEM_TABLES = tuple(sorted({p for reads in TABLE_READS for p in reads.system_tables}))


@dataclass(frozen=True, slots=True)
class TableRead:
    """Every row of a table, read as `text` says."""

    text: str
    library: str
    # The library's own words about it ("iterator() streams the rows"), or "".
    note: str = ""
    requires: tuple[Requirement, ...] = ()


@dataclass(slots=True)
class Cursors:
    """The SQL each cursor of a function last ran, by the receiver as written
    (`cursor`, `self.cur`): what reading it afterwards reads."""

    last: dict[str, TableRead | None] = field(default_factory=dict)

    def saw_call(self, call: cst.Call, context: FileContext) -> None:
        """Record `cur.execute(sql)`: the rows `cur` holds now."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _SQL_METHODS:
            return
        receiver = dotted_text(func.value)
        if receiver is not None:
            self.last[receiver] = _sql_read(call, lookup_for(context))


def whole_table_read(
    iterable: cst.BaseExpression, context: FileContext, cursors: Cursors
) -> TableRead | None:
    """Every row of a table, when `iterable` is one of the reads the module
    docstring lists; None for anything else."""
    return _read(iterable, context, lookup_for(context), cursors, 0)


def _read(
    node: cst.BaseExpression, context: FileContext, lookup: Lookup, cursors: Cursors, depth: int
) -> TableRead | None:
    node = unwrap(node)
    if depth > _MAX_FOLLOW:
        return None
    if isinstance(node, cst.Call) and _iterating_builtin(node, context):
        return _read(node.args[0].value, context, lookup, cursors, depth + 1)
    text = dotted_text(node) if isinstance(node, cst.Name | cst.Attribute) else None
    if text is not None and text in cursors.last:
        return cursors.last[text]  # `for row in cursor:`
    if isinstance(node, cst.Name):
        resolved = lookup.resolve(node)
        if resolved is None:
            return None
        value, inner = resolved
        return _read(value, context, inner, cursors, depth + 1)
    chain = _outer_calls(node, context)
    if chain is None:
        return None
    methods, base = chain
    written = _code(node)
    while True:
        found = _chain_read(written, methods, base, context, lookup, cursors)
        if found is not None or depth >= _MAX_FOLLOW:
            return found
        # `qs = User.objects.all()` ... `qs.iterator()`: the chain `qs` holds, then these.
        if not isinstance(base, cst.Name) or base.value in cursors.last:
            return None
        resolved = lookup.resolve(base)
        if resolved is None:
            return None
        suffix = written[len(base.value) :] if written.startswith(base.value) else ""
        value, lookup = resolved
        chain = _outer_calls(value, context)
        if chain is None:
            return None
        methods, base = [*chain[0], *methods], chain[1]
        written = _shorten(_code(value) + suffix)
        depth += 1


def _chain_read(
    written: str,
    methods: _Methods,
    base: cst.BaseExpression,
    context: FileContext,
    lookup: Lookup,
    cursors: Cursors,
) -> TableRead | None:
    for reads in TABLE_READS:
        found = (
            _manager_read(written, methods, base, reads, context, lookup)
            or _query_read(written, methods, reads, context)
            or _statement_read(written, methods, reads, context, lookup)
        )
        if found is not None:
            return found
    return _sql_result(methods, base, cursors, lookup)


# --- chains ---------------------------------------------------------------------------


_Methods = list[tuple[str, cst.Call]]


def _outer_calls(
    node: cst.BaseExpression, context: FileContext
) -> tuple[_Methods, cst.BaseExpression] | None:
    """`a.b(x).c(y)` -> ([("b", call), ("c", call)], a), innermost first;
    None when a subscript (a slice, an index) is part of the chain.
    A call of a library function (`sa.select(User)`) is a base, not a method."""
    methods: _Methods = []
    while True:
        node = unwrap(node)
        if isinstance(node, cst.Subscript):
            return None
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            break
        if _is_function_call(node, context):
            break
        methods.append((node.func.attr.value, node))
        node = node.func.value
    methods.reverse()
    return methods, node


def _is_function_call(call: cst.Call, context: FileContext) -> bool:
    """`sa.select(...)`, `apps.get_model(...)`: a module's function, by name."""
    name = context.resolver.qualified_name(call.func)
    return name is not None and any(
        name in reads.statement_functions or name in reads.model_functions for reads in TABLE_READS
    )


def _iterating_builtin(call: cst.Call, context: FileContext) -> bool:
    func = call.func
    return (
        isinstance(func, cst.Name)
        and func.value in _ITERATING_BUILTINS
        and context.resolver.lookup(func.value) is None
        and bool(call.args)
        and call.args[0].keyword is None
        and not call.args[0].star
    )


def _keeps_rows(names: Sequence[str], reads: TableReads, *, fetch_last: bool) -> bool:
    """Every method keeps every row (the last may fetch them all), and none
    groups them."""
    for index, name in enumerate(names):
        last = index == len(names) - 1
        if name not in reads.keep_rows and not (fetch_last and last and name in reads.fetch_all):
            return False
    for earlier, later in reads.groupings:
        if earlier in names and later in names[names.index(earlier) + 1 :]:
            return False
    return True


def _iterator_note(names: Sequence[str]) -> str:
    streams = [n for n in names if n in {"iterator", "aiterator", "yield_per"}]
    if not streams:
        return ""
    return f"{streams[0]}() streams the rows, but this one job still reads every one of them"


# --- a model's default manager: `User.objects.all()`, `User.query.all()` ---------------


def _manager_read(
    text: str,
    methods: _Methods,
    base: cst.BaseExpression,
    reads: TableReads,
    context: FileContext,
    lookup: Lookup,
) -> TableRead | None:
    if not (isinstance(base, cst.Attribute) and base.attr.value in reads.managers):
        return None
    names = [name for name, _ in methods]
    if not _keeps_rows(names, reads, fetch_last=True):
        return None
    requires = _model_requires(base.value, reads, context, lookup)
    if requires is None:
        return None
    return TableRead(text, reads.library, _iterator_note(names), requires)


def _model_requires(
    model: cst.BaseExpression, reads: TableReads, context: FileContext, lookup: Lookup
) -> tuple[Requirement, ...] | None:
    """() when `model` surely is a model class of the library, the class
    requirement when the project must tell, None when it can't be one."""
    model = unwrap(model)
    resolver = context.resolver
    if isinstance(model, cst.Call):
        return () if resolver.qualified_name(model.func) in reads.model_functions else None
    parts = dotted_parts(model)
    if parts is None or not parts[-1][:1].isupper():
        return None
    binding = resolver.lookup(parts[0])
    if binding is None:
        return None
    if binding.kind not in (BindingKind.IMPORT, BindingKind.DEF):
        # `User = get_user_model()`.
        if len(parts) > 1 or not isinstance(model, cst.Name):
            return None
        resolved = lookup.resolve(model)
        value = unwrap(resolved[0]) if resolved is not None else None
        if isinstance(value, cst.Call):
            return () if resolver.qualified_name(value.func) in reads.model_functions else None
        return None
    qualname = resolver.qualified_name(model)
    if qualname is None or in_standard_library(qualname):
        return None
    if payloads.BASE_CLASS_KINDS.get(qualname) == reads.model_kind:
        return ()  # a library's own model (`django.contrib.auth.models.User`)
    if binding.kind is BindingKind.DEF:
        if len(parts) > 1 or not isinstance(binding.node, cst.ClassDef):
            return None
        if reads.model_kind in class_facts(binding.node, qualname, resolver).kinds:
            return ()
    return (ClassOfKind(qualname, frozenset({reads.model_kind})),)


# --- a session's query: `session.query(User).all()` ---------------------------------------


def _query_read(
    text: str, methods: _Methods, reads: TableReads, context: FileContext
) -> TableRead | None:
    if not methods or methods[0][0] not in reads.query_methods:
        return None
    names = [name for name, _ in methods[1:]]
    if not _keeps_rows(names, reads, fetch_last=True):
        return None
    requires = _entities_requires(methods[0][1], reads, context)
    if requires is None:
        return None
    return TableRead(text, reads.library, _iterator_note(names), requires)


def _entities_requires(
    call: cst.Call, reads: TableReads, context: FileContext
) -> tuple[Requirement, ...] | None:
    """`query(User)`, `select(User.id, User.email)`: each entity a model
    class the project must confirm, the library in reach; None for anything
    else (`func.count(...)`, a table, a name this function assigns)."""
    if not call.args:
        return None
    resolver = context.resolver
    found: dict[str, Requirement] = {}
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            return None
        parts = dotted_parts(unwrap(arg.value))
        if parts is None or len(parts) > 2 or not parts[0][:1].isupper():
            return None
        binding = resolver.lookup(parts[0])
        if binding is None or binding.kind not in (BindingKind.IMPORT, BindingKind.DEF):
            return None
        qualname = resolver.qualified_name(cst.Name(parts[0]))
        if qualname is None or in_standard_library(qualname):
            return None
        found[qualname] = ClassOfKind(qualname, frozenset({reads.model_kind}))
    requires = tuple(found.values())
    if not resolver.imports_any(reads.modules):
        reach = ReachesLibrary(resolver.module, reads.modules)
        requires = (*requires, reach)
    return requires


# --- a statement run by a session: `session.scalars(select(User)).all()` -------------------


def _statement_read(
    text: str,
    methods: _Methods,
    reads: TableReads,
    context: FileContext,
    lookup: Lookup,
) -> TableRead | None:
    if not reads.statement_functions or not methods:
        return None
    method, call = methods[0]
    if method not in reads.execute_methods or not call.args or call.args[0].keyword is not None:
        return None
    if any(name not in reads.fetch_all for name, _ in methods[1:]):
        return None
    statement = _statement(call.args[0].value, reads, context, lookup, 0)
    if statement is None:
        return None
    entities, names = statement
    requires = _entities_requires(entities, reads, context)
    if requires is None:
        return None
    note = _iterator_note([*names, *(name for name, _ in methods[1:])])
    return TableRead(text, reads.library, note, requires)


def _statement(
    node: cst.BaseExpression, reads: TableReads, context: FileContext, lookup: Lookup, depth: int
) -> tuple[cst.Call, list[str]] | None:
    """The `select(...)` call of a statement keeping every row, and its methods."""
    node = unwrap(node)
    if isinstance(node, cst.Name) and depth < _MAX_FOLLOW:
        resolved = lookup.resolve(node)
        if resolved is None:
            return None
        return _statement(resolved[0], reads, context, resolved[1], depth + 1)
    chain = _outer_calls(node, context)
    if chain is None or not isinstance(chain[1], cst.Call):
        return None
    methods, base = chain[0], chain[1]
    names = [name for name, _ in methods]
    if not _keeps_rows(names, reads, fetch_last=False):
        return None
    if context.resolver.qualified_name(base.func) not in reads.statement_functions:
        return None
    return base, names


# --- SQL text: `cursor.execute("SELECT ... FROM t")`, then the rows ----------------------


def _sql_result(
    methods: _Methods, base: cst.BaseExpression | None, cursors: Cursors, lookup: Lookup
) -> TableRead | None:
    """`cur.fetchall()` after `cur.execute(...)`, or `conn.execute("SELECT ...")`
    iterated (`.fetchall()`, `.all()`)."""
    if not methods:
        return None
    first, call = methods[0]
    if first in _SQL_METHODS:
        rest = methods[1:]
        read = _sql_read(call, lookup)
    else:
        receiver = dotted_text(base) if base is not None else None
        if receiver is None or receiver not in cursors.last:
            return None
        rest = methods
        read = cursors.last[receiver]
    if any(name not in _SQL_FETCH_ALL for name, _ in rest):
        return None
    return read


def _sql_read(call: cst.Call, lookup: Lookup) -> TableRead | None:
    found = list(call_sql(call, lookup))
    if len(found) != 1 or found[0].holes:
        return None
    text = found[0].text
    if whole_table_select(text) is None:
        return None
    return TableRead(f'"{_shorten(" ".join(text.split()))}"', "")


@lru_cache(maxsize=1024)
def whole_table_select(text: str) -> str | None:
    """The table SQL text selects every row of, or None (it isn't one plain
    SELECT of one table of the project without a clause that bounds or
    groups the rows)."""
    if "select" not in text.lower():
        return None
    trees = statements(text)
    if trees is None or len(trees) != 1:
        return None
    from sqlglot import exp

    select = trees[0]
    if not isinstance(select, exp.Select):
        return None
    bounding = ("where", "group", "having", "limit", "offset", "fetch", "distinct", "joins")
    if any(select.args.get(key) for key in (*bounding, "with", "qualify", "into")):
        return None
    source = select.args.get("from_") or select.args.get("from")
    table = source.this if isinstance(source, exp.From) else None
    if not isinstance(table, exp.Table) or not table.name:
        return None
    if any(select.find_all(exp.AggFunc)) or _nested_select(select):
        return None
    names = (table.name.lower(), f"{table.db}.{table.name}".lower())
    if any(name.startswith(_SYSTEM_TABLES) for name in names):
        return None
    return table.name


def _nested_select(select: object) -> bool:
    from sqlglot import exp

    assert isinstance(select, exp.Select)
    return any(node is not select for node in select.find_all(exp.Select))


# --- the loop's body ------------------------------------------------------------------------


def per_row_work(loop: cst.For, context: FileContext) -> cst.CSTNode | None:
    """The first node of the loop's body that does work for a row (see the
    module docstring); None when there is none or the loop may stop early."""
    targets = set(_target_names(loop.target))
    work: cst.CSTNode | None = None
    for node, loops, collected in _body_nodes(loop.body, context):
        if isinstance(node, cst.Return) or (isinstance(node, cst.Break) and not loops):
            return None
        if work is None and _is_work(node, targets, collected, context):
            work = node
    return work


def _body_nodes(
    body: cst.BaseSuite, context: FileContext
) -> Iterator[tuple[cst.CSTNode, int, bool]]:
    """The body's nodes (not inside a nested function, lambda or class: they
    run later), each with the number of loops inside the body around it and
    whether its value is only collected (an argument of `ids.append(...)`, the
    value of `total += ...` or of `by_key[k] = ...`)."""
    stack: list[tuple[cst.CSTNode, int, bool]] = [(body, 0, False)]
    while stack:
        node, loops, collected = stack.pop()
        yield node, loops, collected
        if isinstance(node, cst.FunctionDef | cst.Lambda | cst.ClassDef):
            continue
        inner = loops + 1 if isinstance(node, cst.For | cst.While) else loops
        kept = _collected_parts(node, context)
        stack.extend(
            (child, inner, collected or any(child is k for k in kept))
            for child in reversed(children(node))
        )


def _collected_parts(node: cst.CSTNode, context: FileContext) -> tuple[cst.CSTNode, ...]:
    """The children of `node` whose values only go into the job's memory."""
    if isinstance(node, cst.AugAssign):
        return (node.value,)
    if isinstance(node, cst.Assign) and all(
        isinstance(t.target, cst.Subscript) for t in node.targets
    ):
        return (node.value,)
    if isinstance(node, cst.Call) and _collects(node, context):
        return tuple(node.args)
    return ()


def _collects(call: cst.Call, context: FileContext) -> bool:
    """`ids.append(x)`, `by_key.setdefault(k, [])`, `seen.update(xs)` on a
    container the job built."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return False
    receiver = unwrap(func.value)
    if isinstance(receiver, cst.Name) and _is_container(receiver, context):
        return True
    return func.attr.value in _COLLECTING and _pure_call(call, context)


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            yield from _target_names(element.value)


def _is_work(node: cst.CSTNode, targets: set[str], collected: bool, context: FileContext) -> bool:
    if isinstance(node, cst.Await):
        return True
    if isinstance(node, cst.Call):
        return not collected and not _pure_call(node, context)
    if isinstance(node, cst.Assign):
        return any(_row_attribute(t.target, targets) for t in node.targets)
    if isinstance(node, cst.AugAssign | cst.AnnAssign):
        return _row_attribute(node.target, targets)
    return False


def _row_attribute(target: cst.BaseExpression, targets: set[str]) -> bool:
    """`row.status = ...`: an attribute of the loop's row."""
    if not isinstance(target, cst.Attribute):
        return False
    parts = dotted_parts(target)
    return parts is not None and parts[0] in targets


def _pure_call(call: cst.Call, context: FileContext) -> bool:
    func = call.func
    resolver = context.resolver
    if isinstance(func, cst.Name):
        if resolver.lookup(func.value) is None and func.value in _PURE_BUILTINS:
            return True
        name = resolver.qualified_name(func)
        return name is not None and _pure_function(name)
    if not isinstance(func, cst.Attribute):
        return False
    method = func.attr.value
    receiver = unwrap(func.value)
    qualname = resolver.qualified_name(func)
    if qualname is not None and _pure_function(qualname):
        return True
    parts = dotted_parts(receiver)
    if method in _LOG_METHODS and parts is not None and "log" in parts[-1].lower():
        return True
    if isinstance(receiver, cst.Name) and _is_container(receiver, context):
        return True
    if method not in _PURE_METHODS:
        return False
    if parts is None:
        # `"...".join(...)`, `d[k].append(...)`, `f(x).get(...)` (`f(x)` is judged apart).
        return True
    # A module's function (`requests.get`) or a manager's query
    # (`Order.objects.get`) is no container's method.
    root = resolver.lookup(parts[0])
    if root is not None and root.kind is BindingKind.IMPORT:
        return False
    return not any(part in _MANAGERS for part in parts[1:])


def _pure_function(qualname: str) -> bool:
    return qualname in retries.PURE_FUNCTIONS or any(
        qualname == m or qualname.startswith(f"{m}.")
        for m in (*retries.PURE_MODULES, *_PURE_MODULES)
    )


def _is_container(name: cst.Name, context: FileContext) -> bool:
    """A name assigned once to a list, set or dict the job builds."""
    resolved = lookup_for(context).resolve(name)
    if resolved is None:
        return False
    value = unwrap(resolved[0])
    if isinstance(value, _CONTAINER_NODES):
        return True
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if isinstance(func, cst.Name) and func.value in _CONTAINER_BUILTINS:
        return context.resolver.lookup(func.value) is None
    qualname = context.resolver.qualified_name(func)
    return qualname is not None and qualname.startswith("collections.")


# --- text for messages --------------------------------------------------------------------


def _code(node: cst.CSTNode) -> str:
    return _shorten(" ".join(cst.Module([]).code_for_node(node).split()))


def work_text(node: cst.CSTNode) -> str:
    """How a message names a loop's work, arguments left out:
    `tree.prune()`, `Alerts.objects.filter(...).delete()`, `row.closed = True`."""
    if isinstance(node, cst.Await):
        return f"await {work_text(node.expression)}"
    if isinstance(node, cst.BaseExpression):
        return _shorten(_shape(node))
    return _code(node)


def _shape(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Call):
        return f"{_shape(node.func)}({'...' if node.args else ''})"
    if isinstance(node, cst.Attribute):
        return f"{_shape(node.value)}.{node.attr.value}"
    if isinstance(node, cst.Subscript):
        return f"{_shape(node.value)}[...]"
    if isinstance(node, cst.Name):
        return node.value
    return "..."


def _shorten(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else f"{text[: _MAX_TEXT - 3]}..."

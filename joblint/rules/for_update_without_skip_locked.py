from __future__ import annotations

import re
from collections.abc import Sequence
from enum import Enum

import libcst as cst

from joblint.analysis.chains import Link, chain_links, chain_nodes, unwrap
from joblint.analysis.context import FileContext
from joblint.analysis.rewrite import with_keyword
from joblint.analysis.sql import (
    Lookup,
    SqlText,
    call_sql,
    locking_reads,
    looks_like_sql,
    lookup_for,
    static_sql,
)
from joblint.knowledge import locks
from joblint.rule import FixSpec, Rule, Valid, fix, invalid


class _Flag(Enum):
    ON = "on"
    OFF = "off"
    UNKNOWN = "unknown"


class ForUpdateWithoutSkipLocked(Rule):
    """
    ## What it does
    Finds row-locking reads that pick "the next" row(s) among many and wait for
    rows other transactions hold: a `SELECT ... FOR UPDATE` (also `FOR NO KEY
    UPDATE`, `FOR SHARE`) with `ORDER BY` or `LIMIT` and neither `SKIP LOCKED`
    nor `NOWAIT`, in SQL written in Python strings; a Django
    `select_for_update()` or SQLAlchemy `with_for_update()` chain that ends in
    `.first()`, `.last()`, `[0]`, `[:n]`, has `.limit(...)`, or is iterated in
    a worker's `while` loop. An ORM `.order_by(...)` alone picks nothing: it
    locks every matching row in that order (the usual way to avoid deadlocks).

    ## Why is this bad?
    Every worker asks for the same "next" row. The first one locks it; all the
    others block on that row until the first commits, then most of them find
    it already taken. The queue has one effective consumer however many
    workers run, and a slow job stalls them all.

    ## Example
    ```python
    CLAIM = '''
        SELECT id FROM jobs
        WHERE status = 'queued'
        ORDER BY id
        LIMIT 1
        FOR UPDATE
    '''

    def claim(cursor):
        cursor.execute(CLAIM)
        return cursor.fetchone()
    ```

    ## Use instead
    ```python
    CLAIM = '''
        SELECT id FROM jobs
        WHERE status = 'queued'
        ORDER BY id
        LIMIT 1
        FOR UPDATE SKIP LOCKED
    '''
    ```
    With Django, `select_for_update(skip_locked=True)`; with SQLAlchemy,
    `with_for_update(skip_locked=True)`; or let
    `joblint.runtime.queue.JobQueue.claim` do the claim.

    ## Fix safety
    Unsafe fix (`--fix --unsafe-fixes`): adds `SKIP LOCKED` after the lock
    clause in the SQL string (quotes, prefixes and f-string parts kept), or
    `skip_locked=True` to `select_for_update()`/`with_for_update()`.
    `SKIP LOCKED` gives each worker a different row, which is the point for a
    queue but changes what a query returns: code that relied on waiting for a
    specific row must lock it by key instead. MariaDB before 10.6 and SQLite
    have no `SKIP LOCKED` (SQLite has no row locks at all).

    ## Known limits
    - SQL is read from string literals, concatenations, `%`/`.format`
      templates and f-strings (a part whose value isn't known is a
      placeholder), following a name assigned once in the function or module
      (or `self.X` assigned once in the class). SQL built with `+=` or passed
      in from another module is not seen.
    - Strings are analysed when they are passed to `execute`/`fetch*`/`raw`/
      `text()`-like calls or a `cursor`, or when they start like SQL
      (`SELECT`, `WITH`, `UPDATE`...) and are passed to a call, assigned or
      returned (query builders). Text sqlglot can't parse (as PostgreSQL,
      MySQL or Oracle) is skipped.
    - `LIMIT` without `WHERE` or `ORDER BY` locks a singleton row (a counter)
      on purpose: not reported. Serialising on purpose with `ORDER BY ...
      LIMIT 1` (e.g. "last number + 1") can't be told from a queue claim.
    - Locking one row by key is never reported: a WHERE (or `filter`/`where`)
      that pins `id`, `pk` or `uuid` by equality or `IN`, or a `.get(...)`.
      A placeholder where a whole condition could go makes the query unknown.
    - The ORM chain is read by method names (`select_for_update`,
      `with_for_update`, `first`, `order_by`...), whatever the receiver;
      `filter(**kwargs)` or a filter built elsewhere makes it unknown.
    """

    CODE = "JL401"
    SUMMARY = "Row lock on a pick-next query waits for other workers' rows (no SKIP LOCKED)"
    HELP = (
        "Add SKIP LOCKED: FOR UPDATE SKIP LOCKED, select_for_update(skip_locked=True), "
        "with_for_update(skip_locked=True), or joblint.runtime.queue.JobQueue.claim"
    )

    VALID = (
        Valid(
            """
from django.db import transaction

from shop.models import Basket


def lock_baskets(owner):
    # Every basket of the owner, locked in key order: nothing is picked.
    with transaction.atomic():
        baskets = Basket.objects.filter(owner=owner).order_by("pk")
        return list(baskets.select_for_update(of=("self",)))
""",
            id="orm-order-by-locks-all-rows-in-order",
        ),
        Valid(
            """
def claim(cursor):
    cursor.execute(
        "SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
    )
    return cursor.fetchone()
""",
            id="skip-locked",
        ),
        Valid(
            """
def claim(cursor):
    cursor.execute("select id from jobs order by id limit 5 for update of jobs skip locked")
    cursor.execute("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR NO KEY UPDATE NOWAIT")
""",
            id="of-table-and-nowait",
        ),
        Valid(
            """
def lock_job(cursor, job_id):
    cursor.execute("SELECT * FROM jobs WHERE id = %s LIMIT 1 FOR UPDATE", (job_id,))
    cursor.execute(
        "SELECT * FROM jobs WHERE jobs.uuid = %(u)s AND status = 'new' ORDER BY 1 FOR UPDATE",
        {"u": job_id},
    )
    cursor.execute("SELECT * FROM jobs WHERE id IN %s ORDER BY id FOR UPDATE", (tuple([1, 2]),))
""",
            id="one-row-by-key",
        ),
        Valid(
            """
def claim(cursor):
    cursor.execute(
        '''
        SELECT id FROM jobs  -- never FOR UPDATE here
        WHERE note <> 'ORDER BY id LIMIT 1 FOR UPDATE'
        /* FOR UPDATE */
        ORDER BY id LIMIT 1
        '''
    )
""",
            id="for-update-in-comment-or-string",
        ),
        Valid(
            """
import logging

log = logging.getLogger(__name__)

def claim():
    log.info("Select the next job for update, order by age, limit 1")
    print("we lock with FOR UPDATE and ORDER BY id LIMIT 1")
""",
            id="prose-is-not-sql",
        ),
        Valid(
            """
def claim(cursor, where):
    cursor.execute(f"SELECT id FROM jobs WHERE {where} ORDER BY id LIMIT 1 FOR UPDATE")
    cursor.execute("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE %s" % "SKIP LOCKED")
""",
            id="unknown-condition-or-clause",
        ),
        Valid(
            """
def sweep(cursor):
    cursor.execute("SELECT id FROM jobs WHERE status = 'stale' FOR UPDATE")
    cursor.execute("SELECT last_number FROM invoice_counter LIMIT 1 FOR UPDATE")
""",
            id="no-order-no-limit",
        ),
        Valid(
            """
from django.db import transaction
from .models import Job

def run(job_id):
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        same = Job.objects.select_for_update().filter(pk=job_id).first()
        other = Job.objects.select_for_update().filter(id__in=[1, 2]).order_by("id")[0]
        queued = Job.objects.select_for_update(skip_locked=True).filter(status="queued").first()
        waiting = Job.objects.select_for_update(nowait=True).order_by("id").first()
""",
            id="django-by-key-or-skip-locked",
        ),
        Valid(
            """
from .models import Job

def claim(options, filters):
    a = Job.objects.select_for_update(**options).order_by("id").first()
    b = Job.objects.select_for_update().filter(**filters).order_by("id").first()
""",
            id="django-unknown-kwargs",
        ),
        Valid(
            """
from sqlalchemy import select
from .models import Job

def claim(session, job_id):
    stmt = select(Job).where(Job.id == job_id).limit(1).with_for_update()
    job = session.scalars(stmt).first()
    row = (
        session.query(Job)
        .filter(Job.status == "queued")
        .with_for_update(skip_locked=True)
        .first()
    )
""",
            id="sqlalchemy-by-key-or-skip-locked",
        ),
    )

    INVALID = (
        invalid(
            """
def claim(cursor):
    cursor.execute(
        "SELECT id FROM jobs WHERE status = 'new' ORDER BY id LIMIT 1 FOR UPDATE"
    )
""",
            (4, 9, "FOR UPDATE SKIP LOCKED"),
            fixed="""
def claim(cursor):
    cursor.execute(
        "SELECT id FROM jobs WHERE status = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
    )
""",
            id="plain-string",
        ),
        invalid(
            """
CLAIM = '''
    -- the oldest queued job
    select id
      from jobs
     where status = 'queued'
     order by id
     LIMIT 1
       for update
'''

def claim(conn):
    with conn.cursor() as cur:
        cur.execute(CLAIM)
        return cur.fetchone()
""",
            (2, 9, "FOR UPDATE with ORDER BY and LIMIT"),
            fixed="""
CLAIM = '''
    -- the oldest queued job
    select id
      from jobs
     where status = 'queued'
     order by id
     LIMIT 1
       for update skip locked
'''

def claim(conn):
    with conn.cursor() as cur:
        cur.execute(CLAIM)
        return cur.fetchone()
""",
            id="module-constant-triple-quoted-mixed-case",
        ),
        invalid(
            """
TABLE = "jobs"

def claim(cursor, queue):
    cursor.execute(
        f"SELECT id FROM {TABLE} WHERE queue = {queue!r} "
        "ORDER BY priority DESC, id "
        f"LIMIT {1} FOR NO KEY UPDATE"
    )
""",
            (6, 9, "FOR NO KEY UPDATE"),
            fixed="""
TABLE = "jobs"

def claim(cursor, queue):
    cursor.execute(
        f"SELECT id FROM {TABLE} WHERE queue = {queue!r} "
        "ORDER BY priority DESC, id "
        f"LIMIT {1} FOR NO KEY UPDATE SKIP LOCKED"
    )
""",
            id="f-string-concatenation",
        ),
        invalid(
            """
def claim(cursor, n):
    q = "SELECT id FROM job WHERE q = %s " + "ORDER BY id LIMIT {} FOR SHARE".format(n)
    cursor.execute(q, ("queued",))
""",
            (3, 9, "FOR SHARE"),
            fixed="""
def claim(cursor, n):
    q = "SELECT id FROM job WHERE q = %s " + "ORDER BY id LIMIT {} FOR SHARE SKIP LOCKED".format(n)
    cursor.execute(q, ("queued",))
""",
            id="plus-and-format",
        ),
        invalid(
            """
from sqlalchemy import text

def claim(session):
    return session.execute(
        text("UPDATE jobs SET status = 'running' WHERE id = ("
             "SELECT id FROM jobs WHERE status = 'new' ORDER BY id LIMIT 1 FOR UPDATE"
             ") RETURNING id")
    ).scalar()
""",
            (6, 14, "FOR UPDATE"),
            fixed="""
from sqlalchemy import text

def claim(session):
    return session.execute(
        text("UPDATE jobs SET status = 'running' WHERE id = ("
             "SELECT id FROM jobs WHERE status = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
             ") RETURNING id")
    ).scalar()
""",
            id="subquery-in-update",
        ),
        invalid(
            """
from django.db import transaction
from .models import Job

def next_job():
    with transaction.atomic():
        job = Job.objects.select_for_update().order_by("created").first()
        batch = Job.objects.filter(status="queued").select_for_update()[:10]
        return job, batch
""",
            (7, 27, "select_for_update(skip_locked=True)"),
            (8, 53, "select_for_update(skip_locked=True)"),
            fixed="""
from django.db import transaction
from .models import Job

def next_job():
    with transaction.atomic():
        job = Job.objects.select_for_update(skip_locked=True).order_by("created").first()
        batch = Job.objects.filter(status="queued").select_for_update(skip_locked=True)[:10]
        return job, batch
""",
            id="django-first-and-slice",
        ),
        invalid(
            """
from django.db import transaction
from .models import Job

def worker():
    while True:
        with transaction.atomic():
            pending = Job.objects.select_for_update().filter(status="queued")
            for job in pending:
                job.run()
""",
            (8, 35, "iterated in a worker loop"),
            fixed="""
from django.db import transaction
from .models import Job

def worker():
    while True:
        with transaction.atomic():
            pending = Job.objects.select_for_update(skip_locked=True).filter(status="queued")
            for job in pending:
                job.run()
""",
            id="django-iterated-in-worker-loop",
        ),
        invalid(
            """
from sqlalchemy import select
from .models import Job

def claim(session):
    stmt = select(Job).order_by(Job.id).limit(1).with_for_update()
    job = session.scalars(stmt).first()
    other = session.query(Job).with_for_update(read=True).first()
""",
            (6, 50, "with_for_update(skip_locked=True)"),
            (8, 32, "with_for_update(skip_locked=True)"),
            fixed="""
from sqlalchemy import select
from .models import Job

def claim(session):
    stmt = select(Job).order_by(Job.id).limit(1).with_for_update(skip_locked=True)
    job = session.scalars(stmt).first()
    other = session.query(Job).with_for_update(read=True, skip_locked=True).first()
""",
            id="sqlalchemy",
        ),
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._reported: set[int] = set()
        self._covered: set[int] = set()
        # `while` depth per function: a `for` over a locking query inside one is
        # a worker loop.
        self._while_depth: list[int] = [0]

    # --- traversal -------------------------------------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._while_depth.append(0)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._while_depth.pop()

    def visit_While(self, node: cst.While) -> None:
        self._while_depth[-1] += 1

    def leave_While(self, node: cst.While) -> None:
        self._while_depth[-1] -= 1

    def visit_For(self, node: cst.For) -> None:
        if self._while_depth[-1] > 0:
            self._check_chain(node.iter, iterated=True)

    def visit_Call(self, node: cst.Call) -> None:
        lookup = lookup_for(self.context)
        for found in call_sql(node, lookup):
            self._check_sql(found)
        self._check_chain(node, iterated=False)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._check_chain(node, iterated=False)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self._check_sql_looking(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        self._check_sql_looking(node.value)

    def _check_sql_looking(self, value: cst.BaseExpression) -> None:
        """Query builders return or store SQL that a call elsewhere runs."""
        found = static_sql(value, lookup_for(self.context))
        if found is not None and looks_like_sql(found.text):
            self._check_sql(found)

    # --- raw SQL --------------------------------------------------------------------------

    def _check_sql(self, found: SqlText) -> None:
        text, anchor = found.text, found.anchor
        if id(anchor) in self._reported:
            return
        for read in locking_reads(text) or ():
            if read.waits and read.picks_next and not read.pinned_by_key and not read.uncertain:
                self._reported.add(id(anchor))
                message = _sql_message(read.clause, text)
                self.report(anchor, message, fix=_sql_fix(found.literals))
                return

    # --- ORM chains --------------------------------------------------------------------

    def _check_chain(self, top: cst.BaseExpression, *, iterated: bool) -> None:
        top = unwrap(top)
        if id(top) in self._covered:
            return
        written = chain_nodes(top)
        self._covered.update(id(n) for n in written)
        if not written and not isinstance(top, cst.Name | cst.Attribute):
            return
        links = chain_links(top, lookup_for(self.context))
        lock_index = next(
            (i for i, link in enumerate(links) if link.method in locks.ROW_LOCK_METHODS), None
        )
        if lock_index is None:
            return
        lock = links[lock_index]
        name = lock.name_node
        if name is None or id(name) in self._reported or lock.call is None:
            return
        if _lock_does_not_wait(lock) is not _Flag.OFF:
            return
        reason = _picks_next(links, iterated)
        if reason is None or _pinned(links) is not _Flag.OFF:
            return
        self._reported.add(id(name))
        method = locks.ROW_LOCK_METHODS[lock.method]
        self.report(
            name,
            f"{lock.method}() on a query that picks the next row ({reason}) waits for rows "
            f"other workers hold, so workers queue behind one row: use {method.fix} "
            f"(or {locks.QUEUE_FIX})",
            fix=fix(lock.call, _skip_locked_call(lock.call), "Add skip_locked=True"),
        )


# --- fixes (issue 10) ---------------------------------------------------------------------

_LOCK_CLAUSE = re.compile(
    r"\bfor\s+(?:no\s+key\s+update|key\s+share|update|share)\b", re.IGNORECASE
)
_OF_TABLE = re.compile(r"\s+of\s+[\w.\"]+", re.IGNORECASE)
_MORE_TABLE = re.compile(r"\s*,\s*[\w.\"]+")
_NO_WAIT = re.compile(r"\s+(?:skip\s+locked|nowait)\b", re.IGNORECASE)


def _clause_end(text: str, match: re.Match[str]) -> int | None:
    """Where SKIP LOCKED goes after a lock clause (after `OF t1, t2`); None
    when the clause already has SKIP LOCKED or NOWAIT."""
    end = match.end()
    table = _OF_TABLE.match(text, end)
    if table is not None:
        end = table.end()
        while (more := _MORE_TABLE.match(text, end)) is not None:
            end = more.end()
    return None if _NO_WAIT.match(text, end) else end


def _skip_locked_call(call: cst.Call) -> cst.Call:
    """`call` with `skip_locked=True` (replacing a `skip_locked=False`)."""
    return with_keyword(call, "skip_locked", cst.Name("True"))


_Literal = cst.SimpleString | cst.FormattedStringText


def _literal_parts(literals: Sequence[cst.CSTNode]) -> list[_Literal]:
    parts: list[_Literal] = []
    for literal in literals:
        if isinstance(literal, cst.SimpleString):
            parts.append(literal)
        elif isinstance(literal, cst.FormattedString):
            parts.extend(p for p in literal.parts if isinstance(p, cst.FormattedStringText))
    return parts


def _sql_fix(literals: Sequence[cst.CSTNode]) -> FixSpec | None:
    """Insert SKIP LOCKED after the last lock clause written in one literal."""
    for part in reversed(_literal_parts(literals)):
        ends = [(m, _clause_end(part.value, m)) for m in _LOCK_CLAUSE.finditer(part.value)]
        found = [(m, end) for m, end in ends if end is not None]
        if not found:
            continue
        match, end = found[-1]
        words = " SKIP LOCKED" if match.group().isupper() else " skip locked"
        new = part.with_changes(value=part.value[:end] + words + part.value[end:])
        return fix(part, new, "Add SKIP LOCKED")
    return None


def _sql_message(clause: str, text: str) -> str:
    return (
        f"{clause} with {_sql_shape(text)} and no SKIP LOCKED: every worker waits for the row "
        f"the first one locked. Use {locks.SQL_FIX}"
    )


def _sql_shape(text: str) -> str:
    lowered = " ".join(text.lower().split())
    has_order = "order by" in lowered
    has_limit = "limit" in lowered or "fetch first" in lowered
    if has_order and has_limit:
        return "ORDER BY and LIMIT"
    return "ORDER BY" if has_order else "LIMIT"


def _literal_flag(node: cst.BaseExpression) -> _Flag:
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return _Flag.ON if node.value == "True" else _Flag.OFF
    return _Flag.UNKNOWN


def _lock_does_not_wait(lock: Link) -> _Flag:
    """ON when skip_locked/nowait is True, OFF when surely absent or false."""
    call = lock.call
    assert call is not None
    keywords = locks.ROW_LOCK_METHODS[lock.method].non_waiting
    result = _Flag.OFF
    for arg in call.args:
        if arg.star or arg.keyword is None:
            return _Flag.UNKNOWN  # `**options`, or Django's positional nowait
        if arg.keyword.value in keywords:
            flag = _literal_flag(arg.value)
            if flag is _Flag.ON:
                return _Flag.ON
            if flag is _Flag.UNKNOWN:
                result = _Flag.UNKNOWN
    return result


def _picks_next(links: list[Link], iterated: bool) -> str | None:
    """Why the chain picks the next row(s) among many; None if it doesn't."""
    if any(link.method in locks.SINGLE_ROW_METHODS for link in links):
        return None
    for link in reversed(links):
        if link.method in locks.PICK_NEXT_METHODS:
            return f".{link.method}()"
        if isinstance(link.node, cst.Subscript):
            return "a slice" if _is_slice(link.node) else "an index"
    return "iterated in a worker loop" if iterated else None


def _is_slice(node: cst.Subscript) -> bool:
    return any(isinstance(element.slice, cst.Slice) for element in node.slice)


def _pinned(links: list[Link]) -> _Flag:
    """ON when a filter pins the row by key; UNKNOWN when a filter can't be read."""
    result = _Flag.OFF
    for link in links:
        call = link.call
        if call is None or link.method not in locks.FILTER_METHODS:
            continue
        flag = _filter_pins_key(call.args, link.lookup)
        if flag is _Flag.ON:
            return _Flag.ON
        if flag is _Flag.UNKNOWN:
            result = _Flag.UNKNOWN
    return result


def _filter_pins_key(args: Sequence[cst.Arg], lookup: Lookup) -> _Flag:
    result = _Flag.OFF
    for arg in args:
        if arg.star:
            return _Flag.UNKNOWN
        if arg.keyword is not None:
            if arg.keyword.value in locks.KEY_LOOKUPS:
                return _Flag.ON
            continue
        flag = _condition_pins_key(arg.value, lookup)
        if flag is _Flag.ON:
            return _Flag.ON
        if flag is _Flag.UNKNOWN:
            result = _Flag.UNKNOWN
    return result


def _condition_pins_key(node: cst.BaseExpression, lookup: Lookup) -> _Flag:
    """A positional filter: SQLAlchemy `Job.id == x`, `Job.id.in_(...)`,
    `and_(...)`, Django `Q(pk=x)`. Anything else can't be read."""
    if isinstance(node, cst.Comparison):
        return _comparison_pins_key(node)
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in locks.IN_METHODS:
            return _Flag.ON if _is_key_attribute(func.value) else _Flag.OFF
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if name in locks.Q_NAMES or name in ("and_",):
            return _filter_pins_key(node.args, lookup)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitAnd):
        left = _condition_pins_key(node.left, lookup)
        right = _condition_pins_key(node.right, lookup)
        if _Flag.ON in (left, right):
            return _Flag.ON
        return _Flag.UNKNOWN if _Flag.UNKNOWN in (left, right) else _Flag.OFF
    if isinstance(node, cst.BinaryOperation | cst.UnaryOperation):
        return _Flag.OFF  # `Q(...) | Q(...)`, `~Q(...)`: an OR never pins one row
    return _Flag.UNKNOWN


def _comparison_pins_key(node: cst.Comparison) -> _Flag:
    if len(node.comparisons) != 1:
        return _Flag.OFF
    target = node.comparisons[0]
    if not isinstance(target.operator, cst.Equal | cst.In):
        return _Flag.OFF
    if _is_key_attribute(node.left) or _is_key_attribute(target.comparator):
        return _Flag.ON
    return _Flag.OFF


def _is_key_attribute(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value in locks.KEY_COLUMNS

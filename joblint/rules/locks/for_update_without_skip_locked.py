"""JL401 for-update-without-skip-locked.

Row lock on a pick-next query waits for other workers' rows (no SKIP LOCKED).

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL401` show) and its teaching examples."""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from joblint.analysis.chains import Link, chain_links, chain_nodes
from joblint.analysis.context import FileContext
from joblint.analysis.names import unwrap
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
from joblint.analysis.task_functions import TaskDefinition, task_definition
from joblint.knowledge import locks
from joblint.knowledge.trigger import Trigger
from joblint.models import CLAIMER, JOB_RUNNER
from joblint.requirements import ClaimedByCaller, LacksUniqueKey, Requirement, RunByJob
from joblint.rule import FixSpec, Rule, Valid, fix, invalid
from joblint.rules.locks._facts.orm_filters import (
    Condition,
    Kind,
    chain_conditions,
    chain_model,
    constructed_model,
)
from joblint.rules.locks._facts.redis_clients import Tri
from joblint.rules.locks._facts.row_claims import Use, locked_rows_use
from joblint.rules.locks._facts.row_locks import (
    Pick,
    PickNext,
    RowLock,
    executed_statement,
    row_lock,
)

# `FOR UPDATE`/`FOR NO KEY UPDATE`/`FOR SHARE` in SQL, `select_for_update`,
# `with_for_update` in an ORM chain; confirmed on the AST (SQL in the file's
# strings, or an ORM lock where the file picks rows at all).
_ROW_LOCK = Trigger(
    ("update", "share"),
    (
        r"for(?:\s+(?:no\s+key\s+)?update|\s+(?:key\s+)?share|_update)\b",
        r"select|for_update",
    ),
    confirm="row-lock-picking-rows",
)


class ForUpdateWithoutSkipLocked(Rule):
    """
    ## What it does
    Finds row-locking reads that pick "the next" row(s) among many and wait for
    rows other transactions hold: a `SELECT ... FOR UPDATE` (also `FOR NO KEY
    UPDATE`, `FOR SHARE`) with `ORDER BY` or `LIMIT` and neither `SKIP LOCKED`
    nor `NOWAIT`, in SQL written in Python strings; a Django
    `select_for_update()` or SQLAlchemy `with_for_update()` chain that ends in
    `.first()`, `.last()`, `[0]`, `[:n]` (also on the result of the statement
    a session runs, `session.scalars(stmt).first()`), has `.limit(...)`, or is
    iterated in
    a worker's `while` loop, in a job's body or in a function a job runs (a
    model's rows filtered by constants alone, with no LIMIT: every run locks
    every matching row; a value the job is given, `order=order_id`, or a
    parent's rows, `batch.jobs`, keep each run to its own), when the function
    then claims the locked rows:
    writes them (`row.status = ...; row.save()`, or with SQLAlchemy the
    attribute assignment alone), updates or deletes them (`qs.update(...)`,
    `row.delete()`, `session.delete(row)`, `X.objects.filter(pk__in=ids)
    .update(...)`, `bulk_update(rows, ...)`). A pick-next helper that
    returns the locked row(s) (`return list(session.scalars(stmt))` too) is
    reported when one of its callers, in any
    module of the project, claims what it returns (`job = next_job(s);
    job.state = "running"`, `for job in next_jobs(s): job.save()`); the
    message names that caller. A plain function looping over such rows and
    claiming each (`for job in Job.query.filter(Job.state == "due")
    .with_for_update().all(): job.state = "queued"`, or the rows of a
    statement a session runs, `session.scalars(stmt)`) is reported where a
    task of the project runs it, itself or through the project's functions;
    the message names the task and the calls down to the function. An ORM
    `.order_by(...)` alone picks nothing: it locks every matching row in that
    order (the usual way to avoid deadlocks). A shared lock,
    `with_for_update(read=True)` (`FOR SHARE`), is reported as well: it waits
    for the row another worker claimed, and shared locks don't exclude one
    another, so two workers may take one row and deadlock when both write it.

    Not reported, because the lock names its row and waiting for it is right
    (`SKIP LOCKED` would turn "another worker holds it" into "not found"):
    - a filter that pins `id`, `pk` or `uuid` by equality or `IN`, a `.get()`;
    - a filter that pins by equality every column of a unique set the project's
      models declare: a Django field with `primary_key=True`/`unique=True`, a
      `OneToOneField`, `Meta.unique_together`, `Meta.constraints`'
      `UniqueConstraint(fields=...)`; a SQLAlchemy `Column`/`mapped_column`
      with `primary_key=True` (several together are one key) or `unique=True`,
      `UniqueConstraint(...)` in `__table_args__`; inherited from the model's
      bases (abstract models, mixins) too. The model may be defined in any
      module of the project;
    - a filter made only of equalities with values the code passes
      (`ip_address=ip`, `Job.owner == owner`), with no ordering and at most
      one row taken (a natural key). A constant (`status="queued"`,
      `Status.QUEUED`) does not name a row; a range, `__in`, `exclude`, an
      OR, ordering or a slice beyond the first row pick among many.

    Not reported either: rows locked to serialise and only read (the last
    invoice number, to add one), handed back to callers none of which claims
    them (they only read them), or a find-or-create
    (the function tests the lookup and, when it found nothing, creates a row of
    the same model, `Model.objects.create(...)` or `Model(...)` saved
    afterwards: skipping a locked row would create a duplicate).

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
    `joblint_runtime.queue.JobQueue.claim` do the claim.

    ## Fix safety
    Unsafe fix (`--fix --unsafe-fixes`): adds `SKIP LOCKED` after the lock
    clause in the SQL string (quotes, prefixes and f-string parts kept), or
    `skip_locked=True` to `select_for_update()`/`with_for_update()`, dropping
    `read=True` (a shared lock skipping locked rows still lets two workers
    share a row).
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
      MySQL or Oracle) is skipped, and so is text it parses leniently that
      isn't SQL: a lock on a SELECT without FROM, or `FROM`/`WHERE`/`ORDER BY`
      after the lock clause (prose such as "select the next job for update,
      order by age").
    - Raw SQL is judged by its text alone: `LIMIT` without `WHERE` or `ORDER
      BY` locks a singleton row (a counter) on purpose and is not reported;
      serialising on purpose with `ORDER BY ... LIMIT 1` ("last number + 1")
      can't be told from a queue claim, and the project's unique columns are
      not matched to tables. A placeholder where a whole condition could go
      makes the query unknown.
    - The ORM chain is read by method names (`select_for_update`,
      `with_for_update`, `first`, `order_by`...), whatever the receiver;
      `filter(**kwargs)` or a condition built elsewhere makes it unknown. The
      queried model is the chain's root (`Job.objects`, `select(Job)`,
      `session.query(Job)`); in a SQLAlchemy comparison the column side is an
      attribute of a capitalised name (`Job.state`) or of a table's `.c`
      (heuristics), and a constant is a literal, an upper-case name or an
      attribute of a capitalised name.
    - A unique set is matched by the field names the model declares (a
      foreign key also as `<name>_id`); a `UniqueConstraint` with a
      `condition=` (partial) or expressions, and keys spread over several
      classes of a composite primary key, are not used; nor are the keys of
      models defined in libraries (`User.username` of `django.contrib.auth`).
    - The claim is looked for in the same function, following the rows
      through names (`row = rows.first()`, `for row in rows`, `list(rows)`,
      `batch.append(row)`), and in the callers of a function that returns
      them (the row or rows bound to a name, or looped over, and written
      there); a claim made by another function (`claim(row)`, `row.start()`),
      by raw SQL, or by a caller's caller is not seen, and the lock is not
      reported. A caller in the project's tests counts as a caller. A job is
      a function a job library's decorator (or the project's own task
      decorator) registers, or a method of a job library's task class; a
      loop in a plain function outside a `while` counts only where a job
      calls the function, itself or through at most 6 project functions
      (called by name: a function handed around as a value, or a management
      command or a request running it, is no job's), else it is one-off code.
    """

    CODE = "JL401"
    TRIGGERS = (_ROW_LOCK,)
    SUMMARY = "Row lock on a pick-next query waits for other workers' rows (no SKIP LOCKED)"
    HELP = (
        "Add SKIP LOCKED: FOR UPDATE SKIP LOCKED, select_for_update(skip_locked=True), "
        "with_for_update(skip_locked=True), or joblint_runtime.queue.JobQueue.claim"
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
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._reported: set[int] = set()
        self._covered: set[int] = set()
        # `while` depth per function: a `for` over a locking query inside one is
        # a worker loop.
        self._while_depth: list[int] = [0]
        # The functions we are in, and whether each is a job (read when asked).
        self._functions: list[cst.FunctionDef] = []
        self._jobs: dict[int, TaskDefinition | None] = {}

    # --- traversal -------------------------------------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._while_depth.append(0)
        self._functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._while_depth.pop()
        self._functions.pop()

    def visit_While(self, node: cst.While) -> None:
        self._while_depth[-1] += 1

    def leave_While(self, node: cst.While) -> None:
        self._while_depth[-1] -= 1

    def visit_For(self, node: cst.For) -> None:
        rows = node.iter
        # `for row in session.scalars(stmt)`: the rows of the statement's chain.
        statement = executed_statement(rows, lookup_for(self.context))
        if statement is not None:
            rows = statement
        if self._while_depth[-1] > 0:
            self._check_chain(rows, iterated=True)
            return
        job = self._job()
        if job is not None:
            self._check_chain(rows, iterated=True, job=job)
        elif self._functions:
            # A plain function's loop is a job's where a task runs the function.
            self._check_chain(rows, iterated=True, run_by_job=True)

    def _job(self) -> TaskDefinition | None:
        """The job whose body we are in (its own body, not a nested function's)."""
        if not self._functions:
            return None
        function = self._functions[-1]
        if id(function) not in self._jobs:
            self._jobs[id(function)] = task_definition(function, self.context.resolver)
        return self._jobs[id(function)]

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

    def _check_chain(
        self,
        top: cst.BaseExpression,
        *,
        iterated: bool,
        job: TaskDefinition | None = None,
        run_by_job: bool = False,
    ) -> None:
        top = unwrap(top)
        # A loop reads the rows of a chain checked where it was written.
        if id(top) in self._covered and not iterated:
            return
        written = chain_nodes(top)
        self._covered.update(id(n) for n in written)
        if not written and not isinstance(top, cst.Name | cst.Attribute):
            return
        lookup = lookup_for(self.context)
        lock = row_lock(top, lookup, iterated=iterated)
        if lock is None:
            return
        name = lock.lock.name_node
        if name is None or id(name) in self._reported:
            return
        if lock.waits is not Tri.YES or lock.picks_next is None:
            return
        links = list(lock.links)
        model = chain_model(links, lookup.resolver)
        conditions = chain_conditions(links, model, lookup.resolver)
        requires = _unpinned_requirements(links, conditions)
        if requires is None:
            return
        job_loop = (job is not None or run_by_job) and lock.picks_next.how is Pick.LOOP
        if job_loop and not _every_worker_locks_them(model, conditions):
            return
        claimed = self._claim(top, lock, model, lookup)
        if claimed is None:
            return
        by_caller = bool(claimed)
        requires = (*requires, *claimed)
        if job is not None and job_loop:
            requires = (*requires, *job.requires)
        runner = ""
        if run_by_job and job_loop:
            found = self._run_by_job()
            if by_caller or found is None:
                return  # the function claims the rows itself, and is a project function
            runner, requirement = found
            requires = (*requires, requirement)
        self._reported.add(id(name))
        self.report(
            name,
            _chain_message(lock, lock.picks_next, job, by_caller, runner),
            requires=requires,
            fix=fix(lock.call, _skip_locked_call(lock), _fix_title(lock)),
        )

    def _claim(
        self, top: cst.BaseExpression, lock: RowLock, model: str | None, lookup: Lookup
    ) -> tuple[Requirement, ...] | None:
        """None when nothing claims the locked rows; () when the function
        does; what the project model must find when it hands them back."""
        use = self._rows_use(top, lock, model, lookup)
        if use is Use.CLAIMED:
            return ()
        if use is not Use.RETURNED:
            return None
        claimed = self._claimed_by_caller(lock)
        return None if claimed is None else (claimed,)

    def _run_by_job(self) -> tuple[str, Requirement] | None:
        """The function we are in, and what the project model must find for
        its loop to be a job's: a task running it."""
        frame = self.context.frame
        if not isinstance(frame.node, cst.FunctionDef):
            return None
        return frame.node.name.value, RunByJob(self.context.resolver.local_qualname(frame.key))

    def _claimed_by_caller(self, lock: RowLock) -> Requirement | None:
        """A function handing the locked rows back picks them for its callers:
        the project model must find one that claims them."""
        frame = self.context.frame
        if not isinstance(frame.node, cst.FunctionDef):
            return None
        qualname = self.context.resolver.local_qualname(frame.key)
        return ClaimedByCaller(qualname, lock.api.assignment_writes)

    def _rows_use(
        self, top: cst.BaseExpression, lock: RowLock, model: str | None, lookup: Lookup
    ) -> Use:
        """Whether the function writes or deletes the locked rows (a claim),
        reads them under the lock, creates a missing one, or hands them back."""
        if any(link.method in locks.ROW_WRITE_CALLS for link in lock.after_lock):
            return Use.CLAIMED
        return locked_rows_use(
            top,
            self.context.statement,
            self.context.frame.node,
            fetches_one=lock.fetches_one,
            assignment_writes=lock.api.assignment_writes,
            model=model,
            model_of=lambda call: (
                chain_model(chain_links(call, lookup), lookup.resolver)
                or constructed_model(call, lookup.resolver)
            ),
        )


# --- fixes ---------------------------------------------------------------------------------

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


def _skip_locked_call(lock: RowLock) -> cst.Call:
    """The lock call with `skip_locked=True` (replacing a `skip_locked=False`),
    exclusive: a shared lock (`read=True`) skips no row another worker shares."""
    call = lock.call
    if lock.shared:
        kept = [a for a in call.args if a.keyword is None or a.keyword.value not in lock.api.shared]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        call = call.with_changes(args=kept)
    return with_keyword(call, lock.api.skip_keyword, cst.Name("True"))


def _fix_title(lock: RowLock) -> str:
    title = f"Add {lock.api.skip_keyword}=True"
    if lock.shared:
        title += " and drop " + ", ".join(f"{keyword}=True" for keyword in lock.api.shared)
    return title


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


def _every_worker_locks_them(model: str | None, conditions: list[Condition]) -> bool:
    """A job's loop locks rows every run of it wants (a queue's, a table's)
    when it queries a model's rows by constants alone: a value the job is
    given (`order=order_id`), or rows of one parent (`order.items`), keeps
    each run to its own rows."""
    if model is None:
        return False
    return not any(c.kind is Kind.EQUAL and not c.constant for c in conditions)


def _chain_message(
    lock: RowLock, pick: PickNext, job: TaskDefinition | None, by_caller: bool, runner: str = ""
) -> str:
    """`runner`: the plain function looping over the rows, which a task runs."""
    api = lock.api
    fix = f"use {api.fix} (or {locks.QUEUE_FIX})"
    if job is not None and pick.how is Pick.LOOP:
        return _loop_message(api.method, f"the job '{job.name}' loops over", fix)
    if runner:
        return _loop_message(api.method, f"'{runner}' loops over for {JOB_RUNNER}", fix)
    what = f"{api.method}() on a query that picks the next row ({_reason(pick)})"
    handed_back = f" (it returns what it locks, and {CLAIMER})" if by_caller else ""
    if lock.shared:
        return _shared_message(lock, pick, handed_back)
    return (
        f"{what} waits for rows other workers hold{handed_back}, so workers queue behind one "
        f"row: {fix}"
    )


def _shared_message(lock: RowLock, pick: PickNext, handed_back: str) -> str:
    """A shared lock (FOR SHARE) waits for the row another worker claimed,
    and skipping locked rows would not keep two workers off one row."""
    api = lock.api
    shared = ", ".join(f"{keyword}=True" for keyword in api.shared)
    return (
        f"{api.method}({shared}) takes FOR SHARE on a query that picks the next row "
        f"({_reason(pick)}){handed_back}: every worker waits for the row the first one "
        f"claims, and workers sharing one row deadlock when they write it: use {api.fix} "
        f"without {shared} (or {locks.QUEUE_FIX})"
    )


def _loop_message(method: str, looped: str, fix: str) -> str:
    """Every run of the job locks every matching row: the others wait."""
    return (
        f"{method}() locks every row {looped}, with no LIMIT: each run locks them all and "
        f"another run waits until the first commits, so workers queue behind one another: {fix}"
    )


def _reason(pick: PickNext) -> str:
    """Why the chain picks the next row(s), as the message says it."""
    if pick.how is Pick.METHOD:
        return f".{pick.method}()"
    if pick.how is Pick.SLICE:
        return "a slice"
    if pick.how is Pick.INDEX:
        return "an index"
    return "iterated in a worker loop"


def _unpinned_requirements(
    links: list[Link], conditions: list[Condition]
) -> tuple[Requirement, ...] | None:
    """None when the filter pins the row(s) it locks, or can't be read; else
    what must hold for the finding to stand: no model declares the columns the
    filter compares by equality (or a subset of them) unique."""
    kinds = {condition.kind for condition in conditions}
    if Kind.UNKNOWN in kinds or Kind.KEY in kinds:
        return None
    if _natural_key(conditions, links):
        return None
    pinned: dict[str, set[str]] = {}
    for condition in conditions:
        if condition.kind is Kind.EQUAL and condition.model is not None:
            pinned.setdefault(condition.model, set()).update(_spellings(condition.column))
    return tuple(
        LacksUniqueKey(model, frozenset(columns)) for model, columns in sorted(pinned.items())
    )


def _spellings(column: str) -> set[str]:
    """A foreign key is filtered as `user_id` or `user`; models declare `user`."""
    if column.endswith(locks.FOREIGN_KEY_SUFFIX) and len(column) > len(locks.FOREIGN_KEY_SUFFIX):
        return {column, column.removesuffix(locks.FOREIGN_KEY_SUFFIX)}
    return {column}


def _natural_key(conditions: list[Condition], links: list[Link]) -> bool:
    """Only equalities with values the caller passes (`ip_address=ip`), with no
    ordering and at most one row taken: the caller names its row, it doesn't pick."""
    if not conditions:
        return False
    if any(c.kind is not Kind.EQUAL or c.constant for c in conditions):
        return False
    return not any(_orders_or_takes_many(link) for link in links)


def _orders_or_takes_many(link: Link) -> bool:
    if link.method in locks.ORDERING_METHODS:
        return True
    if isinstance(link.node, cst.Subscript):
        return not all(_takes_first(element.slice) for element in link.node.slice)
    call = link.call
    if link.method in locks.LIMIT_METHODS and call is not None:
        return not (len(call.args) == 1 and _is_integer(call.args[0].value, 1))
    return False


def _takes_first(element: cst.BaseSlice) -> bool:
    """`[0]` or `[:1]`."""
    if isinstance(element, cst.Index):
        return _is_integer(element.value, 0)
    if not isinstance(element, cst.Slice):
        return False
    lower, upper = element.lower, element.upper
    no_offset = lower is None or _is_integer(lower, 0)
    return element.step is None and no_offset and upper is not None and _is_integer(upper, 1)


def _is_integer(node: cst.BaseExpression, value: int) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == value

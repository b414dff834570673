"""JL602 unchunked-long-job.

A task loops over a whole table in one job: it runs as long as the table grows.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL602` show) and its teaching examples."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.task_functions import TaskDefinition, task_definition
from joblint.knowledge import jobs
from joblint.knowledge.tokens import DEFINES_JOBS, DEFINES_PROJECT_TASKS, tails
from joblint.knowledge.work import TABLE_READS
from joblint.rule import Rule, Valid, invalid
from joblint.rules.idempotency._facts.whole_table import (
    Cursors,
    per_row_work,
    whole_table_read,
    work_text,
)

_CHUNKED = "joblint_runtime.chunked.run_chunk"

# A file that may define a task (a job library's name or task decorator, or a
# decorator imported from the project), with a loop (`for`) and a whole-table
# read: a model's manager (`.objects`), a session's query (`.query(`), a
# statement (`select(`), SQL run by a cursor (`.execute(`).
_READS = tuple(
    sorted(
        {
            *(f".{m}".lower() for r in TABLE_READS for m in r.managers),
            *(f".{m}(".lower() for r in TABLE_READS for m in r.query_methods),
            *(f"{t}(" for r in TABLE_READS for t in tails(r.statement_functions)),
            *(f".{m}(".lower() for r in TABLE_READS for m in r.sql_methods),
        }
    )
)
_WHOLE_TABLE_LOOPS = tuple(
    replace(t, patterns=(*t.patterns, r"\bfor\b"), also=(*t.also, _READS))
    for t in (*DEFINES_JOBS, DEFINES_PROJECT_TASKS)
)


class UnchunkedLongJob(Rule):
    """
    ## What it does
    Finds a task that loops over every row of a table in one job and does
    work for each row. The reads it knows keep every row:
    - a Django model's default manager through methods that keep every row:
      `User.objects.all()`, `.order_by(...)`, `.only(...)`, `.values_list(...)`,
      `.select_related(...)`, and `.iterator(chunk_size=...)`, which holds
      fewer rows in memory but still reads all of them in this one job;
      `get_user_model().objects.all()` too;
    - Flask-SQLAlchemy's `User.query.all()` (or the query iterated);
    - a SQLAlchemy session's `session.query(User)` (`.all()`, `.yield_per(n)`,
      or iterated), `session.scalars(select(User)).all()`,
      `session.execute(select(User)).scalars()`, SQLModel's
      `session.exec(select(User))`;
    - SQL text that selects every row of one table (`SELECT id, email FROM
      users`: no `WHERE`, `LIMIT`, `OFFSET`, `GROUP BY`, `DISTINCT`, join,
      aggregate or subquery), run by `cursor.execute(...)` and read with
      `fetchall()` or by iterating the cursor or the call's result.

    The read may be written in the loop, wrapped in `list(...)`,
    `sorted(...)` or `enumerate(...)`, or bound once to a name the loop
    iterates or continues (`users = User.objects.all()`, then `for user in
    users.iterator():`). The work: a call that is not a pure builtin, a
    container or string method, a standard-library computation
    (`Decimal(...)`, `json.dumps(...)`) or a log line (`send(user)`,
    `user.save()`, `sync.delay(user.pk)`), an `await`, or an attribute set on
    the row (a SQLAlchemy session writes it).

    The task is a function registered by a job library's decorator
    (`@shared_task`, `@app.task`, `@dramatiq.actor`, `@huey.task()`,
    `@job`...), an app's decorator imported from the project, or a task
    decorator the project builds in another module (`retrying =
    shared_task(...)`), confirmed across modules by the project model.

    Not findings:
    - a read bounded by anything: `.filter(...)`, `.exclude(...)`,
      `.filter_by(...)`, `.where(...)`, `.limit(...)`, a slice `[:500]`, `.get(...)`,
      `.first()`, a join, a `WHERE` in SQL (keyset pages, one per job, that
      enqueue the next cursor are such reads);
    - a loop that only aggregates what it reads (`total += row.amount`,
      `ids.append(row.pk)`, `seen.update(...)` on a set the task built,
      `by_name.setdefault(name_of(row), [])`, `q |= filter_for(row)`,
      `sum(...)`, a log line): what a call computes there only goes into the
      job's memory; or that may stop early (`break`, `return`: a search, or a
      job that stops at a deadline);
    - loops outside tasks, and in functions or lambdas defined inside a task
      (they run later, when something calls them);
    - `X.objects.all()` where `X` isn't a model class (the project's class
      index tells), and a session's query where no SQLAlchemy is in reach.

    ## Why is this bad?
    One job that walks a whole table runs for as long as the table is big,
    and the table grows. It holds a worker (and often a transaction, or a
    cursor's snapshot) for minutes or hours; it outlives the broker's
    visibility timeout or the task's time limit and is killed or delivered
    again; and a retry, or a deploy that restarts the worker, starts it over
    from the first row, so the rows at the end may never be reached.

    ## Example
    ```python
    from celery import shared_task

    from shop.models import Customer


    @shared_task
    def refresh_loyalty():
        for customer in Customer.objects.all().iterator(chunk_size=2000):
            customer.recompute_tier()
    ```

    ## Use instead
    ```python
    from celery import shared_task

    from joblint_runtime.chunked import run_chunk
    from shop.models import Customer


    @shared_task
    def refresh_loyalty(cursor=None):
        run_chunk(
            lambda after, limit: list(
                Customer.objects.filter(pk__gt=after or 0).order_by("pk")[:limit]
            ),
            process=lambda page: [customer.recompute_tier() for customer in page],
            enqueue_next=lambda pk: refresh_loyalty.apply_async((pk,), task_id=f"tier:{pk}"),
            cursor=cursor,
            key=lambda customer: customer.pk,
        )
    ```
    Each job handles one keyset page (`pk > cursor ORDER BY pk LIMIT n`) and
    enqueues the next: every job is short, a retry re-reads only its own
    page, and a deterministic `task_id` keeps a retry from starting a second
    chain.

    ## Fix safety
    No automatic fix: splitting the walk into jobs changes when each row is
    processed and needs the per-row work to be idempotent.

    ## Known limits
    - Only the task's own body is looked at: a loop in a helper the task
      calls is not seen, nor a queryset a helper returns.
    - A name counts only when it is assigned once in its function (or module):
      `qs = User.objects.all()` then `qs = qs.filter(...)` is not followed.
    - Only `for` statements: a comprehension or `map(...)` over a whole table
      is not reported.
    - A custom manager (`User.active.all()`) and a related manager
      (`org.members.all()`) are taken as bounded, and a default manager whose
      `get_queryset()` filters is still taken as the whole table.
    - SQL counts only when its whole text is known (a part built at run time
      may be a `WHERE`); SQL run by a cursor is read from the last
      `execute(...)` on the same receiver earlier in the task.
    - The size of a table is not known: a fan-out over a small table
      (`for site in Site.objects.all(): sync.delay(site.pk)`) is reported like
      a walk over a large one. Suppress it with a reason, or bound the read.
    - What counts as per-row work is a heuristic: a call of the project's own
      function or method is work even when it only computes, and a method on
      a client the task holds (`self.client.get(...)`) named like a dict's is
      not. A call whose value is only collected is no work, even when it does
      some (`results.append(sync(row))`, `signatures.append(job.s(row.pk))`,
      the latter rightly: the fan-out happens after the loop).
    - A model mapped imperatively (SQLAlchemy's `registry.map_imperatively`,
      classical `mapper(...)`) isn't known as a model: its queries are not
      reported.
    - Class-based tasks (`class Sync(Task): def run(self)`) are not looked at.
    """

    CODE = "JL602"
    PREVIEW = True
    TRIGGERS = _WHOLE_TABLE_LOOPS
    SUMMARY = "A task loops over a whole table in one job: it runs as long as the table grows"
    HELP = (
        "Walk the table in keyset pages, one job per page that enqueues the next cursor "
        f"({_CHUNKED})"
    )

    VALID = (
        Valid(
            """
from celery import shared_task

from joblint_runtime.chunked import run_chunk
from shop.models import Customer


@shared_task
def refresh_loyalty(cursor=None):
    run_chunk(
        lambda after, limit: list(
            Customer.objects.filter(pk__gt=after or 0).order_by("pk")[:limit]
        ),
        process=lambda page: [customer.recompute_tier() for customer in page],
        enqueue_next=lambda pk: refresh_loyalty.apply_async((pk,), task_id=f"tier:{pk}"),
        cursor=cursor,
        key=lambda customer: customer.pk,
    )


@shared_task
def loyalty_report():
    total = 0
    ids = []
    for customer in Customer.objects.all():
        total += customer.points
        ids.append(customer.pk)
    return total, len(ids)
""",
            id="keyset-pages-and-aggregation",
        ),
        Valid(
            """
from celery import shared_task

from shop.models import Customer


def rebuild_all_tiers():
    for customer in Customer.objects.all():
        customer.recompute_tier()


@shared_task
def refresh_recent(since):
    for customer in Customer.objects.filter(joined__gte=since):
        customer.recompute_tier()
    for customer in Customer.objects.order_by("-joined")[:500]:
        customer.recompute_tier()
""",
            id="outside-a-task-filtered-sliced",
        ),
    )

    INVALID = (
        invalid(
            """
from celery import shared_task

from shop.models import Customer


@shared_task
def refresh_loyalty():
    for customer in Customer.objects.all().iterator(chunk_size=2000):
        customer.recompute_tier()
""",
            (
                9,
                5,
                "Celery task 'refresh_loyalty' loops over every row of Customer.objects.all()"
                ".iterator(chunk_size=2000) in one job (iterator() streams the rows, but this one "
                "job still reads every one of them), doing customer.recompute_tier() for each",
            ),
            id="django-iterator",
        ),
        invalid(
            """
from app.db import Session
from app.worker import app
from sqlalchemy import select

from .models import Account


@app.task
def reindex_accounts():
    with Session() as session:
        for account in session.scalars(select(Account)).all():
            search.index(account.id, account.name)
""",
            (12, 9, "task 'reindex_accounts' loops over every row of session.scalars("),
            id="sqlalchemy-select-project-app",
            app_models="""
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    pass


class Account(Base):
    __tablename__ = "accounts"
""",
            app_worker="from celery import Celery\n\napp = Celery('app')\n",
        ),
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        # Per function being visited: the task it is (None: no task), and
        # the SQL its cursors last ran.
        self._tasks: list[TaskDefinition | None] = []
        self._cursors: list[Cursors] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._tasks.append(task_definition(node, self.context.resolver))
        self._cursors.append(Cursors())

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._tasks.pop()
        self._cursors.pop()

    def _task(self) -> TaskDefinition | None:
        """The task whose own body we are in (not a function nested in it)."""
        task = self._tasks[-1] if self._tasks else None
        if task is None or self.context.frame.node is not task.node:
            return None
        return task

    def visit_Call(self, node: cst.Call) -> None:
        if self._task() is not None:
            self._cursors[-1].saw_call(node, self.context)

    def visit_For(self, node: cst.For) -> None:
        task = self._task()
        if task is None:
            return
        read = whole_table_read(node.iter, self.context, self._cursors[-1])
        if read is None:
            return
        work = per_row_work(node, self.context)
        if work is None:
            return
        subject = jobs.job_subject(task.library, task.name)
        note = f" ({read.note})" if read.note else ""
        message = (
            f"{subject} loops over every row of {read.text} in one job{note}, "
            f"doing {work_text(work)} for each: it runs as long as the table is big, "
            "outlives time limits and visibility timeouts, and a retry or a worker "
            "restart starts it over. Walk the table in keyset pages, one job per page "
            f"that enqueues the next cursor ({_CHUNKED})"
        )
        requires = tuple(dict.fromkeys((*task.requires, *read.requires)))
        self.report(node, message, requires=requires)

"""Walk a big table one page per job, with keyset pagination.

One job that loops over a whole table holds a worker (and often a transaction)
for hours, cannot be retried without starting over, and dies with the deploy
that restarts its worker. Instead each job handles one page and enqueues the
next page as a new job::

    @app.task
    def backfill(cursor=None):
        run_chunk(
            lambda after, limit: db.fetch(
                "SELECT id, email FROM users WHERE id > %s ORDER BY id LIMIT %s",
                (after or 0, limit)),
            process=lambda rows: ...,            # idempotent: upserts, guarded effects
            enqueue_next=lambda c: backfill.apply_async((c,), task_id=f"backfill:{c}"),
            cursor=cursor,
        )

Keyset (``WHERE id > cursor ORDER BY id``) rather than ``OFFSET``: each page is
an index range scan whatever its position, and rows inserted or deleted
meanwhile do not shift the pages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = ["run_chunk"]

T = TypeVar("T")
C = TypeVar("C")


def _first_column(row: Any) -> Any:
    return row[0]


def run_chunk(
    fetch_page: Callable[[C | None, int], Sequence[T]],
    process: Callable[[Sequence[T]], object],
    enqueue_next: Callable[[C], object],
    *,
    cursor: C | None = None,
    page: int = 500,
    key: Callable[[T], C] = _first_column,
) -> C | None:
    """Process the page after ``cursor``, enqueue the next one, and return its cursor.

    ``fetch_page(cursor, page)`` returns up to ``page`` rows ordered by the key,
    strictly after ``cursor`` (``None``: from the start). ``key(row)`` gives a
    row's cursor (default: its first column). Returns ``None`` once a short or
    empty page shows the walk is finished; nothing more is enqueued then.

    Safe to retry: the cursor comes from the job's arguments, not from shared
    state, so a retried job re-reads and re-processes the same page. That means
    ``process`` must be idempotent, and ``enqueue_next`` should be too (give the
    next job an id derived from the cursor, e.g. Celery ``task_id``, RQ
    ``job_id``, arq ``_job_id``), or a retry after a successful enqueue would
    start a second chain.
    """
    if page < 1:
        raise ValueError("page must be >= 1")
    rows = fetch_page(cursor, page)
    if not rows:
        return None
    process(rows)
    if len(rows) < page:
        return None
    next_cursor = key(rows[-1])
    enqueue_next(next_cursor)
    return next_cursor

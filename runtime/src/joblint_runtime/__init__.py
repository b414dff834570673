"""Reference implementations that joblint's findings point to.

Each submodule is small, typed and safe under concurrency and crashes; copy
from them or import them. Import the submodule you need
(``from joblint_runtime.queue import JobQueue``): this package imports none of
them, and none imports psycopg, redis or SQLAlchemy at import time, so the
optional extras ``joblint-runtime[postgres]``, ``joblint-runtime[redis]`` and
``joblint-runtime[sqlalchemy]`` are only needed by the helpers that use them.

* :mod:`~joblint_runtime.backoff` — full / decorrelated jitter, Celery and RQ retry settings
* :mod:`~joblint_runtime.transaction` — ``atomic(conn).on_commit(fn)``, SQLAlchemy ``on_commit``
* :mod:`~joblint_runtime.outbox` — transactional outbox with a ``SKIP LOCKED`` relay
* :mod:`~joblint_runtime.idempotency` — run a job's effects once per key
* :mod:`~joblint_runtime.queue` — PostgreSQL / SQLite job queue with leases and dead letters
* :mod:`~joblint_runtime.chunked` — keyset-paginated jobs that re-enqueue themselves
* :mod:`~joblint_runtime.lock` — Redis locks with TTL and token, PostgreSQL advisory locks
* :mod:`~joblint_runtime.metrics` — job timings and outcome counters
"""

__version__ = "0.1.0"

__all__ = [
    "backoff",
    "chunked",
    "idempotency",
    "lock",
    "metrics",
    "outbox",
    "queue",
    "transaction",
]

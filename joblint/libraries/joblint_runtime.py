"""joblint's own runtime helpers, as the code that uses them sees them.

They ship as the ``joblint-runtime`` distribution (import name
``joblint_runtime``); ``joblint.runtime`` re-exports the same objects for code
written against that name, so every helper is known under both.
"""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily
from joblint.libraries.job_work import Claims
from joblint.libraries.retry_api import RetryVocabulary

# The name fixes write first; the old name after it.
RUNTIME_PACKAGES = ("joblint_runtime", "joblint.runtime")


def _everywhere(path: str) -> tuple[str, ...]:
    """`path` under each name the helpers are imported by (`backoff.full_jitter`)."""
    return tuple(f"{package}.{path}" for package in RUNTIME_PACKAGES)


# `on_commit(session, fn)`: the helpers whose callback comes after the session.
ON_COMMIT_AFTER_SESSION = _everywhere("transaction.on_commit")

LIBRARIES = (
    Library(
        "joblint_runtime",
        "joblint_runtime",
        modules=RUNTIME_PACKAGES,
        transaction_functions=tuple(
            (name, TxFamily.GENERIC) for name in _everywhere("transaction.atomic")
        ),
        on_commit_functions=ON_COMMIT_AFTER_SESSION,
        on_commit_methods=("on_commit",),
    ),
)

# --- retries: the helpers that return jittered delays ----------

FULL_JITTER, *FULL_JITTER_ALIASES = _everywhere("backoff.full_jitter")
RETRY_VOCABULARY = (
    RetryVocabulary(
        jitter_helpers=(
            *_everywhere("backoff.full_jitter"),
            *_everywhere("backoff.decorrelated_jitter"),
            *_everywhere("backoff.delays"),
            *_everywhere("backoff.jittered_intervals"),
        ),
    ),
)


# --- idempotency: the guard and its decorator -------------------------------------

CLAIMS = (Claims(guard_modules=_everywhere("idempotency")),)

# --- the names findings point to ---------------------------------------------

FULL_JITTER_CALL = f"{FULL_JITTER}(attempt, base=30, cap=600)"
JITTERED_INTERVALS = "joblint_runtime.backoff.jittered_intervals"
CHUNKED_JOB = "joblint_runtime.chunked.run_chunk"
ATOMIC = "joblint_runtime.transaction.atomic"
ON_COMMIT = "joblint_runtime.transaction.on_commit"
OUTBOX = "joblint_runtime.outbox"
JOB_QUEUE_CLAIM = "joblint_runtime.queue.JobQueue.claim"
REDIS_LOCK = "joblint_runtime.lock.RedisLock"
ADVISORY_LOCK = "joblint_runtime.lock.PostgresAdvisoryLock"

"""procrastinate: its queue lives in the database (`defer` is part of the transaction)."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import RerunOption, Reruns
from joblint.libraries.retry_api import (
    REFERENCE_ATTEMPTS,
    AttemptBound,
    Bound,
    BoundParams,
    Param,
    Positional,
    RetryCall,
    Says,
    TaskRetries,
    Unresolved,
    Value,
)

LIBRARIES = (
    Library(
        "procrastinate",
        "procrastinate",
        modules=("procrastinate",),
        task_decorator_methods=("task", "periodic"),
        queue_constructors=("procrastinate.App", "procrastinate.Blueprint"),
        async_enqueue_methods=(("defer_async", False),),
    ),
)

# --- retries (`retry.py`) ----------

_PROCRASTINATE = LIBRARIES[0]
MAX_ATTEMPTS = "max_attempts"
# A job's `attempts` counts its earlier runs (0 on the first) and it is
# retried while `attempts < max_attempts`; `retry=N` is the same bound.
MAX_ATTEMPTS_BOUND = AttemptBound(MAX_ATTEMPTS, counts_first_run=False)

# `RetryStrategy()` without `max_attempts` retries forever.
RETRY_CALLS = (
    RetryCall(
        ("procrastinate.RetryStrategy", "procrastinate.retry.RetryStrategy"),
        bound=BoundParams(
            ((Param(MAX_ATTEMPTS), Bound.ATTEMPTS),),
            MAX_ATTEMPTS_BOUND,
            Says(
                f"{_PROCRASTINATE.display} RetryStrategy() without {MAX_ATTEMPTS} retries forever",
                f"Pass {MAX_ATTEMPTS_BOUND.advice()}",
            ),
            unset=frozenset({Value.NONE, Value.ZERO}),
            positional=Positional.OPAQUE,
        ),
    ),
)

_REFERENCE = MAX_ATTEMPTS_BOUND.reference

# `@app.task(retry=True)`: unlimited, immediate retries (periodic tasks take none).
TASK_RETRIES = (
    TaskRetries(
        _PROCRASTINATE.key,
        _PROCRASTINATE.modules,
        decorator_methods=("task",),
        unresolved=Unresolved.CONFIRMED,
        every_decorator=False,
        bounds=(
            BoundParams(
                ((Param("retry"), Bound.ATTEMPTS),),
                MAX_ATTEMPTS_BOUND,
                Says(
                    f"{_PROCRASTINATE.display} retry=True retries forever, with no wait",
                    f"Use retry={_REFERENCE} or retry=RetryStrategy({MAX_ATTEMPTS}={_REFERENCE}, "
                    f"...): {REFERENCE_ATTEMPTS} attempts in total ({MAX_ATTEMPTS} counts the "
                    "retries after the first)",
                ),
                default=Bound.ATTEMPTS,
                unbounded=frozenset({Value.TRUE}),
            ),
        ),
    ),
)


# --- running a task more than once (JL601) -----------------------------------------

# `@app.task(retry=...)`: a number of retries, True (forever) or a RetryStrategy.
RERUNS = (Reruns(_PROCRASTINATE.key, options=(RerunOption("retry"),)),)

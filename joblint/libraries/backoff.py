"""backoff (2.2 `_decorator.py`, `_wait_gen.py`, `_jitter.py`): the
`on_exception`/`on_predicate` decorators, their wait generators and jitters."""

from __future__ import annotations

from joblint.libraries.retry_api import (
    AttemptBound,
    Bound,
    BoundParams,
    CatchParam,
    DelayParams,
    GrowthParam,
    Jitter,
    JitterParam,
    Param,
    Reads,
    RetryCall,
    RetryVocabulary,
    Says,
    Value,
)

DISPLAY = "backoff"

ON_EXCEPTION = ("backoff.on_exception", "backoff._decorator.on_exception")
ON_PREDICATE = ("backoff.on_predicate", "backoff._decorator.on_predicate")
# Wait generators whose delays grow (`constant` and `runtime` don't).
GROWING_WAITS = frozenset(
    {"backoff.expo", "backoff.fibo", "backoff._wait_gen.expo", "backoff._wait_gen.fibo"}
)
JITTER = "jitter"
# `max_tries`: gives up when `tries == max_tries`, the first try counted.
MAX_TRIES = AttemptBound("max_tries", counts_first_run=True)
MAX_TIME = "max_time"

# The default jitter is `backoff.full_jitter`: only `jitter=None` switches it off.
_DELAY = DelayParams(
    GrowthParam(Param("wait_gen", 0), Reads.GENERATOR, GROWING_WAITS),
    Says(
        f"{JITTER}=None turns off {DISPLAY}'s full jitter on a growing wait",
        f"Remove it (the default is {DISPLAY}.full_jitter)",
    ),
    jitter=JitterParam(Param(JITTER), off=Value.NONE, default=Jitter.PRESENT),
)
_BOUND = BoundParams(
    ((Param(MAX_TRIES.parameter), Bound.ATTEMPTS), (Param(MAX_TIME), Bound.DEADLINE)),
    MAX_TRIES,
    Says(
        f"{DISPLAY} retries forever without {MAX_TRIES.parameter} or {MAX_TIME}",
        f"Add {MAX_TRIES.advice()}",
    ),
    unset=frozenset({Value.NONE}),
)

RETRY_CALLS = (
    RetryCall(
        ON_EXCEPTION,
        delay=_DELAY,
        bound=_BOUND,
        catches=CatchParam(Param("exception", 1), f"{DISPLAY}.on_exception(...)"),
        reads_past_kwargs=True,
    ),
    RetryCall(ON_PREDICATE, delay=_DELAY, bound=_BOUND, reads_past_kwargs=True),
)

RETRY_VOCABULARY = (
    RetryVocabulary(
        jitter_helpers=(
            "backoff.full_jitter",
            "backoff.random_jitter",
            "backoff._jitter.full_jitter",
            "backoff._jitter.random_jitter",
        ),
    ),
)

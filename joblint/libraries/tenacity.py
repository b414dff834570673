"""tenacity (9.x `__init__.py`, `wait.py`, `stop.py`, `retry.py`): `@retry(...)`
and `Retrying(...)` configured by wait, stop and retry strategy objects."""

from __future__ import annotations

from joblint.libraries.retry_api import (
    REFERENCE_ATTEMPTS,
    AttemptBound,
    Bound,
    BoundFix,
    BoundParams,
    DelayParams,
    Growth,
    Jitter,
    Param,
    Positional,
    RandomTwin,
    RetryCall,
    RetryPredicates,
    Says,
    WaitShape,
    WaitStrategies,
)

DISPLAY = "tenacity"
MODULE = "tenacity"


def _exported(*names: str, module: str) -> tuple[str, ...]:
    """Each name as exported by `tenacity` and by its defining module."""
    return (*(f"{MODULE}.{n}" for n in names), *(f"{MODULE}.{module}.{n}" for n in names))


# `@retry(...)`, `Retrying(...)`, `AsyncRetrying(...)`: keyword-configured controllers.
CONTROLLERS = (
    "tenacity.retry",
    "tenacity.Retrying",
    "tenacity.AsyncRetrying",
    "tenacity.TornadoRetrying",
    "tenacity.asyncio.AsyncRetrying",
    "tenacity._asyncio.AsyncRetrying",
    "tenacity.tornadoweb.TornadoRetrying",
)
# The decorator that can be used bare (`@retry`).
DECORATOR = "tenacity.retry"

# How each wait strategy's delay changes with the attempt: `wait_incrementing`
# is `start + increment * (attempt - 1)`, additive growth.
_WAIT_SHAPES = {
    "wait_none": WaitShape(Growth.CONSTANT),
    "wait_fixed": WaitShape(Growth.CONSTANT),
    "wait_random": WaitShape(Growth.CONSTANT, Jitter.PRESENT),
    "wait_incrementing": WaitShape(Growth.ADDITIVE),
    "wait_exponential": WaitShape(Growth.EXPONENTIAL),
    # Full jitter: uniform(min, the wait_exponential ceiling).
    "wait_random_exponential": WaitShape(Growth.EXPONENTIAL, Jitter.PRESENT),
    "wait_full_jitter": WaitShape(Growth.EXPONENTIAL, Jitter.PRESENT),
    # multiplier * exp_base ** n + uniform(0, jitter); (initial, max, exp_base, jitter, ...).
    "wait_exponential_jitter": WaitShape(Growth.EXPONENTIAL, Jitter.PRESENT, Param("jitter", 3)),
    # Whatever a predicate of the caller's returns.
    "wait_exception": WaitShape(Growth.UNKNOWN, Jitter.UNKNOWN),
}
WAITS = {
    qualified: shape
    for short, shape in _WAIT_SHAPES.items()
    for qualified in _exported(short, module="wait")
}
# `wait_combine(a, b)` is `a + b`; `wait_chain(a, b)` waits `a` first, then `b`.
WAIT_GROUPS = frozenset(_exported("wait_combine", "wait_chain", module="wait"))

FIX_WAIT = "wait=wait_random_exponential(multiplier=..., max=...)"
_RANDOM_WAIT = (
    "Use wait_random_exponential(...) with the same arguments: each wait is drawn at random "
    "up to the same exponential ceiling (full jitter)"
)
# `wait_random_exponential` subclasses `wait_exponential` (same constructor:
# multiplier, max, exp_base, min) and draws from [min, ceiling], from [0,
# ceiling] before tenacity 9.0.
RANDOM_EXPONENTIAL = RandomTwin(
    "wait_random_exponential",
    MODULE,
    _RANDOM_WAIT,
    floor=Param("min", 3),
    message_with_floor=(
        f"{_RANDOM_WAIT}; min= stays the lowest wait only with tenacity >= 9.0 (older versions "
        "draw from 0)"
    ),
)

_TWIN = RANDOM_EXPONENTIAL

# `stop_after_attempt(n)`: stops once `attempt_number >= n`.
STOP_AFTER_ATTEMPT = AttemptBound("stop_after_attempt", counts_first_run=True)
FIX_STOP = f"stop={STOP_AFTER_ATTEMPT.parameter}({STOP_AFTER_ATTEMPT.reference})"
STOP_NEVER = frozenset(_exported("stop_never", module="stop"))

RETRY_CALLS = (
    RetryCall(
        CONTROLLERS,
        bare=(DECORATOR,),
        delay=DelayParams(
            WaitStrategies(
                Param("wait"),
                MODULE,
                WAITS,
                WAIT_GROUPS,
                twins=dict.fromkeys(_exported("wait_exponential", module="wait"), _TWIN),
            ),
            says=Says(
                f"{DISPLAY} {{name}}(...) grows without a random part",
                f"Use {FIX_WAIT}, or add + wait_random(0, ...)",
            ),
            says_off=Says(
                f"{DISPLAY} {{name}}(...) with its jitter set to 0 grows without a random part",
                f"Keep its jitter above 0, or use {FIX_WAIT}",
            ),
        ),
        # tenacity never stops by default.
        bound=BoundParams(
            ((Param("stop"), Bound.UNKNOWN),),
            STOP_AFTER_ATTEMPT,
            Says(f"{DISPLAY} never stops retrying without stop=", f"Add {FIX_STOP}"),
            never=STOP_NEVER,
            says_set=Says(f"{DISPLAY} stop=stop_never retries forever", f"Use {FIX_STOP}"),
            positional=Positional.WRAPS,
            fix=BoundFix(
                f"Stop after {REFERENCE_ATTEMPTS} attempts in total: {FIX_STOP}",
                call=STOP_AFTER_ATTEMPT.parameter,
                module=MODULE,
                keyword="stop",
            ),
        ),
        # `retry_any(a, b)` is `a | b`; `retry_all(a, b)` (`a & b`) narrows.
        catches=RetryPredicates(
            Param("retry"),
            types={
                name: Param("exception_types", 0)
                for name in _exported("retry_if_exception_type", module="retry")
            },
            any_of=frozenset(_exported("retry_any", module="retry")),
            where=f"{DISPLAY} {{name}}(...)",
        ),
    ),
)

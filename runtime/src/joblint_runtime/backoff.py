"""Retry delays with jitter.

Exponential backoff without jitter makes every client that failed together
retry together, so a broker or database that just recovered is hit by the same
thundering herd again. *Full jitter* (a uniform draw between zero and the
exponential ceiling) spreads those retries out and, in AWS's measurements,
finishes the work with the fewest calls. Everything here is overflow-safe:
``attempt`` may be any non-negative integer (``2.0 ** 10_000`` would raise
``OverflowError``; these functions return the cap instead).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any, Protocol

__all__ = [
    "RandomSource",
    "ceiling",
    "celery_retry_options",
    "decorrelated_jitter",
    "delays",
    "full_jitter",
    "jittered_intervals",
]

#: The reference policy: five attempts in total, first retry within 30 s,
#: no retry waits longer than ten minutes.
DEFAULT_BASE = 30.0
DEFAULT_FACTOR = 2.0
DEFAULT_CAP = 600.0
DEFAULT_MAX_ATTEMPTS = 5
# e**700 is still a finite float (the limit is about e**709.78).
_MAX_EXPONENT = 700.0


class RandomSource(Protocol):
    """What the functions need from ``random.Random``: injectable for tests."""

    def uniform(self, a: float, b: float, /) -> float: ...


def _uniform(rng: RandomSource | None, low: float, high: float) -> float:
    # Default to the module functions so ``random.seed()`` still governs them.
    return (random.uniform if rng is None else rng.uniform)(low, high)


def _check(name: str, value: float, *, positive: bool = False) -> None:
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        kind = "a positive" if positive else "a non-negative"
        raise ValueError(f"{name} must be {kind} finite number, got {value!r}")


def ceiling(attempt: int, *, base: float = DEFAULT_BASE, factor: float = DEFAULT_FACTOR,
            cap: float = DEFAULT_CAP) -> float:
    """Return ``min(cap, base * factor ** attempt)`` without ever overflowing.

    ``factor ** attempt`` is only computed when it is finite; beyond that the
    comparison with ``cap`` is done in log space.
    """
    if attempt < 0:
        raise ValueError(f"attempt must be >= 0, got {attempt!r}")
    _check("base", base)
    _check("cap", cap)
    _check("factor", factor, positive=True)
    if base == 0 or cap == 0:
        return 0.0
    growth = attempt * math.log(factor) if factor > 1 else 0.0
    if growth < _MAX_EXPONENT:
        # Float products saturate to inf instead of raising; min() then picks cap.
        return float(min(cap, base * factor**attempt))
    log_value = math.log(base) + growth
    if log_value >= math.log(cap):
        return float(cap)
    return float(min(cap, math.exp(log_value)))


def full_jitter(attempt: int, *, base: float = DEFAULT_BASE, factor: float = DEFAULT_FACTOR,
                cap: float = DEFAULT_CAP, rng: RandomSource | None = None) -> float:
    """Delay before retry number ``attempt`` (0-based): uniform in ``[0, ceiling]``.

    ``ceiling = min(cap, base * factor ** attempt)``. This is the formula Celery
    uses for ``retry_jitter`` and tenacity for ``wait_random_exponential``.
    """
    top = ceiling(attempt, base=base, factor=factor, cap=cap)
    return min(top, max(0.0, _uniform(rng, 0.0, top)))


def decorrelated_jitter(previous: float, *, base: float = DEFAULT_BASE,
                        cap: float = DEFAULT_CAP, rng: RandomSource | None = None) -> float:
    """AWS "decorrelated jitter": uniform in ``[base, 3 * previous]``, capped.

    Each delay depends on the previous one instead of on an attempt counter, so
    it suits loops that do not count attempts. Pass ``previous=base`` the first
    time. The result is always within ``[min(base, cap), cap]``.
    """
    _check("previous", previous)
    _check("base", base)
    _check("cap", cap)
    low = min(base, cap)
    # 3 * previous may be inf for huge floats; min() with cap keeps it finite.
    high = min(cap, max(low, 3.0 * previous))
    return min(high, max(low, _uniform(rng, low, high)))


def delays(max_attempts: int = DEFAULT_MAX_ATTEMPTS, *, base: float = DEFAULT_BASE,
           factor: float = DEFAULT_FACTOR, cap: float = DEFAULT_CAP,
           rng: RandomSource | None = None) -> Iterator[float]:
    """Yield the ``max_attempts - 1`` waits between ``max_attempts`` tries.

    ``max_attempts`` counts the first try, so five attempts have four waits.
    Draws lazily, so each wait is fresh even if the iterator lives long.
    """
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be >= 1, got {max_attempts!r}")
    for retry in range(max_attempts - 1):
        yield full_jitter(retry, base=base, factor=factor, cap=cap, rng=rng)


def jittered_intervals(max_attempts: int = DEFAULT_MAX_ATTEMPTS, *, base: float = DEFAULT_BASE,
                       factor: float = DEFAULT_FACTOR, cap: float = DEFAULT_CAP,
                       rng: RandomSource | None = None) -> list[float]:
    """Intervals for RQ's ``Retry(max=len(intervals), interval=intervals)``.

    RQ adds no jitter of its own and reads the list once, so build it at
    enqueue time (``q.enqueue(f, retry=Retry(max=4, interval=jittered_intervals()))``),
    not once at import, or every job of a process shares the same "random" waits.
    """
    return list(delays(max_attempts, base=base, factor=factor, cap=cap, rng=rng))


def celery_retry_options(
    autoretry_for: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError),
    *,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    backoff: int = int(DEFAULT_BASE),
    backoff_max: int = int(DEFAULT_CAP),
) -> dict[str, Any]:
    """Celery task options for the reference policy: ``@app.task(**celery_retry_options())``.

    Celery's backoff and jitter only act on retries raised through
    ``autoretry_for``, so the dict always sets it, with transient errors by
    default (retrying on ``Exception`` would retry bugs too). ``max_retries``
    counts retries, not attempts, hence ``max_attempts - 1``. Celery's
    ``retry_jitter=True`` is full jitter: ``randrange(min(backoff_max, backoff * 2**n) + 1)``.
    """
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be >= 1, got {max_attempts!r}")
    if not autoretry_for:
        raise ValueError("autoretry_for must name at least one exception type")
    if backoff < 1 or backoff_max < backoff:
        raise ValueError("need 1 <= backoff <= backoff_max (Celery coerces backoff to int >= 1)")
    return {
        "autoretry_for": tuple(autoretry_for),
        "max_retries": max_attempts - 1,
        "retry_backoff": backoff,
        "retry_backoff_max": backoff_max,
        "retry_jitter": True,
    }

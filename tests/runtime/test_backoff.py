"""Properties of every backoff function: bounds, no overflow, reproducibility."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from joblint_runtime.backoff import (
    ceiling,
    celery_retry_options,
    decorrelated_jitter,
    delays,
    full_jitter,
    jittered_intervals,
)

attempts = st.integers(min_value=0, max_value=10**9)
bases = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
factors = st.floats(min_value=0.01, max_value=1e3, allow_nan=False, allow_infinity=False)
caps = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)
seeds = st.integers(min_value=0, max_value=2**32)


class Extreme:
    """A random source that always returns one end of the range."""

    def __init__(self, high: bool) -> None:
        self.high = high

    def uniform(self, a: float, b: float, /) -> float:
        return b if self.high else a


@given(attempt=attempts, base=bases, factor=factors, cap=caps, seed=seeds)
def test_full_jitter_stays_within_zero_and_the_ceiling(
    attempt: int, base: float, factor: float, cap: float, seed: int
) -> None:
    top = ceiling(attempt, base=base, factor=factor, cap=cap)
    assert 0.0 <= top <= cap
    value = full_jitter(attempt, base=base, factor=factor, cap=cap, rng=random.Random(seed))
    assert 0.0 <= value <= top


@given(attempt=st.integers(min_value=10_000, max_value=10**12), seed=seeds)
def test_huge_attempts_do_not_overflow_and_hit_the_cap(attempt: int, seed: int) -> None:
    assert ceiling(attempt) == 600.0
    assert 0.0 <= full_jitter(attempt, rng=random.Random(seed)) <= 600.0
    assert full_jitter(attempt, rng=Extreme(high=True)) == 600.0


def test_attempt_ten_thousand_with_the_defaults() -> None:
    # 30 * 2.0 ** 10_000 would raise OverflowError.
    with pytest.raises(OverflowError):
        _ = 30 * 2.0**10_000
    assert ceiling(10_000) == 600.0
    assert 0.0 <= full_jitter(10_000) <= 600.0


@given(attempt=st.integers(min_value=0, max_value=200), base=bases, cap=caps)
def test_ceiling_is_exponential_until_the_cap(attempt: int, base: float, cap: float) -> None:
    expected = min(cap, base * 2.0**attempt)
    assert ceiling(attempt, base=base, cap=cap) == pytest.approx(expected, rel=1e-9)
    assert ceiling(attempt + 1, base=base, cap=cap) >= ceiling(attempt, base=base, cap=cap)


def test_first_delays_follow_the_reference_policy() -> None:
    assert [ceiling(n) for n in range(7)] == [30.0, 60.0, 120.0, 240.0, 480.0, 600.0, 600.0]
    assert full_jitter(3, rng=Extreme(high=False)) == 0.0


@given(previous=st.floats(min_value=0, max_value=1e308, allow_nan=False), base=bases, cap=caps,
       seed=seeds)
def test_decorrelated_jitter_bounds(previous: float, base: float, cap: float, seed: int) -> None:
    value = decorrelated_jitter(previous, base=base, cap=cap, rng=random.Random(seed))
    assert min(base, cap) <= value <= cap


@given(previous=st.floats(min_value=0, max_value=1e6, allow_nan=False), seed=seeds)
def test_decorrelated_jitter_grows_at_most_threefold(previous: float, seed: int) -> None:
    value = decorrelated_jitter(previous, base=1.0, cap=1e9, rng=random.Random(seed))
    assert value <= max(1.0, 3 * previous)


@given(max_attempts=st.integers(min_value=1, max_value=60), base=bases, factor=factors, cap=caps,
       seed=seeds)
def test_delays_and_intervals_have_one_wait_per_retry(
    max_attempts: int, base: float, factor: float, cap: float, seed: int
) -> None:
    waits = list(delays(max_attempts, base=base, factor=factor, cap=cap, rng=random.Random(seed)))
    assert len(waits) == max_attempts - 1
    for retry, wait in enumerate(waits):
        assert 0.0 <= wait <= ceiling(retry, base=base, factor=factor, cap=cap)
    same = jittered_intervals(max_attempts, base=base, factor=factor, cap=cap,
                              rng=random.Random(seed))
    assert same == waits


def test_jittered_intervals_are_actually_random() -> None:
    assert len({tuple(jittered_intervals(5)) for _ in range(20)}) > 1


@pytest.mark.parametrize(
    "call",
    [
        lambda: full_jitter(-1),
        lambda: full_jitter(1, base=-1.0),
        lambda: full_jitter(1, cap=float("inf")),
        lambda: full_jitter(1, factor=0.0),
        lambda: full_jitter(1, base=float("nan")),
        lambda: decorrelated_jitter(-1.0),
        lambda: list(delays(0)),
        lambda: celery_retry_options(max_attempts=0),
        lambda: celery_retry_options(()),
        lambda: celery_retry_options(backoff=0),
    ],
)
def test_invalid_arguments_are_rejected(call: object) -> None:
    with pytest.raises(ValueError):
        call()  # type: ignore[operator]


def test_celery_retry_options_is_the_reference_policy() -> None:
    options = celery_retry_options()
    assert options == {
        "autoretry_for": (ConnectionError, TimeoutError),
        "max_retries": 4,  # five attempts in total
        "retry_backoff": 30,
        "retry_backoff_max": 600,
        "retry_jitter": True,
    }
    assert Exception not in options["autoretry_for"]

"""Python's standard library, as retry code is written with it: sleeps, clocks,
random numbers, plain arithmetic, counting loops and exception types."""

from __future__ import annotations

from joblint.libraries.retry_api import RetryVocabulary

RETRY_VOCABULARY = (
    RetryVocabulary(
        random_modules=("random", "secrets"),
        power_functions=("pow", "math.pow", "math.exp", "math.exp2", "math.ldexp"),
        pure_functions=(
            "min",
            "max",
            "int",
            "float",
            "round",
            "abs",
            "pow",
            "len",
            "datetime.timedelta",
            "datetime.datetime.now",
            "datetime.datetime.utcnow",
            "time.time",
            "time.monotonic",
        ),
        # Every `math.<fn>` is deterministic.
        pure_modules=("math",),
        sleeps=(("time.sleep", "secs"), ("asyncio.sleep", "delay")),
        clocks=(
            "time.time",
            "time.time_ns",
            "time.monotonic",
            "time.monotonic_ns",
            "time.perf_counter",
            "time.perf_counter_ns",
            "datetime.datetime.now",
            "datetime.datetime.utcnow",
        ),
        counting_iterables=("range", "itertools.count"),
        enumerating_iterables=("enumerate",),
        broad_exceptions=(
            "Exception",
            "BaseException",
            "builtins.Exception",
            "builtins.BaseException",
        ),
        exception_filters=("isinstance", "issubclass", "type"),
        fresh_value_modules=("uuid",),
    ),
)

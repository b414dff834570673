"""urllib3 (2.x `util/retry.py`): `Retry`, also as requests and botocore
re-export it; it sleeps `backoff_factor * 2 ** n`, plus `backoff_jitter`."""

from __future__ import annotations

from joblint.libraries.retry_api import (
    DelayParams,
    GrowthParam,
    Jitter,
    JitterParam,
    Param,
    Reads,
    RetryCall,
    Says,
    Value,
)

DISPLAY = "urllib3"

RETRY = (
    "urllib3.Retry",
    "urllib3.util.Retry",
    "urllib3.util.retry.Retry",
    "requests.adapters.Retry",
    "requests.packages.urllib3.Retry",
    "requests.packages.urllib3.util.Retry",
    "requests.packages.urllib3.util.retry.Retry",
    "botocore.vendored.requests.packages.urllib3.util.retry.Retry",
)
BACKOFF_FACTOR = "backoff_factor"
BACKOFF_JITTER = "backoff_jitter"  # urllib3 >= 2.0; default 0.0

RETRY_CALLS = (
    RetryCall(
        RETRY,
        delay=DelayParams(
            GrowthParam(Param(BACKOFF_FACTOR), Reads.FACTOR),
            Says(
                f"{DISPLAY} Retry({BACKOFF_FACTOR}=...) sleeps factor * 2 ** n with no jitter",
                f"Add {BACKOFF_JITTER}=... ({DISPLAY} >= 2), e.g. "
                f"{BACKOFF_JITTER}={BACKOFF_FACTOR} * 2",
            ),
            jitter=JitterParam(Param(BACKOFF_JITTER), off=Value.ZERO, default=Jitter.ABSENT),
        ),
    ),
)

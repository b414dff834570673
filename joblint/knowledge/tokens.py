"""Tokens without which a rule cannot fire, per rule, as data for the prefilter.

A file whose bytes match none of the selected rules' patterns (nor the
whole-project fact patterns) is never parsed. Each pattern is derived from the
library tables where they name the trigger; it must stay conservative: a test
lints every rule example, the examples and the fixtures with and without the
prefilter and requires identical findings.
"""

from __future__ import annotations

import re

from joblint.knowledge import jobs, payloads

_ENQUEUE_METHODS = sorted({*jobs.ENQUEUE_METHODS, "s", "si"})
_ENQUEUE_FUNCTIONS = sorted({q.rsplit(".", 1)[-1] for q in jobs.ENQUEUE_FUNCTIONS})
_TRANSACTIONS = sorted(
    {
        *jobs.TRANSACTION_METHODS,
        *jobs.TRANSACTION_DECORATOR_METHODS,
        *(q.rsplit(".", 1)[-1] for q in jobs.TRANSACTION_FUNCTIONS),
        *(q.rsplit(".", 1)[-1] for q in jobs.CONNECT_FUNCTIONS),
    }
)


def _words(words: list[str]) -> str:
    return r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b"


# An enqueue call: `x.delay(`, `.apply_async(`, `async_task(`, a canvas `chain(`.
ENQUEUE = _words([*_ENQUEUE_METHODS, *_ENQUEUE_FUNCTIONS, "chain", "group", "chord", "chunks"])
TRANSACTION = _words(_TRANSACTIONS)

# Files that can hold whole-project facts read by rules that scan every file's
# facts (JL5's Celery settings and delays; django-q's ORM-broker switch). Facts
# looked up by name (tasks, classes, constants) are loaded on demand instead.
PROJECT_FACT_TOKENS = (
    r"celery|CELERY|BROKER|broker_|time_limit|visibility_timeout|countdown|eta\s*=|Q_CLUSTER"
)

RULE_TOKENS: dict[str, str] = {
    # Suppression comments.
    "JL002": r"(?i)joblint|noqa",
    # Inside a transaction scope; the enqueue may be a Huey task call (no token).
    "JL101": TRANSACTION,
    "JL102": r"\.commit\(",
    "JL103": _words(sorted(payloads.FORWARDED_OPTIONS)),
    "JL104": r"on_commit",
    "JL105": _words(sorted(payloads.ASYNC_ENQUEUE_METHODS)),
    # Payload rules look at enqueue arguments; Huey task calls are found by the
    # second phase (files naming a known Huey task).
    "JL201": ENQUEUE,
    "JL202": ENQUEUE,
    "JL301": r"(?i)retry|backoff|wait_|sleep|interval|jitter",
    "JL302": r"(?i)retry|backoff|stop|sleep|max_attempts|Q_CLUSTER",
    "JL303": r"(?i)retry|backoff|on_exception",
    "JL401": r"(?i)for\s+(?:no\s+key\s+)?update|for\s+(?:key\s+)?share|for_update",
    "JL402": r"nx\s*=|setnx|lock",
    "JL403": r"nx\s*=",
    "JL404": r"blocking\s*=|nx\s*=|pg_try_advisory",
    # Whole-project rules: their findings sit where the settings and limits are.
    "JL501": PROJECT_FACT_TOKENS,
    "JL502": PROJECT_FACT_TOKENS,
}

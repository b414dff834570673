"""The full example suite of `joblint.rules.retries.retry_without_jitter`
(its class keeps the teaching examples the docs open with).

The suite is cut in parts by size, in order; this module joins them."""

from __future__ import annotations

from joblint.rules.retries._examples.retry_without_jitter import invalid, valid

VALID = (*valid.VALID,)
INVALID = (*invalid.INVALID,)

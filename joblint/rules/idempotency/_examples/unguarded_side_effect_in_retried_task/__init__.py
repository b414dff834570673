"""The full example suite of `joblint.rules.idempotency.unguarded_side_effect_in_retried_task`
(its class keeps the teaching examples the docs open with).

The suite is cut in parts by size, in order; this module joins them."""

from __future__ import annotations

from joblint.rules.idempotency._examples.unguarded_side_effect_in_retried_task import invalid, valid

VALID = (*valid.VALID,)
INVALID = (*invalid.INVALID,)

"""The full example suite of `joblint.rules.locks.for_update_without_skip_locked`
(its class keeps the teaching examples the docs open with).

The suite is cut in parts by size, in order; this module joins them."""

from __future__ import annotations

from joblint.rules.locks._examples.for_update_without_skip_locked import invalid_1, invalid_2, valid

VALID = (*valid.VALID,)
INVALID = (
    *invalid_1.INVALID,
    *invalid_2.INVALID,
)

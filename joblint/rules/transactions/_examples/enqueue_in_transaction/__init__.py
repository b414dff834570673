"""The full example suite of `joblint.rules.transactions.enqueue_in_transaction`
(its class keeps the teaching examples the docs open with).

The suite is cut in parts by size, in order; this module joins them."""

from __future__ import annotations

from joblint.rules.transactions._examples.enqueue_in_transaction import (
    invalid_1,
    invalid_2,
    invalid_3,
    valid_1,
    valid_2,
)

VALID = (
    *valid_1.VALID,
    *valid_2.VALID,
)
INVALID = (
    *invalid_1.INVALID,
    *invalid_2.INVALID,
    *invalid_3.INVALID,
)

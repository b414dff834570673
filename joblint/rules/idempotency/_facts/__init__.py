"""The idempotency family's facts: what its rules read (side effects, whole-table reads)."""

"""PostgreSQL itself: advisory-lock functions, whatever the driver."""

from __future__ import annotations

# The try-forms of the advisory locks: their boolean result says who won.
TRY_LOCK_SQL_FUNCTIONS = (
    "pg_try_advisory_lock",
    "pg_try_advisory_lock_shared",
    "pg_try_advisory_xact_lock",
    "pg_try_advisory_xact_lock_shared",
)

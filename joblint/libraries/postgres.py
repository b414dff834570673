"""PostgreSQL itself: advisory-lock functions, whatever the driver."""

from __future__ import annotations

from joblint.libraries.job_work import Claims, TableReads

# The try-forms of the advisory locks: their boolean result says who won.
TRY_LOCK_SQL_FUNCTIONS = (
    "pg_try_advisory_lock",
    "pg_try_advisory_lock_shared",
    "pg_try_advisory_xact_lock",
    "pg_try_advisory_xact_lock_shared",
)

# `INSERT ... ON CONFLICT DO NOTHING` claims a key once (SQLite spells it the
# same): the words a string literal holds together to be such a claim.
CLAIMS = (Claims(sql_claims=(("on conflict", "do nothing"),)),)

# PostgreSQL's catalogue (`pg_class`, `information_schema.tables`): reading it
# whole is no job walking the project's table (JL602).
TABLE_READS = (TableReads("postgres", system_tables=("pg_", "information_schema")),)


# SQL publishing a notification: PostgreSQL delivers it at COMMIT and drops
# it on ROLLBACK (the NOTIFY documentation, PostgreSQL 15), so a job
# published this way on the transaction's own connection waits for COMMIT.
NOTIFY_SQL = r"(?i)\bpg_notify\s*\(|^\s*notify\s"
# The cursor methods that run it.
EXECUTE_METHODS = ("execute",)

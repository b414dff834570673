"""Idempotency (JL601-JL602): jobs that must be safe to run twice, and jobs too long to retry.

A job its library runs again (autoretry, acks_late, Dramatiq's default retries) must
guard its side effects outside the database: an email, a charge, a POST (JL601). A job
that walks a whole table in one run can't finish inside its time limit once the table
grows (JL602).

`_facts/` reads side effects and whole-table reads.
"""

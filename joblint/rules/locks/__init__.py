"""Locks (JL401-JL405): row locks and distributed locks that serialize or wedge workers.

A row lock on a pick-next query without `SKIP LOCKED` turns N workers into one (JL401); a
Redis lock with no expiry is held forever by a crashed worker (JL402); a lock released with
a plain DELETE may free another worker's (JL403); a non-blocking attempt whose result is
ignored runs the job either way (JL404); a lock taken in two steps (check, then set) lets
two workers both take it (JL405).

`_facts/` reads lock calls, their clients (Redis, cache, Postgres advisory locks), SQL and
ORM row locks; `_screen/` holds the family's AST confirm steps.
"""

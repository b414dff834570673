"""django-pglocks: PostgreSQL advisory locks as a context manager (django-pglocks 1.1).

`advisory_lock(lock_id, shared=False, wait=True, comment=None, using=None)`
yields `acquired`: with `wait=False` it runs `pg_try_advisory_lock` and yields
its boolean, and the block runs whether or not the lock was taken.
"""

from __future__ import annotations

from joblint.libraries.locking import TryLockContext

TRY_LOCK_CONTEXTS = (TryLockContext("django_pglocks.advisory_lock", keyword="wait", position=2),)

"""Mutual exclusion for jobs: Redis locks with a TTL and an owner token, and
PostgreSQL advisory locks.

A Redis lock must (1) be taken with one atomic ``SET key token NX PX ttl`` so a
crash between "set" and "expire" cannot leave a lock that never expires, (2)
carry a random token, and (3) be released or extended only by a script that
checks the token on the server: a holder that stalled past its TTL must not
delete or prolong the lock somebody else now holds. The TTL bounds how long a
dead holder blocks the others, so it must exceed the protected work (or be
extended while the work runs).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from . import _db
from .backoff import full_jitter
from .transaction import TransactionError

if TYPE_CHECKING:
    from redis import Redis

__all__ = ["LockLost", "LockNotAcquired", "PostgresAdvisoryLock", "RedisLock", "run_once_per"]

# KEYS[1] = lock name, ARGV[1] = our token (, ARGV[2] = new ttl in ms).
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""
_EXTEND = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""

# Polling backs off from 10 ms to at most 250 ms, jittered so contenders that
# started together do not keep colliding.
_POLL_BASE = 0.01
_POLL_CAP = 0.25


class LockNotAcquired(RuntimeError):
    """``with lock:`` could not take the lock within its timeout."""


class LockLost(RuntimeError):
    """The lock expired (and may have been taken by another holder) before release."""


def _wait_slot(attempt: int, deadline: float | None) -> bool:
    """Sleep one jittered polling interval; False once the deadline has passed."""
    pause = full_jitter(attempt, base=_POLL_BASE, cap=_POLL_CAP)
    if deadline is not None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        pause = min(pause, remaining)
    time.sleep(pause)
    return True


def _ttl_ms(ttl: float) -> int:
    if not ttl > 0:
        raise ValueError(f"ttl must be a positive number of seconds, got {ttl!r}")
    return max(1, round(ttl * 1000))


class RedisLock:
    """A lock on key ``name`` that expires after ``ttl`` seconds unless extended.

    ``acquire(blocking=False)`` returns whether we got it; always check it.
    ``with RedisLock(r, "report", ttl=60, blocking_timeout=5):`` waits up to five
    seconds, raises :class:`LockNotAcquired` otherwise, and raises
    :class:`LockLost` at exit if the lock had expired under us (the protected
    work may have overlapped with another holder, which the caller should know).
    """

    def __init__(
        self,
        client: Redis,
        name: str,
        ttl: float,
        *,
        token: str | None = None,
        blocking_timeout: float | None = None,
    ) -> None:
        self.client = client
        self.name = name
        self.ttl = ttl
        self._ttl_ms = _ttl_ms(ttl)
        self.token = token or secrets.token_hex(16)
        self.blocking_timeout = blocking_timeout
        self._release = client.register_script(_RELEASE)
        self._extend = client.register_script(_EXTEND)

    def acquire(self, blocking: bool = False, timeout: float | None = None) -> bool:
        """Take the lock. With ``blocking``, poll (jittered) until ``timeout`` seconds
        pass (``None``: until it is free; the holder's TTL bounds that wait)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        attempt = 0
        while True:
            if self.client.set(self.name, self.token, nx=True, px=self._ttl_ms):
                return True
            if not blocking or not _wait_slot(attempt, deadline):
                return False
            attempt += 1

    def release(self) -> bool:
        """Delete the lock if we still hold it; False if it had expired or changed hands."""
        return bool(self._release(keys=[self.name], args=[self.token]))

    def extend(self, ttl: float) -> bool:
        """Reset the remaining time to ``ttl`` seconds, only while we still hold the lock."""
        return bool(self._extend(keys=[self.name], args=[self.token, _ttl_ms(ttl)]))

    def locked(self) -> bool:
        """Whether anyone holds the lock right now (a snapshot; do not branch on it)."""
        return bool(self.client.exists(self.name))

    def __enter__(self) -> RedisLock:
        if not self.acquire(blocking=True, timeout=self.blocking_timeout):
            raise LockNotAcquired(f"lock {self.name!r} is held by someone else")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.release() and exc is None:
            raise LockLost(f"lock {self.name!r} expired before release; raise its ttl")


def run_once_per(client: Redis, job_name: str, period_key: str, ttl: float) -> bool:
    """True for exactly one caller per ``(job_name, period_key)``: the one that should run.

    For scheduled jobs fired on several hosts (every beat replica, every cron
    box): pass the period as a string, e.g. ``now.strftime("%Y-%m-%dT%H")`` for
    an hourly job. The marker is not released, so ``ttl`` must outlast the
    period plus clock skew; a run that fails is not repeated in that period.
    """
    marker = f"{socket.gethostname()}:{os.getpid()}"
    key = f"joblint:once:{job_name}:{period_key}"
    return bool(client.set(key, marker, nx=True, px=_ttl_ms(ttl)))


def advisory_key(key: int | str) -> int:
    """A signed 64-bit advisory lock key; strings are hashed stably (blake2b)."""
    if isinstance(key, str):
        return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big",
                              signed=True)
    if not -(2**63) <= key < 2**63:
        raise ValueError("advisory lock keys are signed 64-bit integers")
    return key


class PostgresAdvisoryLock:
    """``pg_advisory_lock`` on a psycopg 3 connection, session or transaction scoped.

    * ``scope="session"``: held until :meth:`release` or the connection closes,
      and **not** released by ROLLBACK; do not use it through a pooler in
      transaction mode (PgBouncer), where "the session" is shared.
    * ``scope="transaction"``: released by COMMIT/ROLLBACK, cannot be released
      earlier. Refused on an autocommit connection outside a transaction block,
      where it would be released as soon as the SELECT ends.
    """

    def __init__(
        self,
        conn: Any,
        key: int | str,
        *,
        scope: Literal["session", "transaction"] = "session",
        blocking_timeout: float | None = None,
    ) -> None:
        if _db.dialect_of(conn) != "postgres":
            raise TypeError("advisory locks need a psycopg 3 connection")
        self.conn = conn
        self.key = advisory_key(key)
        self.scope = scope
        self.blocking_timeout = blocking_timeout
        self._infix = "_xact" if scope == "transaction" else ""

    def _select(self, function: str) -> Any:
        return self.conn.execute(f"SELECT {function}(%s)", (self.key,)).fetchone()[0]

    def acquire(self, blocking: bool = False, timeout: float | None = None) -> bool:
        """Take the lock; with ``blocking`` wait (``timeout`` seconds, or forever)."""
        if (
            self.scope == "transaction"
            and self.conn.autocommit
            and self.conn.info.transaction_status.name == "IDLE"
        ):
            raise TransactionError(
                "transaction-scoped advisory lock outside a transaction: "
                "it would be released at once; use atomic(conn) or conn.transaction()"
            )
        if blocking and timeout is None:
            self._select(f"pg_advisory{self._infix}_lock")
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        attempt = 0
        while True:
            if self._select(f"pg_try_advisory{self._infix}_lock"):
                return True
            if not blocking or not _wait_slot(attempt, deadline):
                return False
            attempt += 1

    def release(self) -> bool:
        """Release a session lock; False if this session did not hold it."""
        if self.scope == "transaction":
            raise TransactionError("a transaction-scoped advisory lock ends with the transaction")
        return bool(self._select("pg_advisory_unlock"))

    def __enter__(self) -> PostgresAdvisoryLock:
        if not self.acquire(blocking=True, timeout=self.blocking_timeout):
            raise LockNotAcquired(f"advisory lock {self.key} is held by another session")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.scope == "session":
            self.release()

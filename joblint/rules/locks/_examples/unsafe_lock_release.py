"""The full example suite of `joblint.rules.locks.unsafe_lock_release`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

VALID = (
    Valid(
        """
RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end"

def rebuild(r, token):
    if r.set("lock:rebuild", token, nx=True, ex=60):
        r.eval(RELEASE, 1, "lock:rebuild", token)
""",
        id="lua-release",
    ),
    Valid(
        """
def acquire(r, token):
    return r.set("lock:rebuild", token, nx=True, ex=60)

def release(r):
    r.delete("lock:rebuild")
""",
        id="separate-module-functions",
    ),
    Valid(
        """
def cleanup(r, key):
    r.delete(key)
    r.set(key, "x", nx=True, ex=60)
""",
        id="delete-before-acquire",
    ),
    Valid(
        """
import pytest
from redis.exceptions import DataError, ResponseError

def test_bad_values(r, key, token):
    with pytest.raises(DataError):
        r.set(key, object(), nx=True, ex=5)
    r.delete(key)
    r.set(key, token, nx=True, ex=5)
    with pytest.raises(ResponseError):
        r.delete(key)
""",
        id="error-tests",
    ),
    Valid(
        """
def test_set_nx(r):
    assert r.set("colour", "blue", nx=True, ex=5)
    assert not r.set("colour", "red", nx=True, ex=5)
    r.delete("colour")
    first = r.set("shape", "round", nx=True, ex=5)
    assert first is True
    r.delete("shape")
""",
        id="client-test-clean-up",
    ),
    Valid(
        """
import redis

r = redis.Redis()
RELEASE = r.register_script(
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end"
)


def reindex(token):
    if not r.set(name="reindex-lock", value=token, nx=True, ex=60):
        return
    try:
        pass
    finally:
        RELEASE(keys=["reindex-lock"], args=[token])
""",
        id="set-nx-by-keyword-released-by-script",
    ),
)

INVALID = (
    invalid(
        """import redis
async def rebuild(r, name, token):
    key = f"lock:{name}"
    if await r.set(key, token, nx=True, px=60_000):
        if await r.get("other") == token:
            await r.delete(key)
""",
        (6, 19, "another worker"),
        id="async-and-wrong-compare",
    ),
    invalid(
        """import redis
def reindex(r, token):
    if not r.set("reindex", token, nx=True, ex=60):
        return
    try:
        pass
    finally:
        r.delete("reindex")
""",
        (8, 9, 'delete("reindex")'),
        id="literal-key-released",
    ),
    invalid(
        """
import redis

r = redis.Redis()


def reindex(name, token):
    key = f"reindex:{name}"
    if not r.set(name=key, value=token, nx=True, ex=60):
        return
    try:
        pass
    finally:
        r.delete(key)
""",
        (14, 9, "delete(key)"),
        id="set-nx-every-argument-by-keyword-released-by-delete",
    ),
)

"""redis-py: clients, `SET NX` locks, `Lock` objects (redis-py 8.1 signatures,
checked with `inspect.signature`).

The clients that speak redis-py's API (aioredis 2, merged into `redis.asyncio`
with the same signatures: `aioredis.from_url`, `aioredis.Redis`,
`aioredis.lock.Lock(redis, name, timeout=None, ...)`, aioredis 2.0.1;
redis-py-cluster's `rediscluster`, merged into `redis.cluster`; walrus, built
on it; fakeredis, its test double) put the same commands in reach.
"""

from __future__ import annotations

from joblint.libraries.job_work import Claims
from joblint.libraries.locking import (
    KeyCommands,
    KeyLockCommand,
    LockApi,
    LockReceiver,
    NonBlockingAcquire,
    RedisClients,
)

REDIS_CLIENTS = (
    RedisClients(
        constructors=(
            "redis.Redis",
            "redis.StrictRedis",
            "redis.client.Redis",
            "redis.client.StrictRedis",
            "redis.Redis.from_url",
            "redis.StrictRedis.from_url",
            "redis.Redis.from_pool",
            "redis.from_url",
            "redis.RedisCluster",
            "redis.cluster.RedisCluster",
            "redis.RedisCluster.from_url",
            "redis.asyncio.Redis",
            "redis.asyncio.StrictRedis",
            "redis.asyncio.client.Redis",
            "redis.asyncio.client.StrictRedis",
            "redis.asyncio.Redis.from_url",
            "redis.asyncio.StrictRedis.from_url",
            "redis.asyncio.Redis.from_pool",
            "redis.asyncio.from_url",
            "redis.asyncio.utils.from_url",
            "redis.asyncio.RedisCluster",
            "redis.asyncio.cluster.RedisCluster",
            "aioredis.Redis",
            "aioredis.StrictRedis",
            "aioredis.client.Redis",
            "aioredis.client.StrictRedis",
            "aioredis.Redis.from_url",
            "aioredis.StrictRedis.from_url",
            "aioredis.from_url",
            "aioredis.utils.from_url",
        ),
        classes=(
            "redis.Redis",
            "redis.StrictRedis",
            "redis.client.Redis",
            "redis.RedisCluster",
            "redis.cluster.RedisCluster",
            "redis.asyncio.Redis",
            "redis.asyncio.StrictRedis",
            "redis.asyncio.client.Redis",
            "redis.asyncio.RedisCluster",
            "aioredis.Redis",
            "aioredis.StrictRedis",
            "aioredis.client.Redis",
        ),
        pipeline_methods=("pipeline",),
        modules=("redis", "aioredis", "rediscluster", "walrus", "fakeredis"),
    ),
)

# The lock's fix in messages: SET NX with an expiry.
SET_NX_FIX = "set(key, token, nx=True, ex=...)"

KEY_LOCK_COMMANDS = (
    # set(name, value, ex=None, px=None, nx=False, xx=False, keepttl=False,
    # get=False, exat=None, pxat=None, ...) (redis-py 5 to 8): the third
    # positional is `ex`.
    KeyLockCommand(
        "set",
        flag_keyword="nx",
        expiry_keywords=("ex", "px", "exat", "pxat"),
        expiry_position=2,
        fix=SET_NX_FIX,
        parameters=("name", "value"),
    ),
    # setnx(name, value): no expiry parameter at all.
    KeyLockCommand("setnx", fix=SET_NX_FIX, parameters=("name", "value")),
    # hsetnx(name, key, value): a hash field set only when absent; a field has
    # no expiry of its own in this call either.
    KeyLockCommand(
        "hsetnx",
        arguments=3,
        key_arguments=2,
        fix=SET_NX_FIX,
        parameters=("name", "key", "value"),
    ),
)

KEY_COMMANDS = (
    KeyCommands(
        delete_methods=("delete", "unlink"),
        get_methods=("get",),
        expire_methods=("expire", "pexpire", "expireat", "pexpireat"),
        # `delex(key, ifeq=token)` deletes on a condition.
        script_methods=("eval", "evalsha", "fcall", "delex"),
        field_delete_methods=("hdel",),
        exists_methods=("exists",),
        set_methods=("set",),
        # setex(name, time, value), psetex(name, time_ms, value)
        timed_set_methods=("setex", "psetex"),
        count_methods=("incr", "incrby", "incrbyfloat", "decr", "decrby", "hincrby"),
    ),
)

LOCK_APIS = (
    # redis.lock.Lock(redis, name, timeout=None, sleep=0.1, blocking=True, ...)
    LockApi(
        "redis.lock.Lock(...)",
        qualname="redis.lock.Lock",
        expiry_keyword="timeout",
        expiry_position=2,
    ),
    LockApi(
        "redis.asyncio.lock.Lock(...)",
        qualname="redis.asyncio.lock.Lock",
        expiry_keyword="timeout",
        expiry_position=2,
    ),
    LockApi(
        "aioredis.lock.Lock(...)",
        qualname="aioredis.lock.Lock",
        expiry_keyword="timeout",
        expiry_position=2,
    ),
    # Redis.lock(name, timeout=None, sleep=0.1, blocking=True, ...)
    LockApi(
        ".lock(...)",
        method="lock",
        receiver=LockReceiver.CLIENT,
        expiry_keyword="timeout",
        expiry_position=1,
    ),
)

# Lock.acquire(sleep=None, blocking=None, blocking_timeout=None, token=None):
# only the keyword says non-blocking (the first positional is `sleep`).
NON_BLOCKING_ACQUIRES = (NonBlockingAcquire("acquire", "blocking"),)

# --- idempotency: claiming a key before the work (JL601) ------------------------------

# `if not r.set(key, 1, nx=True, ex=...): return`: only the first claim wins.
CLAIMS = (Claims(set_if_absent=(("set", "nx"), ("setnx", ""))),)

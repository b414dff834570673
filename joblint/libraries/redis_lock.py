"""python-redis-lock: `redis_lock.Lock` and its Django cache backend's `lock()`."""

from __future__ import annotations

from joblint.libraries.locking import CacheBackend, LockApi, LockReceiver, RedisClients

REDIS_CLIENTS = (RedisClients(modules=("redis_lock",)),)

LOCK_APIS = (
    # Lock(redis_client, name, expire=None, id=None, auto_renewal=False, ...)
    LockApi(
        "redis_lock.Lock(...)",
        qualname="redis_lock.Lock",
        expiry_keyword="expire",
        expiry_position=2,
    ),
)

# redis_lock.django_cache.RedisCache.lock(key, expire=None, id=None, auto_renewal=False)
CACHE_BACKENDS = (
    CacheBackend(
        "redis_lock.django_cache.RedisCache",
        "python-redis-lock",
        LockApi(
            "cache.lock(...)",
            method="lock",
            receiver=LockReceiver.CACHE,
            expiry_keyword="expire",
            expiry_position=1,
            library="python-redis-lock's redis_lock.django_cache.RedisCache",
        ),
    ),
)

"""django-redis: a Redis cache backend for Django, with `lock()` and `set(..., nx=True)`."""

from __future__ import annotations

from joblint.libraries.locking import (
    CacheBackend,
    KeyLockCommand,
    LockApi,
    LockReceiver,
    RedisClients,
)

REDIS_CLIENTS = (
    RedisClients(constructors=("django_redis.get_redis_connection",), modules=("django_redis",)),
)

# RedisCache.lock(key, version=None, timeout=None, sleep=0.1, ...)
CACHE_BACKENDS = (
    CacheBackend(
        "django_redis.cache.RedisCache",
        "django-redis",
        LockApi(
            "cache.lock(...)",
            method="lock",
            receiver=LockReceiver.CACHE,
            expiry_keyword="timeout",
            expiry_position=2,
            library="django-redis",
        ),
    ),
)

# RedisCache.set(key, value, timeout=DEFAULT_TIMEOUT, version=None, client=None,
# nx=False, xx=False): without a timeout the cache's default applies (it expires).
KEY_LOCK_COMMANDS = (
    KeyLockCommand(
        "set",
        flag_keyword="nx",
        receiver=LockReceiver.CACHE,
        receiver_text="cache.",
        expiry_keywords=("timeout",),
        expiry_position=2,
        default_expires=True,
        fix="set(key, token, timeout=..., nx=True)",
        parameters=("key", "value"),
    ),
)

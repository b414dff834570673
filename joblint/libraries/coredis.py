"""coredis: an asyncio Redis client; its import puts Redis's commands in reach."""

from __future__ import annotations

from joblint.libraries.locking import RedisClients

REDIS_CLIENTS = (RedisClients(modules=("coredis",)),)

"""valkey-py: the Valkey fork of redis-py, with redis-py's commands."""

from __future__ import annotations

from joblint.libraries.locking import RedisClients

REDIS_CLIENTS = (
    RedisClients(
        constructors=(
            "valkey.Valkey",
            "valkey.Valkey.from_url",
            "valkey.from_url",
            "valkey.asyncio.Valkey",
            "valkey.asyncio.from_url",
        ),
        classes=("valkey.Valkey", "valkey.asyncio.Valkey"),
        modules=("valkey",),
    ),
)

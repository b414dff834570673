"""httpx: HTTP calls that change something on the other side (POST, PUT, PATCH)."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import Claims, SideEffect

LIBRARIES = (Library("httpx", "httpx", modules=("httpx",)),)

# DELETE and GET are idempotent by HTTP's definition: a repeat changes nothing more.
_WRITES = ("post", "put", "patch")
_CLIENTS = ("httpx.Client", "httpx.AsyncClient")

SIDE_EFFECTS = (
    SideEffect(
        "sends an HTTP write request",
        calls=(
            *(f"httpx.{verb}" for verb in _WRITES),
            *(f"{client}.{verb}" for client in _CLIENTS for verb in _WRITES),
        ),
        entered=_CLIENTS,
        remedy="send an Idempotency-Key header the service honours",
    ),
)

# The header that asks the service to drop a repeat (the IETF draft
# "The Idempotency-Key HTTP Header Field"; Stripe and Adyen send it too).
CLAIMS = (Claims(headers=("idempotency-key",)),)

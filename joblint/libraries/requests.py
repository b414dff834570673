"""requests: HTTP calls that create something on the other side (POST)."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import Claims, SideEffect

LIBRARIES = (Library("requests", "requests", modules=("requests",)),)

# PUT, DELETE and GET are idempotent by HTTP's definition (RFC 9110, 9.2.2): a
# repeat changes nothing more; so is a PATCH that sets fields (a JSON merge
# patch, RFC 7396), what nearly every API's PATCH is. A POST creates.
# POSTs that only read: an OAuth token request (its URL, or a `grant_type`
# in its body), a login, a search.
_READS = ("token", "oauth", "login", "search")
_WRITES = ("post",)
_SESSIONS = ("requests.Session", "requests.session", "requests.sessions.Session")

SIDE_EFFECTS = (
    SideEffect(
        "sends an HTTP POST",
        calls=(
            *(f"requests.{verb}" for verb in _WRITES),
            *(f"requests.api.{verb}" for verb in _WRITES),
            *(f"{session}.{verb}" for session in _SESSIONS for verb in _WRITES),
        ),
        entered=_SESSIONS,
        remedy="send an Idempotency-Key header the service honours",
        read_words=_READS,
        read_keys=("grant_type",),
    ),
)

# The header that asks the service to drop a repeat (the IETF draft
# "The Idempotency-Key HTTP Header Field"; Stripe and Adyen send it too).
CLAIMS = (Claims(headers=("idempotency-key",)),)

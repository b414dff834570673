"""Firebase Admin: push notifications through Cloud Messaging."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import SideEffect

LIBRARIES = (Library("firebase_admin", "Firebase", modules=("firebase_admin",)),)

_SENDS = (
    "send",
    "send_each",
    "send_each_for_multicast",
    "send_each_async",
    "send_each_for_multicast_async",
    "send_all",
    "send_multicast",
)

SIDE_EFFECTS = (
    SideEffect(
        "sends a push notification",
        calls=tuple(f"firebase_admin.messaging.{name}" for name in _SENDS),
        remedy="Cloud Messaging has no idempotency key: record the send and check it first",
    ),
)

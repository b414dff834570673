"""Twilio (twilio-python): text messages and calls."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import SideEffect

LIBRARIES = (Library("twilio", "Twilio", modules=("twilio",)),)

SIDE_EFFECTS = (
    SideEffect(
        "sends a text message or places a call through Twilio",
        calls=tuple(
            f"twilio.rest.Client.{resource}.{method}"
            for resource in ("messages", "calls")
            for method in ("create", "create_async")
        ),
        remedy="Twilio messages have no idempotency key: record the send and check it first",
    ),
)

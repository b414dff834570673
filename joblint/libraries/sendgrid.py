"""SendGrid (sendgrid-python): sending email through its API."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import SideEffect

LIBRARIES = (Library("sendgrid", "SendGrid", modules=("sendgrid",)),)

_CLIENTS = ("sendgrid.SendGridAPIClient", "sendgrid.TwilioEmailAPIClient")

SIDE_EFFECTS = (
    SideEffect(
        "sends an email through SendGrid",
        calls=tuple(f"{client}.send" for client in _CLIENTS),
        remedy="SendGrid has no idempotency key: record the send and check it first",
    ),
)

"""slack_sdk: posting messages to Slack."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import SideEffect

LIBRARIES = (Library("slack_sdk", "Slack", modules=("slack_sdk",)),)

_CLIENTS = (
    "slack_sdk.WebClient",
    "slack_sdk.web.WebClient",
    "slack_sdk.web.async_client.AsyncWebClient",
)
_POSTS = ("chat_postMessage", "chat_postEphemeral", "chat_scheduleMessage")

SIDE_EFFECTS = (
    SideEffect(
        "posts a Slack message",
        calls=(
            *(f"{client}.{method}" for client in _CLIENTS for method in _POSTS),
            "slack_sdk.webhook.WebhookClient.send",
        ),
        remedy="Slack has no idempotency key: record the post and check it first",
    ),
)

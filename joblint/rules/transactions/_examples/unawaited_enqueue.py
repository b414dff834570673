"""The full example suite of `joblint.rules.transactions.unawaited_enqueue`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import invalid

INVALID = (
    invalid(
        """
from .tasks import reindex

async def save(doc):
    reindex.defer_async(doc_id=doc.id)
""",
        (5, 5, "reindex.defer_async()"),
        id="procrastinate-defer-async",
    ),
)

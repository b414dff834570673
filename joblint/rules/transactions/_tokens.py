"""The transactions family's prefilter vocabulary: an enqueue in a file that also
holds what the rule reads around it (a transaction, a commit, a write of a row).

The transaction and enqueue vocabulary itself is shared (`joblint.knowledge.tokens`):
screening reads it of every file.
"""

from __future__ import annotations

from dataclasses import replace

from joblint.knowledge.tokens import ENQUEUE_TRIGGERS
from joblint.knowledge.trigger import Trigger


def enqueue_and(anchors: tuple[str, ...], pattern: str) -> tuple[Trigger, ...]:
    """An enqueue call in a file that also has one of `anchors` and matches
    `pattern`. (Huey task calls have no token: the second pass finds the files
    naming a Huey task.)"""
    return tuple(
        replace(t, patterns=(*t.patterns, pattern), also=(*t.also, anchors))
        for t in ENQUEUE_TRIGGERS
    )

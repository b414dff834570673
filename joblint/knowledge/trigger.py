"""A rule's trigger as data (see `joblint.knowledge.tokens` for the vocabulary).

Apart from the vocabulary so that reading the generated catalogue (rule
selection, configuration checks, the prefilter) imports no library table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Trigger:
    anchors: tuple[str, ...]
    patterns: tuple[str, ...] = ()
    # The method is an ordinary word: also needs a job library or task name.
    gated: bool = False
    # The name of a check on Python's AST that must confirm the trigger: a step its
    # family registers in its `_screen/` package (`joblint.knowledge.confirm`).
    confirm: str = ""
    # Further groups of anchors, one of each must occur too (before any pattern).
    also: tuple[tuple[str, ...], ...] = ()

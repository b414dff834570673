"""Searching a file's bytes for whole words (the names of a project's tasks,
of functions on the way to an enqueue), cheaply: most files hold none, and
are told so by a scan in C or one pass of an automaton before any regular
expression runs."""

from __future__ import annotations

import re
from typing import Any

from joblint.pipeline.screen.prefilter import anchor_automaton


def word_finder(names: set[str], after: bytes = b"\\b") -> Words | None:
    """A search for `names` (None when there are none to look for)."""
    return Words(names, after) if names else None


# Up to this many words, each is looked for as bytes first (a scan in C per
# word), beyond it all at once; the regular expression, whose alternation is
# tried at every position, runs only on files holding one.
_LITERAL_WORDS = 8


class Words:
    """Whether bytes name one of some words (whole words, followed by
    `after`; with `calls`, not where a `def` defines one)."""

    def __init__(self, names: set[str], after: bytes, calls: bool = False) -> None:
        self._words = sorted(n.encode() for n in names)
        self._after = after
        self._before = rb"(?<!def )" if calls else b""
        self._pattern: re.Pattern[bytes] | None = None  # compiled when first needed
        self._automaton: Any = None

    def search(self, data: bytes) -> bool:
        if not self._may_hold(data):
            return False
        if self._pattern is None:
            words = b"|".join(re.escape(w) for w in self._words)
            self._pattern = re.compile(self._before + rb"\b(?:" + words + rb")" + self._after)
        return self._pattern.search(data) is not None

    def _may_hold(self, data: bytes) -> bool:
        """Whether a word is in `data` at all: a scan in C per word, or for
        many words one pass of an automaton (the alternation of the
        regular expression is tried at every position)."""
        if len(self._words) <= _LITERAL_WORDS:
            return any(w in data for w in self._words)
        if self._automaton is None:
            self._automaton = anchor_automaton(self._words)
        # Latin-1 maps each byte to one character: the words' matches are the bytes'.
        return next(self._automaton.iter(data.decode("latin-1")), None) is not None

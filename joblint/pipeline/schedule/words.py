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
# word), and a regular expression tells a whole word; beyond it, one pass of
# an automaton finds every place one is written, and each is told whole or
# not there: an alternation of thousands of words, tried at every position
# of every file, took minutes on a monorepo.
_LITERAL_WORDS = 8
_WORD_BYTE = re.compile(rb"\w")


class Words:
    """Whether bytes name one of some words (whole words, followed by
    `after`; with `calls`, not where a `def` defines one)."""

    def __init__(self, names: set[str], after: bytes, calls: bool = False) -> None:
        self._words = sorted(n.encode() for n in names)
        self._after = after
        self._calls = calls
        self._before = rb"(?<!def )" if calls else b""
        self._pattern: re.Pattern[bytes] | None = None  # compiled when first needed
        self._follows = re.compile(after)
        self._automaton: Any = None
        # Where a word starts with no word character, `\b` before it means
        # something else: the regular expression tells those.
        self._by_place = len(self._words) > _LITERAL_WORDS and all(
            _WORD_BYTE.match(w) for w in self._words
        )

    def search(self, data: bytes) -> bool:
        if self._by_place:
            return self._written(data)
        if not any(w in data for w in self._words):
            return False
        if self._pattern is None:
            words = b"|".join(re.escape(w) for w in self._words)
            self._pattern = re.compile(self._before + rb"\b(?:" + words + rb")" + self._after)
        return self._pattern.search(data) is not None

    def _written(self, data: bytes) -> bool:
        """Whether a word is written whole in `data`, followed by `after`
        (and, for calls, not after `def `), found by one pass of an
        automaton over every place a word is."""
        if self._automaton is None:
            self._automaton = anchor_automaton(self._words)
        # Latin-1 maps each byte to one character: the words' places are the bytes'.
        for end, word in self._automaton.iter(data.decode("latin-1")):
            start = end + 1 - len(word)
            if start and _WORD_BYTE.match(data, start - 1):
                continue  # inside a longer word
            if self._calls and data[max(0, start - 4) : start] == b"def ":
                continue
            if self._follows.match(data, end + 1):
                return True
        return False

"""Searching files for whole words: many words are found by the places an
automaton gives, told whole as the regular expression of a few tells them."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from joblint.pipeline.schedule.words import Words, word_finder

_NAMES = ["send", "send_mail", "mail", "s", "run", "run_all", "all", "x1", "notify", "get"]
_AFTERS = [b"\\b", rb"\s*\(", rb"\s*[(),]", rb"\.send", rb"['\"]"]
_PIECES = ["def ", " ", "(", ")", ",", ".", ".send", "'", '"', "_", "x", "\n", "un", "ddef "]


def _by_expression(names: set[str], after: bytes, calls: bool, data: bytes) -> bool:
    words = b"|".join(re.escape(n.encode()) for n in sorted(names))
    before = rb"(?<!def )" if calls else b""
    return re.search(before + rb"\b(?:" + words + rb")" + after, data) is not None


@given(
    st.sets(st.sampled_from(_NAMES), min_size=1),
    st.sampled_from(_AFTERS),
    st.booleans(),
    st.lists(st.sampled_from(_NAMES + _PIECES), max_size=30),
)
def test_words_are_found_as_the_regular_expression_finds_them(
    names: set[str], after: bytes, calls: bool, pieces: list[str]
) -> None:
    data = "".join(pieces).encode()
    many = names | {f"unused_{n}" for n in range(9)}  # past the few searched one by one
    for wanted in (names, many):
        found = Words(wanted, after, calls=calls).search(data)
        assert found == _by_expression(wanted, after, calls, data), (wanted, data)


def test_no_names_no_search() -> None:
    assert word_finder(set()) is None

"""`joblint.analysis.literals` reads every literal as LibCST's `evaluated_value` does."""

from __future__ import annotations

import gc

import libcst as cst
import pytest
from hypothesis import given
from hypothesis import strategies as st

from joblint.analysis.literals import number_value, string_value

_PREFIXES = ["", "r", "u", "R", "U", "b", "B", "br", "rb", "Rb", "bR"]
_QUOTES = ["'", '"', "'''", '"""']


def _string_literals() -> st.SearchStrategy[str]:
    """Literals as written: `repr` of any text or bytes (escapes and all),
    and any prefix and quote around text that can't end the string early."""
    plain = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
    reprs = st.one_of(plain.map(repr), st.binary(max_size=20).map(repr))

    def wrapped(prefix: str, quote: str, body: str) -> str:
        return f"{prefix}{quote}{body}{quote}"

    body = st.text(st.sampled_from("ab é\\\"'\t\r\n{}"), max_size=12)
    written = st.builds(wrapped, st.sampled_from(_PREFIXES), st.sampled_from(_QUOTES), body)
    return st.one_of(reprs, written)


def _parsed(literal: str) -> cst.BaseExpression | None:
    try:
        return cst.parse_expression(literal)
    except (cst.ParserSyntaxError, SyntaxError, ValueError):
        return None


# A literal with an unknown escape (`"\ "`) is still read; Python warns of it.
@pytest.mark.filterwarnings("ignore:invalid escape sequence")
@given(_string_literals())
def test_a_string_s_value_is_what_literal_eval_gives(literal: str) -> None:
    node = _parsed(literal)
    if not isinstance(node, cst.SimpleString):
        return  # not one string literal (a quote inside ended it)
    try:
        expected: object = node.evaluated_value
    except (SyntaxError, ValueError) as error:
        with pytest.raises(type(error)):
            string_value(node)
        return
    found = string_value(node)
    assert found == expected and type(found) is type(expected)


@given(
    st.one_of(
        st.integers().map(str),
        st.integers(min_value=0).map(hex),
        st.integers(min_value=0).map(oct),
        st.integers(min_value=0).map(bin),
        st.integers(min_value=1000).map(lambda n: f"{n:_}"),
        st.floats(allow_nan=False, allow_infinity=False, min_value=0).map(repr),
        st.sampled_from(["0", "00", "1_0.5", "1e5", ".5", "5.", "0x_1F", "1E-3"]),
    )
)
def test_a_number_s_value_is_what_literal_eval_gives(literal: str) -> None:
    node = _parsed(literal)
    if not isinstance(node, cst.Integer | cst.Float):
        return  # a negative number is an operation on one
    found = number_value(node)
    assert found == node.evaluated_value and type(found) is type(node.evaluated_value)


def test_reading_a_plain_literal_leaves_nothing_for_the_cyclic_collector() -> None:
    """`literal_eval` makes a reference cycle per call: a module of many
    literals left a collection's worth."""
    nodes = [cst.parse_expression(text) for text in ('"key"', "b'x'", "r'\\d'", "30", "1.5")]
    gc.collect()
    gc.disable()
    try:
        for node in nodes:
            assert isinstance(node, cst.SimpleString | cst.Integer | cst.Float)
            if isinstance(node, cst.SimpleString):
                string_value(node)
            else:
                number_value(node)
        assert gc.collect() == 0
        assert isinstance(nodes[0], cst.SimpleString)
        assert nodes[0].evaluated_value == "key"
        assert gc.collect() > 0  # what LibCST's own reading leaves
    finally:
        gc.enable()

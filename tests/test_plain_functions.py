"""The index's plain functions: only names LibCST's facts list as plain definitions."""

from __future__ import annotations

import ast
import re

import pytest
from conftest import our_sources
from hypothesis import given
from hypothesis import strategies as st

from joblint.index import index_source
from joblint.index.plain import plain_functions
from joblint.pipeline.lint import lint_source
from joblint.settings import LintSettings, ModuleInfo, Options

# (source, the plain functions it has)
CASES = [
    ("def send(x):\n    return x\n", ["send"]),
    ("def send(x):\n    return x\n\ndef run():\n    send(1)\n    send (2)\n", ["run", "send"]),
    ("async def send():\n    pass\n", ["send"]),
    ("import functools\n\n@functools.cache\ndef send():\n    pass\n", []),
    # Its own name in a string of its own, an attribute of the same name.
    (
        "__all__ = [\"send\", 'run']\n\ndef send():\n    pass\n\ndef run():\n    pass\n",
        ["run", "send"],
    ),
    (
        "def send():\n    pass\n\nclass Mailer:\n    send = None\n    def go(self):\n"
        "        self.send = 1\n",
        [],
    ),  # a class attribute `send =` is written as a rebinding
    ("def send():\n    pass\n\nobj.send = 1\nobj.send()\n", ["send"]),
    # Every way of binding the name again.
    ("def send():\n    pass\n\nsend = wrap(send)\n", []),
    ("def send():\n    pass\n\nsend: object = wrap(send)\n", []),
    ("def send():\n    pass\n\nsend += 1\n", []),
    ("def send():\n    pass\n\nfrom mail import send\n", []),
    ("def send():\n    pass\n\nimport mail as send\n", []),
    ("def send():\n    pass\n\nimport send\n", []),
    ("def send():\n    pass\n\ndef later():\n    global send\n    send = None\n", ["later"]),
    ("def send():\n    pass\n\ndel send\n", []),
    ("def send():\n    pass\n\nfor send in range(3):\n    pass\n", []),
    ("def send():\n    pass\n\nwith open('f') as send:\n    pass\n", []),
    ("def send():\n    pass\n\ntry:\n    pass\nexcept ValueError as send:\n    pass\n", []),
    ("def send():\n    pass\n\nif (send := 3):\n    pass\n", []),
    ("def send():\n    pass\n\nmatch 1:\n    case send:\n        pass\n", []),
    ("def send():\n    pass\n\nsend, other = 1, 2\n", []),
    ("def send():\n    pass\n\n[send] = [1]\n", []),
    ("def send():\n    pass\n\nclass send:\n    pass\n", []),
    ("def send():\n    pass\n\nclass \\\n    send(object):\n    pass\n", []),
    ("def send():\n    pass\n\ndef \\\n  send():\n    pass\n", []),
    ("def send():\n    pass\n\nif True:\n    def send():\n        pass\n", []),
    ("def send():\n    pass\n\nfrom mail import *\n", []),
    ("def send():\n    pass\n\nif True:\n    from mail import  *\n", []),
    # Words in prose and comments fail the test too: no more than conservative.
    ("def send():\n    '''Call send first.'''\n", []),
    ("def send():\n    pass  # send it\n", []),
    # Python reads `ﬁle` as `file` (NFKC).
    ("def file():\n    pass\n\nﬁle = 3\n", []),
    ("def resend():\n    pass\n\nsend = 1\n", ["resend"]),
    # A name ending in `def` before a call on the next line is no `def`.
    ("def send():\n    pass\n\nundef = 1\nundef\nsend()\n", ["send"]),
]


@pytest.mark.parametrize(("source", "plain"), CASES)
def test_plain_functions(source: str, plain: list[str]) -> None:
    assert plain_functions(ast.parse(source), source.encode()) == plain
    assert plain_functions(ast.parse(source), source) == plain


def _agrees_with_facts(source: str, module: str = "app.example") -> None:
    """The index's plain functions are among the facts' plain definitions."""
    info = ModuleInfo(module)
    index = index_source(source.encode(), info, Options())
    if index is None:
        return
    facts = lint_source("app/example.py", source.encode(), LintSettings(frozenset()), info)
    assert set(index.plain_functions) <= set(facts.facts.plain_definitions), source


@pytest.mark.parametrize(("source", "plain"), CASES)
def test_the_cases_agree_with_the_facts(source: str, plain: list[str]) -> None:
    _agrees_with_facts(source)
    index = index_source(source.encode(), ModuleInfo("app.example"), Options())
    assert index is not None
    assert index.plain_functions == tuple(f"app.example.{name}" for name in plain)


def test_every_example_and_fixture_agrees_with_the_facts() -> None:
    told = 0
    for source in our_sources():
        _agrees_with_facts(source)
        tree = _parsed(source)
        told += len(plain_functions(tree, source)) if tree is not None else 0
    assert told > 100  # the test reads plain functions, not only their absence


def _parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _one_name_at_a_time(tree: ast.Module, data: bytes) -> list[str]:
    """The plain functions as counting each name over the whole text tells
    them (the reading for a few names; `plain_functions` splits a text with
    many into words once instead)."""
    names = sorted(
        s.name for s in tree.body if isinstance(s, ast.FunctionDef) and not s.decorator_list
    )
    once = [n for n in names if data.count(n.encode()) == 1]
    others = [n.encode() for n in names if data.count(n.encode()) > 1]
    if not others:
        return sorted(once)
    alternatives = b"|".join(re.escape(w) for w in sorted(others, key=len, reverse=True))
    pattern = re.compile(rb"(?<![\w.])(" + alternatives + rb")(?!\w)")
    written = [m.group(1) for m in pattern.finditer(data)]
    return sorted(once + [w.decode() for w in others if _only_defined_and_called(data, w, written)])


def _only_defined_and_called(data: bytes, word: bytes, written: list[bytes]) -> bool:
    uses = written.count(word)
    defined = data.count(b"def " + word + b"(")
    called = len(re.findall(rb"(?<![\w.])" + re.escape(word) + rb"\(", data)) - defined
    return defined == 1 and uses == defined + called


_STEMS = ["send", "sen", "send_1", "send_10", "s", "run", "run_all", "x1"]
_USES = ["{}()", "obj.{}", "y = {}", "z{} = 1", "{}x = 2", "# {} noted"]


@given(
    st.lists(st.sampled_from(_STEMS), min_size=1, max_size=8, unique=True),
    st.integers(min_value=0, max_value=40),
    st.lists(st.tuples(st.integers(0, 40), st.sampled_from(_USES)), max_size=12),
)
def test_many_names_read_as_each_name_alone(stems: list[str], copies: int, uses: list) -> None:
    """More names than are counted one at a time: the words are counted
    once, and every name written inside a longer word is told apart."""
    names = list(dict.fromkeys(f"{stem}_{n}" for stem in stems for n in range(copies + 1)))
    lines = [f"def {name}():\n    pass\n" for name in names]
    lines += [use.format(names[at % len(names)]) + "\n" for at, use in uses]
    data = "".join(lines).encode()
    tree = ast.parse(data)
    assert plain_functions(tree, data) == _one_name_at_a_time(tree, data)

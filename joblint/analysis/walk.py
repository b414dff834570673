"""A fast, iterative pre-order walk over a LibCST tree.

`Module.visit()` rebuilds every node it passes (LibCST visitors can replace
children), which validates each node again and dominated joblint's profile
(~2x the parse). Rules only read the tree, so this walker reads children
straight from the node's fields, in the order LibCST's own
`_visit_and_replace_children` visits them (= source order), and skips
whitespace/comment/parenthesis fields no rule looks at. It keeps its own
stack, so deeply nested code can't raise `RecursionError` here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from types import CodeType

import libcst as cst

# Fields holding only formatting: whitespace, comments, blank lines, parentheses,
# commas and the like. No rule reads them through the walk.
_FORMATTING_FIELDS = frozenset(
    {
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "lpar",
        "rpar",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "comma",
        "semicolon",
        "trailing_whitespace",
        "newline",
        "whitespace",
        "colon",
        "first_colon",
        "second_colon",
        "dot",
        "equal",
        "star",
    }
)

# Formatting node types that also appear in fields with other names
# (`Parameters.star_arg`, `ImportFrom.relative`, ...).
FORMATTING_TYPES: frozenset[type[cst.CSTNode]] = frozenset(
    {
        cst.SimpleWhitespace,
        cst.ParenthesizedWhitespace,
        cst.TrailingWhitespace,
        cst.EmptyLine,
        cst.Newline,
        cst.Comment,
        cst.Comma,
        cst.LeftParen,
        cst.RightParen,
        cst.LeftSquareBracket,
        cst.RightSquareBracket,
        cst.LeftCurlyBrace,
        cst.RightCurlyBrace,
        cst.AssignEqual,
        cst.Dot,
        cst.Colon,
        cst.Semicolon,
        cst.ImportStar,
        cst.ParamStar,
    }
)

# None: fall back to LibCST's own `children` for that type.
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...] | None] = {}


def subclasses(*bases: type) -> frozenset[type]:
    """The node classes deriving from `bases` (themselves included). LibCST's
    classes are ABCs, so `isinstance` on them takes the slow path through
    `ABCMeta.__instancecheck__`: hot paths test `type(node) in` a set instead."""
    found: set[type] = set()
    todo = list(bases)
    while todo:
        node_type = todo.pop()
        if node_type not in found:
            found.add(node_type)
            todo.extend(node_type.__subclasses__())
    return frozenset(found)


# Whether a value of a type is a node the walk yields (a node, not formatting).
_CONTENT: dict[type, bool] = dict.fromkeys(subclasses(cst.CSTNode), True)
_CONTENT.update(dict.fromkeys(FORMATTING_TYPES, False))


def _is_content(value_type: type) -> bool:
    found = _CONTENT.get(value_type)
    if found is None:  # a type made after LibCST loaded, or not a node
        found = _CONTENT[value_type] = (
            issubclass(value_type, cst.CSTNode) and value_type not in FORMATTING_TYPES
        )
    return found


def _child_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...] | None:
    """The node's fields in the order its `_visit_and_replace_children`
    visits them: the field names it hands LibCST's visit helpers
    (`visit_required(self, "value", ...)`), read off the method's compiled
    constants, which keep the order they first appear in (tests/test_walk.py
    checks it against the method's source for every LibCST node). Reading
    the source instead cost each worker process tens of milliseconds."""
    method = node_type._visit_and_replace_children
    if method is cst.CSTNode._visit_and_replace_children or getattr(
        method, "__qualname__", ""
    ).startswith("BaseLeaf."):
        return ()
    code = getattr(method, "__code__", None)
    if code is None:
        return None
    declared = {f.name for f in dataclasses.fields(node_type)}
    # A field visited in two branches (`names` of ImportFrom) appears twice.
    names = list(dict.fromkeys(c for c in _strings(code) if c in declared))
    if not names:
        return None
    return tuple(
        name
        for name in names
        if name not in _FORMATTING_FIELDS and not name.startswith("whitespace")
    )


def _strings(code: CodeType) -> Iterator[str]:
    """The string constants of `code` and of the code nested in it, in order."""
    for constant in code.co_consts:
        if isinstance(constant, str):
            yield constant
        elif isinstance(constant, CodeType):
            yield from _strings(constant)


def children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    node_type = type(node)
    if node_type not in _FIELDS:
        _FIELDS[node_type] = _child_fields(node_type)
    fields = _FIELDS[node_type]
    if fields is None:
        return [c for c in node.children if type(c) not in FORMATTING_TYPES]
    found: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        value_type = type(value)
        if value_type is tuple or value_type is list:
            found.extend(v for v in value if _is_content(type(v)))
        elif _is_content(value_type):
            found.append(value)
    return found


def walk(
    root: cst.CSTNode,
    enter: Callable[[cst.CSTNode], None],
    leave: Callable[[cst.CSTNode], None],
) -> None:
    """Call `enter` on each node before its children and `leave` after them."""
    stack: list[tuple[cst.CSTNode, bool]] = [(root, False)]
    while stack:
        node, entered = stack.pop()
        if entered:
            leave(node)
            continue
        enter(node)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(children(node)))


def contains(root: cst.CSTNode, kind: type[cst.CSTNode]) -> bool:
    """Whether a node of `kind` is `root` or below it (any depth)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            return True
        stack.extend(children(node))
    return False


def encloses(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether `node` is `root` or below it (any depth)."""
    stack = [root]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        stack.extend(children(current))
    return False


def descendants(root: cst.CSTNode) -> list[cst.CSTNode]:
    """`root` and every node below it (not the whitespace and punctuation)."""
    found: list[cst.CSTNode] = []
    stack = [root]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(children(current))
    return found

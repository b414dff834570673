"""Positions of a file's nodes, computed for the top-level statements asked about.

LibCST's `PositionProvider` records a range for every node of the module in
one code generation pass; recording costs about ten times the generation
itself, and a file with something to report needs the places of a few nodes.
`LazyPositions` is the same mapping, filled one top-level statement at a time:
a statement's nodes are recorded as `PositionProvider` does (the same code
generation) from the first line, then moved to where the statement starts,
so every range is the one the provider gives. Where it starts: where its code
is in the module's text, when it occurs there once (the module's code is its
statements' one after another), else after the code of the statements before
it, which are only generated. Recording keeps plain (line, column) pairs,
made into `CodeRange`s only for the nodes asked about: the provider's
objects and context managers per node cost three times the generation.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import Any, cast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from joblint.analysis.walk import FORMATTING_TYPES, children

# How LibCST's position provider counts lines.
_NEWLINE = re.compile(r"\r\n?|\n")


_Point = tuple[int, int]
_Raw = tuple[_Point, _Point]


class _Recorder:
    """What the code generation state records ranges into."""

    def __init__(self, computed: dict[cst.CSTNode, _Raw]) -> None:
        self._computed = computed


class _RecordingState(PositionProvidingCodegenState):
    """`PositionProvidingCodegenState`, recording (start, end) pairs of
    (line, column) where it records `CodeRange`s, the same ranges."""

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append((self.line, self.column))  # type: ignore[arg-type]

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        computed = self.provider._computed
        if node not in computed:  # a syntactic position recorded inside stays
            computed[node] = (start, (self.line, self.column))

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """The provider's `record_syntactic_position`, as a plain context manager:
    the node's range, its start or end taken from a child's when given."""

    __slots__ = ("end_node", "node", "start", "start_node", "state")

    def __init__(
        self,
        state: _RecordingState,
        node: cst.CSTNode,
        start_node: cst.CSTNode | None,
        end_node: cst.CSTNode | None,
    ) -> None:
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node
        self.start = (state.line, state.column)

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        state = self.state
        computed: dict[cst.CSTNode, _Raw] = state.provider._computed  # type: ignore[assignment]
        start = computed[self.start_node][0] if self.start_node is not None else self.start
        here = (state.line, state.column)
        end = computed[self.end_node][1] if self.end_node is not None else here
        computed[self.node] = (start, end)


def _range(raw: _Raw, start: _Point) -> CodeRange:
    """The range of `raw`, recorded from the first line, had it been recorded from `start`."""
    (start_line, start_column), (end_line, end_column) = raw
    return CodeRange(
        _position(start_line, start_column, start), _position(end_line, end_column, start)
    )


def _position(line: int, column: int, start: _Point) -> CodePosition:
    return CodePosition(line + start[0] - 1, column + start[1] if line == 1 else column)


class LazyPositions(Mapping[cst.CSTNode, CodeRange]):
    """`dict(MetadataWrapper(tree).resolve(PositionProvider))`, computed on demand."""

    def __init__(self, tree: cst.Module, text: str | None = None) -> None:
        """`text`: the source `tree` was parsed from (its code), if at hand."""
        self.tree = tree
        # A text with a byte-order mark may not be the tree's code to the character.
        self._text = text if text is not None and not text.startswith("\ufeff") else None
        # The ranges asked for so far (every node's once `_compute_all` ran).
        self.computed: dict[cst.CSTNode, CodeRange] = {}
        # Ranges recorded, not asked for yet: per statement recorded, as
        # generated from the first line, with where the statement starts.
        # Each node's range in the first statement recorded holding it, with
        # where that statement starts.
        self._recorded_ranges: dict[cst.CSTNode, tuple[_Raw, _Point]] = {}
        self._owner: dict[int, int] | None = None  # id(node) -> its top-level statement
        self._starts: dict[int, _Point] = {}  # where each statement met so far starts
        # Statements found in the text: their indexes, in order, and their
        # code's (start, end) offsets there.
        self._found: list[int] = []
        self._spans: dict[int, tuple[int, int]] = {}
        self._recorded: set[int] = set()
        self._complete = False

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self._known(node)
        if found is None:
            self._compute_for(node)
            found = self._known(node)
            if found is None:
                raise KeyError(node)
        return found

    def __contains__(self, node: object) -> bool:
        if not isinstance(node, cst.CSTNode):
            return False
        if self._known(node) is not None:
            return True
        self._compute_for(node)
        return self._known(node) is not None

    def _known(self, node: cst.CSTNode) -> CodeRange | None:
        found = self.computed.get(node)
        if found is None:
            recorded = self._recorded_ranges.get(node)
            if recorded is not None:
                found = self.computed[node] = _range(*recorded)
        return found

    def __iter__(self) -> Iterator[cst.CSTNode]:
        self._compute_all()
        return iter(self.computed)

    def __len__(self) -> int:
        self._compute_all()
        return len(self.computed)

    def _compute_for(self, node: cst.CSTNode) -> None:
        index = self._owners().get(id(node))
        if index is None or index in self._recorded:
            self._compute_all()  # not a statement's node we know: the module's header, a comma
        else:
            self._record(index)

    def _owners(self) -> dict[int, int]:
        if self._owner is None:
            self._owner = {}
            for index, statement in enumerate(self.tree.body):
                stack: list[cst.CSTNode] = [statement]
                while stack:
                    current = stack.pop()
                    self._owner[id(current)] = index
                    stack.extend(children(current))
        return self._owner

    def _generated_up_to(self, index: int) -> _Point:
        """The start of a statement, from the code of those before it, from
        the nearest whose start is known (or from the module's header)."""
        before = max((i for i in self._starts if i < index), default=None)
        if before is None:
            first = 0
            cursor = _advance((1, 0), "".join(self.tree.code_for_node(h) for h in self.tree.header))
        else:
            first = before + 1
            cursor = _advance(self._starts[before], self.tree.code_for_node(self.tree.body[before]))
        for earlier in range(first, index):
            self._starts[earlier] = cursor
            cursor = _advance(cursor, self.tree.code_for_node(self.tree.body[earlier]))
        return cursor

    def _record(self, index: int) -> None:
        """The statement's ranges, generated from the first line and moved to
        where it starts (a generation started elsewhere moves every point by
        the start's lines, and those on its first line by its column too):
        where its code is in the text, or after the code of those before it."""
        recorded: dict[cst.CSTNode, _Raw] = {}
        code = self._generate(index, recorded)
        start = (
            self._starts.get(index) or self._located(index, code) or self._generated_up_to(index)
        )
        self._starts[index] = start
        ranges = self._recorded_ranges
        for node, raw in recorded.items():
            # Whitespace, commas and brackets, most of a statement's nodes, are
            # not kept: none is asked about but through the whole module's
            # ranges (`_compute_for`), and a long module's would take hundreds
            # of megabytes.
            if type(node) not in FORMATTING_TYPES and node not in ranges:
                ranges[node] = (raw, start)
        self._recorded.add(index)

    def _generate(self, index: int, into: dict[cst.CSTNode, _Raw]) -> str:
        """The statement's code, its ranges recorded `into` from line 1, column 0."""
        state = _RecordingState(
            default_indent=self.tree.default_indent,
            default_newline=self.tree.default_newline,
            provider=cast(Any, _Recorder(into)),
        )
        self.tree.body[index]._codegen(state)
        return "".join(state.tokens)

    def _located(self, index: int, code: str) -> _Point | None:
        """Where a statement's code starts, if it occurs once in the text
        between the statements around it found there before (the module's
        code is its statements' one after another, so it is there): each
        search covers only the text no statement found yet holds."""
        text = self._text
        if text is None:
            return None
        place = bisect.bisect(self._found, index)
        low = self._spans[self._found[place - 1]][1] if place else 0
        high = self._spans[self._found[place]][0] if place < len(self._found) else len(text)
        offset = text.find(code, low, high)
        if offset < 0 or text.find(code, offset + 1, high) >= 0:
            return None
        self._found.insert(place, index)
        self._spans[index] = (offset, offset + len(code))
        if not place:
            return _point_at(text, offset, 0, (1, 0))
        before = self._found[place - 1]  # lines are counted from there, not from the top
        return _point_at(text, offset, self._spans[before][0], self._starts[before])

    def _compute_all(self) -> None:
        if not self._complete:
            wrapper = MetadataWrapper(self.tree, unsafe_skip_copy=True)
            self.computed.update(wrapper.resolve(PositionProvider))
            self._recorded.update(range(len(self.tree.body)))
            self._complete = True


def _point_at(text: str, offset: int, base_offset: int, base: _Point) -> _Point:
    """(line, column) of `offset`, from those of `base_offset`, before it;
    lines counted as `_NEWLINE` counts them."""
    newlines = text.count("\n", base_offset, offset) + text.count("\r", base_offset, offset)
    newlines -= text.count("\r\n", base_offset, offset)
    if not newlines:
        return base[0], base[1] + offset - base_offset
    line_start = max(text.rfind("\n", base_offset, offset), text.rfind("\r", base_offset, offset))
    return base[0] + newlines, offset - line_start - 1


def _advance(where: _Point, code: str) -> _Point:
    """Where `code` ends when it starts at `where` (line, column)."""
    segments = _NEWLINE.split(code)
    if len(segments) == 1:
        return where[0], where[1] + len(code)
    return where[0] + len(segments) - 1, len(segments[-1])

"""Positions of a file's nodes, computed for the top-level statements asked about.

LibCST's `PositionProvider` records a range for every node of the module in
one code generation pass; recording costs about ten times the generation
itself, and a file with something to report needs the places of a few nodes.
`LazyPositions` is the same mapping, filled one top-level statement at a time:
the statements before the one asked about are only generated, to learn the
line it starts on, and its own nodes are recorded as `PositionProvider` does
(the same code generation, started where the statement starts), so every
range is the one the provider gives. Recording keeps plain (line, column)
pairs, made into `CodeRange`s only for the nodes asked about: the provider's
objects and context managers per node cost three times the generation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import Any, cast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from joblint.analysis.walk import children

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


def _range(raw: _Raw) -> CodeRange:
    (start_line, start_column), (end_line, end_column) = raw
    return CodeRange(CodePosition(start_line, start_column), CodePosition(end_line, end_column))


class LazyPositions(Mapping[cst.CSTNode, CodeRange]):
    """`dict(MetadataWrapper(tree).resolve(PositionProvider))`, computed on demand."""

    def __init__(self, tree: cst.Module) -> None:
        self.tree = tree
        # The ranges asked for so far (every node's once `_compute_all` ran).
        self.computed: dict[cst.CSTNode, CodeRange] = {}
        self._raw: dict[cst.CSTNode, _Raw] = {}  # recorded, not asked for yet
        self._owner: dict[int, int] | None = None  # id(node) -> its top-level statement
        self._starts: list[tuple[int, int]] = []  # (line, column) of each statement read so far
        self._cursor = (1, 0)  # where the next statement starts
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
            raw = self._raw.get(node)
            if raw is not None:
                found = self.computed[node] = _range(raw)
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

    def _start(self, index: int) -> tuple[int, int]:
        if not self._starts:
            self._cursor = _advance(
                (1, 0), "".join(self.tree.code_for_node(h) for h in self.tree.header)
            )
        while len(self._starts) <= index:
            statement = self.tree.body[len(self._starts)]
            self._starts.append(self._cursor)
            self._cursor = _advance(self._cursor, self.tree.code_for_node(statement))
        return self._starts[index]

    def _record(self, index: int) -> None:
        line, column = self._start(index)
        state = _RecordingState(
            default_indent=self.tree.default_indent,
            default_newline=self.tree.default_newline,
            provider=cast(Any, _Recorder(self._raw)),
        )
        state.line, state.column = line, column
        self.tree.body[index]._codegen(state)
        self._recorded.add(index)

    def _compute_all(self) -> None:
        if not self._complete:
            wrapper = MetadataWrapper(self.tree, unsafe_skip_copy=True)
            self.computed.update(wrapper.resolve(PositionProvider))
            self._recorded.update(range(len(self.tree.body)))
            self._complete = True


def _advance(where: tuple[int, int], code: str) -> tuple[int, int]:
    """Where `code` ends when it starts at `where` (line, column)."""
    segments = _NEWLINE.split(code)
    if len(segments) == 1:
        return where[0], where[1] + len(code)
    return where[0] + len(segments) - 1, len(segments[-1])

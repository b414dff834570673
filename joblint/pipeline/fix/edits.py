"""A rule's fix (`joblint.rule.FixSpec`: CST nodes and their replacements)
as positioned text edits (`joblint.models.Fix`), made while the file's tree
and positions are at hand, so fixes cross process boundaries and caches as
plain data.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

from joblint.models import Edit, Fix, Span
from joblint.rule import FixSpec


def fix_edits(
    spec: FixSpec,
    positions: Mapping[cst.CSTNode, CodeRange],
    tree: cst.Module,
    code: str | None = None,
) -> Fix:
    """`code`: the text the module was parsed from, when the caller has it
    (LibCST renders a parsed module as its source, character for character)."""
    if code is not None and (not _MODULE_CODE or _MODULE_CODE[0][0] is not tree):
        _MODULE_CODE[:] = [(tree, code, _line_starts(code))]
    edits = [
        Edit(_span(positions[node]), new)
        if isinstance(new, str)
        else _node_edit(tree, node, new, positions)
        for node, new in spec.replacements
    ]
    added = _import_edit(tree, spec.imports)
    if added is not None:
        edits.append(added)
    edits.sort(key=lambda e: e.span)
    return Fix(spec.safety, spec.message, tuple(edits), spec.releases)


# The code of the last module fixed and where its lines start: rendering a
# module costs as much as parsing it, and a file may have many fixes.
_MODULE_CODE: list[tuple[cst.Module, str, list[int]]] = []


def forget_module() -> None:
    """Let go of the last module fixed, once its file's lint is done: on a
    module of thousands of lines its tree is hundreds of megabytes."""
    _MODULE_CODE.clear()
    _IMPORT_EDITS.clear()


def _module_code(tree: cst.Module) -> tuple[str, list[int]]:
    if not _MODULE_CODE or _MODULE_CODE[0][0] is not tree:
        code = tree.code
        _MODULE_CODE[:] = [(tree, code, _line_starts(code))]
    _, code, starts = _MODULE_CODE[0]
    return code, starts


def _line_starts(code: str) -> list[int]:
    return [0, *(m.end() for m in _LINE_BREAK.finditer(code))]


def _node_edit(
    tree: cst.Module,
    node: cst.CSTNode,
    new: cst.CSTNode,
    positions: Mapping[cst.CSTNode, CodeRange],
) -> Edit:
    """The edit replacing `node` by `new`. An expression renders the same alone
    as in place, so only it is rendered (checked against the source); anything
    else is rendered in the whole module, which keeps indentation exactly as
    written (a statement rendered alone loses its block's indentation)."""
    code, starts = _module_code(tree)
    where = positions.get(node)
    if where is not None and where.end.line <= len(starts):
        start, end = _offset(starts, where.start), _offset(starts, where.end)
        bare, bare_new = _without_own_parentheses(node, new)
        if code[start:end] == tree.code_for_node(bare):
            return _smallest_edit(code, start, end, tree.code_for_node(bare_new), starts)
        found = _in_own_lines(tree, node, new, positions, code, starts)
        if found is None:
            found = _in_top_level_statement(tree, node, new, positions, code, starts)
        if found is not None:
            return found
    replaced = tree.deep_replace(node, new)
    assert isinstance(replaced, cst.Module)
    return _smallest_edit(code, 0, len(code), replaced.code, starts)


def _offset(starts: list[int], where: CodePosition) -> int:
    return starts[where.line - 1] + where.column


def _without_own_parentheses(
    node: cst.CSTNode, new: cst.CSTNode
) -> tuple[cst.CSTNode, cst.CSTNode]:
    """A position excludes the node's own parentheses, its rendering doesn't:
    drop them from both when the replacement keeps them."""
    lpar, rpar = getattr(node, "lpar", None), getattr(node, "rpar", None)
    if not lpar or getattr(new, "lpar", None) != lpar or getattr(new, "rpar", None) != rpar:
        return node, new
    return node.with_changes(lpar=[], rpar=[]), new.with_changes(lpar=[], rpar=[])


def _in_own_lines(
    tree: cst.Module,
    node: cst.CSTNode,
    new: cst.CSTNode,
    positions: Mapping[cst.CSTNode, CodeRange],
    code: str,
    starts: list[int],
) -> Edit | None:
    """Render only `node`, its lines after the first indented as the block
    around it is, when that is its source (a module-level statement around it
    may be a class of thousands of lines: rendering it, and replacing the node
    in it, costs as much as the file). Rendered alone, a node lacks the
    indentation of the blocks around it on every line it starts: a
    statement's own, an expression's continuation lines."""
    where = positions[node]
    if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
        return _statement_in_own_lines(tree, node, new, where, code, starts)
    start, end = _offset(starts, where.start), _offset(starts, where.end)
    bare, bare_new = _without_own_parentheses(node, new)
    rendered = tree.code_for_node(bare)
    indent = _continuation_indent(code[start:end], rendered)
    if not indent:
        return None
    return _smallest_edit(
        code, start, end, _continued(tree.code_for_node(bare_new), indent), starts
    )


def _continuation_indent(source: str, rendered: str) -> str:
    """The indentation that, put before each continuation line of `rendered`
    holding anything, makes it `source`; "" when none does."""
    lines = rendered.split("\n")
    written = source.split("\n")
    if len(lines) < 2 or len(lines) != len(written):
        return ""
    line = next((i for i in range(1, len(lines)) if lines[i].strip()), None)
    if line is None or not written[line].endswith(lines[line]):
        return ""
    indent = written[line][: len(written[line]) - len(lines[line])]
    if not indent or indent.strip() or _continued(rendered, indent) != source:
        return ""
    return indent


def _continued(text: str, indent: str) -> str:
    """`text` with `indent` before each line after the first holding anything."""
    first, *rest = text.split("\n")
    return "\n".join([first, *(indent + line if line.strip() else line for line in rest)])


def _statement_in_own_lines(
    tree: cst.Module,
    node: cst.CSTNode,
    new: cst.CSTNode,
    where: CodeRange,
    code: str,
    starts: list[int],
) -> Edit | None:
    line_start = starts[where.start.line - 1]
    indent = code[line_start : line_start + where.start.column]
    if indent.strip():
        return None  # after another statement on its line
    text = _indented(tree.code_for_node(node), indent)
    found = _rendered_span(code, _offset(starts, where.end), text)
    if found is None:
        return None
    rendered = _indented(tree.code_for_node(new), indent)
    return _smallest_edit(code, *found, rendered, starts)


def _rendered_span(code: str, end: int, text: str) -> tuple[int, int] | None:
    """Where `text`, a statement's rendering ending at offset `end`, stands
    in `code`: the rendering adds the lines above the statement and its line
    break (up to two characters past `end`). None when it isn't the source."""
    for stop in range(end, end + 3):
        start = stop - len(text)
        if start >= 0 and code[start:stop] == text:
            return start, stop
    return None


def _indented(text: str, indent: str) -> str:
    """`text` with `indent` before each line holding anything."""
    if not indent:
        return text
    return "".join(indent + line if line.strip() else line for line in text.splitlines(True))


def _in_top_level_statement(
    tree: cst.Module,
    node: cst.CSTNode,
    new: cst.CSTNode,
    positions: Mapping[cst.CSTNode, CodeRange],
    code: str,
    starts: list[int],
) -> Edit | None:
    """Render only the module-level statement holding `node` (it has no
    enclosing indentation to lose), when its rendering is its source."""
    where = positions[node]
    inner = (where.start.line, where.start.column), (where.end.line, where.end.column)
    for statement in tree.body:
        around = positions.get(statement)
        if around is None:
            continue
        outer = (around.start.line, around.start.column), (around.end.line, around.end.column)
        if not (outer[0] <= inner[0] and inner[1] <= outer[1]):
            continue
        found = _rendered_span(code, _offset(starts, around.end), tree.code_for_node(statement))
        if found is None:
            return None
        replaced = statement.deep_replace(node, new)
        return _smallest_edit(code, *found, tree.code_for_node(replaced), starts)
    return None


def _smallest_edit(code: str, start: int, end: int, new: str, starts: list[int]) -> Edit:
    """The edit replacing code[start:end] by `new`, less what they share at
    either end (`... FOR UPDATE"` -> insert ` SKIP LOCKED`)."""
    old = code[start:end]
    head = _common_prefix(old, new)
    tail = _common_prefix(old[head:][::-1], new[head:][::-1])
    first, last = start + head, end - tail
    span = Span(*_position(starts, first), *_position(starts, last))
    return Edit(span, new[head : len(new) - tail])


def _position(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based line and column of `offset`, given where lines start."""
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, by halving (slice comparisons run in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _span(where: CodeRange) -> Span:
    return Span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)


# The import edits of the last module fixed: a file's fixes often share one import.
_IMPORT_EDITS: list[tuple[cst.Module, dict[tuple[tuple[str, str], ...], Edit | None]]] = []


def _import_edit(tree: cst.Module, imports: tuple[tuple[str, str], ...]) -> Edit | None:
    """The edit adding `from module import name` for each of `imports` the module
    lacks, made by LibCST's `AddImportsVisitor` on the original module: a name is
    added to an existing `from module import ...` of the module's first import
    block, else a new statement goes after that block. Fixes that need the same
    import get the same edit, which the fix loop applies once."""
    wanted = tuple(sorted({i for i in imports if not _imported(tree, *i)}))
    if not wanted:
        return None
    if not _IMPORT_EDITS or _IMPORT_EDITS[0][0] is not tree:
        _IMPORT_EDITS[:] = [(tree, {})]
    done = _IMPORT_EDITS[0][1]
    if wanted not in done:
        # Imported here: libcst.codemod pulls in libcst.matchers, half a second
        # of start-up that runs without fixes (cache hits) never need.
        from libcst.codemod import CodemodContext
        from libcst.codemod.visitors import AddImportsVisitor, ImportItem

        items = [ImportItem(module, name) for module, name in wanted]
        added = tree.visit(AddImportsVisitor(CodemodContext(), items))
        assert isinstance(added, cst.Module)
        code, starts = _module_code(tree)
        changed = added.code != code
        done[wanted] = _smallest_edit(code, 0, len(code), added.code, starts) if changed else None
    return done[wanted]


def _imports_of(statement: cst.CSTNode) -> list[cst.Import | cst.ImportFrom]:
    if not isinstance(statement, cst.SimpleStatementLine):
        return []
    return [s for s in statement.body if isinstance(s, cst.Import | cst.ImportFrom)]


def _imported(tree: cst.Module, module: str, name: str) -> bool:
    """`from module import name` is a statement of the module body (anywhere:
    `AddImportsVisitor` only looks at the first import block)."""
    for statement in tree.body:
        for imp in _imports_of(statement):
            if not isinstance(imp, cst.ImportFrom) or imp.module is None or imp.relative:
                continue
            if tree.code_for_node(imp.module) != module or isinstance(imp.names, cst.ImportStar):
                continue
            if any(a.asname is None and tree.code_for_node(a.name) == name for a in imp.names):
                return True
    return False

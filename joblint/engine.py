"""One file: read -> parse -> one batched traversal -> positioned findings.

`lint_source` is a pure function of (path, bytes, settings, module name): its
`FileResult` holds no CST and can be cached or computed in a worker process.
Positions are computed only for files that have something to report.
"""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from joblint import deep, suppressions
from joblint.analysis.context import FileContext
from joblint.analysis.walk import walk
from joblint.models import Edit, FileResult, Finding, Fix, PendingFinding, Span
from joblint.registry import rule_by_code
from joblint.rule import FixSpec, ProjectRule, Report, Rule
from joblint.rules import unused_suppression

# Shared with the config and cache layers, which must not import LibCST.
from joblint.settings import LintSettings as LintSettings
from joblint.settings import ModuleInfo as ModuleInfo
from joblint.source import UNPARSEABLE as UNPARSEABLE
from joblint.source import SourceError as SourceError
from joblint.source import checked_text as checked_text
from joblint.source import decode as decode
from joblint.source import quiet_ast_parse as _quiet_ast_parse
from joblint.source import syntax_check as syntax_check
from joblint.source import unparseable_result as unparseable_result


def parse(text: str) -> cst.Module:
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise _syntax_error(text, exc) from None
    except RecursionError:
        raise SourceError("too deeply nested to parse") from None
    except Exception as exc:  # the parser's own failures: one line, never a traceback
        raise SourceError(f"cannot parse: {type(exc).__name__}: {exc}") from None


def _syntax_error(text: str, exc: cst.ParserSyntaxError) -> SourceError:
    """Python's own message and position where it has one: LibCST's are less precise."""
    try:
        _quiet_ast_parse(text)
    except SyntaxError as syntax:
        return SourceError(
            f"syntax error: {syntax.msg}", syntax.lineno or 1, max(1, syntax.offset or 1)
        )
    except (ValueError, RecursionError, MemoryError):
        pass
    reason = exc.message.removeprefix("parser error: ")
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    return SourceError(
        f"LibCST cannot parse this file (Python {python} can): {reason}",
        exc.raw_line,
        exc.raw_column + 1,
    )


def lint_source(
    path: str, data: bytes, settings: LintSettings, module: ModuleInfo = ModuleInfo("")
) -> FileResult:
    """Never raises: bad input is JL001, a bug is an internal error (see docs/robustness.md)."""
    try:
        text = checked_text(data)
    except SourceError as exc:
        return unparseable_result(path, settings, exc)
    try:
        return deep.call(lambda: _parse_and_lint(path, text, settings, module))
    except RecursionError:
        return unparseable_result(path, settings, SourceError("too deeply nested to analyse"))
    except MemoryError:
        return unparseable_result(path, settings, SourceError("out of memory analysing it"))
    except Exception as exc:  # a bug outside the rules: this file only, never the run
        return FileResult(path, parsed=False, errors=(_internal_error(path, 1, "joblint", exc),))


def _parse_and_lint(path: str, text: str, settings: LintSettings, module: ModuleInfo) -> FileResult:
    try:
        tree = parse(text)
    except SourceError as exc:
        return unparseable_result(path, settings, exc)
    return _lint_tree(path, text, tree, settings, module)


def _internal_error(path: str, line: int, code: str, exc: BaseException) -> str:
    detail = str(exc).replace("\r", " ").replace("\n", " ")[:300]
    return (
        f"{path}:{line}: internal error in {code}: {type(exc).__name__}: {detail}"
        " (please report this)"
    )


def _lint_tree(
    path: str, text: str, tree: cst.Module, settings: LintSettings, module: ModuleInfo
) -> FileResult:
    rules_by_code = rule_by_code()
    context = FileContext(tree, module.name, module.is_package, settings.options)
    rules = [
        rules_by_code[c](context)
        for c in sorted(settings.codes)
        if c in rules_by_code and not issubclass(rules_by_code[c], ProjectRule)
    ]
    dispatcher = _Dispatcher(context, rules)
    try:
        walk(tree, dispatcher.enter, dispatcher.leave)
    except RecursionError:
        return unparseable_result(path, settings, SourceError("too deeply nested to analyse"))
    reports = [(rule, report) for rule in rules for report in rule.reports]
    # Issue 11, JL002: unused suppressions need the comments even with nothing reported.
    unused = unused_suppression.CODE in settings.codes and suppressions.has_markers(text)
    if not reports and not dispatcher.errors and not context.needs_positions and not unused:
        return FileResult(path, facts=context.facts())
    positions = _positions(tree)
    if positions is None:
        return unparseable_result(path, settings, SourceError("too deeply nested to analyse"))

    def span_of(node: cst.CSTNode) -> Span:
        where = positions[node]
        return Span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)

    sups = suppressions.parse(text, _first_statement_line(tree, positions))
    findings: list[Finding] = []
    pending: list[PendingFinding] = []
    for rule, report in reports:
        try:
            finding = _finding(path, rule, report, positions, sups, tree)
        except Exception as exc:  # e.g. a node that isn't in this tree
            dispatcher.errors.append((rule.CODE, report.node, exc))
            continue
        if finding is None:
            continue
        if report.requires:
            pending.append(PendingFinding(finding, report.requires))
        else:
            findings.append(finding)
    if unused:  # issue 11: after every report had its chance to use a suppression
        findings.extend(unused_suppression.unused_findings(path, sups, settings.codes))
    errors = tuple(
        _internal_error(path, _line(positions, node), code, exc)
        for code, node, exc in dispatcher.errors
    )
    facts = context.facts(path, span_of)
    if context.needs_positions:
        facts = replace(facts, suppressions=sups.compact())
    one_off = _one_off_spans(tree, positions, context) if findings or pending else ()
    return FileResult(path, tuple(findings), tuple(pending), facts, errors, one_off=one_off)


def _one_off_spans(
    tree: cst.Module, positions: dict[cst.CSTNode, CodeRange], context: FileContext
) -> tuple[tuple[int, int], ...]:
    """Lines of the module-level functions this file's `RunPython(...)` runs."""
    names = context.run_python_functions
    if not names:
        return ()
    spans = []
    for statement in tree.body:
        if not isinstance(statement, cst.FunctionDef) or statement not in positions:
            continue
        if context.resolver.local_qualname(statement.name.value) in names:
            where = positions[statement]
            spans.append((where.start.line, where.end.line))
    return tuple(spans)


def _positions(tree: cst.Module) -> dict[cst.CSTNode, CodeRange] | None:
    try:
        wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
        return dict(wrapper.resolve(PositionProvider))
    except RecursionError:
        return None


def _line(positions: dict[cst.CSTNode, CodeRange], node: cst.CSTNode) -> int:
    found = positions.get(node)
    return found.start.line if found is not None else 1


def _first_statement_line(tree: cst.Module, positions: dict[cst.CSTNode, CodeRange]) -> int:
    if not tree.body:
        return 1 << 30
    return _line(positions, tree.body[0])


def _finding(
    path: str,
    rule: Rule,
    report: Report,
    positions: dict[cst.CSTNode, CodeRange],
    sups: suppressions.Suppressions,
    tree: cst.Module,
) -> Finding | None:
    where = positions[report.node]
    span = Span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
    lines = [span.line]
    above = [span.line - 1]
    statement = report.statement
    if isinstance(statement, cst.SimpleStatementLine) and statement in positions:
        stmt = positions[statement]
        lines.append(stmt.end.line)
        above.append(stmt.start.line - 1)
    if sups.suppresses(rule.CODE, tuple(lines), tuple(above)):
        return None

    def line_of(node: cst.CSTNode) -> int:
        return _line(positions, node)

    message = report.message if isinstance(report.message, str) else report.message(line_of)
    fix = _fix(report.fix, positions, tree) if report.fix is not None else None
    return Finding(rule.CODE, rule.name(), message, path, span, rule.HELP, fix)


# --- issue 10: a rule's FixSpec -> positioned edits ---


def _fix(spec: FixSpec, positions: dict[cst.CSTNode, CodeRange], tree: cst.Module) -> Fix:
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


def _module_code(tree: cst.Module) -> tuple[str, list[int]]:
    if not _MODULE_CODE or _MODULE_CODE[0][0] is not tree:
        code = tree.code
        starts = [0, *(m.end() for m in _LINE_BREAK.finditer(code))]
        _MODULE_CODE[:] = [(tree, code, starts)]
    _, code, starts = _MODULE_CODE[0]
    return code, starts


def _node_edit(
    tree: cst.Module, node: cst.CSTNode, new: cst.CSTNode, positions: dict[cst.CSTNode, CodeRange]
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


def _in_top_level_statement(
    tree: cst.Module,
    node: cst.CSTNode,
    new: cst.CSTNode,
    positions: dict[cst.CSTNode, CodeRange],
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
        text = tree.code_for_node(statement)
        # The rendering adds the lines above the statement and its line break.
        for end in range(_offset(starts, around.end), _offset(starts, around.end) + 3):
            start = end - len(text)
            if start >= 0 and code[start:end] == text:
                replaced = statement.deep_replace(node, new)
                return _smallest_edit(code, start, end, tree.code_for_node(replaced), starts)
        return None
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


RuleMethod = Callable[[cst.CSTNode], object]


_METHOD_NAMES: dict[type[Rule], tuple[tuple[str, str, str], ...]] = {}


def _method_names(rule_class: type[Rule]) -> tuple[tuple[str, str, str], ...]:
    """(prefix, node type name, method name) for each visit_/leave_ method."""
    if rule_class in _METHOD_NAMES:
        return _METHOD_NAMES[rule_class]
    found = []
    for attr in dir(rule_class):
        for prefix in ("visit_", "leave_"):
            if attr.startswith(prefix) and hasattr(cst, attr[len(prefix) :]):
                found.append((prefix, attr[len(prefix) :], attr))
    _METHOD_NAMES[rule_class] = tuple(found)
    return _METHOD_NAMES[rule_class]


class _Dispatcher:
    """Runs every rule's visit_/leave_ methods in one traversal, isolating failures."""

    def __init__(self, context: FileContext, rules: Sequence[Rule]) -> None:
        self.context = context
        self.visits: dict[type[cst.CSTNode], list[tuple[Rule, RuleMethod]]] = {}
        self.leaves: dict[type[cst.CSTNode], list[tuple[Rule, RuleMethod]]] = {}
        self.errors: list[tuple[str, cst.CSTNode, Exception]] = []
        self.broken: set[int] = set()
        for rule in rules:
            for prefix, type_name, method in _method_names(type(rule)):
                table = self.visits if prefix == "visit_" else self.leaves
                node_type = getattr(cst, type_name)
                table.setdefault(node_type, []).append((rule, getattr(rule, method)))

    def enter(self, node: cst.CSTNode) -> None:
        self.context.enter(node)
        for rule, method in self.visits.get(type(node), ()):
            self._call(rule, method, node)

    def leave(self, node: cst.CSTNode) -> None:
        for rule, method in self.leaves.get(type(node), ()):
            self._call(rule, method, node)
        self.context.leave(node)

    def _call(self, rule: Rule, method: RuleMethod, node: cst.CSTNode) -> None:
        if id(rule) in self.broken:
            return
        try:
            method(node)
        except Exception as exc:  # one rule's bug (even a RecursionError) hides no other rule
            self.broken.add(id(rule))
            self.errors.append((rule.CODE, node, exc))

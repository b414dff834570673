"""One file: read -> parse -> one batched traversal -> positioned findings.

`lint_source` is a pure function of (path, bytes, settings, module name): its
`FileResult` holds no CST and can be cached or computed in a worker process.
Positions are computed only for files that have something to report.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace

import libcst as cst
from libcst.metadata import CodeRange

from joblint import suppressions
from joblint.analysis.context import FileContext
from joblint.analysis.walk import walk
from joblint.index import index_source
from joblint.models import FileResult, Finding, PendingFinding, Related, Span
from joblint.pipeline.fix.edits import fix_edits, forget_module
from joblint.pipeline.positions import LazyPositions
from joblint.pipeline.source import (
    SourceError,
    checked_text,
    deep,
    parse,
    unparseable_result,
)
from joblint.registry import all_codes, rule_by_code
from joblint.requirements import MODEL_REQUIREMENTS
from joblint.rule import Codes, ProjectRule, Report, Rule
from joblint.settings import LintSettings, ModuleInfo


def lint_source(
    path: str, data: bytes, settings: LintSettings, module: ModuleInfo = ModuleInfo("")
) -> FileResult:
    """Never raises: bad input is JL001, a bug is an internal error (see docs/robustness.md)."""
    try:
        text = checked_text(data)
    except SourceError as exc:
        return unparseable_result(path, settings, exc)
    try:
        with _collector_paused():
            return deep.call(lambda: _parse_and_lint(path, text, settings, module))
    except RecursionError:
        return unparseable_result(path, settings, SourceError("too deeply nested to analyse"))
    except MemoryError:
        return unparseable_result(path, settings, SourceError("out of memory analysing it"))
    except Exception as exc:  # a bug outside the rules: this file only, never the run
        return FileResult(path, parsed=False, errors=(_internal_error(path, 1, "joblint", exc),))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a file is parsed and linted.
    A syntax tree holds no cycles (no node refers to its parent), yet every
    collection walks all of it: on a 50,000-line module, a third of the
    time went to collections that freed nothing. What cycles the lint makes
    are collected once the file is done."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _parse_and_lint(path: str, text: str, settings: LintSettings, module: ModuleInfo) -> FileResult:
    try:
        tree = parse(text)
    except SourceError as exc:
        return unparseable_result(path, settings, exc)
    try:
        result = _lint_tree(path, text, tree, settings, module)
    finally:
        forget_module()
    del tree  # the index is read with `ast`: on a long module the tree's memory is wanted
    if not _asks_model(result.pending):
        return result
    # The project model finds a pending chain's calls in the file's own index.
    return replace(result, index=index_source(text, module, settings.options))


def _codes(ran: frozenset[str], rules_by_code: dict[str, type[Rule]]) -> Codes:
    project = frozenset(c for c, r in rules_by_code.items() if issubclass(r, ProjectRule))
    return Codes(ran, tuple(all_codes()), project)


def _internal_error(path: str, line: int, code: str, exc: BaseException) -> str:
    detail = str(exc).replace("\r", " ").replace("\n", " ")[:300]
    return (
        f"{path}:{line}: internal error in {code}: {type(exc).__name__}: {detail}"
        " (please report this)"
    )


def _lint_tree(
    path: str, text: str, tree: cst.Module, settings: LintSettings, module: ModuleInfo
) -> FileResult:
    context = FileContext(
        tree,
        module.name,
        module.is_package,
        settings.options,
        may_hold_walrus=":=" in text,
        may_connect=".connect(" in text,
    )
    try:
        return _lint_in_context(path, text, tree, settings, context)
    finally:
        context.forget()


def _lint_in_context(
    path: str, text: str, tree: cst.Module, settings: LintSettings, context: FileContext
) -> FileResult:
    rules_by_code = rule_by_code()
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
    # A rule that judges the suppression comments needs them even when nothing
    # else is reported.
    judges = [type(rule) for rule in rules if rule.JUDGES_SUPPRESSIONS]
    judged = bool(judges) and suppressions.has_markers(text)
    if not reports and not dispatcher.errors and not context.needs_positions and not judged:
        return FileResult(path, facts=context.facts())
    positions = _positions(tree, text)
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
            finding = _finding(path, rule, report, positions, sups, tree, text)
        except RecursionError:
            raise  # too deeply nested to place: the whole file is (see lint_source)
        except Exception as exc:  # e.g. a node that isn't in this tree
            dispatcher.errors.append((rule.CODE, report.node, exc))
            continue
        if finding is None:
            continue
        if report.requires:
            pending.append(PendingFinding(finding, report.requires))
        else:
            findings.append(finding)
    if judged:  # after every report had its chance to use a suppression
        codes = _codes(settings.codes, rules_by_code)
        for judge in judges:
            findings.extend(judge.judge_suppressions(path, sups, codes))
    errors = tuple(
        _internal_error(path, _line(positions, node), code, exc)
        for code, node, exc in dispatcher.errors
    )
    facts = context.facts(path, span_of)
    if context.needs_positions:
        facts = replace(facts, suppressions=sups.compact())
    one_off = _one_off_spans(tree, positions, context) if findings or pending else ()
    return FileResult(
        path,
        tuple(findings),
        tuple(pending),
        facts,
        errors,
        one_off=one_off,
        warnings=sups.warnings(path),
    )


def _asks_model(pending: Sequence[PendingFinding]) -> bool:
    return any(isinstance(r, MODEL_REQUIREMENTS) for p in pending for r in p.requires)


def _one_off_spans(
    tree: cst.Module, positions: Mapping[cst.CSTNode, CodeRange], context: FileContext
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


def _positions(tree: cst.Module, text: str) -> LazyPositions | None:
    try:
        positions = LazyPositions(tree, text)
        if tree.body:
            positions[tree.body[0]]  # the first statement's line places file-level comments
        return positions
    except RecursionError:
        return None


def _line(positions: Mapping[cst.CSTNode, CodeRange], node: cst.CSTNode) -> int:
    found = positions.get(node)
    return found.start.line if found is not None else 1


def _first_statement_line(tree: cst.Module, positions: Mapping[cst.CSTNode, CodeRange]) -> int:
    if not tree.body:
        return 1 << 30
    return _line(positions, tree.body[0])


def _finding(
    path: str,
    rule: Rule,
    report: Report,
    positions: Mapping[cst.CSTNode, CodeRange],
    sups: suppressions.Suppressions,
    tree: cst.Module,
    text: str,
) -> Finding | None:
    span = _span(positions[report.node])
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
    fix = fix_edits(report.fix, positions, tree, text) if report.fix is not None else None
    related = tuple(Related(path, _span(positions[node]), said) for node, said in report.related)
    return Finding(rule.CODE, rule.name(), message, path, span, rule.HELP, fix, related)


def _span(where: CodeRange) -> Span:
    return Span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)


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

"""The run's findings, settled over the whole project: the certain ones of
every file, its pending ones whose requirements all hold (their messages
naming what the project model found), and the whole-project rules'
findings (JL5, on the merged broker facts); one finding per place.
"""

from __future__ import annotations

from collections.abc import Iterable

from joblint.models import BrokerFacts, FileResult, Finding
from joblint.pipeline.project.project_index import ProjectIndex
from joblint.pipeline.project.project_settings import ProjectSettings
from joblint.pipeline.project.settings_scope import Setter, SettingsScopes
from joblint.registry import is_project_rule, yielding_codes
from joblint.requirements import Reached

_NO_BROKER_FACTS = BrokerFacts()


def settle(
    results: list[FileResult],
    settings: ProjectSettings | None = None,
    context: Iterable[FileResult] = (),
) -> list[Finding]:
    """Every finding of the run: the certain ones, the pending ones that hold, and
    the whole-project rules' findings. `context` results only contribute facts."""
    context = list(context)
    enqueue_functions = settings.enqueue_functions if settings is not None else frozenset()
    findings: list[Finding] = []
    # A place another finding covers keeps that one: its message names the
    # transaction in the file itself.
    reached: list[Finding] = []
    with ProjectIndex.built([*results, *context], enqueue_functions) as index:
        for result in results:
            findings.extend(result.findings)
            for pending in result.pending:
                line = pending.finding.span.line
                if all(index.holds(r, result.path, line) for r in pending.requires):
                    found = index.finish(pending, result.path)
                    is_reached = any(isinstance(r, Reached) for r in pending.requires)
                    (reached if is_reached else findings).append(found)
    taken = {(f.path, f.span, f.code) for f in findings}
    findings.extend(f for f in reached if (f.path, f.span, f.code) not in taken)
    if settings is not None:
        findings.extend(_project_findings([*results, *context], settings))
    findings.sort(key=lambda f: f.sort_key)
    return _one_per_place(findings)


def _project_findings(results: list[FileResult], settings: ProjectSettings) -> list[Finding]:
    codes = {code for code in settings.codes if is_project_rule(code)}
    # Whole-project rules see only the project's Celery facts (`ProjectView`):
    # with none there is nothing to find. With some, only those rules' modules
    # are imported, none of which imports LibCST (a cached run parses nothing).
    if not codes or all(r.facts.broker == _NO_BROKER_FACTS for r in results):
        return []
    from joblint.analysis.broker_view import BrokerView
    from joblint.registry import load
    from joblint.rule import ProjectRule, ProjectView
    from joblint.suppressions import Suppressions

    chosen = (load(code) for code in sorted(codes))
    rules = [rule for rule in chosen if rule is not None and issubclass(rule, ProjectRule)]
    scopes = SettingsScopes.build(results)

    def applies(module: str, path: str) -> bool:
        return scopes.applies(Setter(module, ""), path)

    brokers = BrokerView.build(((r.path, r.facts) for r in results), applies, settings.broker)
    own = settings.for_path
    margins = {settings.margin} if own is None else {own(r.path)[1] for r in results}
    suppressions = {r.path: Suppressions.from_compact(r.facts.suppressions) for r in results}
    found = []
    for margin in sorted(margins):
        view = ProjectView(brokers, margin)
        for rule in rules:
            for finding, involved in rule.check(view):
                if settings.named is not None and not involved & settings.named:
                    continue
                if own is not None:
                    selected, its_margin = own(finding.path)
                    if its_margin != margin or finding.code not in selected:
                        continue
                sups = suppressions.get(finding.path)
                line = finding.span.line
                if sups is None or not sups.suppresses(finding.code, (line,), (line - 1,)):
                    found.append(finding)
    return found


def _one_per_place(findings: list[Finding]) -> list[Finding]:
    """Alternatives for one node (a class that is both a dataclass and pydantic)
    must not report twice: keep the first finding per (path, span, code), and
    none of a rule that yields to another rule's finding at that place."""
    yields = yielding_codes()
    codes_at: dict[tuple[str, object], set[str]] = {}
    for finding in findings:
        codes_at.setdefault((finding.path, finding.span), set()).add(finding.code)
    seen: set[tuple[str, object, str]] = set()
    unique = []
    for finding in findings:
        key = (finding.path, finding.span, finding.code)
        if key in seen or yields.get(finding.code, frozenset()) & codes_at[key[:2]]:
            continue
        seen.add(key)
        unique.append(finding)
    return unique

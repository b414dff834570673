"""Rule discovery (walk the family folders of `joblint.rules`: adding a rule =
adding a module to one) and selection.

Selection, configuration and the rules listing read the generated catalogue
(`joblint/rules/_catalog.py`, written by `make docs`) instead of importing the
rule modules: importing them imports LibCST and sqlglot, most of a cached
run's start-up. The catalogue is used only while the rule module files are
the ones it lists; a rule added without `make docs` makes this module import
the rules and read them (the test suite fails until the catalogue is current).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from joblint import rules as rules_package
from joblint.knowledge.trigger import Trigger

if TYPE_CHECKING:
    from joblint.rule import Invalid, Rule, Valid

# Codes that aren't rules but can be selected/ignored like them.
BUILTIN_CODES: dict[str, str] = {"JL001": "unparseable-file"}


class RuleInfo(NamedTuple):
    """What is known about a rule without importing its module."""

    code: str
    name: str
    module: str  # under joblint.rules, as family.module
    preview: bool
    project: bool  # a whole-project rule (ProjectRule): no per-file traversal
    summary: str
    # What a file must contain for the rule to fire (`Rule.TRIGGERS`).
    triggers: tuple[Trigger, ...] = ()
    judges_suppressions: bool = False  # `Rule.JUDGES_SUPPRESSIONS`
    reads_settings: bool = False  # `Rule.READS_SETTINGS`
    follows_calls: bool = False  # `Rule.FOLLOWS_CALLS`
    yields_to: tuple[str, ...] = ()  # `Rule.YIELDS_TO`
    follows_arguments: bool = False  # `Rule.FOLLOWS_ARGUMENTS`
    help: str = ""  # `Rule.HELP`: a finding's help line


def rule_modules() -> tuple[str, ...]:
    """The rule modules, as `family.module` under joblint/rules: each module of a
    family folder whose name has no leading underscore (a directory listing, no
    import)."""
    found: list[str] = []
    for family in pkgutil.iter_modules(rules_package.__path__):
        if not family.ispkg or family.name.startswith("_"):
            continue
        folder = [str(Path(path) / family.name) for path in rules_package.__path__]
        found.extend(
            f"{family.name}.{module.name}"
            for module in pkgutil.iter_modules(folder)
            if not module.ispkg and not module.name.startswith("_")
        )
    return tuple(sorted(found))


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code: imports every rule module."""
    found = [rule for name in rule_modules() for rule in _rules_in(name)]
    return tuple(sorted(found, key=lambda r: r.CODE))


def _rules_in(name: str) -> list[type[Rule]]:
    from joblint.rule import Rule

    module = importlib.import_module(f"{rules_package.__name__}.{name}")
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Rule)
        and value is not Rule
        and value.__module__ == module.__name__
    ]


@dataclass(frozen=True, slots=True)
class Examples:
    """A rule's examples: the class's teaching ones, then its full suite."""

    valid: tuple[Valid, ...]
    invalid: tuple[Invalid, ...]

    @property
    def all(self) -> tuple[Valid | Invalid, ...]:
        return (*self.valid, *self.invalid)


def examples(rule: type[Rule]) -> Examples:
    """The rule's teaching examples (`VALID`/`INVALID` on the class) and its
    suite (`joblint/rules/<family>/_examples/<rule module>`, when there is one)."""
    family, _, module = rule.__module__.rpartition(".")
    try:
        suite = importlib.import_module(f"{family}._examples.{module}")
    except ModuleNotFoundError:
        return Examples(rule.VALID, rule.INVALID)
    valid = (*rule.VALID, *getattr(suite, "VALID", ()))
    return Examples(valid, (*rule.INVALID, *getattr(suite, "INVALID", ())))


def load(code: str) -> type[Rule] | None:
    """One rule's class, importing only its module (the catalogue says which):
    the whole-project rules run on cached facts without LibCST, which the
    per-file rules' modules import."""
    info = find(code)
    if info is None:
        return None
    return next((rule for rule in _rules_in(info.module) if info.code == rule.CODE), None)


def rule_by_code() -> dict[str, type[Rule]]:
    return {rule.CODE: rule for rule in all_rules()}


def info_of(rule: type[Rule]) -> RuleInfo:
    from joblint.rule import ProjectRule

    module = rule.__module__.removeprefix(f"{rules_package.__name__}.")
    project = issubclass(rule, ProjectRule)
    return RuleInfo(
        rule.CODE,
        rule.name(),
        module,
        rule.PREVIEW,
        project,
        rule.SUMMARY,
        rule.TRIGGERS,
        rule.JUDGES_SUPPRESSIONS,
        rule.READS_SETTINGS,
        rule.FOLLOWS_CALLS,
        rule.YIELDS_TO,
        rule.FOLLOWS_ARGUMENTS,
        rule.HELP,
    )


@cache
def catalog() -> tuple[RuleInfo, ...]:
    """Every rule's `RuleInfo`, sorted by code: from the generated catalogue
    while it lists the rule modules there are, else read from the rules."""
    try:
        from joblint.rules import _catalog
    except ImportError:  # not generated yet (`make docs` writes it)
        return tuple(info_of(rule) for rule in all_rules())
    if tuple(_catalog.MODULES) == rule_modules():
        return tuple(RuleInfo(*entry) for entry in _catalog.RULES)
    return tuple(info_of(rule) for rule in all_rules())


def find(code_or_name: str) -> RuleInfo | None:
    """A rule by code (`JL101`, any case) or name (`enqueue-in-transaction`)."""
    key = code_or_name.strip()
    for info in catalog():
        if key.upper() == info.code or info.name == key.lower():
            return info
    return None


def lookup(code_or_name: str) -> type[Rule] | None:
    """The rule class, by code or name: imports the rule modules. A code the
    engine reports itself (JL001) gives the class that documents it."""
    info = find(code_or_name)
    if info is not None:
        return rule_by_code().get(info.code)
    key = code_or_name.strip()
    return next(
        (r for r in builtin_rules() if key.upper() == r.CODE or key.lower() == r.name()), None
    )


def builtin_rules() -> tuple[type[Rule], ...]:
    """The classes documenting `BUILTIN_CODES`: pages and listings only, never
    a traversal, the catalogue or the prefilter."""
    from joblint.rules._builtin import BUILTIN_RULES

    return BUILTIN_RULES


def documented_rules() -> tuple[type[Rule], ...]:
    """Every rule with a page, the built-in codes' included, sorted by code."""
    return tuple(sorted((*all_rules(), *builtin_rules()), key=lambda r: r.CODE))


def listed() -> tuple[RuleInfo, ...]:
    """What `joblint rules` lists: the catalogue and the built-in codes."""
    return tuple(sorted((*catalog(), *map(info_of, builtin_rules())), key=lambda i: i.code))


def is_project_rule(code: str) -> bool:
    return any(info.project for info in catalog() if info.code == code)


def triggers(code: str) -> tuple[Trigger, ...]:
    """The rule's triggers ("" for a code that isn't a rule, such as JL001)."""
    return next((info.triggers for info in catalog() if info.code == code), ())


def judges_suppressions(code: str) -> bool:
    return any(info.judges_suppressions for info in catalog() if info.code == code)


def reads_settings(code: str) -> bool:
    return any(info.reads_settings for info in catalog() if info.code == code)


def follows_calls(code: str) -> bool:
    return any(info.follows_calls for info in catalog() if info.code == code)


def follows_arguments(code: str) -> bool:
    return any(info.follows_arguments for info in catalog() if info.code == code)


def all_codes() -> list[str]:
    return sorted([*BUILTIN_CODES, *(info.code for info in catalog())])


def is_known_selector(selector: str) -> bool:
    """A code, a prefix of one (`JL1`, `JL`), or `ALL`."""
    if selector == "ALL":
        return True
    return any(code.startswith(selector) for code in all_codes())


def matches(selector: str, code: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def select_codes(
    select: Iterable[str],
    extend_select: Iterable[str],
    ignore: Iterable[str],
    preview: bool,
) -> frozenset[str]:
    """Ruff's model: select, plus extend-select, minus ignore; the most specific wins.

    A preview rule is enabled only with `preview` or when selected by its exact code.
    """
    selectors = [*select, *extend_select]
    ignores = list(ignore)
    previews = {info.code for info in catalog() if info.preview}
    chosen: set[str] = set()
    for code in all_codes():
        best_select = max((len(s) for s in selectors if matches(s, code)), default=-1)
        best_ignore = max((len(s) for s in ignores if matches(s, code)), default=-1)
        if best_select < 0 or best_ignore >= best_select:
            continue
        if code in previews and not preview and code not in selectors:
            continue
        chosen.add(code)
    return frozenset(chosen)


def extend_selection(
    chosen: frozenset[str],
    extend_select: Iterable[str],
    ignore: Iterable[str],
    preview: bool,
) -> frozenset[str]:
    """`chosen` with one more layer of selection that sets no `select` (a file
    extending another, the command line): Ruff's order, each layer over the
    last. A code this layer's selectors name is added or removed by the more
    specific of them; the others stay as they were."""
    selectors = list(extend_select)
    ignores = list(ignore)
    if not selectors and not ignores:
        return chosen
    previews = {info.code for info in catalog() if info.preview}
    result = set(chosen)
    for code in all_codes():
        best_select = max((len(s) for s in selectors if matches(s, code)), default=-1)
        best_ignore = max((len(s) for s in ignores if matches(s, code)), default=-1)
        if best_select < 0 and best_ignore < 0:
            continue
        if best_ignore >= best_select:
            result.discard(code)
        elif code not in previews or preview or code in selectors:
            result.add(code)
    return frozenset(result)


def yielding_codes() -> dict[str, frozenset[str]]:
    """Code -> the codes whose finding at the same place replaces its own."""
    return {info.code: frozenset(info.yields_to) for info in catalog() if info.yields_to}

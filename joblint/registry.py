"""Rule discovery (walk `joblint.rules`: adding a rule = adding a module) and selection."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import cache

from joblint import rules as rules_package
from joblint.rule import Rule

# Codes that aren't rules but can be selected/ignored like them.
BUILTIN_CODES: dict[str, str] = {"JL001": "unparseable-file"}


@cache
def all_rules() -> tuple[type[Rule], ...]:
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(rules_package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{rules_package.__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value is not Rule
                and value.__module__ == module.__name__
            ):
                found.append(value)
    return tuple(sorted(found, key=lambda r: r.CODE))


def rule_by_code() -> dict[str, type[Rule]]:
    return {rule.CODE: rule for rule in all_rules()}


def lookup(code_or_name: str) -> type[Rule] | None:
    key = code_or_name.strip()
    for rule in all_rules():
        if key.upper() == rule.CODE or rule.name() == key.lower():
            return rule
    return None


def all_codes() -> list[str]:
    return sorted([*BUILTIN_CODES, *(r.CODE for r in all_rules())])


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
    chosen: set[str] = set()
    for code in all_codes():
        best_select = max((len(s) for s in selectors if matches(s, code)), default=-1)
        best_ignore = max((len(s) for s in ignores if matches(s, code)), default=-1)
        if best_select < 0 or best_ignore >= best_select:
            continue
        rule = rule_by_code().get(code)
        if rule is not None and rule.PREVIEW and not preview and code not in selectors:
            continue
        chosen.add(code)
    return frozenset(chosen)

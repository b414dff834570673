"""Every rule's VALID/INVALID examples, generated (Fixit's idea)."""

from __future__ import annotations

import pytest

from joblint.registry import all_rules, examples
from joblint.rule import DOC_SECTIONS, Invalid
from joblint.testing import Case, cases, check

CASES = list(cases())


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_example(case: Case) -> None:
    assert check(case) == []


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_rule_is_complete(rule: type) -> None:
    assert rule.CODE.startswith("JL") and len(rule.CODE) == 5
    assert rule.SUMMARY and not rule.SUMMARY.endswith(".")
    assert rule.TRIGGERS, "every rule declares what a file must contain for it to fire"
    assert rule.VALID, "every rule needs a teaching example it must not report"
    assert rule.INVALID, "every rule needs a teaching example it must report"
    # The class stays readable: its full suite lives in its family's _examples/.
    assert len(rule.VALID) + len(rule.INVALID) <= 5
    suite = examples(rule)
    assert all(isinstance(i, Invalid) and i.expected for i in suite.invalid)
    docs = rule.docs()
    positions = [docs.find(f"## {section}") for section in DOC_SECTIONS]
    assert all(p >= 0 for p in positions), f"missing sections in {rule.CODE}"
    assert positions == sorted(positions), "sections out of order"


def test_codes_and_names_are_unique() -> None:
    rules = all_rules()
    assert len({r.CODE for r in rules}) == len(rules)
    assert len({r.name() for r in rules}) == len(rules)


def test_rule_module_is_named_after_the_rule() -> None:
    for rule in all_rules():
        assert rule.__module__.rsplit(".", 1)[-1] == rule.name().replace("-", "_")

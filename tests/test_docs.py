"""Generated docs pages must match what the rule modules say."""

from __future__ import annotations

from joblint.docs_gen import DOCS_DIR, expected_pages


def test_rule_pages_are_current() -> None:
    stale = []
    for name, content in expected_pages().items():
        path = DOCS_DIR / name
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            stale.append(name)
    assert stale == [], f"run `make docs`: stale pages {stale}"


def test_no_pages_for_removed_rules() -> None:
    expected = set(expected_pages())
    present = {p.name for p in DOCS_DIR.glob("*.md")}
    assert present <= expected


def test_readme_lists_every_rule() -> None:
    from joblint.registry import all_rules

    readme = (DOCS_DIR.parent.parent / "README.md").read_text(encoding="utf-8")
    missing = [r.CODE for r in all_rules() if f"| {r.name()} |" not in readme]
    assert missing == [], f"add these rules to the README's rules table: {missing}"

"""Generated docs pages must match what the rule modules say."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from joblint import registry
from joblint.docs_gen import (
    ARCHITECTURE_PATH,
    CATALOG_PATH,
    DOCS_DIR,
    README_PATH,
    architecture_with_pictures,
    catalog_source,
    expected_pages,
    readme_with_table,
)
from joblint.registry import documented_rules
from joblint.rules import _catalog


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


def test_readme_rules_table_is_current() -> None:
    # `make docs` writes it: a rule added, renamed or resummarised shows here.
    readme = README_PATH.read_text(encoding="utf-8")
    assert readme_with_table(readme) == readme, "run `make docs`: README's rules table is stale"
    assert all(f"| {rule.name()} |" in readme for rule in documented_rules())


def test_architecture_pictures_are_current() -> None:
    # Drawn from pyproject.toml's import contracts and the rule family folders.
    text = ARCHITECTURE_PATH.read_text(encoding="utf-8")
    assert architecture_with_pictures(text) == text, "run `make docs`: the pictures are stale"
    assert "| JL401, JL402, JL403, JL404, JL405 |" in text
    assert 'L0["cli | flake8_plugin"]' in text


def test_make_docs_rewrites_a_stale_readme_table() -> None:
    readme = README_PATH.read_text(encoding="utf-8")
    stale = readme.replace("| enqueue-in-transaction |", "| old-name |")
    assert stale != readme
    assert readme_with_table(stale) == readme


def test_rule_catalog_is_current() -> None:
    # joblint.registry selects rules from this file without importing them.
    current = CATALOG_PATH.read_text(encoding="utf-8") if CATALOG_PATH.is_file() else ""
    assert current == catalog_source(), (
        f"run `make docs`: {CATALOG_PATH.name} is stale against the rule classes"
    )


@pytest.fixture
def fresh_catalog() -> Iterator[None]:
    registry.catalog.cache_clear()
    yield
    registry.catalog.cache_clear()


def test_registry_reads_the_rules_when_the_catalog_misses_a_module(
    fresh_catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule module added without `make docs` is still selected and known."""
    monkeypatch.setattr(_catalog, "MODULES", _catalog.MODULES[1:])
    monkeypatch.setattr(_catalog, "RULES", ())
    assert registry.catalog() == tuple(registry.info_of(r) for r in registry.all_rules())
    assert registry.is_known_selector("JL1")
    assert "JL101" in registry.select_codes(["ALL"], [], [], preview=False)


def test_registry_uses_the_catalog_while_it_lists_every_module(
    fresh_catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_catalog, "RULES", _catalog.RULES[:1])
    assert [info.code for info in registry.catalog()] == [_catalog.RULES[0][0]]


def test_every_module_the_architecture_names_exists() -> None:
    # The prose is hand-written: a module moved or renamed must take it along.
    text = ARCHITECTURE_PATH.read_text(encoding="utf-8")
    package = CATALOG_PATH.parent.parent
    repository = package.parent
    named = set(re.findall(r"`([a-z_/]+\.py)`", text))
    missing = [
        name
        for name in sorted(named)
        if not (repository / name).is_file()
        and not any(
            str(path).endswith("/" + name)
            for source in (package, repository / "runtime" / "src")
            for path in source.rglob(Path(name).name)
        )
    ]
    assert len(named) > 30
    assert missing == []


def test_the_readme_links_absolutely_to_files_that_exist() -> None:
    """The README is the package's page on PyPI, where a relative link leads
    nowhere: its links into the repository are absolute, and each names a
    file (and, where it says one, a heading) of this checkout."""
    from joblint import PROJECT_URL

    readme = README_PATH.read_text(encoding="utf-8")
    root = README_PATH.parent
    prefix = f"{PROJECT_URL}/blob/main/"
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert [link for link in links if not link.startswith(("https://", "http://", "#"))] == []
    ours = [link.removeprefix(prefix) for link in links if link.startswith(prefix)]
    assert len(ours) > 20
    for link in ours:
        path, _, heading = link.partition("#")
        target = root / path
        assert target.is_file(), link
        if heading:
            titles = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", t.lower()).replace(" ", "-") for t in titles}
            assert heading in slugs, link

"""Generate docs/rules/JLxxx.md and the rules table from the rule modules.

`python -m joblint.docs_gen` (or `make docs`) writes them; the test suite fails
when a committed page differs from what this produces.
"""

from __future__ import annotations

import sys
from pathlib import Path

from joblint.registry import all_rules
from joblint.rule import Invalid, Rule

DOCS_DIR = Path(__file__).resolve().parent.parent / "docs" / "rules"


def _example_code(code: str) -> str:
    return code.strip("\n")


def rule_markdown(rule: type[Rule]) -> str:
    status = "preview (off unless selected)" if rule.PREVIEW else "on by default"
    parts = [
        f"# {rule.CODE} {rule.name()}",
        "",
        f"*{rule.SUMMARY}.* Status: {status}.",
        "",
        rule.docs(),
        "",
        "## Examples the test suite checks",
        "",
        "Reported:",
        "",
    ]
    for example in rule.INVALID:
        parts.extend(_invalid_block(example))
    parts.extend(["Not reported:", ""])
    for valid in rule.VALID:
        parts.extend([f"```python\n{_example_code(valid.code)}\n```", ""])
    parts.extend(
        [
            "## Suppressing",
            "",
            f"`# joblint: ignore[{rule.CODE}]` on the reported line (or alone on the line "
            f"above), or `# noqa: {rule.CODE}`.",
            "",
        ]
    )
    return "\n".join(parts)


def _invalid_block(example: Invalid) -> list[str]:
    lines = [f"```python\n{_example_code(example.code)}\n```"]
    for module, code in example.project.items():
        path = module.replace("_", "/") + ".py"
        lines.append(f"with `{path}`:\n\n```python\n{_example_code(code)}\n```")
    for expected in example.expected:
        # Examples start with a newline, so line N of the example is line N-1 here.
        where = f"{expected.path}, " if expected.path else ""
        lines.append(
            f"- {where}line {expected.line - 1}, column {expected.column}: “{expected.message}”"
        )
    lines.append("")
    return lines


def index_markdown() -> str:
    rows = [
        "# Rules",
        "",
        "| Code | Name | Status | Summary |",
        "| --- | --- | --- | --- |",
    ]
    for rule in all_rules():
        status = "preview" if rule.PREVIEW else "on"
        rows.append(
            f"| [{rule.CODE}]({rule.CODE}.md) | {rule.name()} | {status} | {rule.SUMMARY} |"
        )
    rows.append("")
    return "\n".join(rows)


def expected_pages() -> dict[str, str]:
    pages = {f"{rule.CODE}.md": rule_markdown(rule) for rule in all_rules()}
    pages["index.md"] = index_markdown()
    return pages


def main() -> int:
    DOCS_DIR.mkdir(parents=True, exist_ok=True)
    for name, content in expected_pages().items():
        (DOCS_DIR / name).write_text(content, encoding="utf-8")
    print(f"wrote {len(expected_pages())} pages to {DOCS_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

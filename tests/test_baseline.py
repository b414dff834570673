"""Baselines: line shifts don't resurrect findings, new duplicates appear, fixed ones go."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ENQUEUE_IN_ATOMIC, Run, write

from joblint.models import Finding, Span
from joblint.pipeline.report.identity import identities, normalise

SECOND_CALL = "        send_receipt.delay(order.pk)\n"


def _concise(stdout: str) -> list[str]:
    """`path:line:col: CODE` of each concise line."""
    return [" ".join(line.split(" ", 2)[:2]) for line in stdout.splitlines()]


def test_write_then_nothing_new(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"shop/views.py": ENQUEUE_IN_ATOMIC})
    written = run("check", "--write-baseline", "joblint-baseline.json", ".")
    assert written.code == 0 and written.stdout == ""
    assert "Wrote 1 finding to joblint-baseline.json." in written.stderr
    data = json.loads((tmp_path / "joblint-baseline.json").read_text(encoding="utf-8"))
    (entry,) = data["findings"]
    assert (entry["code"], entry["path"], entry["context"], entry["occurrence"]) == (
        "JL101",
        "shop/views.py",
        "checkout",
        0,
    )
    result = run("check", "--baseline", "joblint-baseline.json", ".")
    assert result.code == 0 and result.stdout == ""
    assert "1 finding hidden by the baseline" in result.stderr


def test_lines_above_do_not_resurrect_but_a_new_duplicate_appears(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path, {"shop/views.py": ENQUEUE_IN_ATOMIC})
    run("--write-baseline", "b.json", ".")
    shifted = '"""Views."""\n\nimport logging\n\n' + ENQUEUE_IN_ATOMIC.replace(
        "order.save()", "order.save()  # reformatted\n        logging.info('saved')"
    )
    write(tmp_path, {"shop/views.py": shifted})
    assert run("--baseline", "b.json", "--format", "concise", ".").code == 0
    write(tmp_path, {"shop/views.py": shifted + SECOND_CALL})
    result = run("--baseline", "b.json", "--format", "concise", ".")
    assert result.code == 1
    assert _concise(result.stdout) == ["shop/views.py:14:9: JL101"]


def test_same_code_in_another_function_is_new(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"shop/views.py": ENQUEUE_IN_ATOMIC})
    run("--write-baseline", "b.json", ".")
    other = ENQUEUE_IN_ATOMIC.replace("def checkout", "def refund")
    write(tmp_path, {"shop/views.py": ENQUEUE_IN_ATOMIC + "\n\n" + other.split("\n\n\n", 1)[1]})
    result = run("--baseline", "b.json", "--format", "concise", ".")
    assert _concise(result.stdout) == ["shop/views.py:14:9: JL101"]


def test_fixed_findings_are_reported_and_pruned(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC, "b.py": ENQUEUE_IN_ATOMIC + SECOND_CALL})
    run("--write-baseline", "b.json", ".")
    assert len(json.loads((tmp_path / "b.json").read_text())["findings"]) == 3
    write(tmp_path, {"b.py": ENQUEUE_IN_ATOMIC})
    (tmp_path / "a.py").unlink()
    # Checking only b.py: a.py's entry can't be judged, b.py's second call is fixed.
    partial = run("--baseline", "b.json", "b.py")
    assert partial.code == 0
    assert partial.stderr.count("fixed, remove from baseline") == 1
    assert "b.py: JL101 in checkout (was line 9): fixed, remove from baseline" in partial.stderr
    # A deleted file's findings are fixed too; a rule that didn't run judges nothing.
    assert "fixed" not in run("--baseline", "b.json", "--select", "JL4", ".").stderr
    full = run("--baseline", "b.json", "--baseline-prune", ".")
    assert full.code == 0
    assert "Removed 2 fixed entries from b.json." in full.stderr
    entries = json.loads((tmp_path / "b.json").read_text())["findings"]
    assert [(e["path"], e["occurrence"]) for e in entries] == [("b.py", 0)]
    assert "fixed" not in run("--baseline", "b.json", ".").stderr


def test_config_key_and_paths_relative_to_the_baseline(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[tool.joblint]\nbaseline = "ci/joblint-baseline.json"\n',
            "shop/views.py": ENQUEUE_IN_ATOMIC,
            "ci/.keep": "",
        },
    )
    run("--write-baseline", "ci/joblint-baseline.json", ".")
    entries = json.loads((tmp_path / "ci/joblint-baseline.json").read_text())["findings"]
    assert entries[0]["path"] == "../shop/views.py"
    assert run(".").code == 0
    # From a subdirectory: the config's baseline, paths resolved from its directory.
    assert run(".", cwd=tmp_path / "shop").code == 0
    assert run("--isolated", ".").code == 1


def test_bad_baseline_is_one_line_exit_2(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"v.py": ENQUEUE_IN_ATOMIC, "bad.json": "[1, 2]", "broken.json": "{"})
    for name, message in (
        ("missing.json", "baseline not found"),
        ("bad.json", "not a joblint baseline"),
        ("broken.json", "not a joblint baseline"),
    ):
        result = run("--baseline", name, ".")
        assert result.code == 2, name
        assert result.stderr.startswith(f"joblint: error: {name}: {message}")
        assert len(result.stderr.splitlines()) == 1
    assert run("--baseline-prune", ".").code == 2


def test_identity_ignores_layout_and_comments_and_names_the_scope() -> None:
    assert normalise("send.delay(\n    x,  # why\n    y)") == normalise("send.delay(x, y)")
    source = [
        "class Shop:",
        "    @decorate(retry=1)",
        "    def checkout(self):",
        "        def inner():",
        "            send.delay(1)",
        "        send.delay(1)",
        "send.delay(1)",
    ]

    def at(line: int) -> Finding:
        return Finding("JL101", "n", "m", "x.py", Span(line, 1, line, 100))

    found = identities([at(7), at(2), at(5), at(6)], lambda _: source)
    contexts = [i.context for i in found]
    assert contexts == ["", "Shop.checkout", "Shop.checkout.inner", "Shop.checkout"]
    assert found[0].digest == found[2].digest  # `send.delay(1)` wherever it is
    assert len({i.fingerprint for i in found}) == 4

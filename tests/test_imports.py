"""What a cached run needs imports neither the parser nor the rules.

A run whose every result comes from `.joblint_cache/` reads the config,
selects rules, looks results up, settles them and prints them: none of that
needs LibCST, sqlglot, a rule module or rich (most of start-up when imported).
Each check runs in a fresh interpreter and lists what it imported of those.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Prints the heavy modules the snippet before it imported, as a JSON list.
REPORT_HEAVY = """
import json as _json, sys as _sys
_heavy = {"libcst", "sqlglot", "rich"}
_rules = "joblint.rules."


def _is_rule_module(name):
    # A rule's module: joblint.rules.<family>.<rule>, neither named with a leading
    # underscore (the families' facts, examples and screens are not rules).
    parts = name[len(_rules):].split(".") if name.startswith(_rules) else []
    return len(parts) == 2 and not any(part.startswith("_") for part in parts)


print(_json.dumps(sorted(
    name for name in _sys.modules
    if name.partition(".")[0] in _heavy or _is_rule_module(name)
)))
"""


def heavy_imports(snippet: str, cwd: Path) -> list[str]:
    """The heavy modules (top-level packages and rule modules) `snippet` imports."""
    return run_snippet(snippet, cwd)[0]


def run_snippet(snippet: str, cwd: Path) -> tuple[list[str], str]:
    """The heavy modules `snippet` imports, and what it printed."""
    code = textwrap.dedent(snippet) + REPORT_HEAVY
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    printed, _, last = proc.stdout.rstrip("\n").rpartition("\n")
    found = json.loads(last)
    heavy = sorted({name if name.startswith("joblint") else name.split(".")[0] for name in found})
    return heavy, printed


def test_the_check_sees_heavy_imports(tmp_path: Path) -> None:
    # The engine needs LibCST: were this empty, the tests below would prove nothing.
    assert "libcst" in heavy_imports("import joblint.pipeline.lint", tmp_path)
    assert "joblint.rules.transactions.enqueue_in_transaction" in heavy_imports(
        "from joblint.registry import all_rules; all_rules()", tmp_path
    )


def test_config_import_is_light(tmp_path: Path) -> None:
    snippet = """
    from pathlib import Path
    from joblint.config import lint_options, load, parse_table

    table = {"select": ["JL1", "JL4"], "ignore": ["JL102"],
             "rules": {"lock-without-expiry": {"default-lock-timeout": 30}}}
    config = parse_table(table, "pyproject.toml", Path("."), None)
    assert lint_options(config).rule_option("JL402", "default-lock-timeout") == 30
    load(isolated=True)
    """
    assert heavy_imports(snippet, tmp_path) == []


def test_registry_selection_is_light(tmp_path: Path) -> None:
    snippet = """
    from joblint.registry import all_codes, find, is_known_selector, is_project_rule, select_codes

    assert is_known_selector("JL1") and not is_known_selector("JL9")
    codes = select_codes(["ALL"], ["JL002"], ["JL3"], preview=False)
    assert "JL101" in codes and "JL002" in codes and "JL301" not in codes
    assert is_project_rule("JL501") and not is_project_rule("JL101")
    assert find("enqueue-in-transaction").code == "JL101"
    assert "JL001" in all_codes()
    """
    assert heavy_imports(snippet, tmp_path) == []


def test_cache_round_trip_is_light(tmp_path: Path) -> None:
    snippet = """
    from pathlib import Path
    from joblint.pipeline.cache import ResultCache, entry_key
    from joblint.models import FileResult, Finding, Span
    from joblint.settings import LintSettings, ModuleInfo

    cache = ResultCache(Path("cache"))
    key = entry_key("a.py", "0" * 32, LintSettings(frozenset({"JL101"})), ModuleInfo("a"))
    finding = Finding("JL101", "enqueue-in-transaction", "m", "a.py", Span(1, 1, 1, 2))
    cache.put(key, FileResult("a.py", (finding,)))
    assert cache.flush()
    assert ResultCache(Path("cache")).get(key).findings == (finding,)
    """
    assert heavy_imports(snippet, tmp_path) == []


def test_settling_without_pending_findings_or_facts_is_light(tmp_path: Path) -> None:
    snippet = """
    from joblint.models import FileResult, Finding, Span
    from joblint.pipeline.project import ProjectSettings, candidate_modules, job_names, settle
    from joblint.pipeline.project import wanted_names
    from joblint.registry import select_codes

    finding = Finding("JL101", "enqueue-in-transaction", "m", "a.py", Span(1, 1, 1, 2))
    results = [FileResult("a.py", (finding,)), FileResult("b.py")]
    codes = select_codes(["ALL"], [], [], preview=False)
    assert settle(results, ProjectSettings(codes)) == [finding]
    assert wanted_names(results) == set() and candidate_modules({"a.b.C"}, {"a", "a.b"}) == {"a.b"}
    assert job_names(results) == (set(), set())
    """
    assert heavy_imports(snippet, tmp_path) == []


def test_default_text_report_is_light(tmp_path: Path) -> None:
    snippet = """
    import io
    from joblint.models import Finding, Span
    from joblint.pipeline.report import Output, console_for, renderers

    finding = Finding("JL101", "enqueue-in-transaction", "m", "a.py", Span(1, 1, 1, 2), "help")
    for fmt in ("full", "concise"):
        stream = io.StringIO()
        out = Output(stream, console_for(stream, "auto"), lambda path: ["send.delay(1)"])
        renderers()[fmt]([finding], out)
        assert "a.py:1:1" in stream.getvalue()
    """
    assert heavy_imports(snippet, tmp_path) == []


@pytest.mark.parametrize(
    "module",
    [
        "integrations.baseline",
        "pipeline.report.identity",
        "integrations",
        "integrations.changed",
        "pipeline.report.progress",
        "suppressions",
    ],
)
def test_cli_helpers_import_light(module: str, tmp_path: Path) -> None:
    assert heavy_imports(f"import joblint.{module}", tmp_path) == []


def test_cli_import_is_light(tmp_path: Path) -> None:
    # Needs joblint.api (and what it imports) to be light as well.
    assert heavy_imports("import joblint.cli", tmp_path) == []


WARM_RUN = """
import runpy, sys

sys.argv = ["joblint", "check", "."]
try:
    runpy.run_module("joblint", run_name="__main__")
except SystemExit:
    pass
sys.stdout.flush()
"""


CELERY_APP = (
    'from celery import Celery\n\napp = Celery("proj", broker="redis://localhost:6379/0")\n'
    "app.conf.task_time_limit = 2 * 3600\n"
)


@pytest.mark.parametrize(
    ("source", "shown", "imported"),
    [
        # The default format, to a pipe, with its code frame: the source is
        # read and decoded without the engine, and printed without rich.
        (
            "from django.db import transaction\nfrom tasks import t\n\n"
            "def f():\n    with transaction.atomic():\n        t.delay()\n",
            "6 |         t.delay()",
            [],
        ),
        # A whole-project rule's finding, replayed from the run memo: not even
        # the rule's module is imported.
        (CELERY_APP, "JL501", []),
    ],
    ids=["finding-with-code-frame", "celery-project-rules"],
)
def test_a_warm_run_is_light(source: str, shown: str, imported: list[str], tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(source)
    cold = run_snippet(WARM_RUN, tmp_path)  # fills the cache
    warm = run_snippet(WARM_RUN, tmp_path)
    assert warm[1] == cold[1] and shown in warm[1]
    assert warm[0] == imported


def test_whole_project_rules_run_on_cached_facts_importing_only_their_modules(
    tmp_path: Path,
) -> None:
    """Another file changed: the memo can't replay the run, and the
    whole-project rules run on the cached facts; only their own modules are
    imported, and none of them imports LibCST."""
    (tmp_path / "app.py").write_text(CELERY_APP)
    other = tmp_path / "other.py"
    other.write_text("x = 1\n")
    cold = run_snippet(WARM_RUN, tmp_path)
    other.write_text("x = 2\n")
    warm = run_snippet(WARM_RUN, tmp_path)
    assert warm[1] == cold[1] and "JL501" in warm[1]
    assert warm[0] == [
        "joblint.rules.visibility.countdown_beyond_visibility_timeout",
        "joblint.rules.visibility.visibility_timeout_below_time_limit",
    ]

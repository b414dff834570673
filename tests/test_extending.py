"""Adding a rule touches one folder (its family's); adding a library (its jobs or
its retries) is adding one module: CONTRIBUTING.md's recipes, followed here.

Each test copies the package to a temporary directory, adds one module there,
runs `make docs` (`python -m joblint.docs_gen`) in the copy, and lints with
the copy: the new module is discovered, documented, prefiltered and found.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LIBRARY = '''"""Acme Queue: a queue library joblint did not know."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, Library, Receiver

LIBRARIES = (
    Library(
        "acmeq",
        "Acme Queue",
        job_noun="job",
        modules=("acmeq",),
        task_decorators=("acmeq.job",),
        enqueue_methods=(("push_later", EnqueueMethod((), Receiver.TASK_LIKE)),),
    ),
)
'''

USES_THE_LIBRARY = """from acmeq import job
from django.db import transaction


@job
def send_receipt(order_id): ...


def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.push_later(order.pk)
"""

RETRY_LIBRARY = '''"""Acme Retry: a retry library joblint did not know."""

from __future__ import annotations

from joblint.libraries.retry_api import (
    AttemptBound,
    Bound,
    BoundParams,
    CatchParam,
    DelayParams,
    GrowthParam,
    Jitter,
    JitterParam,
    Param,
    Reads,
    RetryCall,
    Says,
    Value,
)

TRIES = AttemptBound("tries", counts_first_run=True)

RETRY_CALLS = (
    RetryCall(
        ("acmeretry.retrying",),
        delay=DelayParams(
            GrowthParam(Param("factor"), Reads.FACTOR),
            Says("Acme Retry retrying(factor=...) doubles the wait", "Pass spread=..."),
            jitter=JitterParam(Param("spread"), off=Value.ZERO, default=Jitter.ABSENT),
        ),
        bound=BoundParams(
            ((Param(TRIES.parameter), Bound.ATTEMPTS),),
            TRIES,
            Says("Acme Retry retrying() without tries retries forever", f"Pass {TRIES.advice()}"),
        ),
        catches=CatchParam(Param("on", 0), "Acme Retry retrying(...)"),
    ),
)
'''

USES_THE_RETRY_LIBRARY = """import acmeretry


@acmeretry.retrying(Exception, factor=2)
def sync_rates(): ...


@acmeretry.retrying(ConnectionError, factor=2, spread=1, tries=5)
def sync_prices(): ...
"""

RULE = '''"""JL999: a throwaway rule."""

from __future__ import annotations

import libcst as cst

from joblint.knowledge.trigger import Trigger
from joblint.rule import Rule, Valid, invalid


class PrintInJob(Rule):
    """
    ## What it does
    Finds `print(...)` calls.

    ## Why is this bad?
    Workers' stdout is rarely read.

    ## Example
    ```python
    print("done")
    ```

    ## Use instead
    ```python
    log.info("done")
    ```

    ## Fix safety
    No fix.

    ## Known limits
    Any `print` counts.
    """

    CODE = "JL999"
    TRIGGERS = (Trigger(("print(",)),)
    SUMMARY = "A print in job code"
    HELP = "Log instead"
    VALID = (Valid("log.info('done')\\n", id="log"),)
    INVALID = (invalid("print('done')\\n", (1, 1, "print"), id="print"),)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "print":
            self.report(node, "print() in job code: log instead")
'''


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", ".joblint_cache")
    shutil.copytree(ROOT / "joblint", copy / "joblint", ignore=ignore)
    (copy / "docs" / "rules").mkdir(parents=True)
    return copy


def _python(copy: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd or copy,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(copy), "NO_COLOR": "1"},
        timeout=300,
        check=False,
    )


def _lint(copy: Path, project: Path, *args: str) -> list[dict[str, object]]:
    done = _python(copy, "-m", "joblint", "check", "--format", "json", *args, ".", cwd=project)
    assert done.returncode in (0, 1), done.stderr
    found: list[dict[str, object]] = json.loads(done.stdout)
    return found


def test_a_library_added_as_one_module_is_found(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    (copy / "joblint" / "libraries" / "acmeq.py").write_text(LIBRARY)
    docs = _python(copy, "-m", "joblint.docs_gen")
    assert docs.returncode == 0, docs.stderr
    project = tmp_path / "shop"
    project.mkdir()
    (project / "views.py").write_text(USES_THE_LIBRARY)
    found = _lint(copy, project)
    assert [(f["code"], f["line"]) for f in found] == [("JL101", 12)]
    assert str(found[0]["message"]).startswith("Acme Queue job 'send_receipt' is enqueued")
    # The prefilter knows the new method (its trigger came from the library's data).
    catalog = (copy / "joblint" / "rules" / "_catalog.py").read_text()
    assert ".push_later(" in catalog
    (project / "views.py").write_text(USES_THE_LIBRARY.replace("push_later", "push_soon"))
    assert _lint(copy, project) == []


FAMILY = '''"""Printing (JL999): a throwaway family of one rule."""
'''

SUITE = '''"""The full example suite of the throwaway rule."""

from joblint.rule import Valid, invalid

VALID = (Valid("logger.warning('late')\\n", id="a-logger-call"),)
INVALID = (invalid("print('late', flush=True)\\n", (1, 1, "print"), id="print-flushed"),)
'''


# `lint-imports`, run by the copy's interpreter on the copy's pyproject.toml.
LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def _digests(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_a_rule_added_in_a_new_family_folder_as_the_guide_says_is_picked_up(
    tmp_path: Path,
) -> None:
    """CONTRIBUTING.md, "Adding a rule", step by step: a family folder with its
    `__init__.py`, the rule's module, its `_examples` suite, then `make docs`.
    The registry, the docs generator, the examples harness, the prefilter and
    the import contracts pick it up, and no file outside the folder changed
    but those `make docs` generates."""
    copy = _copy(tmp_path)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, copy / name)
    shutil.rmtree(copy / "docs" / "rules")
    shutil.copytree(ROOT / "docs" / "rules", copy / "docs" / "rules")
    before = _digests(copy)
    family = copy / "joblint" / "rules" / "printing"
    (family / "_examples").mkdir(parents=True)
    (family / "__init__.py").write_text(FAMILY)
    (family / "print_in_job.py").write_text(RULE)
    (family / "_examples" / "__init__.py").write_text('"""The printing rules\' suites."""\n')
    (family / "_examples" / "print_in_job.py").write_text(SUITE)
    docs = _python(copy, "-m", "joblint.docs_gen")
    assert docs.returncode == 0, docs.stderr
    changed = {name for name, digest in _digests(copy).items() if before.get(name) != digest}
    generated = {"docs/rules/JL999.md", "docs/rules/index.md", "joblint/rules/_catalog.py"}
    generated.add("README.md")  # its rules table
    assert {name for name in changed if not name.startswith("joblint/rules/printing/")} == generated
    page = copy / "docs" / "rules" / "JL999.md"
    assert page.is_file() and "Workers' stdout is rarely read." in page.read_text()
    assert "print('late', flush=True)" in page.read_text()  # the suite's example, too
    assert "'printing.print_in_job'" in (copy / "joblint" / "rules" / "_catalog.py").read_text()
    examples = _python(copy, "-m", "joblint.testing", "JL999")
    assert examples.returncode == 0, examples.stdout + examples.stderr
    assert "ok   JL999-invalid-print" in examples.stdout
    assert "ok   JL999-invalid-print-flushed" in examples.stdout
    assert "ok   JL999-valid-a-logger-call" in examples.stdout
    project = tmp_path / "worker"
    project.mkdir()
    (project / "jobs.py").write_text("def run():\n    print('done')\n")
    (project / "quiet.py").write_text("def run():\n    return 1\n")
    found = _lint(copy, project, "--select", "JL999")
    assert [(f["code"], f["path"], f["line"]) for f in found] == [("JL999", "jobs.py", 2)]
    # The prefilter lets the rule's files through, and only those.
    screen = _python(
        copy,
        "-c",
        "from joblint.pipeline.screen.prefilter import Prefilter\n"
        "p = Prefilter({'JL999'}, [], project_facts=False)\n"
        "for text in (b\"print('x')\", b'return 1'):\n"
        "    print(p.decide_lowered(text, p.present(text)).wanted)\n",
    )
    assert screen.stdout.split() == ["True", "False"], screen.stderr
    rules = _python(copy, "-m", "joblint", "rules", "--format", "json")
    assert any(r["code"] == "JL999" for r in json.loads(rules.stdout))
    # The contract keeping families apart covers the new folder with no edit:
    # an import of another family's module breaks it.
    contracts = _python(copy, "-c", LINT_IMPORTS)
    assert contracts.returncode == 0, contracts.stdout
    crossing = "\nimport joblint.rules.locks._facts.row_locks\n"
    (family / "print_in_job.py").write_text(RULE + crossing)
    contracts = _python(copy, "-c", LINT_IMPORTS)
    assert contracts.returncode != 0
    assert "joblint.rules.printing is not allowed to import joblint.rules.locks" in contracts.stdout


def test_a_retry_library_added_as_one_module_is_found(tmp_path: Path) -> None:
    """Its retry API is data the JL3 rules' facts are read with, and its triggers."""
    copy = _copy(tmp_path)
    (copy / "joblint" / "libraries" / "acmeretry.py").write_text(RETRY_LIBRARY)
    docs = _python(copy, "-m", "joblint.docs_gen")
    assert docs.returncode == 0, docs.stderr
    project = tmp_path / "rates"
    project.mkdir()
    (project / "jobs.py").write_text(USES_THE_RETRY_LIBRARY)
    found = _lint(copy, project, "--select", "JL301,JL302,JL303")
    found.sort(key=lambda f: str(f["code"]))
    assert [(f["code"], f["line"], f["column"]) for f in found] == [
        ("JL301", 4, 32),
        ("JL302", 4, 2),
        ("JL303", 4, 21),
    ]
    messages = [str(f["message"]) for f in found]
    assert messages[0].startswith("Acme Retry retrying(factor=...) doubles the wait: ")
    assert messages[1].endswith("Pass tries=5 (5 attempts in total: tries counts every attempt)")
    assert messages[2].startswith("Acme Retry retrying(...) retries every exception (Exception)")
    catalog = (copy / "joblint" / "rules" / "_catalog.py").read_text()
    assert "acmeretry" in catalog

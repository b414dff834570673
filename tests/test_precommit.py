"""The pre-commit hooks, through the real pre-commit, installed from a plain clone.

pre-commit builds its own virtualenv and pip-installs the hook repository
into it, the runtime distribution beside the linter (the manifest's
`additional_dependencies`): `try-repo` against the clone, and `run` with the
configuration docs/integrations.md shows, its repository pointed at the clone.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from clone import ROOT, git
from conftest import CLEAN, ENQUEUE_IN_ATOMIC, write

pytest.importorskip("pre_commit", reason="pre-commit is in the test extra (make install)")

RETRY_WITHOUT_JITTER = """from celery import shared_task


@shared_task(bind=True, max_retries=4)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=10 * 2**self.request.retries)
"""


def _project(target: Path, files: dict[str, str | bytes]) -> Path:
    target.mkdir()
    write(target, {"shop/__init__.py": "", **files})
    git(target, "init", "-q")
    git(target, "add", ".")
    return target


def _pre_commit(project: Path, home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _documented_config(clone: Path, hook: str) -> str:
    """docs/integrations.md's pre-commit configuration, its repository the clone."""
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- test: pre-commit-config -->\n```yaml\n(.*?)```", text, re.S)
    assert block is not None
    config = block.group(1)
    assert "repo: https://github.com/joblint/joblint\n" in config and "rev: main" in config
    config = config.replace("https://github.com/joblint/joblint", str(clone))
    return config.replace("- id: joblint\n", f"- id: {hook}\n")


def test_hook_fails_on_the_finding_and_passes_once_fixed(tmp_path: Path, plain_clone: Path) -> None:
    bad = _project(tmp_path / "bad", {"shop/views.py": ENQUEUE_IN_ATOMIC})
    fixed = _project(tmp_path / "fixed", {"shop/views.py": CLEAN})
    home = tmp_path / "home"
    runs = {
        project: _pre_commit(project, home, "try-repo", str(plain_clone), "joblint", "--all-files")
        for project in (bad, fixed)
    }
    outputs = {project: proc.communicate(timeout=600)[0] for project, proc in runs.items()}
    assert runs[bad].returncode == 1, outputs[bad]
    assert "joblint" in outputs[bad] and "Failed" in outputs[bad]
    assert "shop/views.py:8:9: JL101 [enqueue-in-transaction]" in outputs[bad]
    assert runs[fixed].returncode == 0, outputs[fixed]
    assert "Passed" in outputs[fixed]


def test_the_documented_configuration_and_the_fix_hook(tmp_path: Path, plain_clone: Path) -> None:
    """The docs' configuration installs from the repository; `joblint-fix`
    applies no unsafe fix by default and applies them once configured, writing
    an import of the runtime."""
    home = tmp_path / "home"
    checked = _project(tmp_path / "checked", {"shop/views.py": ENQUEUE_IN_ATOMIC})
    (checked / ".pre-commit-config.yaml").write_text(_documented_config(plain_clone, "joblint"))
    proc = _pre_commit(checked, home, "run", "--all-files")
    output = proc.communicate(timeout=600)[0]
    assert proc.returncode == 1, output
    assert "shop/views.py:8:9: JL101 [enqueue-in-transaction]" in output

    by_default = _project(tmp_path / "default", {"shop/tasks.py": RETRY_WITHOUT_JITTER})
    configured = _project(
        tmp_path / "configured",
        {
            "shop/tasks.py": RETRY_WITHOUT_JITTER,
            "pyproject.toml": "[tool.joblint]\nunsafe-fixes = true\n",
        },
    )
    for project in (by_default, configured):
        (project / ".pre-commit-config.yaml").write_text(
            _documented_config(plain_clone, "joblint-fix")
        )
    runs = {
        project: _pre_commit(project, home, "run", "--all-files")
        for project in (by_default, configured)
    }
    outputs = {project: proc.communicate(timeout=600)[0] for project, proc in runs.items()}

    assert runs[by_default].returncode == 1, outputs[by_default]
    assert "JL301" in outputs[by_default] and "--unsafe-fixes" in outputs[by_default]
    assert (by_default / "shop/tasks.py").read_text() == RETRY_WITHOUT_JITTER

    assert runs[configured].returncode == 1, outputs[configured]
    assert "files were modified by this hook" in outputs[configured]
    fixed = (configured / "shop/tasks.py").read_text()
    assert "from joblint_runtime.backoff import full_jitter\n" in fixed
    assert "countdown=full_jitter(self.request.retries, base=10, cap=600)" in fixed

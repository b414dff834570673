"""The pre-commit hook, through the real `pre-commit try-repo`.

The hook repository is a fresh git repository holding this working tree's
package and `.pre-commit-hooks.yaml`; pre-commit builds its own virtualenv and
pip-installs joblint into it (needs PyPI for the dependencies): about a minute.
The failing and the fixed project run at the same time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CLEAN, ENQUEUE_IN_ATOMIC, write

pytest.importorskip("pre_commit", reason="pre-commit is in the test extra (make install)")

ROOT = Path(__file__).resolve().parents[1]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _hook_repository(target: Path) -> Path:
    target.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, target / name)
    shutil.copytree(
        ROOT / "joblint", target / "joblint", ignore=shutil.ignore_patterns("__pycache__")
    )
    _git(target, "init", "-q")
    _git(target, "add", ".")
    _git(target, "commit", "-q", "-m", "hooks")
    return target


def _project(target: Path, source: str) -> Path:
    target.mkdir()
    write(target, {"shop/__init__.py": "", "shop/views.py": source})
    _git(target, "init", "-q")
    _git(target, "add", ".")
    return target


def test_hook_fails_on_the_finding_and_passes_once_fixed(tmp_path: Path) -> None:
    hooks = _hook_repository(tmp_path / "hooks")
    bad = _project(tmp_path / "bad", ENQUEUE_IN_ATOMIC)
    fixed = _project(tmp_path / "fixed", CLEAN)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    runs = {
        project: subprocess.Popen(
            [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "joblint", "--all-files"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for project in (bad, fixed)
    }
    outputs = {project: proc.communicate(timeout=600)[0] for project, proc in runs.items()}
    assert runs[bad].returncode == 1, outputs[bad]
    assert "joblint" in outputs[bad] and "Failed" in outputs[bad]
    assert "shop/views.py:8:9: JL101 [enqueue-in-transaction]" in outputs[bad]
    assert runs[fixed].returncode == 0, outputs[fixed]
    assert "Passed" in outputs[fixed]

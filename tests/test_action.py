"""The GitHub Action and the pre-commit manifest are well-formed and run what they say."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (test extra)")

ROOT = Path(__file__).resolve().parents[1]


def test_action_is_composite_sarif_upload_or_annotations() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert action["inputs"]["mode"]["default"] == "sarif"
    steps = action["runs"]["steps"]
    script = "\n".join(step.get("run", "") for step in steps)
    assert "--format sarif --output-file" in script and "--format github" in script
    assert "pip install" in script
    uses = [step.get("uses", "") for step in steps]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    assert all(step.get("shell") == "bash" for step in steps if "run" in step)


def test_pre_commit_manifest() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = [h for h in hooks if h["id"] == "joblint"]
    assert hook["entry"].startswith("joblint check") and hook["language"] == "python"


def test_pre_commit_fix_hook() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = [h for h in hooks if h["id"] == "joblint-fix"]
    assert hook["entry"] == "joblint check --fix --force-exclude"
    assert hook["types_or"] == ["python", "pyi"] and hook["require_serial"] is True

"""The GitHub Action and the pre-commit manifest are well-formed and run what they say."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from clone import fresh_venv, installed
from conftest import ENQUEUE_IN_ATOMIC, write

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


# --- The action's steps, run by bash as the runner would -------------------------------


def _step(name: str) -> str:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    (step,) = [step for step in action["runs"]["steps"] if step.get("name") == name]
    assert step["shell"] == "bash"
    return str(step["run"])


def _bash(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # GitHub runs a `shell: bash` step as `bash --noprofile --norc -eo pipefail {0}`.
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def runner(plain_clone: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a runner after the action's install step, the
    action's checkout being a plain clone (inputs `version` and `source` empty)."""
    python = fresh_venv(tmp_path_factory.mktemp("action") / "venv")
    env = {
        "PATH": f"{python.parent}:/usr/bin:/bin",
        "HOME": str(tmp_path_factory.mktemp("home")),
        "NO_COLOR": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    install = {
        **os.environ,
        **env,
        "JOBLINT_VERSION": "",
        "JOBLINT_SOURCE": "",
        "ACTION_PATH": str(plain_clone),
    }
    result = _bash(_step("Install joblint"), install, plain_clone)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert {"joblint", "joblint-runtime"} <= installed(python)
    return env


def _run_step(
    runner: dict[str, str], project: Path, mode: str, output: Path
) -> subprocess.CompletedProcess[str]:
    env = {
        **runner,
        "JOBLINT_MODE": mode,
        "JOBLINT_PATHS": ".",
        "JOBLINT_ARGS": "",
        "JOBLINT_SARIF": "joblint.sarif",
        "GITHUB_OUTPUT": str(output),
    }
    return _bash(_step("Run joblint"), env, project)


def test_the_action_reports_a_finding_as_sarif(runner: dict[str, str], tmp_path: Path) -> None:
    write(tmp_path, {"shop/__init__.py": "", "shop/views.py": ENQUEUE_IN_ATOMIC})
    output = tmp_path / "github_output"
    result = _run_step(runner, tmp_path, "sarif", output)
    assert result.returncode == 0, result.stderr
    assert output.read_text() == "exit-code=1\n"
    sarif = json.loads((tmp_path / "joblint.sarif").read_text())
    (finding,) = sarif["runs"][0]["results"]
    assert finding["ruleId"] == "JL101"


def test_the_action_annotates_and_stops_on_an_unknown_mode(
    runner: dict[str, str], tmp_path: Path
) -> None:
    write(tmp_path, {"shop/__init__.py": "", "shop/views.py": ENQUEUE_IN_ATOMIC})
    annotated = _run_step(runner, tmp_path, "annotations", tmp_path / "out1")
    assert annotated.returncode == 0, annotated.stderr
    assert annotated.stdout.startswith("::error file=shop/views.py,line=8,")
    assert (tmp_path / "out1").read_text() == "exit-code=1\n"
    unknown = _run_step(runner, tmp_path, "pdf", tmp_path / "out2")
    assert unknown.returncode == 2
    assert "unknown mode 'pdf'" in unknown.stdout


def test_the_documented_git_install_works_as_the_actions_source(
    plain_clone: Path, tmp_path: Path
) -> None:
    """docs/integrations.md's install command, the repository URL pointed at
    the clone: its requirements, given as the action's `source` input, install
    both distributions into an empty environment, and joblint runs there."""
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- test: install-from-git -->\n```sh\n(.*?)```", text, re.S)
    assert block is not None
    words = shlex.split(block.group(1).replace("\\\n", " "))
    assert words[:2] == ["pip", "install"] and len(words) == 4
    # A URL with a host, as the documented one has (pip wants one): git reads
    # `file://localhost/...` as the local path.
    requirements = [
        word.replace("https://github.com/joblint/joblint", f"file://localhost{plain_clone}")
        for word in words[2:]
    ]
    python = fresh_venv(tmp_path / "venv")
    env = {
        **os.environ,
        "PATH": f"{python.parent}:/usr/bin:/bin",
        "JOBLINT_VERSION": "",
        "JOBLINT_SOURCE": "\n".join(requirements) + "\n",
        "ACTION_PATH": str(tmp_path / "not-used"),
    }
    result = _bash(_step("Install joblint"), env, tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert {"joblint", "joblint-runtime"} <= installed(python)
    write(tmp_path / "project", {"shop/__init__.py": "", "shop/views.py": ENQUEUE_IN_ATOMIC})
    check = subprocess.run(
        [str(python.parent / "joblint"), "check", "--format", "concise", "."],
        cwd=tmp_path / "project",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 1, check.stderr
    assert "shop/views.py:8:9: JL101" in check.stdout

"""The flake8 plugin, through a real flake8 run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CLEAN, ENQUEUE_IN_ATOMIC, write

pytest.importorskip("flake8", reason="flake8 is in the test extra (make install)")


def _flake8(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_flake8_reports_joblint_findings_with_its_own_noqa_and_select(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "shop/views.py": ENQUEUE_IN_ATOMIC,
            "shop/ok.py": CLEAN,
            "shop/quiet.py": ENQUEUE_IN_ATOMIC.replace(
                "send_receipt.delay(order.pk)", "send_receipt.delay(order.pk)  # noqa: JL101"
            ),
        },
    )
    version = _flake8(tmp_path, "--version")
    assert "joblint: " in version.stdout
    result = _flake8(tmp_path, "--select", "JL", "shop")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("shop/views.py:8:9: JL101 task 'send_receipt' is enqueued")
    # Every other plugin's codes too, and flake8's --extend-ignore drops ours.
    default = _flake8(tmp_path, "--extend-ignore", "E,W,F", "shop")
    assert "JL101" in default.stdout
    assert _flake8(tmp_path, "--extend-ignore", "JL1", "--select", "JL", "shop").returncode == 0


def test_joblint_config_applies(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"pyproject.toml": '[tool.joblint]\nignore = ["JL101"]\n', "views.py": ENQUEUE_IN_ATOMIC},
    )
    result = _flake8(tmp_path, "--select", "JL", "views.py")
    assert result.returncode == 0 and result.stdout == ""


def test_test_code_is_left_alone_unless_included(tmp_path: Path) -> None:
    write(tmp_path, {"tests/test_views.py": ENQUEUE_IN_ATOMIC})
    assert _flake8(tmp_path, "--select", "JL", "tests").stdout == ""
    write(tmp_path, {"pyproject.toml": "[tool.joblint]\ninclude-tests = true\n"})
    assert "JL101" in _flake8(tmp_path, "--select", "JL", "tests").stdout

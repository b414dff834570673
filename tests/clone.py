"""A plain clone of this working tree, for tests that install joblint as a
user would: every file git tracks or would track (no build output, caches or
virtual environments), committed on `main` in a fresh repository, nothing
beside it."""

from __future__ import annotations

import shutil
import subprocess
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def working_tree_files() -> list[str]:
    """What a commit of the working tree would hold: tracked and untracked,
    not ignored, not deleted."""
    listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return sorted(name for name in set(listed.split("\0")) if name and (ROOT / name).is_file())


def make_plain_clone(target: Path) -> Path:
    for name in working_tree_files():
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, destination)
    git(target, "init", "-q", "-b", "main")
    git(target, "add", ".")
    git(target, "commit", "-q", "-m", "clone")
    return target


def fresh_venv(target: Path) -> Path:
    """An empty virtual environment (pip only); its `python`."""
    venv.EnvBuilder(with_pip=True, clear=True).create(target)
    return target / "bin" / "python"


def installed(python: Path) -> set[str]:
    """The distributions installed in the environment of `python`, by name."""
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {line.split("==")[0].lower() for line in out.splitlines() if "==" in line}


def pip_install(python: Path, *requirements: str, cwd: Path | None = None) -> None:
    proc = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *requirements,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def run_python(python: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, timeout=120, cwd="/"
    )

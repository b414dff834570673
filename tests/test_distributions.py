"""The two distributions, built and installed as a user would from a plain clone.

`make dist` builds joblint-runtime and joblint (wheel and sdist each) and runs
`twine check --strict` on them. The runtime wheel goes into an empty virtual
environment alone: it brings no other distribution, every helper import the
docs show works there, and so does every import `--fix --unsafe-fixes` writes
into the bundled examples.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clone import ROOT, fresh_venv, installed, pip_install, run_python

RUNTIME_DOCS = ("docs/runtime.md", "runtime/README.md")
_PYTHON_BLOCK = re.compile(r"```python\n(.*?)\n```", re.DOTALL)


@pytest.fixture(scope="module")
def dist(plain_clone: Path) -> Path:
    proc = subprocess.run(
        ["make", "dist", f"PYTHON={sys.executable}"],
        cwd=plain_clone,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "PASSED" in proc.stdout and "FAILED" not in proc.stdout
    return plain_clone / "dist"


@pytest.fixture(scope="module")
def runtime_alone(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty virtual environment with the runtime wheel installed in it."""
    python = fresh_venv(tmp_path_factory.mktemp("runtime-venv") / "venv")
    before = installed(python)
    (wheel,) = dist.glob("joblint_runtime-*.whl")
    pip_install(python, str(wheel))
    assert installed(python) - before == {"joblint-runtime"}
    return python


def test_make_dist_builds_both_distributions(dist: Path) -> None:
    names = sorted(path.name for path in dist.iterdir())
    assert names == [
        "joblint-0.1.0-py3-none-any.whl",
        "joblint-0.1.0.tar.gz",
        "joblint_runtime-0.1.0-py3-none-any.whl",
        "joblint_runtime-0.1.0.tar.gz",
    ]


def test_the_runtime_wheel_holds_the_helpers_and_nothing_of_the_linter(dist: Path) -> None:
    import zipfile

    (wheel,) = dist.glob("joblint_runtime-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "joblint_runtime/sql/postgres.sql" in names and "joblint_runtime/py.typed" in names
    assert not [name for name in names if name.startswith("joblint/")]
    metadata = zipfile.ZipFile(wheel).read("joblint_runtime-0.1.0.dist-info/METADATA").decode()
    base_requirements = [
        line
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    assert base_requirements == []


def test_the_linter_depends_on_the_runtime_distribution(dist: Path) -> None:
    import zipfile

    (wheel,) = dist.glob("joblint-0.1.0-*.whl")
    metadata = zipfile.ZipFile(wheel).read("joblint-0.1.0.dist-info/METADATA").decode()
    assert "Requires-Dist: joblint-runtime<0.2,>=0.1.0" in metadata
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("joblint_runtime/")]


def test_the_linter_ships_the_findings_schema(dist: Path) -> None:
    """`joblint report` reads it from the installed package; users validate with it."""
    import tarfile
    import zipfile

    (wheel,) = dist.glob("joblint-0.1.0-*.whl")
    assert "joblint/pipeline/report/findings.schema.json" in zipfile.ZipFile(wheel).namelist()
    (sdist,) = dist.glob("joblint-0.1.0.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert "joblint-0.1.0/joblint/pipeline/report/findings.schema.json" in names


_HELPER_IMPORT = re.compile(r"^\s*((?:from|import) joblint\S*.*?)\s*(?:#.*)?$", re.MULTILINE)


def _helper_imports(text: str) -> list[str]:
    """Every import of a runtime helper in the Python blocks of `text` (the
    blocks may be fragments, so read line by line)."""
    found = [
        line for block in _PYTHON_BLOCK.findall(text) for line in _HELPER_IMPORT.findall(block)
    ]
    assert not [line for line in found if line.endswith(("(", "\\"))], "one import per line"
    return found


def test_every_helper_import_in_the_docs_works_with_the_runtime_alone(
    runtime_alone: Path,
) -> None:
    imports = [line for doc in RUNTIME_DOCS for line in _helper_imports((ROOT / doc).read_text())]
    assert len(imports) >= 10
    assert [line for line in imports if not line.split()[1].startswith("joblint_runtime")] == []
    result = run_python(runtime_alone, "\n".join(sorted(set(imports))))
    assert result.returncode == 0, result.stderr


def _imports(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(f"import {alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.update(f"from {node.module} import {alias.name}" for alias in node.names)
    return found


def _root(statement: str) -> str:
    return statement.split()[1].split(".")[0]


def test_the_fixes_on_the_examples_import_only_what_the_runtime_alone_provides(
    runtime_alone: Path, tmp_path: Path
) -> None:
    """Every import `--fix --unsafe-fixes` adds is the runtime's, the standard
    library's, or one of a library the file imported already; the first two
    work in the environment with the runtime alone."""
    project = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", project)
    before = {path: _imports(path.read_text()) for path in project.rglob("*.py")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "joblint",
            "check",
            "--fix",
            "--unsafe-fixes",
            "--no-cache",
            "--exit-zero",
            ".",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"Fixed \d+ findings", proc.stdout + proc.stderr)
    added = {
        statement: path
        for path, imports in before.items()
        for statement in _imports(path.read_text()) - imports
    }
    assert "from joblint_runtime.backoff import full_jitter" in added
    for statement, path in added.items():
        known = {_root(s) for s in before[path]} | set(sys.stdlib_module_names)
        assert _root(statement) == "joblint_runtime" or _root(statement) in known, (
            f"{path.name}: {statement}"
        )
        assert _root(statement) != "joblint", f"{path.name}: {statement}"
    own = [s for s in added if _root(s) == "joblint_runtime" or _root(s) in sys.stdlib_module_names]
    result = run_python(runtime_alone, "\n".join(sorted(own)))
    assert result.returncode == 0, result.stderr


def test_the_two_distributions_are_released_together() -> None:
    """One version for both, inside the range the linter requires of the runtime."""
    import joblint_runtime
    import tomllib

    import joblint

    linter = tomllib.loads((ROOT / "pyproject.toml").read_text())
    runtime = tomllib.loads((ROOT / "runtime" / "pyproject.toml").read_text())
    assert runtime["project"]["name"] == "joblint-runtime"
    assert runtime["project"]["dependencies"] == []
    assert joblint.__version__ == joblint_runtime.__version__
    (requirement,) = [
        d for d in linter["project"]["dependencies"] if d.startswith("joblint-runtime")
    ]
    major, minor, _ = joblint.__version__.split(".")
    assert requirement == f"joblint-runtime>={joblint.__version__},<{major}.{int(minor) + 1}"
    assert (ROOT / "LICENSE").read_bytes() == (ROOT / "runtime" / "LICENSE").read_bytes()

"""joblint_runtime depends on nothing of the linter, and the extras stay optional."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import joblint_runtime

RUNTIME = Path(joblint_runtime.__file__).parent
FORBIDDEN_ROOTS = {"libcst", "click", "rich", "pathspec"}
# The queue libraries are test dependencies only: the helpers work with them
# through the user's own objects (a task, a publish callable), never an import.
OPTIONAL = ("psycopg", "redis", "sqlalchemy", "celery", "kombu", "rq", "dramatiq")


def runtime_modules() -> list[str]:
    names = []
    for path in sorted(RUNTIME.rglob("*.py")):
        parts = path.relative_to(RUNTIME).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(("joblint_runtime", *parts)))
    return names


def imported_names(path: Path) -> list[str]:
    """Absolute names of everything the file imports, relative imports resolved."""
    package = "joblint_runtime"
    names = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                names.append(f"{base}.{node.module}" if node.module else base)
            else:
                names.append(node.module or "")
    return names


def test_runtime_has_modules() -> None:
    assert {"joblint_runtime.queue", "joblint_runtime.lock"} <= set(runtime_modules())


def test_runtime_never_imports_the_linter() -> None:
    offenders = []
    for path in sorted(RUNTIME.rglob("*.py")):
        for name in imported_names(path):
            root = name.split(".")[0]
            inside_linter = name == "joblint" or name.startswith("joblint.")
            if root in FORBIDDEN_ROOTS or inside_linter:
                offenders.append(f"{path.name}: {name}")
    assert offenders == []


def test_import_checker_sees_relative_imports() -> None:
    names = imported_names(RUNTIME / "queue.py")
    assert "joblint_runtime._db" in names and "joblint_runtime.backoff" in names


def test_importing_the_runtime_does_not_import_optional_extras() -> None:
    code = (
        "import importlib, sys\n"
        f"for name in {runtime_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {OPTIONAL!r})\n"
        "print(loaded)\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "[]"


def test_the_old_import_path_gives_the_same_objects() -> None:
    """`joblint.runtime.<module>` keeps code written against it working: same objects."""
    assert len(joblint_runtime.__all__) == 8
    for module in joblint_runtime.__all__:
        new = importlib.import_module(f"joblint_runtime.{module}")
        old = importlib.import_module(f"joblint.runtime.{module}")
        name = new.__name__
        assert old.__all__ == new.__all__, name
        for public in new.__all__:
            assert getattr(old, public) is getattr(new, public), f"{name}.{public}"

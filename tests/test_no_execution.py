"""joblint never runs the code it reads.

No import, exec, eval or compile-to-run of analysed files or configuration;
config values are data. The files below would write a marker, exit the
process or shadow joblint's own dependencies if anything ran them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ENQUEUE_IN_ATOMIC, Run, write

import joblint


def _payload(marker: Path, name: str) -> str:
    return (
        "import os, sys\n"
        f"open({str(marker / name)!r}, 'w').write('ran')\n"
        "os._exit(97)\n"
        "sys.exit(98)\n"
    )


def test_linting_runs_nothing(run: Run, tmp_path: Path) -> None:
    project = tmp_path / "project"
    markers = tmp_path / "markers"
    markers.mkdir()
    files = {
        # Top-level code, a package __init__, conftest/setup/settings modules...
        name: _payload(markers, name.replace("/", "_")) + ENQUEUE_IN_ATOMIC
        for name in ("app/__init__.py", "app/tasks.py", "conftest.py", "setup.py", "settings.py")
    }
    # ...and modules named like joblint's dependencies and stdlib modules it imports:
    # `python -m joblint` puts the current directory first on sys.path.
    for shadow in ("click", "rich", "libcst", "json", "pathspec", "sqlglot", "tomllib", "re"):
        files[f"{shadow}.py"] = _payload(markers, shadow) + "send.delay(1)\n"
    files["sitecustomize.py"] = _payload(markers, "sitecustomize")
    files["pyproject.toml"] = (
        "[tool.joblint]\n"
        f"extend-enqueue-functions = [\"__import__('os').system('touch {markers}/cfg')\"]\n"
    )
    write(project, files)
    result = run("--format", "concise", ".", cwd=project)
    assert result.code in (0, 1), result.stderr  # not 97/98: nothing exited the process
    assert list(markers.iterdir()) == []
    assert "app/tasks.py:" in result.stdout
    assert "Traceback" not in result.stderr


def test_stdin_source_runs_nothing(run: Run, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    result = run("-", "--stdin-filename", "x.py", stdin=f"open({str(marker)!r}, 'w')\n")
    assert result.code == 0
    assert not marker.exists()


# Calls that would run code or load code-bearing data, by name.
_FORBIDDEN = {"eval", "exec", "compile", "__import__", "execfile"}
_CODE_LOADERS = {"pickle", "marshal", "shelve", "yaml", "dill", "cloudpickle"}


def _call_name(node: ast.Call) -> tuple[str, str]:
    func = node.func
    if isinstance(func, ast.Name):
        return "", func.id
    if isinstance(func, ast.Attribute):
        base = func.value.id if isinstance(func.value, ast.Name) else ""
        return base, func.attr
    return "", ""


# The modules that import joblint's own modules by name: rules, libraries, report
# formats, the rule families' confirm steps, the modules `make docs` describes.
_LOADERS = frozenset(
    {
        "docs_gen.py",
        "registry.py",
        "libraries/__init__.py",
        "pipeline/report/__init__.py",
        "pipeline/screen/ast_checks.py",
    }
)


def test_joblint_source_has_no_code_execution_calls() -> None:
    """eval/exec/compile/__import__ and pickle-like loaders appear nowhere outside
    the runtime helpers; `import_module` only loads joblint's own rule and
    library modules."""
    root = Path(joblint.__file__).parent
    offences = []
    for path in sorted(root.rglob("*.py")):
        if "runtime" in path.relative_to(root).parts:
            continue  # the runtime helpers run in the user's workers, not in the linter
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if any(n.split(".")[0] in (*_CODE_LOADERS, "runpy") for n in names):
                    offences.append(f"{path.name}:{node.lineno}: imports {names}")
            if not isinstance(node, ast.Call):
                continue
            base, name = _call_name(node)
            if name in ("load", "loads") and base in _CODE_LOADERS:
                offences.append(f"{path.name}:{node.lineno}: {base}.{name}")
            elif name in _FORBIDDEN and base in ("", "builtins"):
                offences.append(f"{path.name}:{node.lineno}: {name}()")
            elif name == "import_module" and path.relative_to(root).as_posix() not in _LOADERS:
                offences.append(f"{path.name}:{node.lineno}: import_module")
    assert offences == []

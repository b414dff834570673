"""Configuration and paths at their edges: a configuration file that doesn't
read governs only its own files, unreadable directories and symlink loops are
one JL001 each, and a mistyped key gets a suggestion. Every run checks that
joblint changed no file."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CLEAN, ENQUEUE_IN_ATOMIC, Result, Run, write

from joblint.cli import main

NOBODY = 65534  # the unprivileged user and group of Debian-like systems
LOOP = "cannot read: symlink loop (following its links never reaches a file)"
NOT_CHECKED = "; the files it governs were not checked"
BAD_TOML = "invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 14)"


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below `root` (links as links): bytes and modification time."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            found[path.as_posix()] = (os.readlink(path).encode(), 0)
        elif path.is_file():
            found[path.as_posix()] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


@contextmanager
def _unchanged(root: Path) -> Iterator[None]:
    before = _snapshot(root)
    yield
    assert _snapshot(root) == before


def _said(result: Result) -> list[str]:
    """joblint's error and warning lines (the summary after them is the output's concern)."""
    return [line for line in result.stderr.splitlines() if line.startswith("joblint:")]


def _check(run: Run, root: Path, *args: str) -> Result:
    with _unchanged(root):
        return run("check", "--no-cache", "--format", "concise", *args, cwd=root)


# --- a configuration file that doesn't read ---


@pytest.fixture(
    params=[
        ("[tool.joblint\nselect = []\n", f": {BAD_TOML}"),
        ('[tool.joblint]\npreview = "yes"\n', " [tool.joblint]: 'preview' must be true or false"),
    ],
    ids=["invalid-toml", "bad-value"],
)
def monorepo(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    """Two sibling projects: `good` with a valid configuration, `broken` with
    one that doesn't read; the expected error line for the broken one."""
    content, problem = request.param
    root = tmp_path.resolve()
    write(
        root,
        {
            "good/pyproject.toml": '[tool.joblint]\nignore = ["JL102"]\n',
            "good/shop.py": ENQUEUE_IN_ATOMIC,
            "broken/pyproject.toml": content,
            "broken/billing.py": ENQUEUE_IN_ATOMIC,
        },
    )
    where = root / "broken" / "pyproject.toml"
    return root, f"joblint: error: {where}{problem}{NOT_CHECKED}"


def test_a_sibling_configuration_that_does_not_read_is_not_the_runs_concern(
    run: Run, monorepo: tuple[Path, str]
) -> None:
    root, _ = monorepo
    for args in (["good/shop.py"], ["good"]):  # pre-commit names files; CI a folder
        result = _check(run, root, *args)
        assert result.code == 1, result.stderr
        assert result.stdout.startswith("good/shop.py:8:9: JL101")
        assert _said(result) == []
        assert "broken" not in result.stderr


@pytest.mark.parametrize("args", [["."], ["broken/billing.py", "good/shop.py"]])
def test_a_run_with_files_it_governs_says_so_once_and_lints_the_rest(
    run: Run, monorepo: tuple[Path, str], args: list[str]
) -> None:
    root, error = monorepo
    result = _check(run, root, *args)
    assert result.code == 2
    assert result.stdout.startswith("good/shop.py:8:9: JL101")
    assert "broken/" not in result.stdout
    assert _said(result) == [error]


def test_a_closer_valid_configuration_below_a_broken_one_is_used(
    run: Run, monorepo: tuple[Path, str]
) -> None:
    root, error = monorepo
    write(root, {"broken/sub/.joblint.toml": "select = ['JL1']\n", "broken/sub/m.py": CLEAN})
    write(root, {"broken/sub/n.py": ENQUEUE_IN_ATOMIC})
    result = _check(run, root, "broken")
    assert result.code == 2
    assert result.stdout.startswith("broken/sub/n.py:8:9: JL101")
    assert "broken/billing.py" not in result.stdout
    assert _said(result) == [error]


def test_the_runs_own_configuration_that_does_not_read_stops_the_run(
    run: Run, monorepo: tuple[Path, str]
) -> None:
    """Run from inside the broken project: its configuration is the run's own,
    which sets what the whole run shares (cache, baseline), so nothing runs."""
    root, error = monorepo
    result = _check(run, root / "broken", "billing.py", "../good/shop.py")
    assert result.code == 2
    assert result.stdout == ""
    assert result.stderr == error.removesuffix(NOT_CHECKED) + "\n"


# --- unknown keys: did you mean ---


KNOWN_KEYS = (
    "baseline, broker, cache-dir, celery-django-task, exclude, extend, "
    "extend-enqueue-functions, extend-exclude, extend-on-commit-functions, extend-select, "
    "extend-test-paths, extend-transaction-functions, ignore, include-tests, "
    "per-file-ignores, preview, read-only-databases, respect-gitignore, rules, select, "
    "test-paths, unsafe-fixes, visibility-margin-seconds"
)


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        (
            "selekt = ['JL1']",
            f"unknown key 'selekt': did you mean 'select'? (known keys: {KNOWN_KEYS})",
        ),
        (
            "extend_select = ['JL1']",
            "unknown key 'extend_select': did you mean 'extend-select'? "
            f"(known keys: {KNOWN_KEYS})",
        ),
        ("colour = true", f"unknown key 'colour' (known keys: {KNOWN_KEYS})"),
        (
            "[tool.joblint.rules.JL402]\ndefault-lock-timout = 30",
            "'rules.JL402' has unknown option 'default-lock-timout': did you mean "
            "'default-lock-timeout'? (known: default-lock-timeout)",
        ),
    ],
    ids=["misspelt", "snake-case", "nothing-close", "rule-option"],
)
def test_an_unknown_key_gets_a_suggestion(
    run: Run, tmp_path: Path, table: str, problem: str
) -> None:
    root = tmp_path.resolve()
    write(root, {"pyproject.toml": f"[tool.joblint]\n{table}\n", "ok.py": CLEAN})
    result = _check(run, root, ".")
    assert result.code == 2
    assert result.stdout == ""
    assert result.stderr == f"joblint: error: {root / 'pyproject.toml'} [tool.joblint]: {problem}\n"


# --- paths that can't be read ---


def test_symlink_loops_are_one_jl001_each_and_the_run_goes_on(run: Run, tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write(root, {"pkg/a.py": ENQUEUE_IN_ATOMIC})
    (root / "pkg" / "one.py").symlink_to("two.py")
    (root / "pkg" / "two.py").symlink_to("one.py")
    (root / "self.py").symlink_to("self.py")
    (root / "pkg" / "up").symlink_to("..", target_is_directory=True)  # walked once, silently
    walked = _check(run, root, "--isolated", ".")
    assert walked.code == 1
    assert walked.stdout.splitlines() == [
        walked.stdout.splitlines()[0],
        f"pkg/one.py:1:1: JL001 {LOOP}",
        f"pkg/two.py:1:1: JL001 {LOOP}",
        f"self.py:1:1: JL001 {LOOP}",
    ]
    assert walked.stdout.startswith("pkg/a.py:8:9: JL101")
    named = _check(run, root, "--isolated", "self.py", "pkg/a.py")
    assert named.code == 1
    assert named.stdout.splitlines()[1:] == [f"self.py:1:1: JL001 {LOOP}"]
    assert _said(walked) == _said(named) == []


@contextmanager
def _as_nobody() -> Iterator[None]:
    """Run as the unprivileged user, for whom mode 000 means something (root
    reads any directory). `runuser -u nobody -- python` can't work where the
    interpreter lives below a home directory only root may enter, so the
    effective user changes for the duration, in this process, and back."""
    os.setegid(NOBODY)
    os.seteuid(NOBODY)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


def _check_unprivileged(run: Run, root: Path, *args: str) -> Result:
    arguments = ["check", "--no-cache", "--isolated", "--format", "concise", "-j", "1", *args]
    if os.geteuid() != 0:
        return _check(run, root, *arguments[1:])
    for path in (root, *root.rglob("*")):
        os.lchown(path, NOBODY, NOBODY)
    runner = CliRunner()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        runner.invoke(main, [*arguments, "--exit-zero", "good"])  # imports, as root
        with _unchanged(root), _as_nobody():
            result = runner.invoke(main, arguments)
    finally:
        os.chdir(cwd)
    return Result(result.exit_code, result.stdout, result.stderr)


@pytest.mark.skipif(not hasattr(os, "seteuid"), reason="POSIX permissions")
def test_an_unreadable_directory_is_one_jl001_and_the_run_goes_on(tmp_path: Path, run: Run) -> None:
    # pytest's temporary directories are root's alone: the unprivileged user
    # needs a tree it can reach.
    root = Path(tempfile.mkdtemp(dir="/tmp")) if os.geteuid() == 0 else tmp_path.resolve()
    write(root, {"good/shop.py": ENQUEUE_IN_ATOMIC, "locked/inner/b.py": ENQUEUE_IN_ATOMIC})
    write(root, {"locked/c.py": ENQUEUE_IN_ATOMIC})
    (root / "locked").chmod(0)
    try:
        walked = _check_unprivileged(run, root, ".")
        named = _check_unprivileged(run, root, "locked", "good/shop.py")
    finally:
        (root / "locked").chmod(0o755)
        if root != tmp_path.resolve():
            shutil.rmtree(root)
    for result in (walked, named):
        assert result.code == 1, result.stderr
        lines = result.stdout.splitlines()
        assert lines[0].startswith("good/shop.py:8:9: JL101")
        assert lines[1:] == ["locked:1:1: JL001 cannot read directory: Permission denied"]
        assert _said(result) == []

"""joblint never writes where the user may not: `--fix` on read-only files and
directories, `--write-baseline` and `--output-file` on read-only files, and an
unwritable cache.

The runs that matter run as an unprivileged user. As root, the command runs
as `nobody` (`setpriv`), with no capability but CAP_DAC_READ_SEARCH: reading
and searching are not checked (the interpreter and the tests' temporary
directory may be in root's home, 0700), writing is checked as for `nobody`,
which owns the files. Run by another user, the tests run joblint as that user.
Root's own runs check the mode bits decide, not what root could do.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import joblint
from joblint.cli import main
from joblint.pipeline.fix import write
from joblint.pipeline.fix.write import WriteRefused, write_atomic

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")

SOURCES = Path(joblint.__file__).resolve().parents[1]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOBODY = 65534

_CLAIM = """\
def claim(cursor):
    cursor.execute("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE")
"""
_FIXED = _CLAIM.replace("FOR UPDATE", "FOR UPDATE SKIP LOCKED")
_FIX = ("check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes")

State = dict[str, tuple[bytes, int, int, int]]


def _environment() -> dict[str, str]:
    paths = [str(SOURCES), str(SOURCES / "runtime" / "src")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "NO_COLOR": "1"}


def _prefix() -> list[str]:
    if not IS_ROOT:
        return []
    read_only = "+dac_read_search"
    return [
        *("setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"),
        *(f"--inh-caps={read_only}", f"--ambient-caps={read_only}", "--"),
    ]


@functools.cache
def _unprivileged_unavailable() -> str:
    """Why joblint can't run as an unprivileged user here ("" when it can)."""
    if IS_ROOT and shutil.which("setpriv") is None:
        return "setpriv is not installed"
    probe = "import os, joblint.cli; print(os.getuid())"
    done = subprocess.run(
        [*_prefix(), sys.executable, "-c", probe],
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        return f"cannot run joblint unprivileged: {done.stderr.strip()[-300:]}"
    if IS_ROOT and done.stdout.strip() != str(NOBODY):
        return "setpriv did not change the user"
    return ""


def _unprivileged(cwd: Path, *args: str) -> tuple[int, str, str]:
    """`joblint ARGS` in `cwd`, as an unprivileged user (its exit status, stdout, stderr)."""
    reason = _unprivileged_unavailable()
    # Never skipped: a machine where these can't run fails them, loudly.
    assert not reason, reason
    done = subprocess.run(
        [*_prefix(), sys.executable, "-m", "joblint", *args],
        cwd=cwd,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout, done.stderr


def _here(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    """`joblint ARGS` in this process (as root, when the tests run as root)."""
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _project(tmp_path: Path, files: dict[str, int], directory_mode: int = 0o755) -> Path:
    """`shop/` holding `files` (name: mode), each the claim JL401 fixes; owned by
    `nobody` when the tests run as root (the unprivileged runs' user)."""
    shop = tmp_path / "shop"
    shop.mkdir()
    for name in files:
        (shop / name).write_text(_CLAIM)
    if IS_ROOT:
        for path in [tmp_path, shop, *shop.iterdir()]:
            os.chown(path, NOBODY, NOBODY)
    for name, mode in files.items():
        (shop / name).chmod(mode)
    shop.chmod(directory_mode)
    return shop


def _state(directory: Path) -> State:
    """Every file below `directory`: bytes, mode, owner and group (a leftover
    temporary file shows as one more)."""
    found: State = {}
    for path in sorted(directory.rglob("*")):
        info = path.stat()
        data = path.read_bytes() if path.is_file() else b""
        found[str(path.relative_to(directory))] = (data, info.st_mode, info.st_uid, info.st_gid)
    return found


def _lines(stderr: str) -> list[str]:
    """joblint's own error and warning lines."""
    assert "Traceback" not in stderr, stderr
    return [line for line in stderr.splitlines() if line.startswith("joblint:")]


@pytest.fixture(autouse=True)
def _writable_again(tmp_path: Path) -> Iterator[None]:
    yield
    for path in [tmp_path, *tmp_path.rglob("*")]:  # pytest removes it afterwards
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


# --- as an unprivileged user -----------------------------------------------------------------


def test_fix_leaves_a_read_only_file_byte_identical(tmp_path: Path) -> None:
    _project(tmp_path, {"views.py": 0o444})
    before = _state(tmp_path)
    code, out, err = _unprivileged(tmp_path, *_FIX, "shop")
    assert _lines(err) == ["joblint: error: shop/views.py: not fixed: the file is read-only"]
    assert code == 2
    assert "shop/views.py:2:20: JL401" in out  # the finding still stands
    assert "Fixed 0 findings, 1 remaining." in err
    assert _state(tmp_path) == before


def test_fix_leaves_a_file_in_a_read_only_directory_byte_identical(tmp_path: Path) -> None:
    _project(tmp_path, {"views.py": 0o644}, directory_mode=0o555)
    before = _state(tmp_path)
    code, _, err = _unprivileged(tmp_path, *_FIX, "shop")
    assert _lines(err) == [
        "joblint: error: shop/views.py: not fixed: cannot write in its directory"
    ]
    assert code == 2
    assert _state(tmp_path) == before


def test_fix_applies_the_other_files_fixes_and_keeps_their_mode(tmp_path: Path) -> None:
    shop = _project(tmp_path, {"views.py": 0o444, "jobs.py": 0o640})
    before = _state(tmp_path)
    code, _, err = _unprivileged(tmp_path, *_FIX, "shop")
    assert _lines(err) == ["joblint: error: shop/views.py: not fixed: the file is read-only"]
    assert code == 2
    assert "Fixed 1 finding, 1 remaining." in err
    after = _state(tmp_path)
    assert after.pop("shop/jobs.py") == (_FIXED.encode(), *before.pop("shop/jobs.py")[1:])
    assert stat.S_IMODE((shop / "jobs.py").stat().st_mode) == 0o640
    assert after == before  # views.py untouched, no temporary file left


def test_fix_only_prints_each_refusal_once(tmp_path: Path) -> None:
    _project(tmp_path, {"views.py": 0o444})
    code, out, err = _unprivileged(tmp_path, *_FIX, "--fix-only", "shop")
    assert _lines(err) == ["joblint: error: shop/views.py: not fixed: the file is read-only"]
    assert (code, out) == (2, "")


def test_an_unwritable_cache_directory_is_one_warning(tmp_path: Path) -> None:
    _project(tmp_path, {"views.py": 0o644})
    (tmp_path / "pyproject.toml").write_text('[tool.joblint]\ncache-dir = "cache"\n')
    (tmp_path / "cache").mkdir(mode=0o555)  # root's: nobody may not write in it
    for _ in range(2):
        code, out, err = _unprivileged(tmp_path, "check", "shop")
        assert code == 1 and "JL401" in out, err
        assert len(_lines(err)) <= 1
        assert all("cannot write the cache" in line for line in _lines(err))
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_read_only_project_runs_without_its_cache(tmp_path: Path) -> None:
    _project(tmp_path, {"views.py": 0o644})
    tmp_path.chmod(0o555)  # no room for .joblint_cache
    code, out, err = _unprivileged(tmp_path, "check", "--isolated", "shop")
    assert code == 1 and "shop/views.py:2:20: JL401" in out
    assert len(_lines(err)) <= 1
    assert not (tmp_path / ".joblint_cache").exists()


# --- by the mode bits, whoever runs it (root included) ----------------------------------------


@pytest.mark.parametrize(
    ("file_mode", "directory_mode", "line"),
    [
        (0o444, 0o755, "shop/views.py: not fixed: the file is read-only"),
        (0o644, 0o555, "shop/views.py: not fixed: cannot write in its directory"),
    ],
    ids=["read-only-file", "read-only-directory"],
)
def test_mode_bits_decide_even_for_root(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    file_mode: int,
    directory_mode: int,
    line: str,
) -> None:
    _project(tmp_path, {"views.py": file_mode}, directory_mode)
    before = _state(tmp_path)
    code, _, err = _here(tmp_path, monkeypatch, *_FIX, "shop")
    assert _lines(err) == [f"joblint: error: {line}"]
    assert code == 2
    assert _state(tmp_path) == before


def test_a_fix_keeps_mode_owner_and_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shop = _project(tmp_path, {"jobs.py": 0o640})
    before = (shop / "jobs.py").stat()
    code, _, err = _here(tmp_path, monkeypatch, *_FIX, "shop")
    assert (code, _lines(err)) == (0, [])
    after = (shop / "jobs.py").stat()
    assert (shop / "jobs.py").read_text() == _FIXED
    assert (after.st_mode, after.st_uid, after.st_gid) == (
        before.st_mode,
        before.st_uid,
        before.st_gid,
    )
    assert after.st_ino != before.st_ino  # replaced, not written in place


def test_a_read_only_baseline_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, {"views.py": 0o644})
    baseline = tmp_path / "baseline.json"
    baseline.write_text("{}\n")
    baseline.chmod(0o444)
    args = ("check", "--isolated", "--no-cache", "--write-baseline", "baseline.json", "shop")
    code, _, err = _here(tmp_path, monkeypatch, *args)
    assert _lines(err) == [
        "joblint: error: baseline.json: baseline not written: the file is read-only"
    ]
    assert code == 2
    assert baseline.read_text() == "{}\n"
    baseline.chmod(0o644)
    code, _, err = _here(tmp_path, monkeypatch, *args)
    assert (code, _lines(err)) == (0, [])
    assert '"joblint_baseline": 1' in baseline.read_text()
    assert stat.S_IMODE(baseline.stat().st_mode) == 0o644


def test_a_read_only_output_file_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, {"views.py": 0o644})
    output = tmp_path / "out.txt"
    output.write_text("old\n")
    output.chmod(0o444)
    args = ("check", "--isolated", "--no-cache", "--output-file", "out.txt", "shop")
    code, _, err = _here(tmp_path, monkeypatch, *args)
    assert _lines(err) == ["joblint: error: out.txt: cannot write: the file is read-only"]
    assert code == 2
    assert output.read_text() == "old\n"


# --- the writer ------------------------------------------------------------------------------


def test_a_failed_write_leaves_the_file_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "job.py"
    path.write_bytes(b"old\n")

    def full_disk(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(write.os, "replace", full_disk)
    with pytest.raises(WriteRefused, match=r"^cannot write: No space left on device$"):
        write_atomic(path, b"old\n", b"new\n")
    assert [p.name for p in tmp_path.iterdir()] == ["job.py"]
    assert path.read_bytes() == b"old\n"


def test_a_new_file_gets_the_usual_mode(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    try:
        assert write_atomic(tmp_path / "new.json", None, b"{}\n")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o644

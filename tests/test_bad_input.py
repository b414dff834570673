"""Bad input is one clear JL001 (or a one-line path error), never a crash.

The adversarial corpus is built here, in the tests: large inputs are generated.
Engine-level cases call `lint_source` (no prefilter: every file is parsed);
path-level cases run the CLI. Every file given to the CLI carries a job token
(`.delay(`) so the prefilter, which skips files no rule can fire on, parses it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import libcst as cst
import pytest
from conftest import ENQUEUE_IN_ATOMIC, Run, write

from joblint.models import FileResult
from joblint.pipeline import lint as engine
from joblint.pipeline import source
from joblint.pipeline.lint import lint_source
from joblint.pipeline.source import SourceError, budget, parse
from joblint.registry import rule_by_code
from joblint.settings import LintSettings

ALL = LintSettings(frozenset(rule_by_code()) | {"JL001"})
TOKEN = b"\nsend.delay(1)\n"  # a job token, so the CLI's prefilter keeps the file


def lint(data: bytes) -> FileResult:
    return lint_source("bad.py", data, ALL)


def jl001(data: bytes) -> str:
    result = lint(data)
    assert not result.errors
    assert [f.code for f in result.findings] == ["JL001"], result.findings
    message = result.findings[0].message
    assert "\n" not in message
    return message


def codes(result: FileResult) -> list[str]:
    """Codes reported (a finding can be pending on several alternative requirements)."""
    return sorted({f.code for f in result.findings} | {p.finding.code for p in result.pending})


# --- syntax --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"print 'hello'\n", "syntax error"),  # Python 2
        (b"exec 'x = 1'\n", "syntax error"),
        (b"def f(:\n    pass\n", "syntax error: invalid syntax"),  # an unfinished edit
        (b"x = (1,\n", "syntax error"),
        (b"if x:\npass\n", "syntax error: expected an indented block"),
        (b"async = 1\n", "syntax error"),  # a keyword since 3.7
        (b"def f():\n\tif x:\n        pass\n\treturn 1\n", "syntax error"),  # mixed tabs
    ],
)
def test_syntax_errors(source: bytes, expected: str) -> None:
    assert expected in jl001(source)


@pytest.mark.parametrize(
    "source",
    [
        "def f[T = int](): pass\n",  # 3.13, PEP 696
        "type X[T = int] = list[T]\n",
        "try:\n    pass\nexcept A, B:\n    pass\n",  # 3.14, PEP 758
        "x = t'hi {y}'\n",  # 3.14, PEP 750
        'x = f"{"nested"}"\n',  # 3.12, PEP 701
    ],
)
def test_syntax_newer_than_this_python_is_still_checked(source: str) -> None:
    # LibCST's grammar is newer than the running Python's: these are linted.
    result = lint((ENQUEUE_IN_ATOMIC + source).encode())
    assert codes(result) == ["JL101"]


def test_syntax_error_position_comes_from_python() -> None:
    finding = lint(b"def broken(:\n    pass\n").findings[0]
    assert (finding.span.line, finding.span.column) == (1, 12)


def test_code_only_libcst_rejects_says_so() -> None:
    # LibCST's parser gives up near 4,000 implicitly concatenated parts; Python doesn't.
    parts = b" ".join(b'"p%d"' % i for i in range(5000))
    message = jl001(b"x = (" + parts + b")\n")
    assert message.startswith("LibCST cannot parse this file (Python ")


def test_parse_leaves_node_validation_as_it_found_it() -> None:
    # The parse skips LibCST's check of the nodes it builds; nodes built
    # afterwards (a fix's) are checked again, and a failed parse restores it too.
    source = "x = not y\nasync def f():\n    await g(1, *a, **k)\n"
    assert parse(source).code == source
    with pytest.raises(SourceError):
        parse("def broken(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.UnaryOperation(cst.Not(whitespace_after=cst.SimpleWhitespace("")), cst.Name("y"))


def test_a_child_forked_during_a_parse_validates_and_parses() -> None:
    # A long-lived process (the language server) may start a worker pool
    # while one of its threads parses: the child must not inherit the
    # validation switched off, nor the switch's lock held.
    with source._unvalidated_nodes():
        child = os.fork()
        if child == 0:  # pragma: no cover - the child's result is its exit status
            try:
                parse("x = 1\n")
                cst.UnaryOperation(
                    cst.Not(whitespace_after=cst.SimpleWhitespace("")), cst.Name("y")
                )
            except cst.CSTValidationError:
                os._exit(0)
            except BaseException:
                os._exit(2)
            os._exit(1)
    deadline = time.monotonic() + 60  # a child stuck on an inherited lock never ends
    while (done := os.waitpid(child, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    if done[0] == 0:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        pytest.fail("the forked child hung on its first parse")
    assert os.waitstatus_to_exitcode(done[1]) == 0


# --- encodings, line endings, odd bytes --------------------------------------------------


def test_non_utf8_without_cookie() -> None:
    message = jl001(b"x = 1\ny = '\xe9t\xe9'\n")
    assert message.startswith("cannot decode as utf-8: invalid byte 0xe9")
    assert lint(b"x = 1\ny = '\xe9t\xe9'\n").findings[0].span.line == 2


def test_latin1_cookie_is_checked() -> None:
    source = b"# -*- coding: latin-1 -*-\n" + ENQUEUE_IN_ATOMIC.encode() + b"s = '\xe9'\n"
    assert codes(lint(source)) == ["JL101"]


def test_bad_and_unknown_cookies() -> None:
    assert "encoding" in jl001(b"# coding: klingon\nx = 1\n")


def test_utf8_bom_crlf_cr_and_tabs_are_checked() -> None:
    base = ENQUEUE_IN_ATOMIC.replace("    ", "\t")
    for data in (
        b"\xef\xbb\xbf" + ENQUEUE_IN_ATOMIC.encode(),
        ENQUEUE_IN_ATOMIC.replace("\n", "\r\n").encode(),
        ENQUEUE_IN_ATOMIC.replace("\n", "\r").encode(),
        base.encode(),
    ):
        result = lint(data)
        assert codes(result) == ["JL101"], data[:40]
        assert 8 in {p.finding.span.line for p in result.pending}


def test_nul_bytes_and_binary_files() -> None:
    assert "NUL" in jl001(b"x = 1\x00\n")
    binary = bytes(range(256)) * 64 + TOKEN
    assert "NUL" in jl001(binary)
    assert "cannot decode" in jl001(bytes(range(1, 256)) * 8)


def test_empty_and_whitespace_only_files() -> None:
    for data in (b"", b"\n", b"   \n\t\n", b"\xef\xbb\xbf", b"# only a comment"):
        result = lint(data)
        assert result.findings == () and result.errors == (), data


def test_form_feed_and_unicode_line_separators() -> None:
    data = b"\x0c\n" + ENQUEUE_IN_ATOMIC.encode() + "s = 'a\u2028b'\n".encode()
    assert codes(lint(data)) == ["JL101"]


# --- size and depth ----------------------------------------------------------------------


def test_twenty_megabyte_file_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parse(*args: object) -> None:
        raise AssertionError("parsed")

    monkeypatch.setattr(cst, "parse_module", no_parse)
    data = b"x = 1\n" * (20 * 1024 * 1024 // 6)
    message = jl001(data)
    assert message.startswith("not analysed: the file is 20.0 MB, over joblint's 2.0 MB limit")


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("x = " + "(" * 1000 + "1" + ")" * 1000, "brackets nested more than 200 deep"),
        ("x = " + "[" * 1000 + "]" * 1000, "brackets nested more than 200 deep"),
        ("x = " + " + ".join(["a"] * 20_000), "more than 1000 operators in a row"),
        ("x = f" + "[0]" * 5000, "more than 1000 operators in a row"),
        ("x = " + "not " * 3000 + "1", "more than 1000 operators in a row"),
        ("x = " + "(" * 150 + " ".join(["'s'"] * 3000) + ")" * 150, "too much code nested"),
    ],
)
def test_over_budget_shapes_are_refused_before_parsing(
    body: str, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bounded amount of work: LibCST (super-linear here, or a segfault) is never called.
    def no_parse(*args: object) -> None:
        raise AssertionError("parsed")

    monkeypatch.setattr(cst, "parse_module", no_parse)
    message = jl001((ENQUEUE_IN_ATOMIC + body + "\n").encode())
    assert reason in message
    assert lint((ENQUEUE_IN_ATOMIC + body + "\n").encode()).findings[0].span.line == 9


@pytest.mark.parametrize(
    "body",
    [
        "x = " + " + ".join(["a"] * 1000),  # 1,000 deep in LibCST (left-associative)
        "x = " + "-" * 1000 + "1",
        "x = a" + ".b" * 1000,
        "x = f" + "()" * 1000,
        "x = " + "[" * 200 + "]" * 200,
        "x = (" + " ".join(f"'p{i}'" for i in range(3000)) + ")",
    ],
)
def test_deep_but_within_budget_is_checked_with_positions(body: str) -> None:
    # Positions need LibCST's recursive metadata step: the deep-stack thread gives
    # it room even when the caller's recursion limit is Python's default.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        result = lint((ENQUEUE_IN_ATOMIC + body + "\n").encode())
    finally:
        sys.setrecursionlimit(limit)
    assert codes(result) == ["JL101"]
    assert 8 in {p.finding.span.line for p in result.pending}
    assert sys.getrecursionlimit() == limit


def test_stdlib_pydoc_topics_is_checked() -> None:
    import pydoc_data.topics

    data = Path(pydoc_data.topics.__file__).read_bytes()
    assert budget.check_shape(data.decode("utf-8")) is None
    result = lint(data + b"\n" + ENQUEUE_IN_ATOMIC.encode())
    assert codes(result) == ["JL101"]


def test_shape_scan_counts_work_linearly() -> None:
    # The scan is one pass; unterminated strings end at their line or the file.
    for text in ("'" * 100_000, '"""' + "x\\" * 50_000, "x = '" + "\\" * 10_001, "#" * 100_000):
        assert budget.check_shape(text) is None


# --- a rule that raises --------------------------------------------------------------------


_BOOM = """
import sys
from joblint.registry import all_rules

# A rule that runs on a.py besides JL101 (the prefilter runs only the rules
# whose triggers a file has; JL201 shares JL101's enqueue triggers).
victim = next(r for r in all_rules() if r.CODE == "JL201")


def visit_Name(self, node):
    if node.value == "boom":
        raise ValueError("kaboom\\nsecond line")


victim.visit_Name = visit_Name
from joblint.cli import main

sys.argv = ["joblint", "--format", "concise", "a.py"]
main()
"""


def test_rule_error_is_isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    victim = next(r for r in rule_by_code().values() if r.CODE != "JL101")

    def visit_name(self: object, node: cst.Name) -> None:
        if node.value == "boom":
            raise RecursionError("deep")

    monkeypatch.setattr(victim, "visit_Name", visit_name, raising=False)
    monkeypatch.setattr(engine, "_METHOD_NAMES", {})
    result = lint((ENQUEUE_IN_ATOMIC + "\n\nboom = 1\n").encode())
    assert codes(result) == ["JL101"]
    assert result.errors == (
        f"bad.py:11: internal error in {victim.CODE}: RecursionError: deep (please report this)",
    )


def test_rule_error_exits_2_and_other_findings_appear(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC + "\n\nboom = 1\n"})
    proc = subprocess.run(
        [sys.executable, "-c", _BOOM],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parents[1])},
        timeout=120,
    )
    assert proc.returncode == 2
    assert "a.py:8:9: JL101" in proc.stdout  # the other rules' findings still appear
    lines = [line for line in proc.stderr.splitlines() if "internal error" in line]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("joblint: a.py:11: internal error in JL")
    assert lines[0].endswith("ValueError: kaboom second line (please report this)")
    assert "Traceback" not in proc.stderr


# --- paths -----------------------------------------------------------------------------------


def test_missing_path_is_one_line(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC})
    result = run("--format", "concise", "nope.py", "a.py")
    assert result.code == 2
    assert "joblint: error: nope.py: no such file or directory" in result.stderr
    assert "a.py:8:9: JL101" in result.stdout


def test_unreadable_directory_is_one_jl001(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Root reads any directory, and CI runs as root: the refusal is simulated
    # where the operating system would give it, in the directory walk.
    from joblint.api import lint_paths
    from joblint.config import Config

    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC, "locked/b.py": ENQUEUE_IN_ATOMIC})
    locked = tmp_path / "locked"
    real_scandir = os.scandir

    def scandir(path: object = ".") -> object:
        if Path(os.fsdecode(path)).resolve() == locked.resolve():  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", os.fsdecode(path))  # type: ignore[arg-type]
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path(".")], Config(root=tmp_path))
    assert run.errors == []
    assert [(f.path, f.code, f.message) for f in run.findings] == [
        ("a.py", "JL101", run.findings[0].message),
        ("locked", "JL001", "cannot read directory: Permission denied"),
    ]


def test_unreadable_file_is_jl001(tmp_path: Path) -> None:
    from joblint.pipeline.schedule.sources import read_file

    assert read_file(tmp_path) == "is a directory"
    assert read_file(tmp_path / "gone.py") == "file disappeared before it could be read"


def test_symlink_loops(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"pkg/a.py": ENQUEUE_IN_ATOMIC})
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg", target_is_directory=True)
    (tmp_path / "self.py").symlink_to(tmp_path / "self.py")
    result = run("--format", "concise", ".")
    assert result.stdout.count("JL101") == 1  # pkg/loop/a.py is pkg/a.py: once
    assert "Traceback" not in result.stderr
    assert result.code == 1  # self.py: one JL001, the run went on
    loop = "cannot read: symlink loop (following its links never reaches a file)"
    assert f"self.py:1:1: JL001 {loop}" in result.stdout


def test_file_disappearing_after_discovery(tmp_path: Path) -> None:
    from joblint.config import Config
    from joblint.pipeline import discover as files
    from joblint.pipeline.schedule import run as scheduler

    write(tmp_path, {"a.py": ENQUEUE_IN_ATOMIC, "b.py": ENQUEUE_IN_ATOMIC})
    real = files.discover

    def discover_then_delete(paths: object, config: Config, *rest: object) -> files.Discovery:
        found = real(paths, config, *rest)  # type: ignore[arg-type]
        (tmp_path / "b.py").unlink()
        return found

    original = scheduler.discover
    scheduler.discover = discover_then_delete  # type: ignore[assignment]
    try:
        run = scheduler.lint_paths([tmp_path], Config(root=tmp_path))
    finally:
        scheduler.discover = original
    messages = [f.message for f in run.findings if f.path.endswith("b.py")]
    assert messages == ["file disappeared before it could be read"]
    assert any(f.code == "JL101" and f.path.endswith("a.py") for f in run.findings)


def test_deep_thread_reraises_nests_and_restores_the_limit() -> None:
    from joblint.pipeline.source import deep

    def recurse(n: int) -> int:
        return 0 if n == 0 else 1 + recurse(n - 1)

    limit = sys.getrecursionlimit()
    assert deep.call(lambda: recurse(20_000)) == 20_000
    assert deep.call(lambda: deep.call(lambda: 7)) == 7
    with pytest.raises(ZeroDivisionError):
        deep.call(lambda: 1 // 0)
    assert sys.getrecursionlimit() == limit


def test_a_skipped_file_over_the_size_limit_is_refused_though_the_index_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project model reads a skipped file that opens a transaction with
    Python's `ast`, which takes a file of any size; its JL001 syntax check
    comes after, and still refuses it for its size. A file the index parsed
    is known to parse: no syntax check of its own."""
    from joblint.api import RunOptions, lint_paths
    from joblint.config import Config
    from joblint.pipeline.schedule import workers

    head = "from django.db import transaction\nfrom app.helpers import tidy\n\n"
    body = "def place():\n    with transaction.atomic():\n        tidy()\n"
    write(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/helpers.py": "def tidy():\n    return 1\n",
            "app/views.py": head + body,
            "app/big.py": head + "# padding\n" * 60 + body,
        },
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(budget, "MAX_FILE_BYTES", 500)
    checked: list[str] = []
    real = workers._run

    def recording(job: workers.Job) -> FileResult:
        if job.syntax_only:
            checked.append(job.path)
        return real(job)

    monkeypatch.setattr(workers, "_run", recording)
    run = lint_paths([Path(".")], Config(root=tmp_path), RunOptions())
    refused = [f.message for f in run.findings if f.code == "JL001"]
    assert [f.path for f in run.findings] == ["app/big.py"]
    assert refused and refused[0].startswith("not analysed: the file is")
    assert "app/views.py" not in checked and "app/big.py" in checked

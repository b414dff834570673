"""Fixes: applying edits, the fix loop's properties, atomic writes, the CLI."""

from __future__ import annotations

import ast
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from joblint.analysis.context import Options
from joblint.analysis.retry_options import is_attempt_count
from joblint.cli import main
from joblint.models import Edit, Finding, Fix, Span
from joblint.pipeline.fix.apply import FixError, applicable, apply_edits, fix_file
from joblint.pipeline.fix.edits import _node_edit
from joblint.pipeline.fix.write import write_atomic
from joblint.pipeline.lint import lint_source
from joblint.pipeline.project import ProjectSettings, settle
from joblint.registry import all_rules, examples
from joblint.rule import Invalid, Rule
from joblint.rules.retries._facts.jitter_rewrite import backoff_shape
from joblint.settings import LintSettings, ModuleInfo
from joblint.testing import EXAMPLE_PATH, fix_example, lint_example

ROOT = Path(__file__).resolve().parents[1]

FIXED_EXAMPLES = [
    pytest.param(rule, example, id=f"{rule.CODE}-{example.id}")
    for rule in all_rules()
    for example in examples(rule).invalid
    if example.fixed is not None
]


def _fix(rule: type[Rule], example: Invalid, code: str) -> str:
    def relint(data: bytes) -> list[Finding]:
        return [f for f in lint_example(rule, example, data.decode()) if f.path == EXAMPLE_PATH]

    return fix_file(EXAMPLE_PATH, code.encode(), relint(code.encode()), relint, True).data.decode()


# --- edits ---------------------------------------------------------------------------------


def test_edits_keep_line_endings_and_insert_after_a_last_line_without_newline() -> None:
    text = "a\r\nbcd\r\n"
    edits = [Edit(Span(2, 2, 2, 3), "X"), Edit(Span(3, 1, 3, 1), "import x\r\n")]
    assert apply_edits(text, edits) == "a\r\nbXd\r\nimport x\r\n"
    assert apply_edits("a\nb", [Edit(Span(3, 1, 3, 1), "c\n")]) == "a\nb\nc\n"


_NESTED = (
    "class Jobs:\n"
    "    def run(self, items):\n"
    "        # claim them first\n"
    "        queue.bulk_update(\n"
    "            items,\n"
    '            ["state"],\n'
    "        )\n"
    '        text = """\n'
    "    kept\n"
    '"""\n'
    "        mark(\n"
    "            text,\n"
    "        )\n"
)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _is_call_of(name: str) -> Callable[[cst.CSTNode], bool]:
    return lambda n: isinstance(n, cst.Call) and _code(n.func).endswith(name)


def _is_line_with(text: str) -> Callable[[cst.CSTNode], bool]:
    return lambda n: isinstance(n, cst.SimpleStatementLine) and text in _code(n)


@pytest.mark.parametrize(
    "find",
    [_is_call_of("bulk_update"), _is_line_with("bulk_update"), _is_line_with('"""')],
    ids=["multi-line-expression", "statement-below-a-comment", "statement-with-a-string"],
)
def test_a_node_in_a_block_is_edited_as_the_whole_module_would_be(
    find: Callable[[cst.CSTNode], bool],
) -> None:
    """A node rendered alone, its lines indented as its block is, gives the
    text replacing it in place would; where it can't (a multi-line string),
    the edit comes from a larger rendering."""
    wrapper = cst.MetadataWrapper(cst.parse_module(_NESTED), unsafe_skip_copy=True)
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    tree = wrapper.module
    node = next(n for n in positions if find(n))
    new: cst.CSTNode
    if isinstance(node, cst.Call):
        new = node.with_changes(args=[*node.args, cst.Arg(cst.Name("extra"))])
    else:
        assert isinstance(node, cst.SimpleStatementLine)
        new = node.with_changes(body=[*node.body, cst.Expr(cst.Name("extra"))])
    edit = _node_edit(tree, node, new, positions)
    expected = tree.deep_replace(node, new)
    assert isinstance(expected, cst.Module)
    assert apply_edits(_NESTED, [edit]) == expected.code


def test_overlapping_edits_are_refused() -> None:
    with pytest.raises(ValueError, match="overlapping"):
        apply_edits("abcdef", [Edit(Span(1, 1, 1, 4), "x"), Edit(Span(1, 2, 1, 5), "y")])


def test_rules_declare_fixed_code() -> None:
    assert len(FIXED_EXAMPLES) >= 5


# --- properties over every INVALID example with a fix -------------------------------------


@pytest.mark.parametrize(("rule", "example"), FIXED_EXAMPLES)
def test_fixed_code_parses_is_stable_and_no_longer_reported(
    rule: type[Rule], example: Invalid
) -> None:
    fixed = fix_example(rule, example)
    cst.parse_module(fixed)
    assert _fix(rule, example, fixed) == fixed  # fixing twice == fixing once
    remaining = lint_example(rule, example, fixed)
    assert not [f for f in remaining if applicable(f, True)]
    assert len(remaining) < len(lint_example(rule, example))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from([p.values for p in FIXED_EXAMPLES]),
    newline=st.sampled_from(["\n", "\r\n"]),
    comment=st.text(alphabet="abc xyz#é", max_size=12),
    blank_lines=st.integers(min_value=0, max_value=2),
)
def test_nothing_outside_the_edits_changes(
    case: tuple[type[Rule], Invalid], newline: str, comment: str, blank_lines: int
) -> None:
    rule, example = case
    assert example.fixed is not None

    def vary(code: str) -> str:
        tail = f"{newline * blank_lines}# {comment}{newline}"
        return code.replace("\n", newline) + tail

    assert _fix(rule, example, vary(example.code)) == vary(example.fixed)


# --- imports and the names fixes use (AddImportsVisitor) -----------------------------------


def _fix_source(code: str, *codes: str, options: Options | None = None, unsafe: bool = True) -> str:
    """`code` (as module app.views) after the fix loop (with unsafe fixes)."""
    settings = LintSettings(frozenset(codes), options or Options())

    def relint(data: bytes) -> list[Finding]:
        result = lint_source("app/views.py", data, settings, ModuleInfo("app.views"))
        return settle([result], ProjectSettings(settings.codes))

    data = code.encode()
    fixed = fix_file("app/views.py", data, relint(data), relint, unsafe).data.decode()
    cst.parse_module(fixed)
    return fixed


_ENQUEUE = """
def checkout(order):
    with atomic():
        send_receipt.delay(order.pk)
"""


_TENACITY = """\
from tenacity import retry, stop_after_attempt, wait_exponential{alias}
{extra}

@retry(wait={name}(multiplier=1, max=60), stop=stop_after_attempt(5))
def fetch(): ...
"""


@pytest.mark.parametrize("alias", ["", " as backoff"])
def test_an_import_the_fix_leaves_unused_is_removed(alias: str) -> None:
    name = alias.removeprefix(" as ") or "wait_exponential"
    fixed = _fix_source(_TENACITY.format(alias=alias, extra="", name=name), "JL301")
    assert fixed.startswith(
        "from tenacity import wait_random_exponential, retry, stop_after_attempt\n\n"
    )
    assert "wait_exponential" not in fixed and "backoff" not in fixed


def test_an_import_still_read_after_the_fixes_stays() -> None:
    # `later` adds a random wait: no finding, no fix, and it still reads the name.
    later = "\n@retry(wait=wait_exponential(multiplier=1) + wait_random(0, 2))\ndef later(): ...\n"
    code = _TENACITY.format(alias=", wait_random", extra="", name="wait_exponential") + later
    fixed = _fix_source(code, "JL301")
    assert "import wait_random_exponential, retry, stop_after_attempt, wait_exponential" in fixed
    assert "wait=wait_exponential(multiplier=1) + wait_random(0, 2)" in fixed
    alone = _TENACITY.format(alias="", extra="", name="wait_exponential")
    assert "wait_exponential" not in _fix_source(alone, "JL301").replace("random_exponential", "")
    listed = '__all__ = ["wait_exponential"]'
    exported = _TENACITY.format(alias="", extra=listed, name="wait_exponential")
    assert "stop_after_attempt, wait_exponential\n" in _fix_source(exported, "JL301")


def test_an_import_after_other_code_is_not_added_again() -> None:
    code = (
        "from django.db.transaction import atomic\nfrom .tasks import send_receipt\n"
        "X = 1\nfrom django.db import transaction\n" + _ENQUEUE
    )
    fixed = _fix_source(code, "JL101")
    assert fixed.count("import transaction") == 1
    assert "        transaction.on_commit(lambda: send_receipt.delay(order.pk))\n" in fixed


def test_an_alias_rebound_in_the_function_is_not_used() -> None:
    code = (
        "from django.db import transaction as tx\nfrom django.db.transaction import atomic\n"
        "from .tasks import send_receipt\n" + _ENQUEUE + "    tx = None\n"
    )
    fixed = _fix_source(code, "JL101")
    # `tx` is local to checkout: the fix imports `transaction` (AddImportsVisitor
    # adds it to the existing `from django.db import ...`) and uses that.
    assert fixed.startswith("from django.db import transaction, transaction as tx\n")
    assert "        transaction.on_commit(lambda: send_receipt.delay(order.pk))\n" in fixed


@pytest.mark.parametrize(
    "taken",
    [
        "transaction = object()\n",  # a module-level name
        "def transaction(): ...\n",
        "from shop.db import *\n",  # a star import may bind it
    ],
)
def test_no_fix_when_the_name_is_taken(taken: str) -> None:
    code = (
        "from django.db.transaction import atomic\nfrom .tasks import send_receipt\n"
        + taken
        + _ENQUEUE
    )
    assert _fix_source(code, "JL101") == code


def test_an_import_below_a_module_level_use_is_not_relied_on() -> None:
    # Module-level code runs top to bottom: `tx` is not bound yet where the fix goes.
    code = (
        "from django.db.transaction import atomic\nfrom .tasks import send_receipt\n"
        "with atomic():\n    send_receipt.delay(1)\n"
        "from django.db import transaction as tx\n"
    )
    fixed = _fix_source(code, "JL101")
    assert "tx.on_commit" not in fixed
    assert fixed.startswith("from django.db.transaction import atomic\n")


# --- which fixes are safe, and which shapes get one ------------------------------------------


def test_jl301_jitter_fixes_are_unsafe() -> None:
    """Adding jitter changes the delays the retries wait (they become random,
    half as long on average): no JL301 fix keeps run-time behaviour, so none
    is applied without --unsafe-fixes."""
    code = (
        "from celery import shared_task\n"
        "from tenacity import retry, stop_after_attempt, wait_exponential\n\n"
        "@retry(wait=wait_exponential(max=9), stop=stop_after_attempt(3))\ndef a(): ...\n\n"
        "@retry(wait=wait_exponential(min=1), stop=stop_after_attempt(3))\ndef b(): ...\n\n"
        "@shared_task(retry_backoff=True, retry_jitter=False)\ndef c(): ...\n"
    )
    settings = LintSettings(frozenset({"JL301"}), Options())
    findings = lint_source("app/r.py", code.encode(), settings, ModuleInfo("app.r")).findings
    assert [(f.span.line, f.fix and f.fix.safety) for f in findings] == [
        (4, "unsafe"),
        (7, "unsafe"),
        (10, "unsafe"),
    ]
    safe_only = fix_file("app/r.py", code.encode(), list(findings), lambda d: [], False)
    assert safe_only.data == code.encode()
    unsafe = fix_file("app/r.py", code.encode(), list(findings), lambda d: [], True)
    assert b"wait=wait_random_exponential(max=9)" in unsafe.data
    assert b"wait=wait_random_exponential(min=1)" in unsafe.data
    assert b"retry_jitter=True" in unsafe.data


@pytest.mark.parametrize(
    ("countdown", "expected"),
    [
        ("2 ** self.request.retries", "full_jitter(self.request.retries, base=1, cap=600)"),
        ("min(60, 2 ** self.request.retries)", "full_jitter(self.request.retries, base=1, cap=60)"),
        ("self.request.retries ** 2", None),  # polynomial, not exponential
        ("60 * (self.request.retries + 1)", None),  # linear
        ("1.0 ** self.request.retries * 5", None),  # factor <= 1
        ("BASE * 2 ** (self.request.retries + 1)", None),  # a name scaled: can't fold
        ("min(self.request.retries, 2 ** self.request.retries)", None),
        ("900 * 2 ** self.request.retries", None),  # above full_jitter's default cap
        (
            "2 ** (self.request.retries + 2) * 10",
            "full_jitter(self.request.retries, base=40, cap=600)",
        ),
    ],
)
def test_full_jitter_shapes(countdown: str, expected: str | None) -> None:
    shape = backoff_shape(cst.parse_expression(countdown), _is_retry_count)
    assert (shape.describe() if shape else None) == expected


_RETRIES = "self.request.retries"


def _is_retry_count(node: cst.BaseExpression) -> bool:
    """Celery's attempt counter, `<task>.request.retries`."""
    return is_attempt_count(node, ("request", "retries"))


@st.composite
def _countdowns(draw: st.DrawFn) -> str:
    """Countdown expressions over the retry count, full_jitter's shapes among others."""
    number = st.sampled_from(["1", "2", "3", "0.5", "5", "10", "30", "600", "900"])
    count = st.sampled_from(
        [_RETRIES, f"({_RETRIES} + 1)", f"({_RETRIES} + 2)", f"(1 + {_RETRIES})"]
    )
    shapes = [
        lambda: f"{draw(number)} ** {draw(count)}",
        lambda: f"pow({draw(number)}, {draw(count)})",
        lambda: f"{draw(number)} * {draw(number)} ** {draw(count)}",
        lambda: f"{draw(number)} ** {draw(count)} * {draw(number)}",
        lambda: f"{draw(st.sampled_from(['1', '3', '30']))} << {draw(count)}",
        lambda: f"{draw(number)} * {draw(count)}",
        lambda: f"{draw(count)} ** {draw(number)}",
        lambda: f"{draw(number)} + {draw(number)} ** {draw(count)}",
    ]
    growth = draw(st.sampled_from(shapes))()
    wraps = ["{}", "min({cap}, {})", "min({}, {cap})", "int({})", "max(1, {})"]
    wrap = draw(st.sampled_from(wraps))
    return wrap.format(growth, cap=draw(number))


class _Task:
    class request:  # stands for `self.request`
        retries = 0


@settings(max_examples=300, deadline=None)
@given(countdown=_countdowns())
def test_full_jitter_keeps_the_old_delay_as_its_ceiling(countdown: str) -> None:
    """Where a shape is read, full_jitter's ceiling is the old countdown (capped
    at 600 s when it had no cap) for every retry: the author's schedule is kept."""
    shape = backoff_shape(cst.parse_expression(countdown), _is_retry_count)
    if shape is None:
        return
    empty = cst.Module(body=[])
    base = float(eval(empty.code_for_node(shape.base)))  # numbers only
    cap = float(eval(empty.code_for_node(shape.cap)))
    capped = countdown.startswith("min(")
    for retries in range(8):
        _Task.request.retries = retries
        old = float(eval(countdown, {"self": _Task}))
        expected = old if capped else min(600.0, old)
        ceiling = min(cap, base * shape.factor**retries)
        rounding = 1.0 if countdown.startswith("int(") else 0.0  # int() truncates
        assert abs(ceiling - expected) <= 1e-9 * max(1.0, expected) + rounding


# --- atomic writes -------------------------------------------------------------------------


def test_write_keeps_mode_bits_and_refuses_changed_files(tmp_path: Path) -> None:
    path = tmp_path / "job.py"
    path.write_bytes(b"old\n")
    path.chmod(0o750)
    assert write_atomic(path, b"old\n", b"new\n")
    assert path.read_bytes() == b"new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert not write_atomic(path, b"old\n", b"newer\n")  # changed since it was read
    assert path.read_bytes() == b"new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["job.py"]


_SLOW_WRITER = """
import os, sys, time
from pathlib import Path
import joblint.pipeline.fix.write as fix

ready = Path(sys.argv[2])
real_fsync = os.fsync

def slow_fsync(fd):
    ready.write_text("x")
    time.sleep(float(sys.argv[3]))
    real_fsync(fd)

os.fsync = slow_fsync
path = Path(sys.argv[1])
fix.write_atomic(path, path.read_bytes(), b"new contents\\n" * 200_000)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_killed_mid_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "job.py"
    old = b"old contents\n" * 1000
    path.write_bytes(old)
    ready = tmp_path / "ready"
    child = subprocess.Popen(
        [sys.executable, "-c", _SLOW_WRITER, str(path), str(ready), "30"], cwd=ROOT
    )
    deadline = time.monotonic() + 60
    while not ready.exists() and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.01)
    assert ready.exists()
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert path.read_bytes() == old


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_killed_at_any_moment_the_file_is_old_or_new(tmp_path: Path) -> None:
    path = tmp_path / "job.py"
    old = b"old contents\n" * 1000
    new = b"new contents\n" * 200_000
    for delay in (0.05, 0.1, 0.15, 0.2, 0.3):
        path.write_bytes(old)
        child = subprocess.Popen(
            [sys.executable, "-c", _SLOW_WRITER, str(path), str(tmp_path / "r"), "0"], cwd=ROOT
        )
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert path.read_bytes() in (old, new)


# --- CLI -------------------------------------------------------------------------------------

_CLAIM = """\
def claim(cursor):
    cursor.execute("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE")  # keep
"""


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", "--isolated", "--no-cache", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the project around a named file is tmp_path


def test_diff_prints_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "claim.py"
    path.write_text(_CLAIM)
    code, out, err = _run("--diff", str(path))
    assert (code, out) == (0, "")  # the fix is unsafe
    assert "Would fix 0" in err
    code, out, _ = _run("--diff", "--unsafe-fixes", str(path))
    assert code == 1
    assert '+    cursor.execute("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE SKIP' in out
    assert path.read_text() == _CLAIM


def test_fix_writes_and_reports(tmp_path: Path) -> None:
    path = tmp_path / "claim.py"
    path.write_text(_CLAIM)
    code, _, err = _run("--fix", str(path))
    assert code == 1
    assert "1 more fixable with --unsafe-fixes" in err.replace("finding ", "")
    code, _, err = _run("--fix", "--unsafe-fixes", "--show-fixes", str(path))
    assert code == 0
    assert "Fixed 1 finding, 0 remaining." in err
    assert 'FOR UPDATE SKIP LOCKED")  # keep' in path.read_text()
    path.write_text(_CLAIM)
    code, _, _ = _run("--fix-only", "--unsafe-fixes", "--exit-non-zero-on-fix", str(path))
    assert code == 1


def test_json_fix_field(tmp_path: Path) -> None:
    path = tmp_path / "claim.py"
    path.write_text(_CLAIM)
    _, out, _ = _run("--format", "json", str(path))
    [finding] = json.loads(out)
    assert finding["fix"] == {
        "safety": "unsafe",
        "message": "Add SKIP LOCKED",
        "edits": [
            {"line": 2, "column": 71, "end_line": 2, "end_column": 71, "content": " SKIP LOCKED"}
        ],
    }


def test_fix_on_examples_then_again_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", copy)
    monkeypatch.chdir(tmp_path)
    before = {p: p.read_bytes() for p in copy.rglob("*.py")}
    _run("--fix", "--unsafe-fixes", "examples")
    once = {p: p.read_bytes() for p in copy.rglob("*.py")}
    assert once != before
    for data in once.values():
        cst.parse_module(data.decode())
    _, _, err = _run("--fix", "--unsafe-fixes", "examples")
    assert {p: p.read_bytes() for p in copy.rglob("*.py")} == once
    assert "Fixed 0 findings" in err


_IMPORT_STYLES = [
    "from django.db import transaction",
    "from django.db import transaction as tx",
    "import django.db.transaction",
    "import django.db.transaction as djtx",
    "import django.db",
    "from django import db",
    "from django.db import connection",
    "from shop import transaction",
    "from shop.utils import *",
]
_TAILS = ["", "    tx = None\n", "    transaction = None\n", "    djtx = None\n"]


def _module_binding(tree: ast.Module, root: str) -> str | None:
    """What module-level statements last bind `root` to: an imported dotted
    path ("django.db.transaction"), "import:<path>" for `import a.b.c`, or "other"."""
    bound: str | None = None
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                if alias.name == "*" or (alias.asname or alias.name) == root:
                    bound = "other" if statement.level else f"{statement.module}.{alias.name}"
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname == root:
                    bound = alias.name
                elif alias.asname is None and alias.name.split(".")[0] == root:
                    bound = f"import:{alias.name}"
        elif isinstance(statement, ast.Assign | ast.FunctionDef | ast.ClassDef):
            names = [t.id for t in getattr(statement, "targets", []) if isinstance(t, ast.Name)]
            if root in names or getattr(statement, "name", None) == root:
                bound = "other"
    return bound


def _means_django_transaction(code: str) -> bool:
    """The receiver of the fixed code's on_commit(...) is django.db.transaction
    there (an independent reading of the imports, with `ast`)."""
    tree = ast.parse(code)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    call = next(
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "on_commit"
    )
    assert isinstance(call.func, ast.Attribute)
    receiver = ast.unparse(call.func.value)
    root = receiver.split(".")[0]
    local = {a.arg for a in function.args.args} | {
        t.id
        for n in ast.walk(function)
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    bound = _module_binding(tree, root)
    if root in local or bound is None:
        return False
    if receiver == root:
        return bound == "django.db.transaction"
    imported = {
        alias.name
        for n in tree.body
        if isinstance(n, ast.Import)
        for alias in n.names
        if alias.asname is None
    }
    return bound.startswith("import:") and receiver in imported


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    styles=st.lists(st.sampled_from(_IMPORT_STYLES), max_size=4, unique=True),
    tail=st.sampled_from(_TAILS),
)
def test_the_on_commit_fix_names_django_transaction_whatever_the_imports(
    styles: list[str], tail: str
) -> None:
    code = (
        "from django.db.transaction import atomic as _atomic\n"
        + "".join(f"{line}\n" for line in styles)
        + "from .tasks import send_receipt\n\n"
        + "def checkout(order):\n    with _atomic():\n        send_receipt.delay(order.pk)\n"
        + tail
    )
    fixed = _fix_source(code, "JL101")
    assert _fix_source(fixed, "JL101") == fixed
    if fixed == code:
        return
    assert _means_django_transaction(fixed), fixed
    imports = [line for line in fixed.splitlines() if "import" in line]
    assert len(imports) == len(set(imports)), fixed
    assert len(fixed.splitlines()) <= len(code.splitlines()) + 2  # an import and a blank line


def test_fix_on_stdin_keeps_bytes_line_endings_and_encoding() -> None:
    source = (
        "# -*- coding: latin-1 -*-\r\n"
        "from django.db import transaction\r\nfrom .tasks import send_receipt\r\n\r\n"
        "def checkout(order):  # caf\xe9\r\n"
        "    with transaction.atomic():\r\n        send_receipt.delay(order.pk)\r\n"
    ).encode("latin-1")
    args = ["check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "-"]
    result = CliRunner().invoke(main, args, input=source)
    expected = source.replace(
        b"        send_receipt.delay(order.pk)",
        b"        transaction.on_commit(lambda: send_receipt.delay(order.pk))",
    )
    assert (result.exit_code, result.stdout_bytes) == (0, expected)


# --- the fix loop's limits -------------------------------------------------------------------


def _finding(edit: Edit, code: str = "JL999") -> Finding:
    fix = Fix("unsafe", "test", (edit,))
    return Finding(code, "test", "test", "m.py", edit.span, fix=fix)


def test_a_fix_loop_that_never_settles_names_the_rules() -> None:
    grow = _finding(Edit(Span(1, 1, 1, 1), "x"))
    with pytest.raises(FixError, match=r"did not settle after 10 rounds \(rules: JL999\)"):
        fix_file("m.py", b"y = 1\n", [grow], lambda data: [grow], True)


def test_a_fix_that_breaks_the_code_is_refused() -> None:
    broken = _finding(Edit(Span(1, 1, 1, 2), "("), "JL998")
    with pytest.raises(FixError, match="JL998 produced code that does not parse"):
        fix_file("m.py", b"y = 1\n", [broken], lambda data: [], True)


def test_safe_only_by_default() -> None:
    unsafe = _finding(Edit(Span(1, 1, 1, 2), "z"))
    assert fix_file("m.py", b"y = 1\n", [unsafe], lambda data: [], False).data == b"y = 1\n"
    assert fix_file("m.py", b"y = 1\n", [unsafe], lambda data: [], True).data == b"z = 1\n"


def test_encoding_and_bom_are_kept() -> None:
    data = "y = 'é'\n".encode()
    latin = b"# -*- coding: latin-1 -*-\ny = '\xe9'\n"
    edit = _finding(Edit(Span(2, 1, 2, 2), "z"))
    assert fix_file("m.py", latin, [edit], lambda d: [], True).data == latin.replace(b"y", b"z")
    bom = b"\xef\xbb\xbf" + data
    first = _finding(Edit(Span(1, 1, 1, 2), "z"))
    assert fix_file("m.py", bom, [first], lambda d: [], True).data.startswith(b"\xef\xbb\xbfz")

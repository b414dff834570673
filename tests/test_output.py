"""Output as Ruff users expect it: concise lines that fit a terminal, a help
line under every finding, `-q`/`-qq`/`--silent`, `--show-files`, and a
labelled progress display on a terminal only."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Run, write

from joblint.api import lint_paths
from joblint.config import Config
from joblint.models import Finding
from joblint.pipeline.report import progress
from joblint.pipeline.report.concise import MESSAGE_BUDGET, brief, first_sentence, line
from joblint.pipeline.report.full import layout
from joblint.rule import Invalid
from joblint.testing import cases, lint_example

ROOT = Path(__file__).resolve().parents[1]
# `:line:col: CODE [*] ` beside a message of MESSAGE_BUDGET characters.
LINE_BEYOND_PATH = 160
_WORD = re.compile(r"[^\s…]+")


def _fixture_findings(monkeypatch: pytest.MonkeyPatch) -> list[Finding]:
    monkeypatch.chdir(ROOT)
    config = Config(root=ROOT, preview=True, select=("ALL",))
    return lint_paths([Path("fixtures")], config).findings


def _example_findings() -> list[Finding]:
    return [
        finding
        for case in cases()
        if isinstance(case.example, Invalid)
        for finding in lint_example(case.rule, case.example)
    ]


def _words(text: str) -> list[str]:
    return [w.rstrip(",:;") for w in _WORD.findall(text) if w.rstrip(",:;")]


def _in_order(words: list[str], within: list[str]) -> bool:
    remaining = iter(within)
    return all(any(word == other for other in remaining) for word in words)


def test_every_concise_line_fits_and_says_the_first_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every rule on every fixture and example: the line is at most 160
    characters beyond its path, and says the message's first sentence, or,
    where that is longer than the budget, words of it in their order."""
    findings = [*_fixture_findings(monkeypatch), *_example_findings()]
    assert len({f.code for f in findings}) >= 20
    for finding in findings:
        shown = line(finding, unsafe=True)
        assert len(shown) - len(finding.path) <= LINE_BEYOND_PATH, shown
        sentence = first_sentence(finding.message)
        assert finding.message.startswith(sentence)
        said = brief(finding.message)
        assert shown.endswith(f" {said}")
        if len(sentence) <= MESSAGE_BUDGET:
            assert said == sentence
        else:
            assert _in_order(_words(said), _words(sentence)), said


@pytest.mark.parametrize(
    "message,sentence",
    [
        ("a worker may run it first. Enqueue it after", "a worker may run it first"),
        ("one sentence only", "one sentence only"),
        ("it ends here.", "it ends here"),
        ("pass obj.id instead. Then re-fetch", "pass obj.id instead"),
        (
            "use a Lua script, e.g. RedisLock.release. Or not",
            "use a Lua script, e.g. RedisLock.release",
        ),
        ("wait 1.5 s. Or more", "wait 1.5 s"),
        ("the lock expired. `set(key, nx=True)` takes it", "the lock expired"),
        ("calls mail.send(). it goes on", "calls mail.send(). it goes on"),
    ],
)
def test_a_first_sentence_ends_at_a_period_before_a_new_sentence(
    message: str, sentence: str
) -> None:
    assert first_sentence(message) == sentence


def test_a_long_sentence_loses_its_details_before_its_words() -> None:
    chain = "a() → b() at app/b.py:3 → c() at app/c.py:9 → task.delay() at app/d.py:4"
    message = (
        f"Celery task 'send' is enqueued inside c() (line 9), which view(), a view run inside "
        f"the request's transaction (ATOMIC_REQUESTS), calls: {chain}: a worker may run it "
        "before COMMIT. Enqueue it in transaction.on_commit(...)"
    )
    said = brief(message)
    assert len(said) <= MESSAGE_BUDGET
    assert said.startswith("Celery task 'send' is enqueued inside c()")
    assert said.endswith(": a worker may run it before COMMIT")
    assert "app/b.py" not in said


def test_every_finding_has_a_help_line_in_full() -> None:
    for finding in _example_findings():
        shown = ["".join(text for text, _ in piece) for piece in layout(finding, None)]
        assert any(text.startswith("  = help: ") for text in shown), finding


def test_a_files_jl001_has_a_help_line(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"broken.py": "def f(:\n    pass\n"})
    result = run("check", "--isolated", "--no-cache", ".")
    assert "JL001" in result.stdout and "  = help: " in result.stdout


ATOMIC = (
    "from django.db import transaction\nfrom shop.tasks import send\n\n"
    "def view(order):\n    with transaction.atomic():\n        send.delay(order.pk)\n"
)


def test_quiet_prints_the_findings_and_nothing_else(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"views.py": ATOMIC})
    loud = run("check", "--isolated", "--no-cache", "--format", "concise", ".")
    quiet = run("check", "--isolated", "--no-cache", "--format", "concise", "-q", ".")
    assert "Found 1 finding" in loud.stderr
    assert (quiet.code, quiet.stdout, quiet.stderr) == (1, loud.stdout, "")
    for silent in (["-qq"], ["--silent"], ["-s"]):
        result = run("check", "--isolated", "--no-cache", *silent, ".")
        assert (result.code, result.stdout, result.stderr) == (1, "", "")
    clean = run("check", "--isolated", "--no-cache", "-q", "--select", "JL302", ".")
    assert (clean.code, clean.stdout, clean.stderr) == (0, "", "")


def test_silent_still_writes_the_output_file(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"views.py": ATOMIC})
    result = run("check", "--isolated", "--no-cache", "--silent", "-o", "out.txt", ".")
    assert (result.code, result.stdout, result.stderr) == (1, "", "")
    assert "JL101" in (tmp_path / "out.txt").read_text()


def test_show_files_lists_what_would_be_checked(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[tool.joblint]\nextend-exclude = ["legacy"]\n',
            "b.py": ATOMIC,
            "a/z.py": "x = 1\n",
            "a/m.py": "x = 1\n",
            "legacy/old.py": "x = 1\n",
            "notes.txt": "not python\n",
        },
    )
    result = run("check", "--no-cache", "--show-files")
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == ["a/m.py", "a/z.py", "b.py"]
    missing = run("check", "--show-files", "nowhere")
    assert missing.code == 2 and "nowhere" in missing.stderr


# --- the progress display ---

# Runs `joblint check` with the display shown from the first event on (a
# real run waits a second before it shows it).
_CHECK_NOW = (
    "import sys; from joblint.pipeline.report import progress; "
    "progress.SHOW_AFTER_SECONDS = -1.0; from joblint.cli import main; "
    "sys.argv = ['joblint', 'check', '--isolated', '--no-cache', '-j', '1', '.']; main()"
)


def _environment() -> dict[str, str]:
    path = os.pathsep.join([str(ROOT), str(ROOT / "runtime" / "src")])
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": path, "TERM": "xterm", "COLUMNS": "150"}


def _run_with_stderr_on_a_terminal(cwd: Path) -> str:
    """What `joblint check` writes to stderr when that is a pseudo-terminal."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHECK_NOW],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env=_environment(),
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_the_display_labels_each_stage_on_a_terminal(tmp_path: Path) -> None:
    write(tmp_path, {"views.py": ATOMIC, "plain.py": "x = 1\n"})
    shown = _run_with_stderr_on_a_terminal(tmp_path)
    for label in (progress.CHECKING_FILES, progress.PROJECT_MODEL, progress.PROJECT_RULES):
        assert label in shown, shown
    assert shown.index(progress.PROJECT_MODEL) < shown.index(progress.PROJECT_RULES)
    assert "Found 1 finding" in shown


def test_nothing_of_the_display_off_a_terminal(tmp_path: Path) -> None:
    write(tmp_path, {"views.py": ATOMIC})
    proc = subprocess.run(
        [sys.executable, "-c", _CHECK_NOW],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_environment(),
        timeout=120,
    )
    assert proc.stderr.splitlines()[0] == "Found 1 finding in 1 file (1 file checked)."
    assert not any(label in proc.stderr for label in (progress.PROJECT_MODEL, "checking"))
    assert not any(label in proc.stdout for label in (progress.PROJECT_MODEL, "checking"))


def test_a_stage_is_told_to_the_display(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"views.py": ATOMIC})
    monkeypatch.chdir(tmp_path)
    stages: list[str] = []
    from joblint.api import RunOptions

    lint_paths([Path(".")], Config(root=tmp_path), RunOptions(on_stage=stages.append))
    assert stages[0] == progress.PROJECT_MODEL and stages[-1] == progress.PROJECT_RULES
    assert set(stages) == {progress.PROJECT_MODEL, progress.PROJECT_RULES}

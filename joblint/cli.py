"""Command line (click): `joblint [check] PATHS`, `joblint report FILES` (findings
JSON files in any output format), `joblint rules`, `joblint explain`,
`joblint server` (the language server, `joblint.server`).

Only argument handling and output plumbing live here; linting is `joblint.api`.
"""

from __future__ import annotations

import gc
import io
import json
import os
import sys
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import click

from joblint import __version__
from joblint.api import (
    CheckOptions,
    RunOptions,
    RunResult,
    cache_directory,
    describe_project_model,
    files_to_check,
    lint_paths,
    lint_text,
    relinter,
)
from joblint.config import Config, ConfigError, Configs, describe, load
from joblint.models import Finding
from joblint.pipeline.report import FORMATS, Output, console_for, progress, renderer, rich_console
from joblint.pipeline.report import pager as _pager
from joblint.pipeline.report.identity import SourceLines
from joblint.pipeline.report.safe import displayable, terminal
from joblint.registry import listed, lookup

if TYPE_CHECKING:
    from joblint import integrations

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
# LibCST's traversal is recursive; deeply nested generated code needs headroom.
RECURSION_LIMIT = 10_000


class _DefaultToCheck(click.Group):
    """`joblint PATHS` means `joblint check PATHS`, as in Ruff."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (
            args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")
        ):
            args = ["check", *args]
        return super().parse_args(ctx, args)


# The cyclic collector's thresholds for a run (generation 0 allocations, then
# collections of the younger generation before an older one is collected).
# What a run builds per file and per pass makes no reference cycles, so a
# collection finds next to nothing: one every 500,000 allocations rather than
# every 100,000 took 1-2 % off the application, monorepo and generated module.
GC_THRESHOLDS = (500_000, 50, 100)


def _fail(message: str) -> NoReturn:
    click.echo(f"joblint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@click.group(cls=_DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="joblint")
def main() -> None:
    """joblint: find the bugs background-job code keeps shipping with."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    # Parsing analysed code (ast, literal_eval of its strings) warns about *its*
    # invalid escapes on Python 3.12+: that is not joblint's output.
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    warnings.filterwarnings("ignore", "invalid escape sequence", DeprecationWarning)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--select", help="Comma-separated rule codes or prefixes to enable (replaces config)."
)
@click.option("--extend-select", help="Codes or prefixes to enable on top of the selection.")
@click.option("--ignore", help="Codes or prefixes to disable.")
@click.option("--preview/--no-preview", default=None, help="Enable preview rules.")
@click.option(
    "--include-tests/--no-include-tests",
    default=None,
    help="Report in test code and migrations too (config: include-tests).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="full",
    show_default=True,
    help="full: each finding with its code, message and help; concise: one line a "
    "finding, the message's first sentence; the others for tools, with whole messages.",
)
@click.option(
    "-o", "--output-file", type=click.Path(path_type=Path), help="Write results to a file."
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option(
    "-q",
    "--quiet",
    count=True,
    help="Print the findings and nothing else (no summary, hints or progress); "
    "-qq: print nothing, the exit status tells.",
)
@click.option("-s", "--silent", is_flag=True, help="Print nothing, the exit status tells (-qq).")
@click.option("--statistics", is_flag=True, help="Print counts per rule instead of findings.")
@click.option("--no-cache", is_flag=True, help="Don't read or write the result cache.")
@click.option(
    "-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (0 = auto)."
)
@click.option(
    "--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True
)
@click.option(
    "--force-exclude", is_flag=True, help="Apply excludes to paths named on the command line."
)
@click.option(
    "--config", "config_file", type=click.Path(path_type=Path), help="Use this config file."
)
@click.option("--isolated", is_flag=True, help="Ignore all configuration files.")
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print the settings of the first PATH (and where each comes from), then exit.",
)
@click.option(
    "--show-project-model",
    is_flag=True,
    help="Print what the project model inferred for the file PATH (transactions its "
    "functions open, enqueues they lead to, what they return, task decorators), then exit.",
)
@click.option(
    "--show-files",
    is_flag=True,
    help="List the files PATHS holds that would be checked (after excludes), then exit.",
)
@click.option("--stdin-filename", help="The name to report for source read from '-'.")
@click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
# --- CI options (joblint.integrations) ---
@click.option(
    "--diff-from", metavar="REF", help="Lint only the Python files changed since git REF."
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(path_type=Path),
    help="Hide the findings recorded in this baseline file (config: baseline).",
)
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path),
    help="Record the current findings in this baseline file, then exit.",
)
@click.option("--baseline-prune", is_flag=True, help="Remove fixed findings from the baseline.")
# --- fixes (joblint.pipeline.fix.run) ---
@click.option("--fix", is_flag=True, help="Apply fixes, rewriting the files in place.")
@click.option(
    "--diff", "show_diff", is_flag=True, help="Print fixes as a unified diff; write nothing."
)
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="Also apply fixes that change behaviour (config: unsafe-fixes).",
)
@click.option("--fix-only", is_flag=True, help="Apply fixes; don't report what remains.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when a fix was applied.")
@click.option("--show-fixes", is_flag=True, help="List the fixes applied.")
def check(paths: tuple[Path, ...], **given: Any) -> None:
    """Lint PATHS (default: the current directory); '-' reads standard input."""
    # A run allocates millions of short-lived objects and makes almost no
    # cycles; collecting every 700 allocations cost a warm run of a
    # 4,300-file app ~0.1 s (mypy's CLI does the same). Workers inherit it.
    gc.set_threshold(*GC_THRESHOLDS)
    options = CheckOptions(**given)  # each option of the command, by its name
    linted = _lint(paths, options)
    if linted is None:
        return  # --show-settings or --show-project-model printed what they show
    config, run, stdin_source = linted.config, linted.run, linted.stdin_source
    sources = _SourceCache(options.stdin_filename or "-", stdin_source)
    unsafe = options.unsafe(config)
    fixing = _fix(config, run, stdin_source, options) if options.fixing else None
    # --- baselines ---
    if options.write_baseline is not None:
        _write_baseline(options.write_baseline, run, sources.lines, linted.changes)
    stdin_name = (options.stdin_filename or "-") if stdin_source is not None else None
    path = config.baseline_path(options.baseline_file)
    if path is not None or options.baseline_prune:
        from joblint.integrations import checked_by

        checked = checked_by(config, paths, linted.changes, stdin_name)
        _apply_baseline(path, options.baseline_prune, run, sources.lines, checked)
    # As in Ruff: fixing standard input writes the fixed source to
    # stdout and nothing else; the findings go to stderr (or --output-file).
    fixed_source = fixing[2] if fixing is not None else None
    if fixed_source is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(fixed_source)
        sys.stdout.buffer.flush()
    if not options.silenced or options.output_file is not None:
        _report(options, run, sources, unsafe, stderr=fixed_source is not None)
    if options.hushed:
        _print_problems(run, silent=options.silenced)
    elif not options.fix_only:
        # After fixing, the fix summary says what is left to fix.
        _print_summary(run, options.output_format, None if fixing is not None else unsafe)
    if fixing is not None and not options.hushed:
        click.echo(fixing[1], err=True)
    status = _exit_status(run, options.exit_zero or options.fix_only)
    if options.exit_non_zero_on_fix and fixing is not None and fixing[0]:
        status = max(status, EXIT_FINDINGS)
    sys.exit(status)


@dataclass(frozen=True, slots=True)
class _Linted:
    config: Config
    run: RunResult
    stdin_source: bytes | None  # what '-' read
    changes: integrations.Changes | None  # --diff-from's changed files


def _lint(paths: tuple[Path, ...], options: CheckOptions) -> _Linted | None:
    """The configuration and the run over `paths` (or standard input);
    None once --show-settings or --show-project-model printed what they
    show. Exits on a bad configuration or an internal error."""
    changes = None
    try:
        config = options.config()
        if options.show_settings:
            _show_settings(config, paths[0] if paths else Path("."))
            return None
        if options.show_project_model:
            _show_project_model(config, paths, options.run_options())
            return None
        if options.show_files:
            _show_files(config, paths, options.run_options())
            return None
        stdin_source = None
        if paths == (Path("-"),):
            stdin_source = sys.stdin.buffer.read()
        shown = progress.wanted(options.output_format, options.output_file is not None)
        with progress.file_progress(shown and not options.statistics and not options.hushed) as bar:
            run_options = options.run_options(bar.advance, bar.set_total, bar.set_stage)
            if options.diff_from is not None and stdin_source is None:
                from joblint.integrations import lint_changed  # CI only: not on every run

                run, changes = lint_changed(options.diff_from, paths, config, run_options)
            else:
                run = _run(config, paths, stdin_source, options.stdin_filename, run_options)
    except ConfigError as exc:
        _fail(str(exc))
    except Exception as exc:  # never a traceback unless asked for
        if options.debug:
            traceback.print_exc()
        _fail(f"internal error: {type(exc).__name__}: {exc} (please report this)")
    return _Linted(config, run, stdin_source, changes)


def _report(
    options: CheckOptions, run: RunResult, sources: _SourceCache, unsafe: bool, stderr: bool
) -> None:
    """The findings (or with --statistics, their counts per rule) in the
    format asked for, to --output-file, else to stdout (`stderr`: to
    stderr, stdout holding fixed source)."""
    _render(
        [] if options.fix_only else run.findings,
        sources.lines,
        _Rendering(options.output_format, options.output_file, options.color, unsafe),
        stderr=stderr,
        statistics=options.statistics,
    )


@dataclass(frozen=True, slots=True)
class _Rendering:
    """How findings are written: the format, where to, the colour, and
    whether unsafe fixes count as fixable (`[*]`)."""

    output_format: str
    output_file: Path | None
    color: str
    unsafe: bool = False


def _render(
    findings: list[Finding],
    lines: SourceLines,
    how: _Rendering,
    stderr: bool = False,
    statistics: bool = False,
) -> None:
    shown, originals = displayable(findings)
    with _open_output(how.output_file, stderr=stderr) as stream:
        console = console_for(stream, "never" if how.output_file else how.color)
        out = Output(stream, console, lambda path: lines(originals.get(path, path)), how.unsafe)
        if statistics:
            _print_statistics(shown, out, how.output_format)
        else:
            renderer(how.output_format)(shown, out)


# --- fixes (joblint.pipeline.fix.run) ---


def _plural(count: int) -> str:
    return f"{count} finding{'' if count == 1 else 's'}"


def _files(count: int) -> str:
    return f"{count} file{'' if count == 1 else 's'}"


def _fix(
    config: Config, run: RunResult, stdin_source: bytes | None, options: CheckOptions
) -> tuple[int, str, bytes | None]:
    """Apply (or with --diff, print and exit) the fixes: how many, the summary
    line, and for standard input its fixed source (to write to stdout)."""
    from joblint.pipeline.fix.run import FixRun, fix_run, fix_stdin, summary, unified_diff

    unsafe, diff, show = options.unsafe(config), options.show_diff, options.show_fixes

    def relint_for(shown: str) -> Callable[[bytes], list[Finding]]:
        return relinter(config, run, shown)

    if stdin_source is not None:
        outcome = FixRun(remaining=list(run.findings))
        if run.results:  # as `lint_text` linted it
            shown = run.results[0].path
            outcome = fix_stdin(run.findings, shown, stdin_source, relint_for(shown), unsafe)
    else:
        outcome = fix_run(run.findings, relint_for, unsafe, write=not diff)
    run.findings = outcome.remaining
    for error in outcome.errors if diff or options.fix_only else ():  # else the summary's
        click.echo(f"joblint: error: {terminal(error)}", err=True)
    for path in outcome.skipped:
        click.echo(f"joblint: {terminal(path)} changed while fixing it: left alone", err=True)
    if diff:
        for fixed in outcome.changed:
            sys.stdout.write(unified_diff(fixed))
        noun = _plural(len(outcome.fixed))
        click.echo(f"Would fix {noun} in {_files(len(outcome.changed))}.", err=True)
        sys.exit(EXIT_ERROR if outcome.errors else 1 if outcome.changed else EXIT_CLEAN)
    if show:
        for finding in outcome.fixed:
            where = f"{finding.path}:{finding.span.line}:{finding.span.column}"
            click.echo(f"Fixed {terminal(where)}: {finding.code} {finding.name}", err=True)
    run.errors.extend(outcome.errors)  # one line each, and exit status 2
    source = None
    if stdin_source is not None:  # unchanged when nothing applied: an editor keeps its text
        source = outcome.files[0].data if outcome.files else stdin_source
    return len(outcome.fixed), summary(outcome, unsafe, _plural), source


# --- baselines (joblint.integrations.baseline, joblint.integrations) ---


def _write_baseline(
    path: Path, run: RunResult, lines: SourceLines, changes: integrations.Changes | None
) -> None:
    from joblint.integrations.baseline import write

    if changes is not None:
        _fail("--write-baseline records the whole project's findings: drop --diff-from")
    try:
        count = write(path, run.findings, lines)
    except ConfigError as exc:
        _fail(str(exc))
    for error in [*run.errors, *run.internal_errors]:
        click.echo(f"joblint: error: {error}", err=True)
    click.echo(f"Wrote {count} finding{'' if count == 1 else 's'} to {path}.", err=True)
    sys.exit(EXIT_ERROR if run.errors or run.internal_errors else EXIT_CLEAN)


def _apply_baseline(
    path: Path | None,
    prune: bool,
    run: RunResult,
    lines: SourceLines,
    checked: integrations.Checked,
) -> None:
    if path is None:
        if prune:
            _fail("--baseline-prune needs a baseline (--baseline FILE or the baseline key)")
        return
    from joblint.integrations import apply_baseline

    try:
        report = apply_baseline(path, run, lines, checked, prune)
    except ConfigError as exc:
        _fail(str(exc))
        return
    for message in report.messages:
        click.echo(f"joblint: baseline: {message}", err=True)


def _show_settings(config: Config, path: Path) -> None:
    if not path.exists():
        _fail(f"{path}: no such file or directory")
    directory = path.absolute() if path.is_dir() else path.absolute().parent
    own = Configs(config).for_directory(str(directory))
    for line in describe(own, path):
        click.echo(terminal(line))


def _show_files(config: Config, paths: tuple[Path, ...], options: RunOptions) -> None:
    """Ruff's `--show-files`: the files a run over `paths` would check, one
    a line, sorted; a path that can't be walked is an error (exit 2)."""
    listing = files_to_check(list(paths) or [Path(".")], config, options)
    try:
        sys.stdout.write("".join(f"{terminal(path)}\n" for path in listing.files))
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        # Python's recipe: stdout's last flush at exit must not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    for error in listing.errors:
        click.echo(f"joblint: error: {terminal(error)}", err=True)
    if listing.errors:
        sys.exit(EXIT_ERROR)


def _show_project_model(config: Config, paths: tuple[Path, ...], options: RunOptions) -> None:
    if len(paths) != 1:
        _fail("--show-project-model takes one Python file")
        return
    if not paths[0].is_file():
        _fail(f"{paths[0]}: not a file (--show-project-model takes one Python file)")
        return
    for line in describe_project_model(paths[0], config, options):
        click.echo(terminal(line))


def _run(
    config: Config,
    paths: tuple[Path, ...],
    stdin_source: bytes | None,
    stdin_filename: str | None,
    options: RunOptions,
) -> RunResult:
    if stdin_source is not None:
        return lint_text(stdin_source, stdin_filename or "-", config)
    return lint_paths(list(paths) or [Path(".")], config, options)


class _SourceCache:
    def __init__(self, stdin_name: str, stdin_source: bytes | None) -> None:
        self.stdin_name = stdin_name
        self.stdin_source = stdin_source

    @cache  # noqa: B019 - one instance per run
    def lines(self, path: str) -> list[str] | None:
        from joblint.pipeline.report.safe import source_lines
        from joblint.pipeline.source import SourceError, decode

        try:
            data = (
                self.stdin_source
                if (self.stdin_source is not None and path == self.stdin_name)
                else Path(path).read_bytes()
            )
            return source_lines(decode(data or b"")) if data is not None else None
        except (OSError, SourceError):
            return None


@contextmanager
def _open_output(path: Path | None, stderr: bool = False) -> Iterator[TextIO]:
    # Undecodable bytes in file names (lone surrogates) are written as `\udcff`
    # escapes, never a UnicodeEncodeError: every format stays valid.
    if path is None:
        stream = sys.stderr if stderr else sys.stdout  # stderr: stdout holds fixed source
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
        yield stream
        return
    from joblint.pipeline.fix.write import WriteRefused, refusal, replaced_whole

    problem = refusal(path, replace=False)  # by its mode bits, even as root
    if problem is not None:
        _fail(f"{path}: {problem if problem.startswith('cannot') else 'cannot write: ' + problem}")
    try:
        # The last report stays whole if the run fails while rendering a new one.
        with replaced_whole(path) as stream:
            yield stream
    except WriteRefused as exc:
        _fail(f"{path}: {exc}")


def _print_statistics(findings: list[Finding], out: Output, output_format: str) -> None:
    """Counts per rule, most frequent first: Ruff's `--statistics`, as a JSON
    array with `--format json` and as text otherwise."""
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter((f.code, f.name) for f in findings if f.fixable(out.unsafe_fixes))
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if output_format == "json":
        rows = [
            {"code": code, "name": name, "count": count, "fixable": fixable[code, name]}
            for (code, name), count in ordered
        ]
        out.stream.write(json.dumps(rows, indent=2) + "\n")
        return
    for (code, name), count in ordered:
        marker = "[*] " if fixable[code, name] else ""
        out.stream.write(f"{count:>5}\t{code}\t{marker}{name}\n")


def _print_summary(run: RunResult, output_format: str, unsafe: bool | None) -> None:
    """The errors, then the counts; `unsafe`: whether unsafe fixes are on (None:
    this run fixed, and the fix summary says what is left to fix)."""
    err = sys.stderr
    for warning in run.warnings:
        err.write(f"joblint: warning: {terminal(warning)}\n")
    for error in run.errors:
        err.write(f"joblint: error: {terminal(error)}\n")
    for error in run.internal_errors:
        err.write(f"joblint: {terminal(error)}\n")
    if output_format == "json":
        return
    count = len(run.findings)
    errors = len(run.errors) + len(run.internal_errors)
    files = len({f.path for f in run.findings})
    problems = [f"{_plural(count)} in {_files(files)}"] if count else []
    if errors:
        problems.append(f"{errors} error{'' if errors == 1 else 's'}")
    if problems:
        err.write(f"Found {' and '.join(problems)} ({_checked(run)}).\n")
    else:
        err.write(f"All checks passed ({_checked(run)}).\n")
    if unsafe is not None:
        hint = _fixable_hint(run.findings, unsafe)
        if hint:
            err.write(hint + "\n")
    if run.hidden_in_tests:
        hidden = _plural(run.hidden_in_tests)
        err.write(f"{hidden} in test code and migrations not shown (--include-tests shows them).\n")


def _print_problems(run: RunResult, silent: bool) -> None:
    """`--quiet`'s stderr: the errors and warnings a run met (they explain an
    exit status of 2), no counts or hints; `--silent`'s: nothing."""
    if silent:
        return
    err = sys.stderr
    for warning in run.warnings:
        err.write(f"joblint: warning: {terminal(warning)}\n")
    for error in run.errors:
        err.write(f"joblint: error: {terminal(error)}\n")
    for error in run.internal_errors:
        err.write(f"joblint: {terminal(error)}\n")


def _fixable_hint(findings: list[Finding], unsafe: bool) -> str:
    """Ruff's line: how many findings `--fix` fixes, and how many more it would
    with `--unsafe-fixes`."""
    fixable = sum(1 for f in findings if f.fixable(unsafe))
    hidden = sum(1 for f in findings if f.fixable(True) and not f.fixable(unsafe))
    more = (
        f"{hidden} hidden fix{'' if hidden == 1 else 'es'} can be enabled with the "
        "`--unsafe-fixes` option"
    )
    if fixable:
        text = f"[*] {fixable} fixable with the `--fix` option"
        return f"{text} ({more})." if hidden else f"{text}."
    return f"No fixes available ({more})." if hidden else ""


def _checked(run: RunResult) -> str:
    return f"{run.files_checked} file{'' if run.files_checked == 1 else 's'} checked"


def _exit_status(run: RunResult, exit_zero: bool) -> int:
    if run.internal_errors or run.errors:
        return EXIT_ERROR
    if run.findings and not exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format", "output_format", type=click.Choice(FORMATS), default="full", show_default=True
)
@click.option(
    "-o", "--output-file", type=click.Path(path_type=Path), help="Write results to a file."
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option(
    "--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True
)
def report(
    files: tuple[Path, ...],
    output_format: str,
    output_file: Path | None,
    exit_zero: bool,
    color: str,
) -> None:
    """Render findings JSON FILES in any output format; '-' reads standard input.

    A file is `joblint check --format json` output, or another tool's in its
    schema (joblint/pipeline/report/findings.schema.json). The findings of
    every file are reported together, in `check`'s order, a finding two
    files hold once. A file that can't be read, isn't JSON or breaks the
    schema is one line on stderr, the others are still reported, and the
    exit status is 2.
    """
    from joblint.pipeline.report.read import merged, source_file

    batches, bad = _read_findings_files(files)
    findings = merged(batches)
    sources = _SourceCache("-", None)  # standard input holds findings, never source

    def lines(path: str) -> list[str] | None:
        return sources.lines(path) if source_file(path) else None

    _render(findings, lines, _Rendering(output_format, output_file, color))
    if output_format != "json":
        _print_report_summary(findings, bad, len(files))
    if bad:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if findings and not exit_zero else EXIT_CLEAN)


def _read_findings_files(files: tuple[Path, ...]) -> tuple[list[list[Finding]], int]:
    """The findings of each file that could be read, and how many couldn't
    (each said on stderr)."""
    from joblint.pipeline.report.read import FindingsFileError, decode_findings, read_findings

    batches: list[list[Finding]] = []
    bad = 0
    for path in files:
        try:
            if path == Path("-"):
                batches.append(decode_findings(sys.stdin.buffer.read()))
            else:
                batches.append(read_findings(path))
        except FindingsFileError as exc:
            click.echo(f"joblint: error: {terminal(str(path))}: {terminal(str(exc))}", err=True)
            bad += 1
    return batches, bad


def _print_report_summary(findings: list[Finding], bad: int, given: int) -> None:
    files = len({f.path for f in findings})
    problems = [f"{_plural(len(findings))} in {_files(files)}"] if findings else []
    if bad:
        problems.append(f"{bad} error{'' if bad == 1 else 's'}")
    read = f"{given} findings file{'' if given == 1 else 's'} given"
    said = f"Found {' and '.join(problems)}" if problems else "No findings"
    sys.stderr.write(f"{said} ({read}).\n")


@main.command()
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto")
def rules(output_format: str, color: str) -> None:
    """List every rule."""
    catalogue: list[dict[str, Any]] = [
        {"code": r.code, "name": r.name, "preview": r.preview, "summary": r.summary}
        for r in listed()
    ]
    if output_format == "json":
        click.echo(json.dumps(catalogue, indent=2))
        return
    rows = [
        (r["code"], r["name"], "preview" if r["preview"] else "on", r["summary"]) for r in catalogue
    ]
    if not _is_terminal(sys.stdout) and color != "always":
        # Piped (grep, a file): whole lines, as wide as they need, never cut.
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            click.echo("  ".join([*cells, row[3]]))
        return
    from rich.table import Table

    table = Table(show_lines=False)
    table.add_column("Code", no_wrap=True)
    # Names are what `--select`/`explain` take: never wrapped or cut.
    table.add_column("Name", no_wrap=True, min_width=max(len(row[1]) for row in rows))
    table.add_column("Status", no_wrap=True)
    table.add_column("Summary", overflow="fold")
    for row in rows:
        table.add_row(*row)
    rich_console(sys.stdout, color).print(table)


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


@main.command()
@click.option(
    "--config", "config_file", type=click.Path(path_type=Path), help="Use this config file."
)
@click.option("--isolated", is_flag=True, help="Ignore all configuration files.")
def clean(config_file: Path | None, isolated: bool) -> None:
    """Remove the result cache of the current project."""
    from joblint.pipeline.cache import clear

    try:
        directory = cache_directory(load(config_file, isolated))
    except ConfigError as exc:
        _fail(str(exc))
        return
    removed = clear(directory) if directory.is_dir() else 0
    click.echo(f"Removed {removed} cache entries from {directory}.", err=True)


@main.command()
def server() -> None:
    """Run the language server for editors, over standard input and output.

    Needs the `server` extra: pip install 'joblint[server]'. See docs/editors.md.
    """
    from joblint.server import missing

    absent = missing()
    if absent:
        _fail(
            f"`joblint server` needs {' and '.join(absent)}: "
            "install the server extra with pip install 'joblint[server]'"
        )
    from joblint.server.app import serve

    serve()


@main.command()
@click.argument("rule")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto")
@click.option(
    "--no-pager", is_flag=True, help="Print the page even when it is longer than the terminal."
)
@click.option(
    "--all-examples",
    is_flag=True,
    help="Show every example the test suite checks, not only the teaching ones.",
)
def explain(rule: str, color: str, no_pager: bool, all_examples: bool) -> None:
    """Show a rule's documentation (by code or name), with its teaching examples.

    On a terminal the page is rendered and, when longer than the terminal,
    shown through $PAGER (else `less -R`), as git and Ruff do; piped, it is
    the page's markdown. `--all-examples` adds the rule's full example suite,
    read from the installed package (the page docs/rules/<CODE>.md holds).
    """
    found = lookup(rule)
    if found is None:
        _fail(f"unknown rule '{rule}' (see 'joblint rules')")
        return
    from joblint.docs_gen import rule_markdown

    page = rule_markdown(found, teaching_only=not all_examples)
    terminal_out = _is_terminal(sys.stdout)
    if not terminal_out and color != "always":
        click.echo(page, nl=False)
        return
    text = _rendered_markdown(page, color)
    if terminal_out and not no_pager and _pager.longer_than_terminal(text):
        _pager.page(text)
        return
    sys.stdout.write(text)


def _rendered_markdown(page: str, color: str) -> str:
    """`page` as rich renders markdown for this terminal: wrapped to its width
    (every word kept; a word wider than a line is folded, not cut)."""
    from rich.markdown import Markdown  # markdown-it and pygments: only `explain` needs them

    buffer = io.StringIO()
    # The width the output will have: the terminal's (COLUMNS when set).
    width = rich_console(sys.stdout, color).width
    console = rich_console(buffer, "always" if color != "never" else "never")
    console.width = width
    console.soft_wrap = False  # wrap the paragraphs to the width instead of cutting them
    console.print(Markdown(page, code_theme="ansi_dark"))
    return buffer.getvalue()

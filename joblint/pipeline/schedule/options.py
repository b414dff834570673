"""What a run is given besides its paths, as two frozen records.

- `CheckOptions`: every option of `joblint check` but its paths, as the
  command line gave them (built once by `joblint.cli.check`, and what the
  command's steps read: fixing, baselines, output). Two of its methods say
  what the pipeline takes from it: `config()`, *what to check* (the loaded
  `Config` with the command line's selection over it), and `run_options()`,
  *how to run*.
- `RunOptions`: how the pipeline runs (workers, cache, screening, progress
  callbacks), as opposed to what it checks (that is `Config`). The API's
  callers (the editor server, tests, benchmarks) build it directly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from joblint.config import Config, ConfigError, load

# Progress callback, once per file: joblint.pipeline.report.progress.SKIPPED,
# CACHED or CHECKED, and the file's size in bytes.
OnFile = Callable[[str, int], None]
# The number of files and their bytes in all, once read.
OnTotal = Callable[[int, int], None]
# The run moved on to a stage: joblint.pipeline.report.progress.PROJECT_MODEL
# (said again before each of its passes) or PROJECT_RULES.
OnStage = Callable[[str], None]
# `-q` given this many times is `--silent`.
SILENT = 2


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How to run, as opposed to what to check (that is `Config`)."""

    jobs: int = 1  # worker processes; 0 = one per CPU
    cache: bool = False
    use_prefilter: bool = True
    on_file: OnFile | None = None
    on_total: OnTotal | None = None
    on_stage: OnStage | None = None
    # The project model follows every call the named files make, not only
    # those inside a transaction (to describe what it infers for them).
    follow_every_call: bool = False


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """The options of `joblint check` (each field is the command line's
    option of that name; the defaults are the command's)."""

    # --- what to check (`config`) ---
    select: str | None = None  # comma-separated codes or prefixes
    extend_select: str | None = None
    ignore: str | None = None
    preview: bool | None = None  # None: as configured
    include_tests: bool | None = None
    force_exclude: bool = False
    config_file: Path | None = None
    isolated: bool = False
    # --- how to run (`run_options`) ---
    jobs: int = 0  # 0: one worker per CPU
    no_cache: bool = False
    # --- what to show instead of linting ---
    show_settings: bool = False
    show_project_model: bool = False
    show_files: bool = False
    # --- input and output ---
    stdin_filename: str | None = None
    output_format: str = "full"
    output_file: Path | None = None
    color: str = "auto"
    quiet: int = 0  # how many times -q was given
    silent: bool = False
    statistics: bool = False
    exit_zero: bool = False
    debug: bool = False
    # --- CI (joblint.integrations) ---
    diff_from: str | None = None
    baseline_file: Path | None = None
    write_baseline: Path | None = None
    baseline_prune: bool = False
    # --- fixes (joblint.pipeline.fix.run) ---
    fix: bool = False
    show_diff: bool = False
    unsafe_fixes: bool | None = None  # None: as configured
    fix_only: bool = False
    exit_non_zero_on_fix: bool = False
    show_fixes: bool = False

    def config(self) -> Config:
        """What to check: the configuration found (or named), with this
        command line's selection over it. Raises `ConfigError` for a bad
        configuration or an unknown rule code."""
        config = load(self.config_file, self.isolated).with_overrides(
            select=_codes(self.select),
            extend_select=_codes(self.extend_select),
            ignore=_codes(self.ignore),
            preview=self.preview,
            include_tests=self.include_tests,
            force_exclude=self.force_exclude or None,
        )
        _validate_codes(config)
        return config

    def run_options(
        self,
        on_file: OnFile | None = None,
        on_total: OnTotal | None = None,
        on_stage: OnStage | None = None,
    ) -> RunOptions:
        """How to run: the workers and the cache asked for, with the
        progress display's callbacks."""
        return RunOptions(
            jobs=self.jobs,
            cache=not self.no_cache,
            on_file=on_file,
            on_total=on_total,
            on_stage=on_stage,
        )

    @property
    def hushed(self) -> bool:
        """`-q`: the findings only (no summary, hints or progress)."""
        return self.quiet > 0 or self.silent

    @property
    def silenced(self) -> bool:
        """`-qq` or `--silent`: nothing printed, the exit status tells (an
        `--output-file` is still written: it was asked for)."""
        return self.quiet >= SILENT or self.silent

    @property
    def fixing(self) -> bool:
        """Whether the command applies or shows fixes."""
        return self.fix or self.show_diff or self.fix_only

    def unsafe(self, config: Config) -> bool:
        """Whether unsafe fixes are on: the command line's say, else the config's."""
        return config.unsafe_fixes if self.unsafe_fixes is None else self.unsafe_fixes


def _codes(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(
        c.strip() if c.strip() == "ALL" else c.strip().upper()
        for c in value.split(",")
        if c.strip()
    )


def _validate_codes(config: Config) -> None:
    from joblint.registry import is_known_selector

    layers = [code for layer in config.selections for code in (*layer.extend_select, *layer.ignore)]
    for code in (*config.select, *config.extend_select, *config.ignore, *layers):
        if not is_known_selector(code):
            raise ConfigError(f"unknown rule code or prefix '{code}'")

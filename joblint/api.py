"""joblint's public API: what the CLI, the flake8 plugin and tests call.

- `lint_paths(paths, config, options)`: lint files and directories as the CLI
  does (discovery, screening, workers, cache, the project step).
- `lint_text(data, filename, config)`: lint one source text (standard input).
- `relinter(config, run, path)`: re-lint new bytes of one of a run's files with
  the rest of the run's project around it (the fix loop); `outcome_relinter`
  gives the file's internal errors and warnings too (the editor server).
- `files_to_check(paths, config, options)`: the files `lint_paths` would
  check, sorted, and the paths it couldn't walk (`--show-files`).
- `describe_project_model(path, config, options)`: what the project model
  inferred for one file, as lines to print.
- `CheckOptions`: the options of `joblint check` (built once by the command);
  its `config()` is what to check, its `run_options()` how to run
  (`RunOptions`, which the other callers build directly).

The stages behind them live in `joblint.pipeline` (see docs/architecture.md).
"""

from __future__ import annotations

from joblint.pipeline.schedule.run import CheckOptions as CheckOptions
from joblint.pipeline.schedule.run import RunOptions as RunOptions
from joblint.pipeline.schedule.run import RunResult as RunResult
from joblint.pipeline.schedule.run import cache_directory as cache_directory
from joblint.pipeline.schedule.run import describe_project_model as describe_project_model
from joblint.pipeline.schedule.run import display_path as display_path
from joblint.pipeline.schedule.run import files_to_check as files_to_check
from joblint.pipeline.schedule.run import lint_paths as lint_paths
from joblint.pipeline.schedule.run import lint_text as lint_text
from joblint.pipeline.schedule.run import outcome_relinter as outcome_relinter
from joblint.pipeline.schedule.run import project_root as project_root
from joblint.pipeline.schedule.run import relinter as relinter

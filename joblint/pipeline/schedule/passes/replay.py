"""The run memo's pass: a run whose inputs a remembered run had ends as it did.

Takes the files read; gives `Replay`: the memo of the run (by every file's
shown path, module, content digest and settings, the screening's signature
and how the run is run; with a cache only), and what a remembered run with
the same inputs reported (settled again where the configurations it was
settled with differ), or None when the run has to run its passes (nothing
remembered, an entry gone, unreadable files). At the end of a run that ran
them, `Replay.remember` records what it reported and from which results.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from joblint.pipeline.discover import Discovery
from joblint.pipeline.report.progress import CACHED
from joblint.pipeline.schedule.deployment_files import deployment_paths
from joblint.pipeline.schedule.memo import (
    Input,
    Memo,
    Outcome,
    Remembered,
    Settled,
    run_key,
    stat_signature,
)
from joblint.pipeline.schedule.outcome import ProjectResults, RunResult, settle_apart
from joblint.pipeline.schedule.passes.read import Files
from joblint.pipeline.schedule.project_files import project_file_paths
from joblint.pipeline.schedule.roots import project_root
from joblint.pipeline.schedule.sources import Source
from joblint.pipeline.schedule.state import Run


@dataclass(slots=True)
class Replay:
    """The memo of a run (None: no cache), and what it replays (None: the
    run runs its passes)."""

    memo: Memo | None
    result: RunResult | None

    def remember(self, run: Run, outcome: Outcome, finished: RunResult) -> None:
        """Record the run's outcome and what it reported (with a cache)."""
        if self.memo is not None:
            self.memo.save(outcome, run.entries, _reported(run, finished))


def replay(run: Run, files: Files, discovery: Discovery) -> Replay:
    """The memo of the run, and the remembered run's report if it had these inputs."""
    memo = None
    if not files.unreadable:
        memo = _memo(run, files.sources, files.others, files.named_files)
    remembered = memo.load(_settling(run)) if memo is not None else None
    replayed = None
    if remembered is not None:
        replayed = _replayed(run, remembered, discovery, files.sources)
    return Replay(memo, replayed)


def _memo(run: Run, sources: list[Source], others: list[Source], named_files: bool) -> Memo | None:
    """The memo of the run, by everything its decisions depend on (with a cache)."""
    if run.cache is None:
        return None

    def inputs(group: list[Source]) -> list[Input]:
        return [Input(s.shown, s.module, s.key, run.selector.settings_for(s.path)) for s in group]

    options = run.options
    how = [run.prefilter.signature, options.use_prefilter, options.follow_every_call, named_files]
    # The deployment and configuration files' facts are read every run.
    if run.selector.reads_settings:
        root = project_root(run.config)
        how.append(stat_signature([*deployment_paths(root), *project_file_paths(root)]))
    return Memo(run.cache, run_key(inputs(sources), inputs(others), how))


def _replayed(
    run: Run, remembered: Remembered, discovery: Discovery, sources: list[Source]
) -> RunResult | None:
    """A run ended as the remembered run with the same inputs ended (the
    progress bar told what the prefilter skipped, the rest from the cache):
    what it reported, when settled as this run would settle it, else settled
    again from its outcome. None: an entry of the outcome is gone."""
    settled = remembered.settled
    outcome = remembered.outcome() if settled is None else None
    if settled is None and outcome is None:
        return None
    if run.options.on_file:
        if run.options.use_prefilter:
            run.screen_all(sources)
        for source in run.screened_in(sources)[0]:
            run.options.on_file(CACHED, source.size)
    run.manifest.save()
    settings = run.selector.project_settings(remembered.named)
    if settled is None:
        assert outcome is not None
        return settle_apart(
            outcome.parts(),
            discovery.errors,
            settings,
            len(discovery.files),
            tests=run.selector.test_code(),
        )
    return RunResult(
        findings=list(settled.findings),
        files_checked=len(discovery.files),
        errors=list(discovery.errors),
        internal_errors=list(settled.internal_errors),
        warnings=list(settled.warnings),
        settings=settings,
        hidden_in_tests=settled.hidden_in_tests,
        project=lambda: _remembered_project(remembered),
        shapes=remembered.shapes,
    )


def _remembered_project(remembered: Remembered) -> ProjectResults:
    """The replayed run's results and context (none, if an entry went since
    the run began: only re-linting a file with its project needs them)."""
    outcome = remembered.outcome()
    return ([], []) if outcome is None else (outcome.results, outcome.context)


def _settling(run: Run) -> str:
    """What settling a run's results depends on besides them, as a
    fingerprint: every configuration in use (the project settings, what
    counts as test code) and the rules selected."""
    configs = [repr(config) for config in run.selector.configs.loaded()]
    parts = json.dumps([configs, sorted(run.selector.base)])
    return hashlib.sha256(parts.encode("utf-8", "surrogateescape")).hexdigest()


def _reported(run: Run, finished: RunResult) -> Settled:
    return Settled(
        finished.findings,
        finished.hidden_in_tests,
        finished.internal_errors,
        finished.warnings,
        _settling(run),
    )

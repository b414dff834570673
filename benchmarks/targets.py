"""joblint's scale targets, side by side with Ruff and flake8, in one run.

    python benchmarks/targets.py [--runs 3] [--jobs 2] [--write-docs]

Three workloads, each measured in alternating rounds (a slow stretch of a
shared machine then moves every tool of a round alike; ratios are the
medians of the rounds' own ratios):
- the application: the pinned 4,300-file Django/Celery app `compare.py
  --application saleor` measures, cold and warm, and one file named as
  pre-commit names it, with no cache;
- the monorepo: eight applications of the hunting grounds at pinned commits
  (`monorepo.py` builds it under the bench directory the first time), cold,
  with the peak resident memory of joblint's whole process tree;
- the generated module: `generated_module.py`'s 50,000 lines of job code,
  cold, its time beside flake8's on the same file, and joblint's peak memory.
Each target is printed with its limit and whether it holds on this machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import compare
import generated_module
import monorepo

ROOT = Path(__file__).resolve().parents[1]
RUFF = ["ruff", "check", "--no-cache", "--isolated", "--exit-zero", "."]


@dataclass(frozen=True)
class Target:
    name: str
    measured: float
    limit: float
    unit: str = "x"

    @property
    def holds(self) -> bool:
        return self.measured <= self.limit

    def row(self) -> str:
        verdict = "holds" if self.holds else "MISSED"
        value, limit = _shown(self.measured, self.unit), _shown(self.limit, self.unit)
        return f"| {self.name} | {value} | <= {limit} | {verdict} |"


def _shown(value: float, unit: str) -> str:
    if unit == "MB":
        return f"{value:.0f} MB"
    if unit == "s":
        return f"{value:.2f} s"
    return f"{value:.2f}x"


def joblint(jobs: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "joblint", "check", "--isolated", "-j", str(jobs), *extra]


def rounds(
    corpus: Path, runs: int, commands: dict[str, list[str]], before: Callable[[], None]
) -> dict[str, compare.Measure]:
    """Each command once per round, `before` ahead of every round."""
    results: dict[str, compare.Measure] = {}
    record = compare.recorder(results, corpus)
    for _ in range(runs):
        before()
        for name, command in commands.items():
            record(name, command)
    return results


def ratio(results: dict[str, compare.Measure], name: str, other: str) -> float:
    return compare.round_ratio(results, name, other)


def application_targets(runs: int, jobs: int) -> tuple[list[Target], list[str]]:
    corpus = compare.pinned_application().resolve()
    results = compare.measure_application(corpus, runs, jobs)
    one = statistics.median(
        a / b
        for a, b in zip(
            results["joblint one file, no cache"].seconds,
            results[compare.RUFF].seconds,
            strict=True,
        )
    )
    targets = [
        Target("application: whole, cold / Ruff", ratio(results, compare.COLD, compare.RUFF), 8),
        Target(
            "application: whole, cold / flake8", ratio(results, compare.COLD, compare.FLAKE8), 0.12
        ),
        Target("application: whole, warm / Ruff", ratio(results, compare.WARM, compare.RUFF), 0.7),
        Target("application: one file, no cache / Ruff whole", one, 3),
    ]
    return targets, compare.application_table(corpus, results)


def monorepo_corpus() -> Path:
    out = compare.WORK / "monorepo"
    if not (out / "apps").is_dir() or len(list((out / "apps").iterdir())) < len(monorepo.PINNED):
        template = os.environ.get("JOBLINT_BENCH_GIT", monorepo.DEFAULT_GIT)
        shutil.rmtree(out, ignore_errors=True)
        monorepo.main(["--out", str(out), "--git", template])
    return out


def monorepo_targets(runs: int, jobs: int) -> tuple[list[Target], list[str]]:
    corpus = monorepo_corpus()
    cache = corpus / ".joblint_cache"
    commands = {"ruff": RUFF, "joblint cold": joblint(jobs, "--exit-zero", ".")}
    results = rounds(corpus, runs, commands, lambda: shutil.rmtree(cache, ignore_errors=True))
    shutil.rmtree(cache, ignore_errors=True)
    files = monorepo.python_files(corpus)
    apps = len(list((corpus / "apps").iterdir()))
    targets = [
        Target("monorepo: cold / Ruff", ratio(results, "joblint cold", "ruff"), 10),
        Target("monorepo: peak RSS", results["joblint cold"].peak_mb, 1024, "MB"),
    ]
    return targets, _table(f"monorepo: {apps} applications, {files} files", results)


def generated_targets(runs: int, jobs: int) -> tuple[list[Target], list[str]]:
    corpus = compare.WORK / "generated"
    module = generated_module.write_module(corpus, 50_000)
    commands = {
        "flake8": [compare.flake8_executable(), "--isolated", "--exit-zero", "."],
        "ruff": RUFF,
        "joblint cold": joblint(jobs, "--no-cache", "--exit-zero", "."),
    }
    results = rounds(corpus, runs, commands, lambda: None)
    lines = module.read_text().count("\n")
    targets = [
        Target("generated module: joblint / flake8", ratio(results, "joblint cold", "flake8"), 1),
        Target("generated module: peak RSS", results["joblint cold"].peak_mb, 400, "MB"),
    ]
    return targets, _table(f"generated module: {lines} lines", results)


def _table(title: str, results: dict[str, compare.Measure]) -> list[str]:
    return [f"### {title}", "", *compare.runs_table(results), ""]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    if not compare.tool_available("ruff"):
        raise SystemExit("the targets are measured beside Ruff: install it")
    compare.WORK.mkdir(parents=True, exist_ok=True)
    (compare.WORK / ".gitignore").write_text("*\n")
    targets: list[Target] = []
    details: list[str] = []
    for measure in (application_targets, monorepo_targets, generated_targets):
        found, table = measure(args.runs, args.jobs)
        targets += found
        details += table
    report = [
        f"Machine: {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
        f"{args.runs} alternating rounds, -j {args.jobs}; ratios are medians of each round's.",
        "",
        "| target | measured | limit | |",
        "| --- | ---: | ---: | --- |",
        *(t.row() for t in targets),
        "",
        *details,
    ]
    print("\n".join(report))
    if args.write_docs:
        compare.write_section(ROOT / "docs" / "performance.md", "<!-- targets -->", report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

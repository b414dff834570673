"""joblint cold and warm against flake8 and Ruff, on real code nobody here wrote.

    python benchmarks/compare.py [--runs 3] [--jobs 2] [--write-docs]

Corpora (built under $JOBLINT_BENCH_DIR, default /tmp/joblint-bench: outside any
git repository, whose .gitignore joblint and Ruff would obey):
- stdlib: the running interpreter's standard library (test, tests, idlelib excluded);
- site-packages: a venv with celery, kombu, django, sqlalchemy, redis, rq, dramatiq.
Tools (flake8, Ruff, and Fixit when it is on PATH) run alternately; medians of
wall time and of CPU time (user and system, workers included) and the peak
resident memory of the whole process tree are reported. The application's
ratios to Ruff and flake8 are also given round by round (each run beside the
others of its round), which a slow stretch of a shared machine moves less.
Run by hand or with `make bench`.

    python benchmarks/compare.py --application PATH [--write-docs]

measures a job-heavy application checked out at PATH (never committed here;
`make bench` passes $JOBLINT_BENCH_APP when set) the way its users run
joblint: the whole repository cold and warm, and one file named as pre-commit
names it, with no cache, first after a whole run (which leaves no facts-only
work cached) and then warm, beside Ruff on the whole repository.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Outside any git repository: joblint and Ruff skip what a .gitignore names, and
# a corpus inside this repository would take its root, cache and ignores.
WORK = Path(os.environ.get("JOBLINT_BENCH_DIR", Path(tempfile.gettempdir()) / "joblint-bench"))
SKIP_PARTS = {"test", "tests", "idlelib", "site-packages", "__pycache__"}
VENV_PACKAGES = ["celery", "kombu", "django", "sqlalchemy", "redis", "rq", "dramatiq"]


@dataclass
class Measure:
    seconds: list[float]
    peak_mb: float
    # CPU seconds (user and system) of the whole process tree, run by run.
    cpu: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu)


def round_ratio(results: dict[str, Measure], name: str, other: str) -> float:
    """The median over the rounds of `name`'s time over `other`'s in the same
    round: the tools of a round run minutes apart at most, so a slow stretch
    of a shared machine weighs on both sides of each ratio."""
    pairs = zip(results[name].seconds, results[other].seconds, strict=True)
    return statistics.median(mine / theirs for mine, theirs in pairs)


def copy_python_files(source: Path, target: Path) -> None:
    if target.exists():
        return
    for path in source.rglob("*.py"):
        relative = path.relative_to(source)
        if SKIP_PARTS & set(relative.parts[:-1]):
            continue
        out = target / relative
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out)


def stdlib_corpus() -> Path:
    target = WORK / "stdlib"
    copy_python_files(Path(sysconfig.get_paths()["stdlib"]), target)
    return target


def site_packages_corpus() -> Path:
    target = WORK / "site-packages"
    if target.exists():
        return target
    venv = WORK / "venv"
    if not venv.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, *VENV_PACKAGES], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    for package in site.iterdir():
        if package.is_dir() and not package.name.endswith((".dist-info", "__pycache__")):
            copy_python_files(package, target / package.name)
    return target


def _tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants (Linux /proc)."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
            pending.extend(int(c) for c in children)
        except (OSError, ValueError):
            continue
    return total


def timed(command: list[str], cwd: Path) -> tuple[float, float, float]:
    """(wall seconds, peak MB of the process tree, its CPU seconds)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, _tree_rss_kb(process.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    # wait4: the rusage of the process and of the workers it waited for.
    _, status, usage = os.wait4(process.pid, 0)
    # Timed here: joining the sampler may wait out its sleep, which is no run's time.
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    stop.set()
    sampler.join()
    return seconds, peak / 1024, usage.ru_utime + usage.ru_stime


def recorder(results: dict[str, Measure], cwd: Path) -> Callable[[str, list[str]], None]:
    """A function timing a command in `cwd` into `results` under a name."""

    def record(name: str, command: list[str]) -> None:
        seconds, peak, cpu = timed(command, cwd)
        entry = results.setdefault(name, Measure([], 0.0))
        entry.seconds.append(seconds)
        entry.cpu.append(cpu)
        entry.peak_mb = max(entry.peak_mb, peak)

    return record


def flake8_executable() -> str:
    """flake8 with its default plugins only, in a venv of its own: where joblint is
    installed, flake8 would also load joblint's plugin and run it."""
    venv = WORK / "flake8-venv"
    flake8 = venv / "bin" / "flake8"
    if not flake8.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "flake8"]
        subprocess.run(pip, check=True)
    return str(flake8)


def tool_available(name: str) -> bool:
    return shutil.which(name) is not None


def measure_corpus(corpus: Path, runs: int, jobs: int) -> dict[str, Measure]:
    joblint = [sys.executable, "-m", "joblint", "check", "--isolated", "-j", str(jobs), "."]
    cache = corpus / ".joblint_cache"
    touched = next(p for p in sorted(corpus.rglob("*.py")) if p.stat().st_size > 1000)
    original = touched.read_bytes()
    commands: dict[str, list[str]] = {"joblint-warm": joblint}
    commands["flake8"] = [flake8_executable(), "-j", str(jobs), "--exit-zero", "."]
    if tool_available("ruff"):
        commands["ruff"] = ["ruff", "check", "--no-cache", "--isolated", "--exit-zero", "."]
    if tool_available("fixit"):  # LibCST-based like joblint; only where installed
        commands["fixit"] = ["fixit", "lint", "."]
    results: dict[str, Measure] = {}
    record = recorder(results, corpus)

    _check_tools(corpus, joblint, commands)
    subprocess.run(joblint, cwd=corpus, capture_output=True)  # fill the cache once
    for _ in range(runs):
        shutil.rmtree(cache, ignore_errors=True)
        record("joblint-cold", joblint)
        for name, command in commands.items():
            record(name, command)
        touched.write_bytes(original + b"\n# touched by the benchmark\n")
        record("joblint-touched", joblint)
        touched.write_bytes(original)
        subprocess.run(joblint, cwd=corpus, capture_output=True)
    return results


def _check_tools(corpus: Path, joblint: list[str], commands: dict[str, list[str]]) -> None:
    """Fail loudly rather than time a tool that checks nothing."""
    files = sum(1 for _ in corpus.rglob("*.py"))
    run = subprocess.run(joblint, cwd=corpus, capture_output=True, text=True)
    found = re.search(r"\((\d+) files checked\)", run.stdout + run.stderr)
    # The default excludes skip a few (the stdlib's own `venv` package).
    if found is None or int(found.group(1)) < 0.95 * files:
        reason = run.stderr[-500:]
        raise SystemExit(f"joblint did not check the {files} files of {corpus}: {reason}")
    for name, command in commands.items():
        if name == "joblint-warm":
            continue
        done = subprocess.run(command, cwd=corpus, capture_output=True, text=True)
        if done.returncode not in (0, 1) or "No Python files" in done.stderr:
            raise SystemExit(f"{name} failed on {corpus}: {done.stderr[-500:]}")


def prefilter_rate(corpus: Path) -> tuple[int, float, float]:
    """(files, share of files LibCST parses, share of bytes it parses) with the
    default rules: the files the prefilter and its AST checks pass (the second
    pass, driven by the project's task names, adds none in corpora without
    job code)."""
    from joblint.pipeline.screen.prefilter import Prefilter
    from joblint.pipeline.screen.verdicts import screen_source
    from joblint.registry import select_codes

    codes = select_codes(["ALL"], [], [], preview=False)
    prefilter = Prefilter(codes, [], project_facts=True)
    datas = [p.read_bytes() for p in corpus.rglob("*.py")]
    kept = [d for d in datas if screen_source(prefilter, d, check_syntax=False).wanted]
    total = sum(map(len, datas)) or 1
    return len(datas), len(kept) / max(1, len(datas)), sum(map(len, kept)) / total


def identical_output(corpus: Path, jobs: int) -> bool:
    """Findings byte-identical between `-j 1 --no-cache` and a cached `-j N` run."""
    base = [sys.executable, "-m", "joblint", "check", "--isolated", "--format", "json"]
    serial = subprocess.run([*base, "-j", "1", "--no-cache", "."], cwd=corpus, capture_output=True)
    subprocess.run([*base, "-j", str(jobs), "."], cwd=corpus, capture_output=True)  # fill
    cached = subprocess.run([*base, "-j", str(jobs), "."], cwd=corpus, capture_output=True)
    return serial.stdout == cached.stdout and bool(serial.stdout)


def pre_commit_file(corpus: Path) -> Path:
    """The file a pre-commit run names: the first (sorted) that enqueues a
    job inside a transaction, as the files a developer edits there do."""
    for path in sorted(corpus.rglob("*.py")):
        if {"test", "tests", "migrations"} & set(path.parts) or path.name.startswith("test_"):
            continue
        data = path.read_bytes()
        if b"atomic" in data and b".delay(" in data:
            return path
    raise SystemExit(f"no file of {corpus} enqueues inside a transaction")


# The application `make bench` measures: a 4,300-file Django/Celery
# e-commerce application at a fixed commit, fetched into the bench directory
# (never into this repository).
APPLICATION_REPOSITORY = "https://github.com/saleor/saleor"
APPLICATION_COMMIT = "723cd4eba87dfc72822ade45dc08a3caa548428d"


def pinned_application() -> Path:
    """The pinned application's checkout, fetched the first time (git, shallow)."""
    checkout = WORK / f"saleor-{APPLICATION_COMMIT[:12]}"
    if (checkout / "saleor").is_dir():
        return checkout
    shutil.rmtree(checkout, ignore_errors=True)
    checkout.mkdir(parents=True)
    git = ["git", "-C", str(checkout)]
    steps = [
        [*git, "init", "--quiet"],
        [*git, "fetch", "--quiet", "--depth", "1", APPLICATION_REPOSITORY, APPLICATION_COMMIT],
        [*git, "checkout", "--quiet", "FETCH_HEAD"],
    ]
    for step in steps:
        if subprocess.run(step, check=False).returncode != 0:
            shutil.rmtree(checkout, ignore_errors=True)
            raise SystemExit(
                f"could not fetch {APPLICATION_REPOSITORY} at {APPLICATION_COMMIT}: "
                "set JOBLINT_BENCH_APP to a checkout of it"
            )
    return checkout


COLD = "joblint whole, cold"
WARM = "joblint whole, warm"
RUFF = "ruff (whole repository)"
FLAKE8 = "flake8 (whole repository)"


def worker_counts(jobs: int) -> list[int]:
    """The `-j` curve: 1, 2, 4, ... up to the machine's CPUs (and `jobs`)."""
    most = max(jobs, os.cpu_count() or 1)
    counts = [1]
    while counts[-1] * 2 <= most:
        counts.append(counts[-1] * 2)
    return counts


def _curve_name(workers: int) -> str:
    return f"{COLD}, no cache, -j {workers}"


def measure_application(corpus: Path, runs: int, jobs: int) -> dict[str, Measure]:
    base = [sys.executable, "-m", "joblint", "check", "--isolated", "-j", str(jobs)]
    named = str(pre_commit_file(corpus).relative_to(corpus))
    cache = corpus / ".joblint_cache"
    commands = {
        RUFF: ["ruff", "check", "--no-cache", "--isolated", "--exit-zero", "."],
        FLAKE8: [flake8_executable(), "-j", str(jobs), "--isolated", "--exit-zero", "."],
        "joblint one file, no cache": [*base, "--no-cache", named],
    }
    for workers in worker_counts(jobs):
        commands[_curve_name(workers)] = [*base[:-1], str(workers), "--no-cache", "."]
    results: dict[str, Measure] = {}
    record = recorder(results, corpus)

    for _ in range(runs):
        shutil.rmtree(cache, ignore_errors=True)
        record(COLD, [*base, "."])
        record(WARM, [*base, "."])
        record("joblint one file, after a whole run", [*base, named])
        record("joblint one file, warm", [*base, named])
        for name, command in commands.items():
            record(name, command)
    shutil.rmtree(cache, ignore_errors=True)
    return results


def application_identical(corpus: Path, jobs: int) -> bool:
    """Findings byte-identical: cold and warm, `-j 1` and `-j N`."""
    base = [
        sys.executable,
        "-m",
        "joblint",
        "check",
        "--isolated",
        "--format",
        "json",
        "--exit-zero",
    ]
    cache = corpus / ".joblint_cache"
    shutil.rmtree(cache, ignore_errors=True)

    def output(*extra: str) -> bytes:
        done = subprocess.run([*base, *extra, "."], cwd=corpus, capture_output=True, check=True)
        return done.stdout

    outputs = [
        output("-j", "1", "--no-cache"),
        output("-j", str(jobs)),  # cold, filling the cache
        output("-j", str(jobs)),  # warm
        output("-j", "1"),  # warm, one worker
    ]
    shutil.rmtree(cache, ignore_errors=True)
    return len(set(outputs)) == 1


def application_table(
    corpus: Path, results: dict[str, Measure], identical: bool | None = None
) -> list[str]:
    files = sum(1 for _ in corpus.rglob("*.py"))
    named = pre_commit_file(corpus).relative_to(corpus)
    ruff = results[RUFF].median
    one_cold = results["joblint one file, no cache"].median
    after_whole = results["joblint one file, after a whole run"].median
    cold = results[COLD].median
    lines = [
        f"### application {corpus.name}: {files} files; the file named: {named}",
        "",
        *runs_table(results),
        "",
        f"- whole, cold / Ruff = {cold / ruff:.1f} (target <= 8); "
        f"round by round: median {round_ratio(results, COLD, RUFF):.1f}",
    ]
    if FLAKE8 in results:
        flake8 = results[FLAKE8].median
        lines.append(
            f"- whole, cold / flake8 = {cold / flake8:.3f} (target <= 0.12); "
            f"round by round: median {round_ratio(results, COLD, FLAKE8):.3f}"
        )
    lines += [
        f"- whole, warm / Ruff = {results[WARM].median / ruff:.2f} (target <= 0.7)",
        f"- one file, no cache / Ruff whole repository = {one_cold / ruff:.1f} (target <= 3)",
        f"- one file, warm = {results['joblint one file, warm'].median:.2f} s; "
        f"the first after a whole run = {after_whole:.2f} s",
    ]
    curve = [(w, results[_curve_name(w)].median) for w in _measured_counts(results)]
    if len(curve) > 1:
        one = curve[0][1]
        points = ", ".join(f"-j {w} {t:.2f} s ({one / t:.2f}x)" for w, t in curve)
        lines.append(f"- the -j curve, cold with no cache (speed-up over -j 1): {points}")
    if identical is not None:
        said = "identical" if identical else "DIFFERENT"
        lines.append(f"- findings cold/warm, -j 1/-j N: {said}")
    lines.append("")
    return lines


def runs_table(results: dict[str, Measure]) -> list[str]:
    """Each run's median time, median CPU time and peak memory, as a table."""
    return [
        "| run | median s | median CPU s | peak RSS MB |",
        "| --- | ---: | ---: | ---: |",
        *(
            f"| {n} | {m.median:.2f} | {m.median_cpu:.2f} | {m.peak_mb:.0f} |"
            for n, m in results.items()
        ),
    ]


def _measured_counts(results: dict[str, Measure]) -> list[int]:
    prefix = _curve_name(0)[:-1]
    return sorted(int(name[len(prefix) :]) for name in results if name.startswith(prefix))


def table(name: str, corpus: Path, results: dict[str, Measure], identical: bool) -> list[str]:
    files, file_share, byte_share = prefilter_rate(corpus)
    megabytes = sum(p.stat().st_size for p in corpus.rglob("*.py")) / 1e6
    cold = results["joblint-cold"].median
    warm = results["joblint-warm"].median
    lines = [
        f"### {name}: {files} files, {megabytes:.1f} MB; LibCST parses "
        f"{file_share:.1%} of files ({byte_share:.1%} of bytes) after the prefilter",
        "",
        "| tool | median s | median CPU s | peak RSS MB |",
        "| --- | ---: | ---: | ---: |",
    ]
    for tool, m in results.items():
        lines.append(f"| {tool} | {m.median:.2f} | {m.median_cpu:.2f} | {m.peak_mb:.0f} |")
    lines.append("")
    if "flake8" in results:
        lines.append(f"- cold / flake8 = {cold / results['flake8'].median:.3f} (target <= 0.15)")
    if "ruff" in results:
        lines.append(f"- warm / ruff = {warm / results['ruff'].median:.2f} (target <= 1.0)")
    touched = results["joblint-touched"].median
    lines.append(f"- touched one file / warm = {touched / warm:.2f} (target <= 1.5)")
    peak = max(m.peak_mb for n, m in results.items() if n.startswith("joblint"))
    lines.append(f"- joblint peak RSS (process tree) = {peak:.0f} MB (target <= 400)")
    verdict = "byte-identical" if identical else "DIFFERENT"
    lines.append(f"- findings, -j 1 --no-cache vs cached -j N: {verdict}")
    lines.append("")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--corpus", choices=["stdlib", "site-packages", "both"], default="both")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument(
        "--application",
        help="A job-heavy application's checkout, or 'saleor': the pinned one, fetched once.",
    )
    args = parser.parse_args()
    if args.application is not None:
        checkout = pinned_application() if args.application == "saleor" else Path(args.application)
        return bench_application(checkout.resolve(), args.runs, args.jobs, args.write_docs)
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / ".gitignore").write_text("*\n")
    corpora = {
        "stdlib": stdlib_corpus,
        "site-packages": site_packages_corpus,
    }
    chosen = list(corpora) if args.corpus == "both" else [args.corpus]
    report = [
        f"Machine: {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
        f"{args.runs} alternating runs, -j {args.jobs}.",
        "",
    ]
    for name in chosen:
        corpus = corpora[name]()
        results = measure_corpus(corpus, args.runs, args.jobs)
        report.extend(table(name, corpus, results, identical_output(corpus, args.jobs)))
    print("\n".join(report))
    if args.write_docs:
        docs = ROOT / "docs" / "performance.md"
        text = docs.read_text() if docs.exists() else ""
        marker = "<!-- results -->"
        head = text.split(marker)[0] if marker in text else text
        docs.write_text(head.rstrip() + f"\n\n{marker}\n\n" + "\n".join(report) + "\n")
    return 0


def bench_application(corpus: Path, runs: int, jobs: int, write_docs: bool) -> int:
    if not tool_available("ruff"):
        raise SystemExit("the application benchmark compares with Ruff: install it")
    report = [
        f"Machine: {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
        f"{runs} alternating runs, -j {jobs}.",
        "",
        *application_table(
            corpus, measure_application(corpus, runs, jobs), application_identical(corpus, jobs)
        ),
    ]
    print("\n".join(report))
    if write_docs:
        write_section(ROOT / "docs" / "performance.md", "<!-- application -->", report)
    return 0


def write_section(docs: Path, marker: str, report: list[str]) -> None:
    """Replace what follows `marker` up to the next marker (or the end)."""
    text = docs.read_text() if docs.exists() else ""
    head, found, rest = text.partition(marker)
    tail = ""
    if found:
        after = rest.find("<!-- ", 1)
        tail = rest[after:] if after != -1 else ""
    body = "\n".join(report).rstrip()
    docs.write_text(head.rstrip() + f"\n\n{marker}\n\n{body}\n" + ("\n" + tail if tail else ""))


if __name__ == "__main__":
    sys.exit(main())

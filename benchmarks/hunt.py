"""Lint real projects and print every finding for review, grouped by rule and file.

A hunt for false positives reads every finding of a run over projects joblint
was not written against. This script makes the run repeatable:

    python benchmarks/hunt.py ~/corpus/plane ~/corpus/saleor
    python benchmarks/hunt.py --corpus ~/corpus                # every directory in it
    python benchmarks/hunt.py --corpus ~/corpus --save runs/a  # keep the findings as JSON
    python benchmarks/hunt.py --corpus ~/corpus --compare runs/a   # what was lost or is new

Each project is linted on its own, with `--isolated` (the project's own config
never changes what is reported) and without the cache, by the installed
`joblint` of this interpreter. Each finding is printed with its source line so
that it can be judged where it stands. `--include-tests` lints test code too
(the default is production code only, as a user's run is).

Nothing of the projects is written anywhere but `--save`'s directory, which
belongs outside this repository.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from joblint.config import Config
from joblint.pipeline.discover import discover


@dataclass(frozen=True, slots=True)
class Found:
    project: str
    code: str
    path: str  # relative to the project
    line: int
    column: int
    message: str

    @property
    def key(self) -> tuple[str, str, str, int, int]:
        return (self.project, self.code, self.path, self.line, self.column)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    projects = _projects(args.projects, args.corpus)
    if not projects:
        print("hunt: no projects given (paths, or --corpus DIR)", file=sys.stderr)
        return 2
    flags = _joblint_flags(args)
    everything: list[Found] = []
    for project in projects:
        found, files, error = _lint(project, flags)
        if error:
            print(f"hunt: {project.name}: {error}", file=sys.stderr)
        everything.extend(found)
        print(f"== {project.name}: {files} files, {len(found)} findings", file=sys.stderr)
        if args.save:
            _save(Path(args.save), project.name, found)
    if args.compare:
        return _print_comparison(Path(args.compare), projects, everything)
    _print_grouped(everything, projects, context=not args.no_source)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("projects", nargs="*", type=Path, help="project directories")
    parser.add_argument("--corpus", type=Path, help="a directory whose subdirectories are projects")
    parser.add_argument("--include-tests", action="store_true", help="lint test code too")
    parser.add_argument("--preview", action="store_true", help="preview rules too")
    parser.add_argument("--select", help="rule codes, as joblint's --select")
    parser.add_argument("--save", help="write each project's findings to DIR/<project>.json")
    parser.add_argument("--compare", help="compare with the findings --save wrote to DIR")
    parser.add_argument("--no-source", action="store_true", help="omit the source lines")
    return parser


def _projects(paths: Iterable[Path], corpus: Path | None) -> list[Path]:
    found = [p for p in paths if p.is_dir()]
    if corpus is not None:
        found.extend(sorted(p for p in corpus.iterdir() if p.is_dir()))
    return found


def _joblint_flags(args: argparse.Namespace) -> list[str]:
    flags = ["--isolated", "--no-cache", "--format", "json", "--exit-zero"]
    if args.include_tests:
        flags.append("--include-tests")
    if args.preview:
        flags.append("--preview")
    if args.select:
        flags.extend(["--select", args.select])
    return flags


def _lint(project: Path, flags: list[str]) -> tuple[list[Found], int, str]:
    """The project's findings, the number of files checked, and any error."""
    command = [sys.executable, "-m", "joblint", "check", *flags, "."]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, check=False)
    try:
        rows = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        return [], 0, f"joblint printed no JSON (exit {done.returncode}): {done.stderr[-300:]}"
    found = [
        Found(
            project.name,
            row["code"],
            row["path"],
            row["line"],
            row["column"],
            row["message"],
        )
        for row in rows
    ]
    error = done.stderr.strip() if done.returncode not in (0, 1) else ""
    return found, _files_checked(project), error


def _files_checked(project: Path) -> int:
    """The files a run over the project checks, found as joblint finds them."""
    config = Config(root=project.resolve())
    return len(discover([project], config).files)


def _print_grouped(found: list[Found], projects: list[Path], *, context: bool) -> None:
    roots = {p.name: p for p in projects}
    by_rule: dict[str, dict[tuple[str, str], list[Found]]] = defaultdict(lambda: defaultdict(list))
    for item in found:
        by_rule[item.code][(item.project, item.path)].append(item)
    counts = Counter(item.code for item in found)
    for code in sorted(by_rule):
        print(f"\n#### {code} ({counts[code]})")
        for (project, path), items in sorted(by_rule[code].items()):
            print(f"\n{project}/{path}")
            lines = _source_lines(roots[project] / path) if context else []
            for item in sorted(items, key=lambda i: (i.line, i.column)):
                print(f"  {item.line}:{item.column}  {item.message}")
                if 0 < item.line <= len(lines):
                    print(f"      | {lines[item.line - 1].strip()[:160]}")


def _source_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _save(directory: Path, project: str, found: list[Found]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    rows = [
        {"code": f.code, "path": f.path, "line": f.line, "column": f.column, "message": f.message}
        for f in found
    ]
    (directory / f"{project}.json").write_text(json.dumps(rows, indent=1) + "\n")


def _load(directory: Path, project: str) -> list[Found]:
    path = directory / f"{project}.json"
    if not path.exists():
        return []
    return [
        Found(project, r["code"], r["path"], r["line"], r["column"], r["message"])
        for r in json.loads(path.read_text())
    ]


def _print_comparison(directory: Path, projects: list[Path], now: list[Found]) -> int:
    """Findings by (rule, file, line, column): lost since the saved run, and new."""
    before = [f for p in projects for f in _load(directory, p.name)]
    old = {f.key: f for f in before}
    new = {f.key: f for f in now}
    lost = [old[k] for k in sorted(old.keys() - new.keys())]
    added = [new[k] for k in sorted(new.keys() - old.keys())]
    reworded = [new[k] for k in sorted(old.keys() & new.keys()) if old[k].message != new[k].message]
    for title, items in (("lost", lost), ("new", added), ("message changed", reworded)):
        print(f"\n#### {title} ({len(items)})")
        for f in items:
            print(f"  {f.project}/{f.path}:{f.line}:{f.column} {f.code} {f.message}")
            if title == "message changed":
                print(f"      was: {old[f.key].message}")
    counts = f"{len(lost)} lost, {len(added)} new, {len(reworded)} with another message"
    print(f"\n{len(old)} before, {len(new)} now: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

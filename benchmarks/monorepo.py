"""Assemble a monorepo benchmark from checkouts of several applications.

    python benchmarks/monorepo.py --out /tmp/joblint-bench/monorepo CHECKOUT...
    python benchmarks/monorepo.py --out DIR --corpus /path/to/checkouts --count 8

Each application's Python files (and its pyproject.toml / setup.cfg /
settings files, which joblint and Ruff read) are copied under
`apps/<name>/` of the output, as a monorepo holds its services; a root
`pyproject.toml` declares the workspace. Use projects from the hunting
grounds (never the excluded ones); `--corpus` takes the largest `--count`
directories of a folder of checkouts. The output is outside any git
repository, so .gitignore files of this one don't apply. Prints the file count.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

KEPT = ("*.py", "pyproject.toml", "setup.cfg", "tox.ini", ".flake8")
SKIPPED = {".git", "node_modules", "__pycache__", ".venv", "venv"}


def python_files(root: Path) -> int:
    return sum(1 for _ in root.rglob("*.py"))


def largest(corpus: Path, count: int) -> list[Path]:
    checkouts = [path for path in corpus.iterdir() if path.is_dir()]
    return sorted(checkouts, key=python_files, reverse=True)[:count]


def copy_application(source: Path, target: Path) -> int:
    copied = 0
    for pattern in KEPT:
        for path in source.rglob(pattern):
            if SKIPPED & set(path.relative_to(source).parts) or not path.is_file():
                continue
            destination = target / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
            copied += 1
    return copied


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, help="take the largest checkouts of this folder")
    parser.add_argument("--count", type=int, default=8)
    args = parser.parse_args(argv)
    sources = list(args.checkouts) + (largest(args.corpus, args.count) if args.corpus else [])
    if len(sources) < 2:
        parser.error("give at least two checkouts (or --corpus)")
    if args.out.exists():
        shutil.rmtree(args.out)
    (args.out / "apps").mkdir(parents=True)
    (args.out / "pyproject.toml").write_text(
        '[project]\nname = "monorepo"\nversion = "0"\n\n[tool.joblint]\n'
    )
    for source in sources:
        copied = copy_application(source, args.out / "apps" / source.name)
        print(f"{source.name}: {copied} files", file=sys.stderr)
    print(python_files(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

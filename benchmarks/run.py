"""Time joblint over a tree of Python files (default: this interpreter's stdlib).

Run by hand or with `make bench`; never part of the test suite's assertions.

    python benchmarks/run.py [PATH] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import sysconfig
import time
from pathlib import Path

from joblint.api import lint_paths
from joblint.config import Config


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", nargs="?", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sys.setrecursionlimit(10_000)
    root = Path(args.path)
    config = Config(
        root=root.resolve(),
        extend_exclude=("test", "tests", "idlelib"),
        respect_gitignore=False,
    )
    timings = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        run = lint_paths([root], config)
        timings.append(time.perf_counter() - start)
    print(
        f"{run.files_checked} files, {len(run.findings)} findings, "
        f"median {statistics.median(timings):.2f}s over {args.repeat} runs "
        f"(min {min(timings):.2f}s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

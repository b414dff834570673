"""Claim throughput of joblint_runtime.queue with N worker processes.

Run by hand: ``python3 benchmarks/runtime_claim.py [--jobs 5000] [--workers 8]``.
Starts a throwaway PostgreSQL cluster (unless ``--dsn`` is given) and uses a
temporary SQLite file, enqueues the jobs, then lets the workers drain the queue
with ``JobQueue.process_one`` (claim + commit, no-op handler, complete + commit)
and prints jobs/s for each backend. The number includes both commits per job:
it is what a worker loop can sustain, not the bare UPDATE.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

import psycopg  # noqa: E402
from joblint_runtime.queue import JobQueue  # noqa: E402
from services import start_postgres  # noqa: E402

mp = multiprocessing.get_context("fork")
TABLE = "bench_jobs"


def connect(backend: str, target: str) -> Any:
    if backend == "postgres":
        return psycopg.connect(target)
    conn = sqlite3.connect(target, timeout=60, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def worker(backend: str, target: str, name: str, ready: Any, out: Any) -> None:
    conn = connect(backend, target)
    queue = JobQueue(TABLE)
    ready.wait()
    done = 0
    while queue.process_one(conn, name, lambda job: None) is not None:
        done += 1
    conn.close()
    out.put(done)


def measure(backend: str, target: str, jobs: int, workers: int) -> float:
    conn = connect(backend, target)
    queue = JobQueue(TABLE)
    # A fresh table per round: dead tuples left by the previous round would
    # otherwise slow the later rounds down (run VACUUM in production).
    conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
    queue.ensure_schema(conn)
    conn.commit()
    if backend == "sqlite":
        conn.execute("BEGIN")
    for i in range(jobs):
        queue.enqueue(conn, "bench", {"i": i})
    conn.commit()
    conn.close()

    ready, out = mp.Barrier(workers + 1), mp.Queue()
    procs = [mp.Process(target=worker, args=(backend, target, f"w{n}", ready, out))
             for n in range(workers)]
    for proc in procs:
        proc.start()
    ready.wait()
    started = time.perf_counter()
    total = sum(out.get(timeout=600) for _ in procs)
    elapsed = time.perf_counter() - started
    for proc in procs:
        proc.join()
    if total != jobs:
        raise SystemExit(f"{backend}: processed {total} of {jobs} jobs")
    return jobs / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--dsn", help="use this PostgreSQL instead of a throwaway cluster")
    parser.add_argument("--rounds", type=int, default=3, help="report the best of N rounds")
    args = parser.parse_args()

    server = None if args.dsn else start_postgres()
    dsn = args.dsn or (server.dsn if server else "")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            targets = {"postgres": dsn, "sqlite": str(Path(tmp) / "bench.db")}
            for backend, target in targets.items():
                rates = [measure(backend, target, args.jobs, args.workers)
                         for _ in range(args.rounds)]
                print(f"{backend:8s} {args.workers} workers, {args.jobs} jobs: "
                      f"best {max(rates):7.0f} jobs/s  (rounds: "
                      f"{', '.join(f'{r:.0f}' for r in rates)})")
    finally:
        if server:
            server.stop()


if __name__ == "__main__":
    main()

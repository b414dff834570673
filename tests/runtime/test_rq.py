"""``jittered_intervals`` with a real RQ worker (and its scheduler) on the test Redis.

The job module is the "rq-jobs" block of docs/runtime.md after a preamble that
stands in for the user's Redis connection and CRM; the CRM is down for the
first two pushes of every customer and records each attempt.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
import redis
from rq.job import Job

from .services import RedisServer
from .workers import doc_snippet, import_module, rq_worker, stop_all, wait_until

PREAMBLE = '''\
"""Test preamble: the user's Redis connection and CRM, recording every attempt."""
import json
import sys
import os
import time

import redis
from rq import get_current_job

redis_conn = redis.Redis.from_url(os.environ["BROKER_URL"])
_records = redis.Redis.from_url(os.environ["RECORDS_URL"])


class _CRM:
    def push(self, customer_id):
        attempt = _records.rpush(f"crm:{customer_id}", json.dumps(
            {"t": time.time(), "job": get_current_job().id}))
        if attempt <= 2:
            raise ConnectionError(f"CRM unreachable (attempt {attempt})")


crm = _CRM()


# --- docs/runtime.md, "rq-jobs" --------------------------------------------------
'''


@dataclass
class RQRun:
    jobs: ModuleType
    records: redis.Redis

    def attempts(self, customer: str) -> list[dict[str, Any]]:
        return [json.loads(item) for item in self.records.lrange(f"crm:{customer}", 0, -1)]


@pytest.fixture
def rq_env(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[RQRun]:
    directory = tmp_path_factory.mktemp("rq")
    (directory / "jobs.py").write_text(PREAMBLE + doc_snippet("rq-jobs") + "\n")
    base = redis_server.url.rsplit("/", 1)[0]
    # Databases 3 and 4: the other tests flush database 0 under the worker's feet.
    env = {"BROKER_URL": f"{base}/3", "RECORDS_URL": f"{base}/4"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
        redis.Redis.from_url(value).flushdb()
    records = redis.Redis.from_url(env["RECORDS_URL"])
    jobs = import_module("jobs", directory / "jobs.py")
    worker = rq_worker(directory, env, name="rq1")
    try:
        yield RQRun(jobs, records)
    finally:
        stop_all([worker])
        sys.modules.pop("jobs", None)
        records.close()


def test_jittered_intervals_retry_a_real_rq_job_with_fresh_waits(rq_env: RQRun) -> None:
    customers = ["c1", "c2"]
    jobs: list[Job] = [rq_env.jobs.schedule_sync(customer) for customer in customers]

    def finished() -> bool:
        return all(job.get_status(refresh=True) == "finished" for job in jobs)

    wait_until(finished, 30, "both jobs to finish after their retries", interval=0.05)
    intervals: list[list[float]] = []
    for customer, job in zip(customers, jobs, strict=True):
        job.refresh()
        attempts = rq_env.attempts(customer)
        assert len(attempts) == 3 and {a["job"] for a in attempts} == {job.id}  # retried twice
        assert job.retries_left == 2
        waits = job.retry_intervals
        assert waits is not None and len(waits) == 4  # Retry(max=4): one wait per retry
        for retry, wait in enumerate(waits):
            assert 0 <= wait <= min(4, 1 * 2**retry)
        for retry, (failed, next_try) in enumerate(itertools.pairwise(attempts)):
            waited = next_try["t"] - failed["t"]
            # RQ schedules in whole seconds (rounding down) and its scheduler
            # polls once a second.
            assert waits[retry] - 1.0 <= waited <= waits[retry] + 3.0, (customer, retry, waited)
        intervals.append(waits)
    assert intervals[0] != intervals[1]  # drawn per job, not once per process

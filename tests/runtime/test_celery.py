"""The runtime helpers under real Celery workers on the test Redis broker.

The tasks are the "celery-tasks" block of docs/runtime.md, run verbatim in a
temporary ``tasks`` module by ``celery worker`` subprocesses; the preamble
below stands in for the user's app and outside world (``crm``, ``payments``,
``mailer``, ``reports``) and records every attempt, delivery and outcome in a
Redis database of its own, which the tests read. Two solo-pool workers serve
the module's tests; the SIGKILL test starts its own, on a queue of its own.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg
import pytest
import redis

from .services import Postgres, RedisServer
from .workers import (
    REPO,
    WorkerProcess,
    celery_worker,
    doc_snippet,
    fresh_database,
    import_module,
    stop_all,
    wait_until,
)

PREAMBLE = '''\
"""Test preamble: the user's app and outside world, recording what happens."""
import json
import os
import time

import redis as _redis
from celery import Celery, current_task
from celery.signals import task_failure, task_postrun, task_prerun, task_retry, task_success

BROKER_URL = os.environ["BROKER_URL"]
REDIS_URL = os.environ["RECORDS_URL"]
DSN = os.environ["DSN"]
_records = _redis.Redis.from_url(REDIS_URL)

app = Celery("tasks", broker=BROKER_URL)
app.conf.update(
    broker_connection_retry_on_startup=True,
    broker_transport_options={
        "visibility_timeout": float(os.environ.get("VISIBILITY_TIMEOUT", "3600")),
        # A rescuing worker sweeps for unacked messages every second, not every 100 s.
        "unacked_restore_interval": int(os.environ.get("RESTORE_INTERVAL_S", "10")),
        "unacked_restore_throttle": 1 if "RESTORE_INTERVAL_S" in os.environ else 10,
        "unacked_mutex_expire": 5,
    },
)

HANG_BEFORE_COMMIT = 9001
HANG_AFTER_COMMIT = 9002
SLOW_CHARGE_S = 0.3


def _record(into, **fields):
    request = current_task.request
    fields.update(t=time.time(), pid=os.getpid(), worker=request.hostname, task_id=request.id)
    _records.rpush(into, json.dumps(fields))


def _hang_once(order_id, where):
    """Block the first delivery of ``order_id`` until the test SIGKILLs the worker."""
    if _records.set(f"hung:{order_id}", where, nx=True):
        _record(f"hanging:{order_id}", where=where)
        time.sleep(600)


class _CRM:
    """Down for the first two pushes of a "flaky-" customer, always for a "down-" one."""

    def push(self, customer_id):
        request = current_task.request
        attempt = _records.rpush(f"crm:{customer_id}", json.dumps(
            {"t": time.time(), "retries": request.retries, "eta": request.eta}))
        if customer_id.startswith("down-") or attempt <= 2:
            raise ConnectionError(f"CRM unreachable (attempt {attempt})")


class _Payments:
    def charge(self, order_id, idempotency_key):
        _record(f"payments:{order_id}", key=idempotency_key)
        if order_id == HANG_BEFORE_COMMIT:
            _hang_once(order_id, "before commit")
        time.sleep(SLOW_CHARGE_S)  # keep the transaction open while duplicates arrive


class _Mailer:
    def send_receipt(self, order_id):
        _records.rpush("receipts", order_id)


class _Reports:
    def build(self, night):
        _record("reports", night=night)


crm, payments, mailer, reports = _CRM(), _Payments(), _Mailer(), _Reports()


def _first_arg(args):
    return args[0] if args else None


@task_prerun.connect
def _delivered(sender=None, args=None, **_):
    _record(f"delivered:{sender.name}:{_first_arg(args)}")


@task_postrun.connect
def _after_commit(sender=None, args=None, **_):
    # After the task returned (its transaction committed) and before the late ack.
    if sender.name == "tasks.charge" and _first_arg(args) == HANG_AFTER_COMMIT:
        _hang_once(HANG_AFTER_COMMIT, "after commit")


@task_retry.connect
def _retried(sender=None, request=None, reason=None, **_):
    _records.rpush(f"outcome:{sender.name}:{_first_arg(request.args)}", "retry")
    # Celery's own draw: the countdown the Retry was sent with.
    _records.rpush(f"countdown:{_first_arg(request.args)}", json.dumps(
        {"retries": request.retries, "when": reason.when}))


@task_success.connect
def _succeeded(sender=None, **_):
    _records.rpush(f"outcome:{sender.name}:{_first_arg(sender.request.args)}", "success")


@task_failure.connect
def _failed(sender=None, args=None, **_):
    _records.rpush(f"outcome:{sender.name}:{_first_arg(args)}", "failure")


# --- docs/runtime.md, "celery-tasks" ---------------------------------------------
'''

SCHEMA = [
    "CREATE TABLE charges (order_id int NOT NULL)",
    "CREATE TABLE orders (id int PRIMARY KEY)",
]


@dataclass
class CeleryRun:
    """The ``tasks`` module, imported here as the producer, and what the workers need."""

    tasks: ModuleType
    directory: Path
    env: dict[str, str]
    dsn: str
    broker: redis.Redis
    records: redis.Redis

    def log(self, key: str) -> list[dict[str, Any]]:
        return [json.loads(item) for item in self.records.lrange(key, 0, -1)]

    def outcomes(self, task: str, arg: object) -> list[str]:
        return [item.decode() for item in self.records.lrange(f"outcome:tasks.{task}:{arg}", 0, -1)]

    def charges(self) -> Counter[int]:
        with psycopg.connect(self.dsn) as conn:
            return Counter(row[0] for row in conn.execute("SELECT order_id FROM charges"))

    def drained(self, queue: str = "celery") -> bool:
        """Nothing waiting in ``queue`` and nothing delivered but unacknowledged."""
        return self.broker.llen(queue) == 0 and self.broker.hlen("unacked") == 0


@pytest.fixture(scope="module")
def celery_env(
    postgres: Postgres, redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CeleryRun]:
    directory = tmp_path_factory.mktemp("celery")
    (directory / "tasks.py").write_text(PREAMBLE + doc_snippet("celery-tasks") + "\n")
    dsn = fresh_database(postgres)
    with psycopg.connect(dsn, autocommit=True) as conn:
        for statement in SCHEMA:
            conn.execute(statement)
    base = redis_server.url.rsplit("/", 1)[0]
    # Databases 1 and 2: the other tests flush database 0 under the workers' feet.
    env = {"BROKER_URL": f"{base}/1", "RECORDS_URL": f"{base}/2", "DSN": dsn}
    broker, records = redis.Redis.from_url(env["BROKER_URL"]), redis.Redis.from_url(
        env["RECORDS_URL"])
    broker.flushdb()
    records.flushdb()
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        tasks = import_module("tasks", directory / "tasks.py")
        with psycopg.connect(dsn, autocommit=True) as conn:
            tasks.create_tables(conn)  # the block's own, as a deploy would run it
        try:
            yield CeleryRun(tasks, directory, env, dsn, broker, records)
        finally:
            sys.modules.pop("tasks", None)
            tasks.app.close()
            broker.close()
            records.close()


@pytest.fixture(scope="module")
def workers(celery_env: CeleryRun) -> Iterator[list[WorkerProcess]]:
    started: list[WorkerProcess] = []
    try:
        for name in ("w1", "w2"):
            started.append(celery_worker("tasks", celery_env.directory, celery_env.env,
                                         hostname=name))
        yield started
    finally:
        stop_all(started)


def test_retry_options_three_attempts_with_jittered_waits(
    celery_env: CeleryRun, workers: list[WorkerProcess]
) -> None:
    tasks = celery_env.tasks
    flaky = [f"flaky-{i}" for i in range(4)]
    down = [f"down-{i}" for i in range(2)]
    for customer in flaky + down:
        tasks.sync_customer.delay(customer)
    for customer in flaky + down:
        wait_until(lambda c=customer: len(celery_env.outcomes("sync_customer", c)) >= 3, 30,
                   f"three outcomes for {customer}")

    countdowns: list[tuple[int, int]] = []
    for customer in flaky + down:
        final = "success" if customer in flaky else "failure"
        # A multiset: Celery sends task_retry after publishing the retry, which
        # another worker may already be running.
        outcomes = Counter(celery_env.outcomes("sync_customer", customer))
        assert outcomes == Counter({"retry": 2, final: 1}), customer
        attempts = celery_env.log(f"crm:{customer}")
        assert [a["retries"] for a in attempts] == [0, 1, 2]  # exactly three runs
        drawn = [d["when"] for d in sorted(celery_env.log(f"countdown:{customer}"),
                                           key=lambda d: int(d["retries"]))]
        assert len(drawn) == 2
        for retry, (failed, next_try) in enumerate(itertools.pairwise(attempts)):
            # Celery's full jitter: a whole number of seconds drawn from
            # [0, min(backoff_max, backoff * 2**retry)].
            countdown, ceiling = drawn[retry], min(2, 1 * 2**retry)
            assert isinstance(countdown, int) and 0 <= countdown <= ceiling, (customer, retry)
            # Sent with an eta (none for a countdown of 0), and the worker waited for it.
            assert (next_try["eta"] is None) == (countdown == 0)
            assert next_try["t"] >= failed["t"] + countdown - 0.05
            countdowns.append((ceiling, countdown))
    # Without jitter every countdown would equal its ceiling; with it, all twelve
    # do with probability (1/2)**6 * (1/3)**6, about 2e-5.
    assert any(countdown < ceiling for ceiling, countdown in countdowns)


def test_outbox_relay_through_send_task_runs_each_committed_row_once(
    celery_env: CeleryRun, workers: list[WorkerProcess]
) -> None:
    tasks = celery_env.tasks
    committed = list(range(1, 41))
    rolled_back = list(range(1001, 1011))
    with psycopg.connect(celery_env.dsn, autocommit=True) as conn:
        for order_id in committed[:20]:
            tasks.place_order(conn, order_id)
        for order_id in rolled_back:
            with pytest.raises(RuntimeError), tasks.atomic(conn):
                tasks.place_order(conn, order_id)  # joins the outer transaction
                raise RuntimeError("payment declined")
        for order_id in committed[20:]:
            tasks.place_order(conn, order_id)

    published: list[int] = []
    lock = threading.Lock()

    def relay() -> None:
        while count := tasks.relay_outbox():
            with lock:
                published.append(count)

    relays = [threading.Thread(target=relay) for _ in range(3)]
    for thread in relays:
        thread.start()
    for thread in relays:
        thread.join(timeout=60)
    assert sum(published) == len(committed)

    wait_until(lambda: celery_env.records.llen("receipts") >= len(committed), 30,
               "every receipt")
    wait_until(celery_env.drained, 30, "the broker to drain")
    receipts = Counter(int(item) for item in celery_env.records.lrange("receipts", 0, -1))
    assert receipts == Counter(committed)  # each committed order once, no rolled-back one
    with psycopg.connect(celery_env.dsn) as conn:
        unsent = conn.execute("SELECT count(*) FROM job_outbox WHERE sent_at IS NULL").fetchone()
    assert unsent == (0,)


def test_idempotent_acks_late_task_five_deliveries_two_workers_one_effect(
    celery_env: CeleryRun, workers: list[WorkerProcess]
) -> None:
    tasks = celery_env.tasks
    for _ in range(5):
        tasks.charge.delay(42)  # the same logical job, five messages
    wait_until(lambda: len(celery_env.outcomes("charge", 42)) >= 5, 30, "five deliveries")
    wait_until(celery_env.drained, 30, "the broker to drain")
    deliveries = celery_env.log("delivered:tasks.charge:42")
    assert len(deliveries) == 5
    assert {d["worker"] for d in deliveries} == {"w1@localhost", "w2@localhost"}
    assert celery_env.outcomes("charge", 42) == ["success"] * 5
    assert len(celery_env.log("payments:42")) == 1
    assert celery_env.charges()[42] == 1


def test_sigkilled_worker_redelivers_and_the_guard_keeps_one_effect(
    celery_env: CeleryRun, workers: list[WorkerProcess]
) -> None:
    tasks = celery_env.tasks
    queue = "doomed"  # served by this test's workers only
    env = {**celery_env.env, "VISIBILITY_TIMEOUT": "1"}
    before, after = tasks.HANG_BEFORE_COMMIT, tasks.HANG_AFTER_COMMIT
    doomed = celery_worker("tasks", celery_env.directory, env, hostname="doomed",
                           queue=queue, pool="prefork", concurrency=2)
    rescuer: WorkerProcess | None = None
    try:
        tasks.charge.apply_async((before,), queue=queue)
        tasks.charge.apply_async((after,), queue=queue)
        for order_id in (before, after):
            wait_until(lambda o=order_id: bool(celery_env.log(f"hanging:{o}")), 30,
                       f"order {order_id} to hang")
        assert celery_env.charges()[after] == 1  # committed, not yet acked
        assert celery_env.charges()[before] == 0  # still inside its transaction
        doomed.kill()
        assert celery_env.broker.hlen("unacked") == 2  # nobody acked them
        # A starting worker restores the unacked messages whose visibility
        # timeout has passed (older kombu sweeps only then, or every 100 s).
        wait_until(lambda: all(score < time.time() - 1.1 for _, score in
                               celery_env.broker.zrange("unacked_index", 0, -1, withscores=True)),
                   10, "the visibility timeout to pass")

        rescuer = celery_worker("tasks", celery_env.directory,
                                {**env, "RESTORE_INTERVAL_S": "1"}, hostname="rescuer",
                                queue=queue)
        # The run killed after COMMIT had already succeeded once.
        for order_id, finished in ((before, ["success"]), (after, ["success", "success"])):
            wait_until(lambda o=order_id, f=finished: celery_env.outcomes("charge", o) == f, 30,
                       f"order {order_id} to be redelivered and finish")
        wait_until(lambda: celery_env.drained(queue), 30, "the broker to drain")
    finally:
        stop_all([doomed] if rescuer is None else [doomed, rescuer])

    for order_id in (before, after):
        deliveries = celery_env.log(f"delivered:tasks.charge:{order_id}")
        assert [d["worker"] for d in deliveries] == ["doomed@localhost", "rescuer@localhost"]
    charges = celery_env.charges()
    assert (charges[before], charges[after]) == (1, 1)
    # The guard skipped the redelivery of the committed run: one payment call.
    assert len(celery_env.log(f"payments:{after}")) == 1
    # The run killed before COMMIT left nothing but its outside call, made
    # again by the redelivery with the same idempotency key.
    assert [p["key"] for p in celery_env.log(f"payments:{before}")] == [f"charge:{before}"] * 2


# --- two beat-style schedulers ------------------------------------------------

SCHEDULER = '''\
import sys
import time

import tasks

start, ticks, step = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
for tick in range(ticks):
    time.sleep(max(0.0, start + tick * step - time.time()))
    tasks.nightly_report.delay(f"night-{tick}")  # every replica fires at the same instant
print(ticks)
'''


def test_two_beat_style_schedulers_run_the_nightly_body_once_per_period(
    celery_env: CeleryRun, workers: list[WorkerProcess]
) -> None:
    script = celery_env.directory / "scheduler.py"
    script.write_text(SCHEDULER)
    ticks, step = 20, 0.05
    start = time.time() + 1.5  # both schedulers are up and waiting by then
    env = {**os.environ, **celery_env.env,
           "PYTHONPATH": os.pathsep.join([str(celery_env.directory), str(REPO)])}
    schedulers = [
        subprocess.Popen([sys.executable, str(script), repr(start), str(ticks), str(step)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    for scheduler in schedulers:
        out, err = scheduler.communicate(timeout=60)
        assert scheduler.returncode == 0, err.decode()
        assert out.decode().strip() == str(ticks)
    nights = [f"night-{tick}" for tick in range(ticks)]
    for night in nights:
        wait_until(lambda n=night: len(celery_env.outcomes("nightly_report", n)) >= 2, 30,
                   f"both firings of {night}")
    wait_until(celery_env.drained, 30, "the broker to drain")
    runs = Counter(run["night"] for run in celery_env.log("reports"))
    assert runs == Counter(nights)  # each period's body once, though fired twice
    fired = Counter(d["task_id"] for n in nights
                    for d in celery_env.log(f"delivered:tasks.nightly_report:{n}"))
    assert len(fired) == 2 * ticks

"""The test-time sentinel, run by the real pytest on sample projects of our own.

Each sample marks the lines the sentinel must report (`# sentinel: JLxxx`,
and `# sentinel-payloads: JLxxx` for the payload checks); everything else in
it (on_commit callbacks, delay_on_commit, a task base that sends after
COMMIT, enqueues after the transaction, read-only transactions, the tests'
own transactions) must stay silent. The Django sample runs on SQLite, the
RQ + SQLAlchemy one on the suite's PostgreSQL and Redis.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from .services import Postgres, RedisServer

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "sentinel"
_MARK = re.compile(r"#\s*sentinel(-payloads)?:\s*(JL\d{3})")
FINDINGS_SCHEMA = json.loads(
    (
        Path(__file__).resolve().parents[2] / "joblint/pipeline/report/findings.schema.json"
    ).read_text()
)


def _marked(root: Path, *, payloads: bool) -> set[tuple[str, int, str]]:
    expected = set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = _MARK.search(line)
            if match and (payloads or not match.group(1)):
                expected.add((path.relative_to(root).as_posix(), number, match.group(2)))
    return expected


def _pytest(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *args],
        cwd=root,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _sample(name: str, tmp_path: Path) -> Path:
    root = tmp_path / name
    shutil.copytree(SAMPLES / name, root, ignore=shutil.ignore_patterns("__pycache__", "*.sqlite3"))
    return root


def _findings(path: Path) -> list[dict[str, object]]:
    """The sentinel's file, which must be in joblint's published findings schema."""
    findings = json.loads(path.read_text())
    jsonschema.Draft202012Validator(FINDINGS_SCHEMA).validate(findings)
    assert all(finding["fix"] is None for finding in findings)
    return list(findings)


def _reported(findings: list[dict[str, object]]) -> set[tuple[str, int, str]]:
    return {(str(f["path"]), int(str(f["line"])), str(f["code"])) for f in findings}


@pytest.mark.parametrize("payloads", [False, True], ids=["transactions", "with-payloads"])
def test_the_django_sample_reports_exactly_the_marked_enqueues(
    tmp_path: Path, payloads: bool, sarif_validator: Any
) -> None:
    """...and its file renders as SARIF through `joblint report`."""
    root = _sample("django_shop", tmp_path)
    output = tmp_path / "sentinel.json"
    args = [f"--joblint-sentinel={output}", *(["--joblint-sentinel-payloads"] if payloads else [])]
    run = _pytest(root, *args)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    findings = _findings(output)
    assert _reported(findings) == _marked(root, payloads=payloads)
    assert f"joblint sentinel: {len(findings)} finding(s), written to {output}" in run.stdout
    by_place = {(f["path"], f["line"]): f for f in findings}
    request = by_place[("shop/views.py", 12)]
    assert "request's transaction (ATOMIC_REQUESTS)" in str(request["message"])
    assert "tests/tests.py::ViewTests::test_checkout" in str(request["message"])
    report = subprocess.run(
        [sys.executable, "-m", "joblint", "report", str(output), "--format", "sarif"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert report.returncode == 1, report.stderr
    sarif_validator.validate(json.loads(report.stdout))
    assert len(json.loads(report.stdout)["runs"][0]["results"]) == len(findings)
    method = by_place[("shop/views.py", 28)]
    assert "the Django atomic block opened in post() (shop/views.py:25)" in str(method["message"])
    if payloads:
        both = str(by_place[("shop/services.py", 105)]["message"])
        assert "(shop.models.Order) in args[0], a Django model instance" in both
        assert "(shop.models.Customer) in args[1]" in both  # request.user-like lazy object
    signal = by_place[("shop/signals.py", 12)]
    assert "get_or_create()" in str(signal["message"])
    assert signal["related"][0] == {  # type: ignore[index]
        "path": "shop/services.py",
        "line": 69,
        "column": 12,
        "message": "the Django atomic block of get_or_create() opens from here",
    }


def test_under_xdist_the_workers_findings_are_gathered(tmp_path: Path) -> None:
    root = _sample("django_shop", tmp_path)
    output = tmp_path / "sentinel.json"
    run = _pytest(root, "-n", "2", f"--joblint-sentinel={output}")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert _reported(_findings(output)) == _marked(root, payloads=False)


def test_strict_mode_fails_each_test_that_enqueues_inside_a_transaction(tmp_path: Path) -> None:
    root = _sample("django_shop", tmp_path)
    run = _pytest(root, "--joblint-sentinel-strict", "-rf")
    assert run.returncode == 1
    failed = set(re.findall(r"^FAILED (\S+) - ", run.stdout, re.M))
    assert failed == {
        "tests/test_services.py::test_place_order",
        "tests/test_services.py::test_enqueue_first",
        "tests/test_services.py::test_cancel",
        "tests/test_services.py::test_get_or_create_signal",
        "tests/test_services.py::test_payload_kinds",
        "tests/test_services.py::test_m2m_signal",
        "tests/test_services.py::test_delete_signal",
        "tests/test_services.py::test_other_libraries",
        "tests/test_services.py::test_real_commit",
        "tests/tests.py::ViewTests::test_checkout",
        "tests/tests.py::ViewTests::test_refund_view_method",
        "tests/tests.py::ViewTests::test_service_under_test_case",
    }
    assert "shop/services.py:25:9: JL101 Celery job 'shop.tasks.send_receipt'" in run.stdout


def test_without_its_options_the_sentinel_watches_nothing(tmp_path: Path) -> None:
    root = _sample("django_shop", tmp_path)
    run = _pytest(root)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "joblint sentinel" not in run.stdout


def test_the_rq_and_sqlalchemy_sample_on_postgresql(
    tmp_path: Path, postgres: Postgres, redis_server: RedisServer
) -> None:
    root = _sample("rq_orders", tmp_path)
    output = tmp_path / "sentinel.json"
    env = {
        "DATABASE_URL": f"postgresql+psycopg://postgres@127.0.0.1:{postgres.port}/postgres",
        "REDIS_URL": redis_server.url,
    }
    run = _pytest(root, f"--joblint-sentinel={output}", "--joblint-sentinel-payloads", env=env)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    findings = _findings(output)
    assert _reported(findings) == _marked(root, payloads=True)
    kinds = {str(f["message"]).split(": the ", 1)[-1].split(" opened", 1)[0] for f in findings}
    assert {"SQLAlchemy session transaction", "SQLAlchemy connection transaction"} <= kinds

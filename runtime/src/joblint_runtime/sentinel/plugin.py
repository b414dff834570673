"""The pytest plugin (entry point ``pytest11``): options, the current test, the report.

``--joblint-sentinel=FILE`` writes the findings as a JSON array in joblint's
``--format json`` schema (paths relative to the rootdir) when the session
ends; ``--joblint-sentinel-strict`` fails each test that made one, with the
findings' messages; ``--joblint-sentinel-payloads`` adds the payload checks.
The module is loaded by pytest only; it marks its hook wrappers with pluggy,
pytest's own hook library.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

from pluggy import HookimplMarker

from . import django_tx, enqueues, sqlalchemy_tx
from .frames import Place, Places
from .recorder import Recorder
from .watch import Watch

_WATCH_KEY = "_joblint_sentinel_watch"
_WORKER_KEY = "joblint_sentinel_findings"
_GATHERED_KEY = "_joblint_sentinel_gathered"
hookimpl = HookimplMarker("pytest")


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("joblint-sentinel", "joblint's sentinel: enqueues in transactions")
    group.addoption(
        "--joblint-sentinel",
        metavar="FILE",
        default=None,
        help="Write each job enqueued inside a transaction of the code under test to FILE "
        "(joblint's JSON format).",
    )
    group.addoption(
        "--joblint-sentinel-strict",
        action="store_true",
        default=False,
        help="Fail each test that enqueues a job inside a transaction of the code.",
    )
    group.addoption(
        "--joblint-sentinel-payloads",
        action="store_true",
        default=False,
        help="Also report model instances and other values a job should not be sent "
        "(JL201, JL202).",
    )


@hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: list[str]) -> None:
    """Watch before pytest-django sets Django up: the project's modules it
    imports then bind the libraries' functions already wrapped."""
    _start(early_config)


def pytest_configure(config: Any) -> None:
    _start(config)


def _start(config: Any) -> None:
    if _watch(config) is not None:
        return
    output = config.getoption("--joblint-sentinel")
    strict = config.getoption("--joblint-sentinel-strict")
    if not output and not strict:
        return
    patterns = tuple(str(p) for p in config.getini("python_files"))
    watch = Watch(
        Recorder(),
        Places(Path(str(config.rootpath)), patterns),
        payloads=bool(config.getoption("--joblint-sentinel-payloads")),
    )
    setattr(config, _WATCH_KEY, watch)
    enqueues.install(watch)
    django_tx.install(watch)
    sqlalchemy_tx.install(watch)


def _watch(config: Any) -> Watch | None:
    watch: Watch | None = getattr(config, _WATCH_KEY, None)
    return watch


@hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Generator[None, None, None]:
    watch = _watch(item.config)
    if watch is not None:
        path, line, _ = item.location
        watch.recorder.test = item.nodeid
        watch.recorder.test_place = Place(Path(path).as_posix(), (line or 0) + 1)
    yield
    if watch is not None:
        watch.recorder.end_of_test()
        watch.recorder.test, watch.recorder.test_place = "", None


@hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Generator[None, Any, None]:
    outcome = yield
    watch = _watch(item.config)
    if watch is None or not item.config.getoption("--joblint-sentinel-strict"):
        return
    report = outcome.get_result()
    if report.when != "call" or not report.passed:
        return
    watch.recorder.decide_now()
    findings = watch.recorder.of_test(item.nodeid)
    if findings:
        report.outcome = "failed"
        report.longrepr = "\n".join(
            f"{f.place.path}:{f.place.line}:{f.place.column}: {f.code} {f.message}"
            for f in findings
        )


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    config = session.config
    watch = _watch(config)
    if watch is None:
        return
    worker_output = getattr(config, "workeroutput", None)
    if worker_output is not None:  # a pytest-xdist worker: the controller writes the file
        worker_output[_WORKER_KEY] = [finding.as_json() for finding in watch.recorder.unique()]
        return
    findings = _everything(config)
    output = config.getoption("--joblint-sentinel")
    if output:
        _write_atomically(Path(output), json.dumps(findings, indent=2) + "\n")


@hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist: a worker finished; keep what it found."""
    found = getattr(node, "workeroutput", {}).get(_WORKER_KEY, [])
    gathered: list[dict[str, Any]] = getattr(node.config, _GATHERED_KEY, [])
    gathered.extend(found)
    setattr(node.config, _GATHERED_KEY, gathered)


def _everything(config: Any) -> list[dict[str, Any]]:
    """This process's findings and those the xdist workers sent, one per place."""
    watch = _watch(config)
    own = [finding.as_json() for finding in watch.recorder.unique()] if watch else []
    return _one_per_place([*own, *getattr(config, _GATHERED_KEY, [])])


def _one_per_place(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    first: dict[tuple[Any, ...], dict[str, Any]] = {}
    for finding in findings:
        first.setdefault(
            (finding["code"], finding["path"], finding["line"], finding["column"]), finding
        )
    return [first[key] for key in sorted(first, key=lambda k: (k[1], k[2], k[3], k[0]))]


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    watch = _watch(config)
    if watch is None:
        return
    findings = _everything(config)
    output = config.getoption("--joblint-sentinel")
    where = f", written to {output}" if output else ""
    terminalreporter.write_sep("-", f"joblint sentinel: {len(findings)} finding(s){where}")
    errors = watch.errors
    if errors:
        terminalreporter.write_line(
            f"joblint sentinel: {len(errors)} internal error(s), the tests unaffected; "
            f"the first: {errors[0]}"
        )
    for finding in findings:
        terminalreporter.write_line(
            f"{finding['path']}:{finding['line']}:{finding['column']}: "
            f"{finding['code']} {finding['message']}"
        )


def _write_atomically(path: Path, text: str) -> None:
    """The whole report or none: a run stopped halfway leaves the old file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

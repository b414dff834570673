from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from clone import make_plain_clone

# Sample projects the tests run with their own pytest (tests/data/sentinel/):
# never collected as this suite's tests.
collect_ignore = ["data"]


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


Run = Callable[..., Result]


@pytest.fixture
def run(tmp_path: Path) -> Run:
    """Run `python -m joblint ARGS` in `cwd` (default: tmp_path), stdout and stderr apart."""

    def _run(*args: str, cwd: Path | None = None, stdin: str | None = None) -> Result:
        proc = subprocess.run(
            [sys.executable, "-m", "joblint", *args],
            cwd=cwd or tmp_path,
            input=stdin,
            capture_output=True,
            text=True,
            env={
                "PATH": "/usr/bin:/bin",
                "NO_COLOR": "1",
                "PYTHONPATH": str(Path(__file__).parents[1]),
            },
            timeout=120,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return _run


# The OASIS schema, kept with its source and licence in tests/data/sarif/README.md.
SARIF_SCHEMAS = Path(__file__).resolve().parent / "data" / "sarif"


@pytest.fixture(scope="session")
def sarif_validator() -> Any:
    """A validator of SARIF 2.1.0 documents (the OASIS schema)."""
    import jsonschema

    schema = json.loads((SARIF_SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


ENQUEUE_IN_ATOMIC = """from django.db import transaction
from .tasks import send_receipt


def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.delay(order.pk)
"""

CLEAN = """from django.db import transaction
from .tasks import send_receipt


def checkout(order):
    with transaction.atomic():
        order.save()
    send_receipt.delay(order.pk)
"""


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def our_sources() -> list[str]:
    """Every rule example's code, and the files of `examples/` and `fixtures/`."""
    from joblint.registry import all_rules, examples

    sources = [example.code for rule in all_rules() for example in examples(rule).all]
    root = Path(__file__).resolve().parents[1]
    for tree in ("examples", "fixtures"):
        sources += [p.read_text() for p in sorted((root / tree).rglob("*.py"))]
    return sources


# Hypothesis profiles: `fast` for the fuzz tests in `make test`,
# `fuzz` by hand: HYPOTHESIS_PROFILE=fuzz python -m pytest tests/test_fuzz.py
# Fuzz tests decorate with `fuzz_settings()`; other tests keep their own settings
# unless HYPOTHESIS_PROFILE is set.
def _hypothesis_profiles() -> None:
    import os

    from hypothesis import HealthCheck, settings

    slow = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
    settings.register_profile("fast", max_examples=25, deadline=None, suppress_health_check=slow)
    settings.register_profile("fuzz", max_examples=1000, deadline=None, suppress_health_check=slow)
    if "HYPOTHESIS_PROFILE" in os.environ:
        settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])


_hypothesis_profiles()


def fuzz_settings() -> object:
    """The profile named by HYPOTHESIS_PROFILE (default `fast`), as a decorator."""
    import os

    from hypothesis import settings

    return settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


@pytest.fixture(scope="session")
def plain_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This working tree as a plain clone: what a user gets from git, nothing beside it."""
    return make_plain_clone(tmp_path_factory.mktemp("clone") / "joblint")


def parsed_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources LibCST parses in this process, as it parses them."""
    import libcst as cst

    parsed: list[str] = []
    real = cst.parse_module

    def counting(source: str | bytes, *args: object, **kwargs: object) -> cst.Module:
        parsed.append(source if isinstance(source, str) else source.decode())
        return real(source)

    monkeypatch.setattr(cst, "parse_module", counting)
    return parsed


def indexed_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the files the run reads the index of, as it reads them."""
    from joblint.pipeline import index as indexing

    indexed: list[str] = []
    real = indexing.index_file

    def counting(path: str, *args: Any) -> Any:
        indexed.append(Path(path).as_posix())
        return real(path, *args)

    monkeypatch.setattr(indexing, "index_file", counting)
    return indexed

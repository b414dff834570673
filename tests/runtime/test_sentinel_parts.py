"""The sentinel's parts on their own: payload kinds, places, post-import patches, guards."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import sys
import uuid
from pathlib import Path
from typing import NamedTuple

from joblint_runtime.sentinel.frames import Places
from joblint_runtime.sentinel.imports import when_imported
from joblint_runtime.sentinel.payloads import problems
from joblint_runtime.sentinel.recorder import Recorder
from joblint_runtime.sentinel.watch import Watch


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int


class Pair(NamedTuple):
    a: int
    b: int


class Connection:
    pass


def test_json_values_and_what_serializers_carry_are_fine() -> None:
    fine = [
        1,
        2.5,
        "s",
        None,
        True,
        [1, (2, 3)],
        {"k": {"n": [1]}},
        datetime.date(2026, 1, 1),
        datetime.datetime(2026, 1, 1),
        decimal.Decimal("1.5"),
        uuid.uuid4(),
        b"raw",
    ]
    assert list(problems(fine, {"when": datetime.timedelta(seconds=3)})) == []


def test_rich_types_are_jl202_and_live_objects_jl201_with_where_they_are() -> None:
    found = list(problems((Color.RED, [Point(1)]), {"pair": Pair(1, 2), "db": {"c": Connection()}}))
    assert found == [
        ("JL202", "args[0]", "the enum member Color.RED"),
        ("JL202", "args[1][0]", f"a dataclass instance ({__name__}.Point)"),
        ("JL202", "kwargs['pair']", f"a NamedTuple ({__name__}.Pair)"),
        ("JL201", "kwargs['db']['c']", f"a live object ({__name__}.Connection)"),
    ]


def test_places_tell_code_tests_and_libraries_apart(tmp_path: Path) -> None:
    places = Places(tmp_path, ("test_*.py",))
    assert places.kind(str(tmp_path / "shop" / "services.py")) == "code"
    assert places.kind(str(tmp_path / "shop" / "test_services.py")) == "test"
    assert places.kind(str(tmp_path / "tests" / "factories.py")) == "test"
    assert places.kind(str(tmp_path / "conftest.py")) == "test"
    assert places.kind(str(tmp_path / ".venv" / "lib" / "site-packages" / "x.py")) == "library"
    assert places.kind(sys.modules["enum"].__file__ or "") == "library"
    assert places.relative(sys.modules["json.decoder"].__file__ or "") == "json/decoder.py"


def test_a_patch_waits_for_its_module_and_runs_once(tmp_path: Path) -> None:
    (tmp_path / "sentinel_sample_module.py").write_text("VALUE = 1\n")
    sys.path.insert(0, str(tmp_path))
    seen: list[int] = []
    try:
        when_imported("sentinel_sample_module", lambda module: seen.append(module.VALUE))
        assert seen == []
        import sentinel_sample_module  # noqa: F401

        assert seen == [1]
        when_imported("sentinel_sample_module", lambda module: seen.append(2))
        assert seen == [1, 2]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("sentinel_sample_module", None)


def test_a_failure_in_the_sentinels_bookkeeping_is_noted_not_raised(tmp_path: Path) -> None:
    watch = Watch(Recorder(), Places(tmp_path, ()))
    with watch.guarded():
        raise KeyError("alias")
    assert len(watch.errors) == 1
    assert watch.errors[0].startswith("KeyError: 'alias' at ")

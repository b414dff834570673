"""The typed requirements of pending findings: every type has a judge in the
project step, survives the result cache's encoding, and is named apart
from the models the cache decodes by name."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from joblint import models, requirements
from joblint.pipeline import cache
from joblint.pipeline.project import judging
from joblint.requirements import Requirement

_TYPES = sorted(
    (
        value
        for value in vars(requirements).values()
        if isinstance(value, type) and issubclass(value, Requirement) and value is not Requirement
    ),
    key=lambda kind: kind.__name__,
)
_SAMPLES: dict[str, Any] = {
    "str": "shop.tasks.send",
    "bool": True,
    "frozenset[str]": frozenset({"celery", "rq"}),
    "tuple[str, ...]": ("redis", "rq"),
}


def _sample(kind: type[Requirement]) -> Requirement:
    fields = dataclasses.fields(kind)  # type: ignore[arg-type]
    return kind(**{f.name: _SAMPLES[str(f.type)] for f in fields})


def test_there_are_requirement_types() -> None:
    assert len(_TYPES) > 30


@pytest.mark.parametrize("kind", _TYPES, ids=lambda kind: kind.__name__)
def test_every_requirement_type_is_judged(kind: type[Requirement]) -> None:
    assert kind in judging._JUDGES


@pytest.mark.parametrize("kind", _TYPES, ids=lambda kind: kind.__name__)
def test_a_requirement_survives_the_cache(kind: type[Requirement]) -> None:
    requirement = _sample(kind)
    assert cache.decode(cache.encode(requirement)) == requirement


def test_requirement_types_are_named_apart_from_models() -> None:
    named = {value.__name__ for value in vars(models).values() if isinstance(value, type)}
    assert not named & {kind.__name__ for kind in _TYPES}


def test_the_namers_name_judged_types() -> None:
    steps = {kind for step in judging.NAMING_ORDER for kind in step.kinds}
    assert set(judging._NAMERS) <= steps <= set(judging._JUDGES)

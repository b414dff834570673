"""How the project step settles a pending finding: each requirement type
(`joblint.requirements`) has a judge, registered where the project model
answers its question (`@judges(ReturnsGrowth)` beside what calls return),
that says whether a requirement holds for a finding in the file at `path`,
at `line`. Where the finding's message holds a placeholder for what the
project model found (the chain of calls, the helper returning a value, the
transactional write), a namer registered for the type fills it in
(`@names(ReturnsGrowth, RETURNED)`), in the order `NAMING_ORDER` gives.

A type without a judge is a programming error, caught when a project step
first meets it; so is a type registered twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from joblint.models import Finding, PendingFinding
from joblint.requirements import (
    ClaimedByCaller,
    HandsToPayload,
    LeadsToEffect,
    LeadsToEnqueue,
    PassedATask,
    Reached,
    Receives,
    Requirement,
    RetriesWithHandedDelay,
    ReturnsArgument,
    ReturnsGrowth,
    ReturnsObject,
    RunByJob,
    UsedAsModel,
    WrittenInTransaction,
)

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

# A judge: whether the requirement holds for a finding in the file at the
# path, at the line (settings apply to the files of the project that loads them).
Judge = Callable[["ProjectIndex", Any, str, int], bool]
# A namer: the finding with its placeholder filled in, or None where the
# project model finds nothing to name (the message is kept as it is).
Namer = Callable[["ProjectIndex", Finding, Any, str], Finding | None]
_JudgeT = TypeVar("_JudgeT", bound=Judge)
_NamerT = TypeVar("_NamerT", bound=Namer)

_JUDGES: dict[type[Requirement], Judge] = {}


@dataclass(frozen=True, slots=True)
class _Naming:
    """A namer, with the placeholder it fills in."""

    placeholder: str
    name: Namer
    # Naming ends with it once its placeholder is in the message, whether
    # the project model found something to name or not.
    last: bool
    # The requirement types whose naming it makes unneeded once it names:
    # a receiver's signal names the write that makes it transactional.
    covers: tuple[type[Requirement], ...]


_NAMERS: dict[type[Requirement], _Naming] = {}


def judges(*kinds: type[Requirement]) -> Callable[[_JudgeT], _JudgeT]:
    """Register the decorated function as the judge of requirements of `kinds`."""

    def register(judge: _JudgeT) -> _JudgeT:
        for kind in kinds:
            if kind in _JUDGES:
                raise ValueError(f"{kind.__name__} is judged twice")
            _JUDGES[kind] = judge
        return judge

    return register


def names(
    *kinds: type[Requirement],
    placeholder: str,
    last: bool = True,
    covers: tuple[type[Requirement], ...] = (),
) -> Callable[[_NamerT], _NamerT]:
    """Register the decorated function as the namer of `placeholder` for
    requirements of `kinds` (`last`, `covers`: see `_Naming`)."""

    def register(namer: _NamerT) -> _NamerT:
        for kind in kinds:
            if kind in _NAMERS:
                raise ValueError(f"{kind.__name__} is named twice")
            _NAMERS[kind] = _Naming(placeholder, namer, last, covers)
        return namer

    return register


def holds(index: ProjectIndex, requirement: Requirement, path: str, line: int) -> bool:
    """Whether `requirement` holds for a finding in the file at `path`, at `line`."""
    return _JUDGES[type(requirement)](index, requirement, path, line)


@dataclass(frozen=True, slots=True)
class _Step:
    """A step of the naming: the first requirement of one of `kinds` names
    its placeholder; with `ends`, where a finding has one, the naming ends
    there instead."""

    kinds: tuple[type[Requirement], ...]
    ends: bool = False


# The order the namers are tried in: a request handler's reach, what a
# helper hands a payload, uses or returns first (a value handed on to a
# payload names nothing more), then the callers and chains of calls.
NAMING_ORDER = (
    _Step((Receives,)),
    _Step((WrittenInTransaction,)),
    _Step((Reached,)),
    _Step((HandsToPayload,)),
    _Step((UsedAsModel,)),
    _Step((ReturnsObject, ReturnsArgument)),
    _Step((ReturnsGrowth,)),
    _Step((RetriesWithHandedDelay,)),
    _Step((HandsToPayload,), ends=True),
    _Step((PassedATask,)),
    _Step((ClaimedByCaller,)),
    _Step((RunByJob,)),
    _Step((LeadsToEffect,)),
    _Step((LeadsToEnqueue,)),
)


def finish(index: ProjectIndex, pending: PendingFinding, path: str) -> Finding:
    """A pending finding that holds, its message naming what the project
    model found where it holds a placeholder (with the places involved as
    related locations)."""
    finding = pending.finding
    covered: set[type[Requirement]] = set()
    for step in NAMING_ORDER:
        requirement = next((r for r in pending.requires if isinstance(r, step.kinds)), None)
        if requirement is None:
            continue
        if step.ends:
            return finding
        naming = _NAMERS[type(requirement)]
        if type(requirement) in covered or naming.placeholder not in finding.message:
            continue
        named = naming.name(index, finding, requirement, path)
        if naming.last:
            return finding if named is None else named
        if named is not None:
            finding = named
            covered.update(naming.covers)
    return finding

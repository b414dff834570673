"""Retry policies as neutral facts: where a policy is set, how its wait grows,
whether it has a random part, what bounds its attempts, what it retries on,
and the fixes that apply. The recognisers (`joblint.rules.retries._facts.retry_policies`,
`joblint.rules.retries._facts.retry_loops`) produce them; the JL3 rules judge them.

Nothing here names a library: a fact carries the words a finding uses about
the API it was read from (`Says`, the library's data)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Generic, TypeVar

import libcst as cst

from joblint.analysis.expressions import DelayAnalysis, Randomness
from joblint.libraries.retry_api import Bound, Caught, Growth, Jitter, Says
from joblint.requirements import Requirement, ReturnsGrowth

T = TypeVar("T")
# Where a call may be of a project function: (the function it is made in, as
# the project model's index names it; the call as written), else None.
HelperSite = Callable[[cst.Call], tuple[str, str] | None]


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A fix the facts offer: `node` becomes `replacement`, with the
    `from module import name` imports it needs and those it may leave unused."""

    node: cst.CSTNode
    replacement: cst.CSTNode
    message: str
    imports: tuple[tuple[str, str], ...] = ()
    releases: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class DelayTerm:
    """One term of a wait (a wait is the sum of its terms)."""

    # Where it is set: what a finding points at.
    node: cst.CSTNode
    growth: Growth
    jitter: Jitter
    # For a wait the code computes from the attempt count, `says.cause` names
    # the wait and `grown_by` is the part of the expression that makes it grow.
    says: Says
    grown_by: cst.CSTNode | None = None
    rewrite: Rewrite | None = None
    # Facts of the whole project the reading depends on (a project function
    # computing the delay grows it: `ReturnsGrowth`).
    requires: tuple[Requirement, ...] = ()


@dataclass(frozen=True, slots=True)
class Delay:
    """The wait before a retry, as one setting gives it."""

    terms: tuple[DelayTerm, ...]

    @property
    def may_be_random(self) -> bool:
        return any(term.jitter.may_be_random for term in self.terms)


@dataclass(frozen=True, slots=True)
class BoundSetting:
    """What limits the attempts, and where: the parameter that sets it, or the
    place that leaves it to the default."""

    node: cst.CSTNode
    bound: Bound
    says: Says
    # The expression that sets it (None: left to the library's default).
    value: cst.CSTNode | None = None
    rewrite: Rewrite | None = None
    # Facts of the whole project the reading depends on (the library of a task).
    requires: tuple[Requirement, ...] = ()
    # A literal bound allowing no retry at all (Celery `max_retries=0`): the
    # first failure is final, whatever the policy would retry on.
    no_retries: bool = False


@dataclass(frozen=True, slots=True)
class Catch:
    """What the retries are for: the exception types (or the bare handler)."""

    caught: Caught
    node: cst.CSTNode
    # How a finding names the setting (`Celery autoretry_for`, `self.retry(...)`).
    where: str
    broad: tuple[cst.BaseExpression, ...] = ()
    # Set by the except clause around the retry, not by an argument.
    handler: bool = False


class _Once(Generic[T]):
    """A part of a policy, read the first time it is asked for."""

    __slots__ = ("_read", "_value")

    def __init__(self, read: Callable[[], tuple[T, ...]] | None) -> None:
        self._read = read
        self._value: tuple[T, ...] | None = None if read else ()

    def get(self) -> tuple[T, ...]:
        if self._value is None:
            assert self._read is not None
            self._value = self._read()
        return self._value


class RetryPolicy:
    """A retry policy set at one place (`node`: a call, a decorator, task
    options, a settings dict or a loop) and its parts, each read on demand."""

    __slots__ = ("_bounds", "_catches", "_delays", "node", "requires")

    def __init__(
        self,
        node: cst.CSTNode,
        *,
        delays: Callable[[], tuple[Delay, ...]] | None = None,
        bounds: Callable[[], tuple[BoundSetting, ...]] | None = None,
        catches: Callable[[], tuple[Catch, ...]] | None = None,
        requires: tuple[Requirement, ...] = (),
    ) -> None:
        self.node = node
        # What the project must confirm for any of its findings to stand (the
        # decorator is a task decorator of the project's; a caller hands the
        # helper a bound task).
        self.requires = requires
        self._delays = _Once(delays)
        self._bounds = _Once(bounds)
        self._catches = _Once(catches)

    @property
    def delays(self) -> tuple[Delay, ...]:
        return self._delays.get()

    @property
    def bounds(self) -> tuple[BoundSetting, ...]:
        return self._bounds.get()

    @property
    def catches(self) -> tuple[Catch, ...]:
        return self._catches.get()


_JITTER = {
    Randomness.NONE: Jitter.ABSENT,
    Randomness.RANDOM: Jitter.PRESENT,
    Randomness.UNKNOWN: Jitter.UNKNOWN,
}


def computed_term(
    expr: cst.BaseExpression,
    analysis: DelayAnalysis,
    says: Says,
    rewrite: Callable[[], Rewrite | None] | None = None,
    helper: HelperSite | None = None,
) -> DelayTerm:
    """A wait the code computes (`countdown=2 ** self.request.retries`, the
    argument of a sleep), read by `analysis` with its attempt counter; the
    rewrite is made only for a wait that grows. With `helper`, a wait a
    project function computes from the attempt (`backoff(attempt)`) grows
    where the project model says that function's result does."""
    grown_by = analysis.growth(expr)
    if grown_by is not None:
        growth = Growth.EXPONENTIAL
    else:
        growth = Growth.ADDITIVE if analysis.depends(expr) else Growth.CONSTANT
    jitter = _JITTER[analysis.randomness(expr)]
    if jitter is Jitter.UNKNOWN and helper is not None:
        through = _helper_growth(expr, analysis, helper)
        if through is not None:
            call, needs = through
            return DelayTerm(
                expr, Growth.EXPONENTIAL, Jitter.ABSENT, says, grown_by=call, requires=(needs,)
            )
    fix = rewrite() if rewrite is not None and grown_by is not None else None
    return DelayTerm(expr, growth, jitter, says, grown_by=grown_by, rewrite=fix)


def _helper_growth(
    expr: cst.BaseExpression, analysis: DelayAnalysis, helper: HelperSite
) -> tuple[cst.Call, Requirement] | None:
    """The one call in `expr` joblint can't see into, when it may be a
    project function's and is handed the attempt: the call, and what the
    project must confirm for its result to grow with it."""
    calls = analysis.unknown_calls(expr)
    if calls is None or len(calls) != 1:
        return None
    call = calls[0]
    site = helper(call)
    argument = analysis.attempt_argument(call)
    if site is None or argument is None:
        return None
    function, text = site
    return call, ReturnsGrowth(function, text, *argument)


class _Slots(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def filled(text: str, **slots: str) -> str:
    """`text` with the slots given filled (`{name}`, `{task}`), others kept."""
    return text.format_map(_Slots(slots))


def worded(says: Says, **slots: str) -> Says:
    """`says` with its slots filled."""
    return Says(filled(says.cause, **slots), filled(says.remedy, **slots))


# What JL301-JL303 read of the options the project's own task decorators,
# factories and retry helpers give (`Rule.SHARED_DOCS`, in "What it does").
PROJECT_TASK_OPTIONS = """Through the project model the options are also read where the project
builds its own Celery task decorators, across modules: a decorator stored
in a variable (`retrying = shared_task(...)`, `app.task(...)`) or a
`functools.partial` of one is judged at its options, once, however many
tasks it decorates; a task decorator of the project named by bare name,
imported or defined in the module (`task = app.task`, a re-export of
`shared_task`, a function forwarding its `**kwargs` to one, also through
a nested decorator it returns; also imported from a package's own
import root, `from jobs import worker_task` in `workers/general/tasks.py`
where `workers/jobs` is a package of the project and no top-level
module is `jobs`), counts like `@app.task(...)`, and so does
a call of a function making a task of the one it is handed with them
(`make_task(sync, max_retries=None)` where `def make_task(fn, **opts):
return app.task(**opts)(fn)`), or of a decorator factory's decorator
(`job(max_retries=None)(sync)`); a `partial`'s call overrides the options
it fixes. A factory function's own options (`app.task(autoretry_for=...,
**opts)` inside it) are judged where it writes them, once. `task.retry(...)` in a
module-level helper (`def retry_later(task, exc)`) is a task's own retry
when a bound task (`bind=True` in its decorator or the factory, or a
method of a `Task` subclass) passes itself there: it is reported in the
helper, once, naming one such task and the line it does so."""

# The shared paragraphs by the name a rule's docstring gives them (`<<name>>`).
PROJECT_TASK_DOCS: Mapping[str, str] = MappingProxyType(
    {"project-task-options": PROJECT_TASK_OPTIONS}
)

# Known limits of the rules judging these facts where task options and retry
# calls come through the project's own decorators and helpers
# (`Rule.SHARED_LIMITS` of JL301-JL303).
PROJECT_RETRY_LIMITS = (
    """- A stored decorator (`retrying = shared_task(...)`) takes only the
  function, as Celery's does: `@retrying(max_retries=3)` registers no task
  (Celery raises a TypeError) and is not read. A factory's options are
  judged at the factory; merged with a task's own only in one module (a
  task's `retry_jitter=False` under another module's factory's
  `retry_backoff` is not seen).""",
    """- The project's task decorators are the module-level assignments above
  and functions returning the library decorator's call with the
  `**kwargs` they got (or that call applied to a function, or a nested
  decorator returning one); a factory building its options otherwise
  (`kwargs.setdefault(...)`, a dict it passes) is not followed. A
  same-named decorator that is none of these (a scheduler of the
  project's own) is not a task's, and a function a task maker is handed
  is not taken for a task (its `self.retry(...)` is not judged).""",
    """- Helpers are module-level, undecorated functions handed the task as a
  positional parameter or by keyword; a task handed on through a second
  helper is not followed.""",
)

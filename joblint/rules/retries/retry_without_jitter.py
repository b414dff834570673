"""JL301 retry-without-jitter.

Retry delay grows with the attempt but has no jitter: retries stampede together.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL301` show) and its teaching examples."""

from __future__ import annotations

from joblint.analysis.expressions import snippet
from joblint.knowledge.trigger import Trigger
from joblint.libraries.retry_api import Growth
from joblint.models import RETURNED
from joblint.requirements import ReturnsGrowth
from joblint.rule import LineOf, Message, Valid, invalid
from joblint.rules.retries._base import RetryRule, as_fix
from joblint.rules.retries._facts.retry_facts import (
    PROJECT_RETRY_LIMITS,
    PROJECT_TASK_DOCS,
    DelayTerm,
    RetryPolicy,
)
from joblint.rules.retries._tokens import RETRY_DELAYS, SLEEP

_SAME_TIME = "every job that failed together retries at the same moment"


class RetryWithoutJitter(RetryRule):
    """
    ## What it does
    Finds retry delays that grow with the attempt number but have no random
    part, and jitter that is switched off:
    - Celery `self.retry(countdown=...)` (or `eta=`) computed from
      `self.request.retries` with `**`, `<<`, `pow`, a multiplication or an
      index into a growing list, and no call into `random` or a jitter helper
      (the value is followed through local assignments); also `task.retry(...)`
      in a helper whose parameter `task` is annotated as a Celery `Task`;
    - Celery `retry_jitter=False` together with `retry_backoff`;
    - tenacity `wait_exponential(...)` not combined with a random wait, and
      `wait_exponential_jitter(..., jitter=0)`;
    - backoff `on_exception`/`on_predicate` with a growing wait and `jitter=None`;
    - urllib3 `Retry(backoff_factor=...)` without `backoff_jitter`;
    - RQ `Retry(interval=[...])` with a growing list of constants;
    - taskiq `SmartRetryMiddleware(use_delay_exponent=True)` without `use_jitter=True`;
    - `time.sleep`/`asyncio.sleep` in a retry loop with a delay growing with
      the loop's attempt counter (`2 ** attempt`, `delay *= 2`).

    <<project-task-options>>
    A delay a bound task hands such a helper beside itself
    (`retry_later(self, exc, 2 ** self.request.retries)`, also by keyword)
    is reported at that argument when the helper retries the task with the
    parameter it lands in: as `countdown=` (or `eta=`) itself, or through
    the dict a project function it hands the parameter to returns holding
    it under that key (`task.retry(**retry_params(countdown=wait))`, where
    `retry_params` returns a dict literal, or a local dict it sets
    `params["countdown"] = countdown` in); the message names the helper's
    retry. A helper that only logs it, or hands it on under another key
    (`expires`), is not one.
    `self.retry(...)` in a function nested in a bound task, where `self` is
    the task's (neither a parameter of the nested function nor a name its
    top-level statements assign), is the task's own retry too.
    A project function computing the delay (`def backoff(n): return 2 ** n`,
    in the module or imported from another) grows it when every return of it
    grows with the parameter the caller hands the attempt count to and has
    no random part (a cap, `return 600`, may stand beside):
    `countdown=backoff(self.request.retries)` and `time.sleep(backoff(attempt))`
    are reported at the delay, naming where the function returns it. A
    list of waits a project function returns reaches RQ's
    `Retry(interval=...)` the same way (`interval=waits(5)`, also through a
    name one branch binds to that call while the others bind no random
    value): it grows when the function builds it with no random part (a
    literal of growing numbers, a comprehension over `range` whose item
    grows with the counter, or a local list that loops over `range` append
    such items to and nothing else changes), or returns what another such
    function returns (annotated as returning a list); a literal number may
    stand beside it (`return 0`). Reported at `interval=`, naming where the
    list is built.

    "Grows with the attempt" means `**`, `<<`, `pow`/`math.pow`, or a
    multiplication by the attempt count or a name derived from it. Additive
    growth (`delay += step`, tenacity's `wait_incrementing`) is not reported.
    A loop is a retry loop when it catches an exception and goes on: an
    `except` handler in it that doesn't re-raise or leave. A loop that catches
    nothing (a result poll that sleeps longer each time) is not one.
    `Retry(...)` is urllib3's or RQ's only when the name resolves to their
    class through the imports (also as `requests.adapters.Retry` or
    `requests.packages.urllib3...`), never by the bare name.

    ## Why is this bad?
    Jobs fail together when a dependency goes down. Without jitter they all
    wait the same 1, 2, 4, 8... seconds and retry in lock step, so the service
    that just recovered is hit by the whole herd at once and falls over again.
    A random spread (full jitter) turns the spikes into a trickle.

    ## Example
    ```python
    from celery import shared_task


    @shared_task(bind=True, max_retries=4)
    def charge(self, order_id):
        try:
            gateway.charge(order_id)
        except gateway.Timeout as exc:
            raise self.retry(exc=exc, countdown=2 ** self.request.retries)
    ```

    ## Use instead
    ```python
    from celery import shared_task

    from joblint_runtime.backoff import full_jitter


    @shared_task(bind=True, max_retries=4)
    def charge(self, order_id):
        try:
            gateway.charge(order_id)
        except gateway.Timeout as exc:
            countdown = full_jitter(self.request.retries, base=30, cap=600)
            raise self.retry(exc=exc, countdown=countdown)
    ```
    With tenacity use `wait_random_exponential(multiplier=..., max=...)`;
    with RQ, `Retry(max=4, interval=joblint_runtime.backoff.jittered_intervals())`
    built at enqueue time.

    ## Fix safety
    Every fix of this rule is unsafe (`--fix --unsafe-fixes`): a safe fix
    keeps the code's meaning and its run-time behaviour, and adding jitter
    changes the delays the retries wait. Each delay becomes random: full
    jitter draws it from [0, the old delay], so on average it is half as
    long, and tests that assert exact delays break.
    - Celery `retry_jitter=False` (with `retry_backoff`) becomes
      `retry_jitter=True`, Celery's default: each `retry_backoff` delay is then
      drawn from [0, the computed delay].
    - tenacity `wait_exponential(...)` becomes `wait_random_exponential(...)`
      with the same arguments: it subclasses `wait_exponential` (same
      constructor, same capped ceiling) and draws each wait at random below
      it. The name follows the import: `tenacity.wait_exponential(...)`
      becomes `tenacity.wait_random_exponential(...)`; a bare or aliased name
      becomes `wait_random_exponential(...)`, imported from `tenacity` (or an
      existing import of it is used); `--fix` then removes the import of
      `wait_exponential` if nothing reads it any more (LibCST's
      `RemoveImportsVisitor`: a name in `__all__` stays; JSON/SARIF fix edits
      don't carry that clean-up). With `min=` (or `**kwargs` that may
      hold it) the message warns that tenacity honours `min` as the lowest
      wait of `wait_random_exponential` only from 9.0 (before, waits start at 0).
    - A Celery countdown whose shape is clear:
      `countdown=[min(C, ]B * F ** self.request.retries[)]` (also
      `F ** (retries + k)`, `pow(F, ...)`, `B << retries`) becomes
      `countdown=full_jitter(self.request.retries, base=B, factor=F, cap=C)`,
      importing `joblint_runtime.backoff.full_jitter`; for a local assigned
      once (`delay = ...; countdown=delay`) the assignment is rewritten. The
      old delay becomes the ceiling the random delay is drawn below. Without a
      cap, the cap is `full_jitter`'s default, 600 s (no fix when the base is
      a name or above 600). Linear growth (`60 * (retries + 1)`) and other
      shapes get no fix. The worker needs joblint installed, and tests that
      assert exact delays need a seeded source (`rng=random.Random(0)`).
    `wait_exponential_jitter(jitter=0)` gets no fix.

    ## Known limits
    - A call of a class or function the module itself defines is never taken
      for the library's: a library's own module constructing its own API
      class (`return RetryStrategy()` beside `class RetryStrategy`) is its
      internals, not a use of its API.
    - Not findings: Celery `retry_backoff=True` alone (Celery jitters that path
      by default), Dramatiq's Retries middleware and botocore/google-api-core
      retries (always jittered), backoff's default jitter, constant delays,
      additive growth (`60 + attempt`, `delay += 5`, `wait_incrementing`).
    - A delay that passes through a call joblint can't see into
      (`settings.get(...)`, a method of an object no summary tells) is taken
      as possibly random and not reported; so is a name containing "jitter"
      or "random", and a tenacity wait joblint doesn't know or one that
      delegates (`wait_chain`). A function of your own is followed when it is
      the one such call in the delay and its returns compute the growth
      in place: one returning another function's result, or reading the
      attempt from the task it is handed (`def delay(task): return 2 **
      task.request.retries`), is not followed. For RQ's list of waits, a
      function returning another's list is followed only when annotated as
      returning a list, and a list changed by anything but appends in loops
      over `range` (`extend`, `insert`, `+=`) is not read.
    - A delay handed to a helper is followed one call deep: a helper
      handing it on to a second helper, or building the retry's keywords in
      a dict of its own (`kwargs = {"countdown": wait}; task.retry(**kwargs)`),
      is not followed, nor a growing delay a project function computes
      there (`retry_later(self, exc, backoff(self.request.retries))`).
    - Local assignments are followed without regard to order or branches:
      if any assignment to the delay adds a random part, nothing is reported.
    - Sleep loops count as retry loops when an `except` handler in them (also
      in a nested loop) lets the loop go on; wherever the sleep stands in the
      loop, it runs after the caught exception (in the handler, after it, or
      on the next pass). A loop that retries on a status code without catching
      an exception is not seen. The attempt counter is a `range`/
      `itertools.count`/`enumerate` loop variable or a name bumped by a
      constant in the loop.
    - `Retry` imported through a module of your own that re-exports urllib3's
      or RQ's is not recognised.
    """

    CODE = "JL301"
    SHARED_LIMITS = PROJECT_RETRY_LIMITS
    SHARED_DOCS = PROJECT_TASK_DOCS
    TRIGGERS = (
        *RETRY_DELAYS,
        # A sleep with a computed delay in a loop that catches an exception.
        Trigger((SLEEP,), (r"\b(?:for|while)\b",), confirm="sleep-in-retry-loop"),
    )
    SUMMARY = "Retry delay grows with the attempt but has no jitter: retries stampede together"
    HELP = (
        "Randomise the delay: joblint_runtime.backoff.full_jitter(attempt, base=30, cap=600), "
        "tenacity wait_random_exponential(multiplier=..., max=...), or "
        "joblint_runtime.backoff.jittered_intervals(...) for RQ"
    )

    def judge(self, policy: RetryPolicy) -> None:
        """A wait that grows with the attempt and has no random part (none
        added, or the library's switched off). A wait made of several terms has
        a random part when one of them has."""
        for delay in policy.delays:
            if delay.may_be_random:
                continue
            for term in delay.terms:
                if term.growth is Growth.EXPONENTIAL and self.first_time(term.node):
                    message = _message(term)
                    fix = as_fix(term.rewrite)
                    self.report_at(policy, term.node, message, fix=fix, requires=term.requires)

    VALID = (
        Valid(
            """
from celery import shared_task

@shared_task(bind=True, autoretry_for=(ConnectionError,), retry_backoff=True)
def sync(self, account_id):
    fetch(account_id)
""",
            id="celery-retry-backoff-jitters-by-default",
        ),
        Valid(
            """
import random
from celery import shared_task

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        delay = 2 ** self.request.retries
        delay += random.uniform(0, delay)
        raise self.retry(exc=exc, countdown=delay)
""",
            id="celery-countdown-with-random-part",
        ),
    )

    INVALID = (
        invalid(
            """
from celery import shared_task

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        delay = 2 ** self.request.retries
        raise self.retry(exc=exc, countdown=delay)
""",
            (10, 45, "2 ** self.request.retries, line 9"),
            fixed="""
from celery import shared_task
from joblint_runtime.backoff import full_jitter

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError as exc:
        delay = full_jitter(self.request.retries, base=1, cap=600)
        raise self.retry(exc=exc, countdown=delay)
""",
            id="celery-countdown-through-local",
        ),
        invalid(
            """
from celery import shared_task
from django.conf import settings

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError:
        raise self.retry(countdown=min(900, 30 * 2 ** self.request.retries))
    except TimeoutError:
        raise self.retry(countdown=int(3 ** (self.request.retries + 1)))
    except OSError:
        raise self.retry(countdown=settings.RETRY_BASE * 2 ** self.request.retries)
    except ValueError:
        raise self.retry(countdown=min(settings.MAX_WAIT, 5 << self.request.retries))
""",
            (10, 36, "30 * 2 ** self.request.retries"),
            (12, 36, "3 ** (self.request.retries + 1)"),
            (14, 36, "settings.RETRY_BASE * 2 ** self.request.retries"),
            (16, 36, "5 << self.request.retries"),
            fixed="""
from celery import shared_task
from django.conf import settings
from joblint_runtime.backoff import full_jitter

@shared_task(bind=True, max_retries=5)
def sync(self, account_id):
    try:
        fetch(account_id)
    except ConnectionError:
        raise self.retry(countdown=full_jitter(self.request.retries, base=30, cap=900))
    except TimeoutError:
        raise self.retry(countdown=full_jitter(self.request.retries, base=3, factor=3, cap=600))
    except OSError:
        raise self.retry(countdown=settings.RETRY_BASE * 2 ** self.request.retries)
    except ValueError:
        raise self.retry(countdown=full_jitter(self.request.retries, base=5, cap=settings.MAX_WAIT))
""",
            id="celery-countdown-base-factor-cap-kept",
        ),
    )


def _message(term: DelayTerm) -> Message:
    grown_by = term.grown_by
    if grown_by is None:
        return f"{term.says.cause}: {_SAME_TIME}. {term.says.remedy}"
    text = snippet(grown_by)
    if any(isinstance(r, ReturnsGrowth) and r.schedule for r in term.requires):
        # A list of waits a project function returns: the project step says where.
        def listed(line_of: LineOf) -> str:
            return (
                f"{term.says.cause} ({text}, line {line_of(grown_by)}: {RETURNED}): "
                f"{_SAME_TIME}. {term.says.remedy}"
            )

        return listed
    # A project function computing it: the project step says where it grows.
    through = f"; {RETURNED}" if term.requires else ""

    def message(line_of: LineOf) -> str:
        return (
            f"{term.says.cause} grows with the attempt ({text}, line {line_of(grown_by)}"
            f"{through}) and has no random part: {_SAME_TIME}. {term.says.remedy}"
        )

    return message

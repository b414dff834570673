"""The retries family's prefilter vocabulary: what a file must name for a JL3 rule to fire.

Derived from the retry APIs the library modules declare (`joblint.libraries.retry_api`):
a file may set a policy a JL3 rule judges only where it names what that policy
needs (a growing wait's switch, an attempt bound's keyword, the exceptions a
retry catches). A hand-written retry loop needs `sleep`, confirmed on the AST
(`_screen/sleep_check.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from joblint.knowledge import retries
from joblint.knowledge.tokens import alternatives, calls, keyword_given, tails, tops
from joblint.knowledge.trigger import Trigger
from joblint.libraries.retry_api import (
    Bound,
    BoundParams,
    DelayParams,
    Growth,
    Jitter,
    RetryCall,
    RetryMethod,
    RetryPredicates,
    TaskRetries,
    Value,
    WaitStrategies,
)

# A call that may be a sleep (`time.sleep`, `asyncio.sleep`, an alias of one):
# sleeps may be imported under another name, but the import says `sleep`.
SLEEP = "sleep"


def _module_word(callees: Iterable[str]) -> str:
    return rf"\b(?:{alternatives({top.lower() for top in tops(callees)})})\b"


def _keyword_set(keyword: str, values: Iterable[Value]) -> str:
    """`keyword=<literal>` for the literals that matter (`retry=True`)."""
    spelled = {value.value.lower() for value in values if value is not Value.FALSY}
    return rf"\b{re.escape(keyword.lower())}\s*=\s*(?:{alternatives(spelled)})\b"


def _keywords(bound: BoundParams) -> tuple[str, ...]:
    return tuple(sorted({param.keyword.lower() for param, _ in bound.params}))


def _distinct(triggers: Iterable[Trigger]) -> tuple[Trigger, ...]:
    return tuple(dict.fromkeys(triggers))


def _delay_needs(params: DelayParams) -> tuple[str, ...]:
    """What a growing wait without a random part must name: the switch of a
    jitter the library adds by default, else its growth parameter, or the
    strategies that grow exponentially."""
    growth = params.growth
    if isinstance(growth, WaitStrategies):
        exponential = [n for n, s in growth.shapes.items() if s.growth is Growth.EXPONENTIAL]
        return tuple(sorted(tails(exponential)))
    jitter = params.jitter
    if jitter is not None and jitter.default is Jitter.PRESENT:
        return (jitter.param.keyword.lower(),)
    return (growth.param.keyword.lower(),)


def _retry_method_call(method: RetryMethod) -> tuple[str, ...]:
    return calls([method.name])


# Waits that may grow without a random part (JL301).
RETRY_DELAYS: tuple[Trigger, ...] = _distinct(
    (
        *(
            Trigger(_delay_needs(api.delay), (_module_word(api.callees),))
            for api in retries.RETRY_CALL_APIS
            if api.delay is not None
        ),
        *(Trigger(_delay_needs(r.delay)) for r in retries.TASK_RETRIES if r.delay is not None),
        *(
            Trigger(_retry_method_call(r.method), (alternatives(set(r.method.delay_keywords)),))
            for r in retries.TASK_RETRIES
            if r.method is not None
        ),
        # A delay computed from the attempt count and handed to a helper
        # retrying the task with it (`retry_later(self, exc, 2 ** self.request.retries)`).
        *(
            Trigger((".".join(r.method.attempt_count),))
            for r in retries.TASK_RETRIES
            if r.method is not None
        ),
    )
)


def _bound_triggers(bound: BoundParams, callees: tuple[str, ...]) -> Iterator[Trigger]:
    if bound.default is Bound.NONE:  # leaving it out is the finding
        yield Trigger(tuple(sorted(tails(callees))), (_module_word(callees),))
    elif any(param.position is not None for param, _ in bound.params):
        yield Trigger(_keywords(bound))
    else:  # only ever a keyword: given a value
        keywords = _keywords(bound)
        yield Trigger(keywords, (keyword_given(*keywords),))


def _option_bound_triggers(r: TaskRetries) -> Iterator[Trigger]:
    """An option set to a value that means no bound; only keywords (no class
    attributes, no dict options) are spelled `keyword=value`."""
    keywords_only = not r.task_bases
    for bound in r.bounds:
        for param, _ in bound.params:
            literal = keywords_only and not param.within and bound.unbounded
            if literal:
                pattern: tuple[str, ...] = (_keyword_set(param.keyword, bound.unbounded),)
            elif param.position is None:
                pattern = (keyword_given(param.keyword),)
            else:
                pattern = ()
            yield Trigger((param.keyword.lower(),), pattern)
    if r.method is not None and r.method.bound is not None:
        yield from _bound_triggers(r.method.bound, ())


# Retries that may have no attempt bound (JL302).
RETRY_BOUNDS: tuple[Trigger, ...] = _distinct(
    (
        *(
            trigger
            for api in retries.RETRY_CALL_APIS
            if api.bound is not None
            for trigger in _bound_triggers(api.bound, (*api.callees, *api.bare))
        ),
        *(trigger for r in retries.TASK_RETRIES for trigger in _option_bound_triggers(r)),
        *(
            Trigger((s.setting.lower(),), also=(_keywords(s.bound),))
            for s in retries.RETRY_SETTINGS.values()
        ),
    )
)


def _catch_triggers(api: RetryCall) -> Iterator[Trigger]:
    catches = api.catches
    if isinstance(catches, RetryPredicates):
        yield Trigger(tuple(sorted(tails(catches.types))), (_module_word(api.callees),))
    elif catches is not None:
        yield Trigger(tuple(sorted(tails(api.callees))), (_module_word(api.callees),))


# `except:`, `except Exception as exc:`, `except (KeyError, BaseException):`.
_CATCH_ALL = r"\bexcept\s*(?:\(?\s*(?:[\w.]+\s*,\s*)*(?:base)?exception\b[^:\n]*)?:"

# Retries that may be for every exception (JL303); a task's own retry is in an
# except clause.
RETRY_CATCHES: tuple[Trigger, ...] = _distinct(
    (
        *(trigger for api in retries.RETRY_CALL_APIS for trigger in _catch_triggers(api)),
        *(
            Trigger((r.catches.param.keyword.lower(),))
            for r in retries.TASK_RETRIES
            if r.catches is not None
        ),
        *(
            Trigger(_retry_method_call(r.method), (r"\bexcept\b",))
            for r in retries.TASK_RETRIES
            if r.method is not None
        ),
        # A bound task handing itself to a helper of the project's that
        # retries it (`retry_later(self, exc)`), in an except clause.
        # The task is bound where it is defined: `bind=True`, or a task class.
        *(
            Trigger(
                ("except",),
                (
                    rf"\b{r.method.bind_keyword}\s*=\s*true\b|\bclass\s+\w+\s*\([^)]*task\b",
                    r"\w\(\s*self\s*[,)]",
                    _CATCH_ALL,
                ),
                # Words the patterns need, looked for with the anchors first.
                also=(("self",), (r.method.bind_keyword, "task")),
            )
            for r in retries.TASK_RETRIES
            if r.method is not None and r.method.bind_keyword
        ),
    )
)

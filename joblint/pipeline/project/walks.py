"""Who calls whom: the callers of each loaded function, and the shortest
chain of calls from a function to a call that ends it (an enqueue, a side
effect, a write), honouring the flags each call passes: a literal, a
caller's flag handed on or a default may keep a callee's calls guarded by
that flag from running (`if notify:` around them). Breadth first, so the
chain found is a shortest one; at most `MAX_HOPS` calls deep and never round
a cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from joblint.index.flags import UNKNOWN_PASSING
from joblint.models import FunctionSummary, ProjectCall
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.hops import (
    MAX_HOPS,
    Hop,
    call_runs,
    flag_truth,
    positional_parameters,
)

# What ends a chain: the enqueue, or the side effect.
_End = TypeVar("_End")


@dataclass(slots=True)
class Walks:
    """Walks over the calls of the loaded functions, up and down."""

    calls: Calls
    # Function -> the calls of it the loaded functions make (built when first asked).
    _callers: dict[str, list[Hop]] | None = None

    def callers_of(self, function: str) -> list[Hop]:
        """The calls of the summarised `function` the loaded functions make."""
        if self._callers is None:
            found: dict[str, list[Hop]] = {}
            functions, resolve = self.calls.functions, self.calls.resolve
            for name in sorted(functions):
                summary, path = functions[name]
                for call in summary.calls:
                    target = resolve(call.callee)
                    if target is not None and target != name:
                        found.setdefault(target, []).append(Hop(name, path, call))
            self._callers = found
        return self._callers.get(function, [])

    def breadth_first(
        self,
        start: str,
        calls_of: Callable[[FunctionSummary], tuple[ProjectCall, ...]],
        ends: Callable[[ProjectCall], _End | None],
        flags: dict[str, bool] | None = None,
    ) -> tuple[tuple[Hop, ...], _End] | None:
        """The shortest chain of calls from the function `start` to a call
        `ends` says ends it (with what it says), through the calls
        `calls_of` gives of each function on the way that its flags let run
        (`flags`: those of `start`), at most `MAX_HOPS` deep and never round
        a cycle."""
        functions, resolve = self.calls.functions, self.calls.resolve
        frontier: list[tuple[str, tuple[Hop, ...], dict[str, bool]]] = [(start, (), flags or {})]
        seen = {start}
        for _ in range(MAX_HOPS):
            following: list[tuple[str, tuple[Hop, ...], dict[str, bool]]] = []
            for name, hops, known in frontier:
                summary, where = functions[name]
                calls = [c for c in calls_of(summary) if call_runs(c, known)]
                for call in calls:
                    end = ends(call)
                    if end is not None:
                        return (*hops, Hop(name, where, call)), end
                for call in calls:
                    callee = resolve(call.callee)
                    if callee is not None and callee not in seen:
                        seen.add(callee)
                        step = (*hops, Hop(name, where, call))
                        following.append((callee, step, self.bound(callee, call, known)))
            frontier = following
        return None

    def runs_after(self, function: str, call: ProjectCall, then: ProjectCall) -> bool:
        """Whether `function`, called by `call`, makes its call `then`: the
        flags `call` passes may rule it out (`f(save=False)` and `if save:`)."""
        return call_runs(then, self.bound(function, call, {}))

    def bound(
        self, function: str, call: ProjectCall | None, known: dict[str, bool]
    ) -> dict[str, bool]:
        """The truth of `function`'s parameters that `call` of it fixes
        (`known`: the caller's): the literals it passes, the caller's flags it
        hands on, and the literal defaults of those it passes nothing for,
        where nothing else (`*args`, `**kwargs`, positions that can't be told
        apart) may pass them."""
        if call is None:
            return {}
        summary = self.calls.functions[function][0]
        names = positional_parameters(summary, call.text)
        passed = dict(call.flags)
        positional = any(key.isdigit() for key in passed)
        found: dict[str, bool] = {}
        if UNKNOWN_PASSING not in passed and (names is not None or not positional):
            found.update(summary.defaults)
        for key, value in call.flags:
            if key == UNKNOWN_PASSING:
                continue
            name = key
            if key.isdigit():
                at = int(key)
                if names is None or at >= len(names):
                    continue
                name = names[at]
            truth = flag_truth(value, known)
            if truth is None:
                found.pop(name, None)
            else:
                found[name] = truth
        return found

"""What the project's calls return, settled on the call graph: a fact per
`return` (`joblint.index.returns`) followed through helpers returning what
another returns (JL201/JL202's objects, JL301's growing delays and lists of
waits, the delay a helper retries a task with), at most `MAX_HOPS` deep and
never round a cycle."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from joblint.index import returns
from joblint.knowledge import retries
from joblint.knowledge.payloads import ENUM
from joblint.models import FunctionSummary, RetryDelayHanded, ReturnFact
from joblint.pipeline.project.call_graph import MAX_HOPS, CallGraph, short_name


@dataclass(frozen=True, slots=True)
class Returning:
    """A function on the way to the value a call returns: where it returns it."""

    function: str  # qualified name
    path: str
    line: int


@dataclass(frozen=True, slots=True)
class Returned:
    """The kind of value a call returns (`django_model`, `enum`, ...), of which
    class, and the helpers it comes through, the call's own callee first."""

    kind: str
    class_name: str
    hops: tuple[Returning, ...]

    def text(self, called: str, item: bool = False) -> str:
        """`Order, returned by orders.load() at shop/orders.py:5`, then each
        further helper it comes from (`item`: in the dict it returns)."""
        first, *rest = self.hops
        how = "in the dict returned" if item else "returned"
        steps = [f"{self.class_name}, {how} by {called}() at {first.path}:{first.line}"]
        steps.extend(f"from {short_name(hop.function)}() at {hop.path}:{hop.line}" for hop in rest)
        return " ".join(steps)


@dataclass(slots=True)
class ReturnsView:
    """What calls return, settled on a `CallGraph`: a fact per `return`
    (`joblint.index.returns`), followed through helpers returning what
    another returns, at most `MAX_HOPS` deep and never round a cycle."""

    graph: CallGraph
    value_kinds: frozenset[str]

    def at(self, function: str, text: str, item: bool) -> list[Returned]:
        """What the calls written `text` in the summarised `function` return
        (`item`: the values of the dict they return)."""
        results = []
        for callee in self._called(function, text):
            results.extend(self.returned(callee, item, MAX_HOPS, frozenset()))
        return results

    def _called(self, function: str, text: str) -> list[str]:
        """What the calls written `text` in the summarised `function` call, as
        its index names them."""
        found = self.graph.functions.get(function)
        if found is None:
            return []
        return sorted({c.callee for c in found[0].calls if c.text == text})

    def _resolved(self, callees: list[str]) -> Iterator[str]:
        """The project functions `callees` are, where the graph knows them."""
        for callee in callees:
            target = self.graph.resolve(callee)
            if target is not None:
                yield target

    def returned(
        self, qualname: str, item: bool, depth: int, seen: frozenset[str]
    ) -> list[Returned]:
        """A function's own return value (every return agreeing on one kind),
        or with `item` the values of a kind its returned dicts hold."""
        target = self.graph.resolve(qualname)
        if target is None or target in seen or depth == 0:
            return []
        summary, path = self.graph.functions[target]
        seen = seen | {target}
        if item:
            return self._items(summary, path, target, depth, seen)
        own = [fact for fact in summary.returns if not fact.key]
        kinds = [self._fact(fact, path, target, depth, seen) for fact in own]
        if not kinds or any(k is None for k in kinds):
            return []
        first = kinds[0]
        assert first is not None
        return [first] if all(k is not None and k.kind == first.kind for k in kinds) else []

    def _items(
        self, summary: FunctionSummary, path: str, target: str, depth: int, seen: frozenset[str]
    ) -> list[Returned]:
        found: list[Returned] = []
        for fact in summary.returns:
            if fact.key:
                value = self._fact(fact, path, target, depth, seen)
                if value is not None:
                    found.append(value)
            elif fact.how == returns.CALL:  # `return build_common(...)`: its dict
                hop = Returning(target, path, fact.line)
                for inner in self.returned(fact.name, True, depth - 1, seen):
                    found.append(Returned(inner.kind, inner.class_name, (hop, *inner.hops)))
        return found

    def _fact(
        self, fact: ReturnFact, path: str, target: str, depth: int, seen: frozenset[str]
    ) -> Returned | None:
        hop = Returning(target, path, fact.line)
        if fact.how in (returns.ROW, returns.ROWS):
            return Returned(fact.kind, short_name(fact.name), (hop,))
        if fact.how == returns.MEMBER:
            if ENUM in self.graph.index.class_kinds(fact.name):
                return Returned(ENUM, short_name(fact.name), (hop,))
            return None
        if fact.how != returns.CALL:
            return None
        if self.graph.resolve(fact.name) is not None:
            inner = self.returned(fact.name, False, depth - 1, seen)
            if not inner:
                return None
            return Returned(inner[0].kind, inner[0].class_name, (hop, *inner[0].hops))
        kinds = sorted(self.graph.index.class_kinds(fact.name) & self.value_kinds)
        return Returned(kinds[0], short_name(fact.name), (hop,)) if kinds else None

    def lookups(self, function: str, text: str, missing: set[str], classes: set[str]) -> None:
        """The names on the way from the calls written `text` in `function`
        that mean no loaded function (`missing`: their modules' index is
        read) and the classes whose kinds decide (`classes`: their facts)."""
        found = self.graph.functions.get(function)
        if found is None:
            return
        todo = [(c.callee, 0) for c in found[0].calls if c.text == text]
        seen: set[str] = set()
        while todo:
            name, depth = todo.pop()
            tried: set[str] = set()
            target = self.graph.resolve(name, tried)
            if target is None:
                missing |= tried
                classes.add(name)
                continue
            if target in seen or depth >= MAX_HOPS:
                continue
            seen.add(target)
            summary = self.graph.functions[target][0]
            todo.extend((r.built_by, depth + 1) for r in summary.retry_delays if r.built_by)
            for fact in summary.returns:
                if fact.how == returns.CALL or (fact.how == returns.SCHEDULE and fact.name):
                    todo.append((fact.name, depth + 1))
                elif fact.how == returns.MEMBER:
                    classes.add(fact.name)

    def growth_at(
        self, function: str, text: str, position: str, keyword: str
    ) -> tuple[Returning, str] | None:
        """Where a function the calls written `text` in `function` call
        returns a value growing with its parameter at `position` (or named
        `keyword`), every return of it so (`joblint.index.returns.GROWS`),
        and that parameter's name."""
        for target in self._resolved(self._called(function, text)):
            summary, path = self.graph.functions[target]
            own = [fact for fact in summary.returns if not fact.key]
            if not own or any(fact.how != returns.GROWS for fact in own):
                continue
            at = position
            if position and "." in text and summary.parameters[:1] in (("self",), ("cls",)):
                at = str(int(position) + 1)  # `self.backoff(n)`: `n` is its second parameter
            for fact in own:
                if (at and fact.kind == at) or (keyword and fact.name == keyword):
                    return Returning(target, path, fact.line), fact.name
        return None

    def delay_helper(
        self, function: str, text: str, task: str, position: str, keyword: str
    ) -> tuple[Returning, str] | None:
        """Where a helper the calls written `text` in `function` call retries
        the task handed at `task` with the delay handed at `position` (or as
        `keyword`), and the name of its parameter the delay is: a retry's
        delay keyword, or one the dict a project function it hands the
        parameter to returns holds it under (`FunctionSummary.retry_delays`)."""
        for target in self._resolved(self._called(function, text)):
            summary, path = self.graph.functions[target]
            for retry in summary.retry_delays:
                handed_there = (position and retry.position == position) or (
                    keyword and retry.parameter == keyword
                )
                if retry.task != task or not handed_there:
                    continue
                if not retry.built_by or self._holds_delay(retry):
                    return Returning(target, path, retry.line), retry.parameter
        return None

    def _holds_delay(self, retry: RetryDelayHanded) -> bool:
        """`**build(countdown=delay)`: `build` returns a dict holding the
        parameter it is handed there under a delay keyword."""
        target = self.graph.resolve(retry.built_by)
        if target is None:
            return False
        summary = self.graph.functions[target][0]
        at = retry.built_at
        if at and "." in retry.built_by and summary.parameters[:1] in (("self",), ("cls",)):
            at = str(int(at) + 1)  # `self.build(delay)`: `delay` is its second parameter
        return any(
            fact.how == returns.PARAM
            and fact.key in retries.TASK_DELAY_KEYWORDS
            and ((at and fact.kind == at) or (retry.built_as and fact.name == retry.built_as))
            for fact in summary.returns
        )

    def schedule_at(self, function: str, text: str) -> tuple[Returning, ...] | None:
        """Where a function the calls written `text` in `function` call
        returns a growing list of waits (`joblint.index.returns.SCHEDULE`),
        every return of it so: the hops, the one building the list last."""
        for target in self._resolved(self._called(function, text)):
            found = self._schedule(target, MAX_HOPS, frozenset())
            if found is not None:
                return found
        return None

    def _schedule(
        self, target: str, depth: int, seen: frozenset[str]
    ) -> tuple[Returning, ...] | None:
        """The hops to where `target` builds the growing list it returns,
        through the project functions whose result it returns (each one so)."""
        if target in seen or depth == 0:
            return None
        summary, path = self.graph.functions[target]
        own = [fact for fact in summary.returns if not fact.key]
        if not own or any(fact.how not in (returns.SCHEDULE, returns.CALL) for fact in own):
            return None
        built: tuple[Returning, ...] | None = None
        for fact in own:
            hop = Returning(target, path, fact.line)
            if fact.how == returns.SCHEDULE and not fact.name:
                built = built or (hop,)
                continue
            inner = self.graph.resolve(fact.name)
            further = None if inner is None else self._schedule(inner, depth - 1, seen | {target})
            if further is None:
                return None  # a list another function returns, which may not grow
            built = built or (hop, *further)
        return built

    def parameter_at(
        self, function: str, text: str, position: str, keyword: str
    ) -> Returning | None:
        """Where a function the calls written `text` in `function` call puts
        its parameter (at `position`, or named `keyword`) in the dict it
        returns: the caller's argument ends up there."""
        for target in self._resolved(self._called(function, text)):
            summary, path = self.graph.functions[target]
            for fact in summary.returns:
                if fact.how != returns.PARAM or not fact.key:
                    continue
                if (position and fact.kind == position) or (keyword and fact.name == keyword):
                    return Returning(target, path, fact.line)
        return None

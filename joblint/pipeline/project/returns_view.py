"""What the project's calls return, settled on the call graph: a fact per
`return` (`joblint.index.returns`) followed through helpers returning what
another returns (JL201/JL202's objects, JL301's growing delays and lists of
waits, the delay a helper retries a task with), at most `MAX_HOPS` deep and
never round a cycle."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from joblint.index import returns
from joblint.knowledge import retries
from joblint.knowledge.payloads import ENUM
from joblint.models import RETURNED, Finding, FunctionSummary, Related, RetryDelayHanded, ReturnFact
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.hops import MAX_HOPS, line_span, short_name
from joblint.pipeline.project.judging import judges, names
from joblint.requirements import (
    RetriesWithHandedDelay,
    ReturnsArgument,
    ReturnsGrowth,
    ReturnsObject,
)

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex


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

    calls: Calls
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
        found = self.calls.functions.get(function)
        if found is None:
            return []
        return sorted({c.callee for c in found[0].calls if c.text == text})

    def _resolved(self, callees: list[str]) -> Iterator[str]:
        """The project functions `callees` are, where the graph knows them."""
        for callee in callees:
            target = self.calls.resolve(callee)
            if target is not None:
                yield target

    def returned(
        self, qualname: str, item: bool, depth: int, seen: frozenset[str]
    ) -> list[Returned]:
        """A function's own return value (every return agreeing on one kind),
        or with `item` the values of a kind its returned dicts hold."""
        target = self.calls.resolve(qualname)
        if target is None or target in seen or depth == 0:
            return []
        summary, path = self.calls.functions[target]
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
            if ENUM in self.calls.index.class_kinds.of(fact.name):
                return Returned(ENUM, short_name(fact.name), (hop,))
            return None
        if fact.how != returns.CALL:
            return None
        if self.calls.resolve(fact.name) is not None:
            inner = self.returned(fact.name, False, depth - 1, seen)
            if not inner:
                return None
            return Returned(inner[0].kind, inner[0].class_name, (hop, *inner[0].hops))
        kinds = sorted(self.calls.index.class_kinds.of(fact.name) & self.value_kinds)
        return Returned(kinds[0], short_name(fact.name), (hop,)) if kinds else None

    def lookups(self, function: str, text: str, missing: set[str], classes: set[str]) -> None:
        """The names on the way from the calls written `text` in `function`
        that mean no loaded function (`missing`: their modules' index is
        read) and the classes whose kinds decide (`classes`: their facts)."""
        found = self.calls.functions.get(function)
        if found is None:
            return
        todo = [(c.callee, 0) for c in found[0].calls if c.text == text]
        seen: set[str] = set()
        while todo:
            name, depth = todo.pop()
            tried: set[str] = set()
            target = self.calls.resolve(name, tried)
            if target is None:
                missing |= tried
                classes.add(name)
                continue
            if target in seen or depth >= MAX_HOPS:
                continue
            seen.add(target)
            summary = self.calls.functions[target][0]
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
            summary, path = self.calls.functions[target]
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
            summary, path = self.calls.functions[target]
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
        target = self.calls.resolve(retry.built_by)
        if target is None:
            return False
        summary = self.calls.functions[target][0]
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
        summary, path = self.calls.functions[target]
        own = [fact for fact in summary.returns if not fact.key]
        if not own or any(fact.how not in (returns.SCHEDULE, returns.CALL) for fact in own):
            return None
        built: tuple[Returning, ...] | None = None
        for fact in own:
            hop = Returning(target, path, fact.line)
            if fact.how == returns.SCHEDULE and not fact.name:
                built = built or (hop,)
                continue
            inner = self.calls.resolve(fact.name)
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
            summary, path = self.calls.functions[target]
            for fact in summary.returns:
                if fact.how != returns.PARAM or not fact.key:
                    continue
                if (position and fact.kind == position) or (keyword and fact.name == keyword):
                    return Returning(target, path, fact.line)
        return None


# --- the requirements on what calls return ------------------------------------------


def _delay_helper(
    index: ProjectIndex, requirement: RetriesWithHandedDelay
) -> tuple[Returning, str] | None:
    return index.returns.delay_helper(
        requirement.function,
        requirement.call_text,
        requirement.task_position,
        requirement.delay_position,
        requirement.delay_keyword,
    )


@judges(RetriesWithHandedDelay)
def _retries_with_handed_delay(
    index: ProjectIndex, requirement: RetriesWithHandedDelay, path: str, line: int
) -> bool:
    return _delay_helper(index, requirement) is not None


@names(RetriesWithHandedDelay, placeholder=RETURNED)
def _naming_delay_helper(
    index: ProjectIndex, finding: Finding, requirement: RetriesWithHandedDelay, path: str
) -> Finding | None:
    """The message names the helper retrying the task with the delay."""
    text = requirement.call_text
    found = _delay_helper(index, requirement)
    if found is None:
        return None
    hop, parameter = found
    where = f"{hop.path}:{hop.line}"
    said = f"{text}() retries the task with it as {parameter} at {where}"
    step = f"{hop.function.rsplit('.', 1)[-1]}() retries the task with {parameter}"
    related = Related(hop.path, line_span(hop.line), step)
    message = finding.message.replace(RETURNED, said)
    return replace(finding, message=message, related=(*finding.related, related))


def _returned(
    index: ProjectIndex, requirement: ReturnsObject | ReturnsArgument
) -> tuple[str, Related] | None:
    """How a `ReturnsObject` or `ReturnsArgument` requirement holds: the
    words naming the helper and where it returns the value, and that place."""
    text = requirement.call_text
    if isinstance(requirement, ReturnsArgument):
        hop = index.returns.parameter_at(
            requirement.function, text, requirement.position, requirement.keyword
        )
        if hop is None:
            return None
        where = f"{hop.path}:{hop.line}"
        step = f"{hop.function.rsplit('.', 1)[-1]}() puts it in the dict it returns"
        return f"through {text}() at {where}", Related(hop.path, line_span(hop.line), step)
    item = requirement.in_dict
    found = index.returns.at(requirement.function, text, item)
    chosen = next((r for r in found if r.kind in requirement.kinds), None)
    if chosen is None:
        return None
    source = chosen.hops[-1]
    step = f"{source.function.rsplit('.', 1)[-1]}() returns it"
    return chosen.text(text, item), Related(source.path, line_span(source.line), step)


@judges(ReturnsObject, ReturnsArgument)
def _returns_object(
    index: ProjectIndex, requirement: ReturnsObject | ReturnsArgument, path: str, line: int
) -> bool:
    return _returned(index, requirement) is not None


@names(ReturnsObject, ReturnsArgument, placeholder=RETURNED)
def _naming_helper(
    index: ProjectIndex, finding: Finding, requirement: ReturnsObject | ReturnsArgument, path: str
) -> Finding | None:
    found = _returned(index, requirement)
    if found is None:
        return None
    text, related = found
    message = finding.message.replace(RETURNED, text)
    return replace(finding, message=message, related=(*finding.related, related))


def _growing(index: ProjectIndex, requirement: ReturnsGrowth) -> tuple[str, Related] | None:
    """How a `ReturnsGrowth` requirement holds: the words naming the
    function returning the growing delay and where, and that place."""
    text, position, keyword = requirement.call_text, requirement.position, requirement.keyword
    if requirement.schedule:
        return _growing_schedule(index, requirement.function, text)
    found = index.returns.growth_at(requirement.function, text, position, keyword)
    if found is None:
        return None
    hop, parameter = found
    where = f"{hop.path}:{hop.line}"
    step = f"{hop.function.rsplit('.', 1)[-1]}() returns a delay growing with {parameter}"
    said = f"{text}() returns it at {where}, growing with its parameter {parameter}"
    return said, Related(hop.path, line_span(hop.line), step)


def _growing_schedule(index: ProjectIndex, function: str, text: str) -> tuple[str, Related] | None:
    """A project function returning a growing list of waits: the words
    naming where it is built, and that place."""
    hops = index.returns.schedule_at(function, text)
    if hops is None:
        return None
    built = hops[-1]
    name = built.function.rsplit(".", 1)[-1]
    where = f"{built.path}:{built.line}"
    step = f"{name}() returns a list of waits growing with their position"
    through = f"{text}() returns {name}()'s list" if len(hops) > 1 else f"{text}() returns it"
    said = f"{through}, growing with its position at {where}"
    return said, Related(built.path, line_span(built.line), step)


@judges(ReturnsGrowth)
def _returns_growth(index: ProjectIndex, requirement: ReturnsGrowth, path: str, line: int) -> bool:
    return _growing(index, requirement) is not None


@names(ReturnsGrowth, placeholder=RETURNED)
def _naming_growth(
    index: ProjectIndex, finding: Finding, requirement: ReturnsGrowth, path: str
) -> Finding | None:
    found = _growing(index, requirement)
    if found is None:
        return None
    text, related = found
    return replace(finding, message=finding.message.replace(RETURNED, text), related=(related,))

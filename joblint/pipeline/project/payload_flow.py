"""Which values reach a job's payload, and what a task does with what it
is handed: a project function hands the argument a call passes it on to an
enqueue's payload, itself or through the functions it passes it to
(`ProjectCall.flags`, `ProjectCall.held`), at most `MAX_HOPS` deep; a task
uses an argument as a model instance (`FunctionSummary.model_uses`), or
loads a row by the key it is handed and reads or writes its fields
(`FunctionSummary.row_uses`). Settles JL201's `HandsToPayload` and
`UsedAsModel`, and JL106's `RowDepends`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from joblint.index.flags import PASSED_ON
from joblint.knowledge.payloads import PAYLOAD_SHAPES
from joblint.models import ANY_FIELD, HANDED, USED, Finding, Related, RowUse
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.enqueues import Enqueues
from joblint.pipeline.project.hops import MAX_HOPS, Hop, hops_text, line_span, parameter_at
from joblint.pipeline.project.judging import judges, names
from joblint.requirements import HandsToPayload, RowDepends, UsedAsModel

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

# How deep `PayloadFlow._forwards` follows hand-overs before it gives up
# (unremembered): well past the hops a finding may take.
_FORWARD_DEPTH = 4 * MAX_HOPS


@dataclass(slots=True)
class PayloadFlow:
    """Where the values the project's functions are handed go."""

    calls: Calls
    enqueues: Enqueues

    def hands_to_payload(
        self, function: str, position: str, keyword: str
    ) -> tuple[Hop, ...] | None:
        """How the project function `function` hands the argument a call
        passes it at `position` (a digit string, "" for none) or as `keyword`
        on to an enqueue's payload: the hops, the last one's call the enqueue
        (itself, or through the project functions it passes it to)."""
        return self._handing(function, position, keyword, MAX_HOPS, set())

    def _handing(
        self, function: str, position: str, keyword: str, depth: int, seen: set[str]
    ) -> tuple[Hop, ...] | None:
        found = self.calls.resolve(function)
        if found is None or found in seen or depth == 0:
            return None
        seen.add(found)
        summary, path = self.calls.functions[found]
        parameter = parameter_at(summary, position, keyword)
        if parameter is None:
            return None
        for call in summary.calls:
            direct = [place for place, value in call.flags if value == PASSED_ON + parameter]
            held = [place for place, name in call.held if name == parameter]
            if not direct and not held:
                continue
            hop = Hop(found, path, call)
            if self.enqueues.enqueued_by(call, path) is not None:
                if _in_payload(call.callee, direct, held):
                    return (hop,)
                continue
            for place in direct:
                at, named = (place, "") if place.isdigit() else ("", place)
                rest = self._handing(call.callee, at, named, depth - 1, seen)
                if rest is not None:
                    return (hop, *rest)
        return None

    def payload_forwarders(self) -> dict[str, frozenset[tuple[str, str]]]:
        """The names (last part) of the loaded functions that hand one of
        their parameters on to a job's payload, themselves or through others
        (`hands_to_payload`), each with the places a caller passes such a
        parameter at ((position, ""), ("", keyword)): their callers may pass
        them a live object there."""
        found: dict[str, set[tuple[str, str]]] = {}
        known: dict[tuple[str, str], bool] = {}
        for function, (summary, _) in self.calls.functions.items():
            handed = {value[len(PASSED_ON) :] for call in summary.calls for _, value in call.flags}
            handed |= {name for call in summary.calls for _, name in call.held}
            handed.discard("")
            parameters = [p for p in summary.parameters if p not in ("self", "cls")]
            short = function.rsplit(".", 1)[-1]
            for parameter in sorted(handed):
                if parameter in parameters:
                    at = str(parameters.index(parameter))
                    if self._forwards(function, at, "", known, set())[0]:
                        found.setdefault(short, set()).update({(at, ""), ("", parameter)})
                elif self._forwards(function, "", parameter, known, set())[0]:
                    found.setdefault(short, set()).add(("", parameter))
        return {name: frozenset(places) for name, places in found.items()}

    def _forwards(
        self,
        function: str,
        position: str,
        keyword: str,
        known: dict[tuple[str, str], bool],
        active: set[tuple[str, str]],
    ) -> tuple[bool, bool]:
        """`hands_to_payload` as yes or no, each function's parameter searched
        once for all the callers asking (`known`): whether it hands the
        argument on, and whether that answer holds everywhere (a search cut
        short by a function already being searched is not remembered). It may
        say yes where `hands_to_payload`'s hop limit would not: it only
        chooses the callers to read, and each finding is checked with
        `hands_to_payload` itself."""
        found = self.calls.resolve(function)
        if found is None:
            return False, True
        summary, path = self.calls.functions[found]
        parameter = parameter_at(summary, position, keyword)
        if parameter is None:
            return False, True
        key = (found, parameter)
        if key in known:
            return known[key], True
        if key in active or len(active) > _FORWARD_DEPTH:
            return False, False
        active.add(key)
        exact = True
        try:
            for call in summary.calls:
                direct = [place for place, value in call.flags if value == PASSED_ON + parameter]
                held = [place for place, name in call.held if name == parameter]
                if not direct and not held:
                    continue
                if self.enqueues.enqueued_by(call, path) is not None:
                    if _in_payload(call.callee, direct, held):
                        known[key] = True
                        return True, True
                    continue
                for place in direct:
                    at, named = (place, "") if place.isdigit() else ("", place)
                    hands, sure = self._forwards(call.callee, at, named, known, active)
                    if hands:
                        known[key] = True
                        return True, True
                    exact = exact and sure
        finally:
            active.discard(key)
        if exact:
            known[key] = False
        return False, exact

    def model_use(self, task: str, position: str, keyword: str) -> tuple[str, int, str] | None:
        """Where the task `task` uses the argument an enqueue passes it at
        `position` or as `keyword` as a model instance: (path, line, how it reads)."""
        found = self.calls.resolve(task)
        if found is None:
            return None
        summary, path = self.calls.functions[found]
        parameter = parameter_at(summary, position, keyword)
        use = next((u for u in summary.model_uses if u[0] == parameter), None)
        return (path, use[1], use[2]) if use is not None else None

    def row_use(self, task: str, position: str, keyword: str) -> RowUse | None:
        """What the task `task` does with the row whose key an enqueue passes
        it at `position` or as `keyword`, where it loads that row itself
        (its loads and writes by that key, merged)."""
        found = self.calls.resolve(task)
        if found is None:
            return None
        summary = self.calls.functions[found][0]
        parameter = parameter_at(summary, position, keyword)
        uses = [u for u in summary.row_uses if u.parameter == parameter]
        if not uses:
            return None
        return RowUse(
            uses[0].parameter,
            next((u.model for u in uses if u.model), ""),
            uses[0].line,
            tuple(sorted({f for u in uses for f in u.reads})),
            tuple(sorted({f for u in uses for f in u.writes})),
            any(u.saves_all for u in uses),
            any(u.handed_on for u in uses),
        )


def _in_payload(callee: str, direct: list[str], held: list[str]) -> bool:
    """Whether an enqueue's argument at one of the places `direct` (the value
    itself) or `held` (inside a display there) is in the job's payload."""
    method = callee.rsplit(".", 1)[-1]
    shape = PAYLOAD_SHAPES.get(method) or PAYLOAD_SHAPES["__call__"]
    containers = {shape.args_keyword, shape.kwargs_keyword} - {""}
    positions = {shape.args_position, shape.kwargs_position}

    def passed(place: str, inside: bool) -> bool:
        if place.isdigit():
            index = int(place)
            if index in positions:
                return inside
            return shape.rest_is_payload and index >= shape.skip_positional
        if place in containers:
            return inside
        reserved = place in shape.reserved or bool(
            shape.reserved_prefix and place.startswith(shape.reserved_prefix)
        )
        return shape.rest_is_payload and not reserved

    return any(passed(p, False) for p in direct) or any(passed(p, True) for p in held)


# --- the requirements on payloads, model uses and a row's key ------------------------


@judges(HandsToPayload)
def _hands_to_payload(
    index: ProjectIndex, requirement: HandsToPayload, path: str, line: int
) -> bool:
    hops = index.graph.payloads.hands_to_payload(
        requirement.function, requirement.position, requirement.keyword
    )
    return hops is not None


@names(HandsToPayload, placeholder=HANDED, last=False)
def _naming_enqueue(
    index: ProjectIndex, finding: Finding, requirement: HandsToPayload, path: str
) -> Finding | None:
    """The message names the enqueue the helper hands the value to, and
    the hops there (the enqueue the last)."""
    hops = index.graph.payloads.hands_to_payload(
        requirement.function, requirement.position, requirement.keyword
    )
    if hops is None:
        return None
    last = hops[-1]
    where = f"{last.call.shown()} at {last.path}:{last.call.line}"
    text = where if len(hops) == 1 else f"{where} ({hops_text(hops)})"
    related = tuple(
        Related(hop.path, line_span(hop.call.line), f"{hop.step()}, handing it on") for hop in hops
    )
    message = finding.message.replace(HANDED, text)
    return replace(finding, message=message, related=(*finding.related, *related))


@judges(UsedAsModel)
def _used_as_model(index: ProjectIndex, requirement: UsedAsModel, path: str, line: int) -> bool:
    use = index.graph.payloads.model_use(
        requirement.task, requirement.position, requirement.keyword
    )
    return use is not None


@names(UsedAsModel, placeholder=USED)
def _naming_use(
    index: ProjectIndex, finding: Finding, requirement: UsedAsModel, path: str
) -> Finding | None:
    """The message names where the task uses the argument as a model instance."""
    use = index.graph.payloads.model_use(
        requirement.task, requirement.position, requirement.keyword
    )
    if use is None:
        return None
    where, line, how = use
    message = finding.message.replace(USED, f"{how} at {where}:{line}")
    related = Related(where, line_span(line), f"the task uses it as a model instance: {how}")
    return replace(finding, message=message, related=(*finding.related, related))


@judges(RowDepends)
def _row_depends(index: ProjectIndex, requirement: RowDepends, path: str, line: int) -> bool:
    """Whether the job may depend on the write that follows its enqueue."""
    use = index.graph.payloads.row_use(requirement.task, requirement.position, requirement.keyword)
    if use is None or use.handed_on:
        return True  # what the job does with the row is not known
    written = requirement.fields
    if use.reads and (ANY_FIELD in written or not written.isdisjoint(use.reads)):
        return True  # it may read a field before the write sets it
    if use.saves_all and written:
        return True  # its save may put back what the write set
    rewritten = set(use.writes) - index.class_kinds.self_set_fields(use.model)
    if requirement.whole_row or ANY_FIELD in written:
        return bool(rewritten)  # the write saves its old values back
    return not rewritten.isdisjoint(written)

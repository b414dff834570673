"""What a job's calls do outside the database, and which models its body
touches: a call is a side effect (an email, an HTTP POST, a charge:
`joblint.knowledge.work`) unless it passes an idempotency key, and a call
of the project's code leads to one through functions none of which claims
its work first (`FunctionSummary.claims`); a task's body touches a model
when it, or what it calls, reads or writes one, or can't be told. Settles
JL601's `LeadsToEffect` and JL101's `JobTouches`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from joblint.knowledge import requests, work
from joblint.models import CHAIN, Finding, FunctionSummary, ProjectCall
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.hops import Hop, hops_text, naming_chain
from joblint.pipeline.project.judging import judges, names
from joblint.pipeline.project.walks import Walks
from joblint.requirements import JobTouches, LeadsToEffect

if TYPE_CHECKING:
    from joblint.libraries.job_work import SideEffect
    from joblint.pipeline.project import ProjectIndex


@dataclass(frozen=True, slots=True)
class EffectChain:
    """The calls from a job's call to a side effect (none: the call is one)."""

    hops: tuple[Hop, ...]
    effect: SideEffect
    call: ProjectCall  # the side effect's own call

    def text(self) -> str:
        """`notify() → mail.send_mail() at shop/notify.py:12`."""
        return hops_text(self.hops) if self.hops else f"{self.call.text}()"


@dataclass(slots=True)
class Effects:
    """The side effects of the project's calls, and what a task's body touches."""

    calls: Calls
    walks: Walks
    index: ProjectIndex

    def effect_chain_at(self, path: str, line: int, text: str) -> EffectChain | None:
        """The chain from the call written `text` at `line` of `path` to a
        side effect no function on the way claims first (`FunctionSummary.claims`)."""
        for call in self.calls.calls_at(path, line, text):
            effect = self.effect_of(call)
            if effect is not None:
                return EffectChain((), effect, call)
            start = self.calls.resolve(call.callee)
            found = self._effect_search(start) if start is not None else None
            if found is not None:
                return found
        return None

    def _effect_search(self, start: str) -> EffectChain | None:
        def calls_of(summary: FunctionSummary) -> tuple[ProjectCall, ...]:
            return () if summary.claims else summary.calls  # what it does, it does once

        found = self.walks.breadth_first(start, calls_of, self.effect_of)
        if found is None:
            return None
        hops, effect = found
        return EffectChain(hops, effect, hops[-1].call)

    def effect_of(self, call: ProjectCall) -> SideEffect | None:
        """The side effect `call` has, unless it passes an idempotency key:
        a library's call, or a method of a module-level object one of its
        makers made (`ses = boto3.client("ses")` ... `ses.send_email()`)."""
        if call.idempotent:
            return None
        qualname = self.index.canonical(call.callee)
        found = work.effect_of(qualname)
        if found is not None:
            return found
        owner, _, method = qualname.rpartition(".")
        maker = self.calls.instances.get(owner) or self.index.instances.get(owner)
        return work.effect_of(f"{maker}.{method}") if maker else None

    def touches(self, task: str, models: frozenset[str]) -> bool:
        """Whether the function `task` (through the project's calls) reads or
        writes one of `models`, or can't be told: it isn't loaded, it is a
        stub, or it calls project code the loaded modules don't summarise."""
        start = self.calls.resolve(task)
        if start is None or self.calls.functions[start][0].stub:
            return True
        prefixes = tuple(f"{self.index.canonical(m)}." for m in models)

        def ends(call: ProjectCall) -> bool | None:
            callee = self.index.canonical(call.callee)
            if callee.startswith(prefixes) or callee in models:
                return True
            unknown = self.calls.resolve(call.callee) is None and (
                self.index.in_project(callee) or requests.names_service(callee)
            )
            return True if unknown and not self.calls.of_a_class(callee) else None

        return self.walks.breadth_first(start, lambda summary: summary.calls, ends) is not None


# --- the requirements on side effects and what a job touches ------------------------


@judges(LeadsToEffect)
def _leads_to_effect(index: ProjectIndex, requirement: LeadsToEffect, path: str, line: int) -> bool:
    return index.graph.effects.effect_chain_at(path, line, requirement.call_text) is not None


@names(LeadsToEffect, placeholder=CHAIN)
def _naming_effect(
    index: ProjectIndex, finding: Finding, requirement: LeadsToEffect, path: str
) -> Finding | None:
    """The message names the side effect a call leads to, and the chain."""
    chain = index.graph.effects.effect_chain_at(path, finding.span.line, requirement.call_text)
    if chain is None:
        return None
    return naming_chain(finding, f"{chain.text()}, which {chain.effect.what}", chain.hops)


@judges(JobTouches)
def _job_touches(index: ProjectIndex, requirement: JobTouches, path: str, line: int) -> bool:
    return index.graph.effects.touches(requirement.task, requirement.models)

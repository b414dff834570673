"""The steps of a chain of calls, as the project model names them: a hop
(a function and the call it makes next), how a message writes a chain, and
how far a chain may go; and the flags a call passes, which may keep a
callee's calls from running (`if save:` around them, `f(save=False)`).
Shared by every question the call graph answers (`joblint.pipeline.project.call_graph`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from joblint.index.flags import FALSE_FLAG, PASSED_ON, TRUE_FLAG
from joblint.models import CHAIN, Finding, FunctionSummary, ProjectCall, Related, Span

# How many calls deep a chain may go (a view -> a service -> a mailer -> ...).
MAX_HOPS = 6


@dataclass(frozen=True, slots=True)
class Hop:
    """A function on the way to the enqueue, and the call it makes next."""

    function: str  # qualified name
    path: str
    call: ProjectCall

    def step(self) -> str:
        """What happens at this hop: "`notify()` calls `mail.send()`"."""
        caller = self.function.rsplit(".", 1)[-1]
        return f"{caller}() calls {self.call.shown()}"


def hops_text(hops: tuple[Hop, ...]) -> str:
    """`notify() → mail.send() at shop/notify.py:12 → send.delay() at shop/mail.py:30`."""
    first = hops[0].function.rsplit(".", 1)[-1]
    steps = [f"{first}()"]
    steps.extend(f"{hop.call.shown()} at {hop.path}:{hop.call.line}" for hop in hops)
    return " → ".join(steps)


def short_name(qualname: str) -> str:
    """A qualified name's last part: how a message names a function."""
    return qualname.rsplit(".", 1)[-1]


def parameter_at(summary: FunctionSummary, position: str, keyword: str) -> str | None:
    """The parameter of the function an argument at `position` or named
    `keyword` binds (a method's own `self`/`cls` is not passed)."""
    if keyword:
        return keyword
    parameters = list(summary.parameters)
    if parameters[:1] and parameters[0] in ("self", "cls"):
        parameters = parameters[1:]
    index = int(position) if position.isdigit() else -1
    return parameters[index] if 0 <= index < len(parameters) else None


def before_commit(summary: FunctionSummary) -> tuple[ProjectCall, ...]:
    """The calls a function makes before its first commit (all, with none)."""
    if not summary.commits:
        return summary.calls
    first = min(summary.commits)
    return tuple(call for call in summary.calls if call.line < first)


Flags = tuple[tuple[str, bool], ...]
_INSTANCE_PARAMETERS = ("self", "cls")


def call_runs(call: ProjectCall, known: dict[str, bool]) -> bool:
    """Whether the flags known let the call be made (`if flag:` around it)."""
    return all(known.get(name, need) == need for name, need in call.guard)


def flag_truth(value: str, known: dict[str, bool]) -> bool | None:
    """What a call passes, as a flag's truth (None: not known)."""
    if value == TRUE_FLAG:
        return True
    if value == FALSE_FLAG:
        return False
    if value.startswith(PASSED_ON):
        return known.get(value[len(PASSED_ON) :])
    return None


def positional_parameters(summary: FunctionSummary, text: str) -> tuple[str, ...] | None:
    """The parameters a call written `text` passes its positional arguments
    to: past `self` on an instance (`order.cancel(False)`) and past `cls`;
    None where that can't be told (a method called on its class)."""
    parameters = summary.parameters
    if not parameters or parameters[0] not in _INSTANCE_PARAMETERS:
        return parameters
    receiver = text.rpartition(".")[0].rpartition(".")[2]
    instance = receiver.endswith(")") or (bool(receiver) and not receiver[0].isupper())
    return parameters[1:] if parameters[0] == "cls" or instance else None


def line_span(line: int) -> Span:
    """A related location's place: the start of a line."""
    return Span(line, 1, line, 1)


def naming_chain(finding: Finding, text: str, hops: tuple[Hop, ...]) -> Finding:
    """The message says `text` where it says `CHAIN`; each hop is a related location."""
    related = tuple(
        Related(hop.path, Span(hop.call.line, 1, hop.call.line, 1), hop.step()) for hop in hops
    )
    message = finding.message.replace(CHAIN, text)
    return replace(finding, message=message, related=(*related, *finding.related))

"""Which names are task decorators the project builds, which functions run
as a job, and the helpers tasks hand themselves to: a decorator built from a
library's (`retrying = shared_task(bind=True)`, `task = app.task`, a
`partial`) registers that library's task with the options fixed on the way;
a function a job library's or such a decorator registers, or a method of a
library's task class, runs as a job; a bound task passes itself to a helper
that retries it (`retry_later(self, exc)`); a caller claims the rows a
helper picks for it. Settles JL301-JL303's and JL401's requirements on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from joblint.knowledge import jobs, retries, work
from joblint.models import (
    CALLER,
    CLAIMER,
    JOB_RUNNER,
    RESULT_SET,
    RESULT_WRITTEN,
    Finding,
    Related,
)
from joblint.pipeline.project.calls import MAX_RESOLVE_STEPS, Calls
from joblint.pipeline.project.hops import MAX_HOPS, Hop, hops_text, line_span
from joblint.pipeline.project.judging import judges, names
from joblint.pipeline.project.walks import Walks
from joblint.requirements import (
    ClaimedByCaller,
    DecoratorReruns,
    DecoratorSets,
    PassedATask,
    RegistersTask,
    RetriesHandedTask,
    RunByJob,
)

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

# The task classes whose methods run as a bound task, and each library's
# option that binds a decorated function (`bind=True`).
_TASK_BASES = {base: r.library for r in retries.TASK_RETRIES for base in r.task_bases}
_BIND_KEYWORDS = {
    r.library: r.method.bind_keyword
    for r in retries.TASK_RETRIES
    if r.method is not None and r.method.bind_keyword
}


@dataclass(frozen=True, slots=True)
class TaskDecorating:
    """What a task decorator registers: its library's task ("" when the
    project doesn't tell which), with the options the decorators fix."""

    library: str
    options: dict[str, str]


@dataclass(slots=True)
class TaskDecorators:
    """The task decorators the project builds, and the tasks they register."""

    calls: Calls
    walks: Walks
    index: ProjectIndex

    def task_decorator(self, qualname: str, called: bool = False) -> TaskDecorating | None:
        """What `@qualname` (`@qualname(...)` when `called`) registers: the
        library's task ("" for an app's task method on an object the project
        doesn't tell) and the options the project's decorators on the way fix
        (the nearest wins, as a `partial`'s call overrides it). None: no task
        decorator, as far as the loaded modules tell."""
        found = self.decorator_root(qualname, called)
        if found is None:
            return None
        name, options = found
        library = jobs.TASK_DECORATORS.get(name)
        if library is not None:
            return TaskDecorating(library, options)
        owner, _, method = name.rpartition(".")
        if not owner or method not in jobs.TASK_DECORATOR_METHODS or self.calls.defined(name):
            return None
        return TaskDecorating(self._app_library(owner), options)

    def decorator_root(self, qualname: str, called: bool) -> tuple[str, dict[str, str]] | None:
        """What `@qualname` is built from, followed through the project's
        stored decorators and aliases (`task = app.task`): the name reached,
        and the options fixed on the way (the nearest wins). None: a stored
        decorator called with options, or a cycle."""
        options: dict[str, str] = {}
        name = qualname
        seen: set[str] = set()
        while name not in seen and len(seen) < MAX_RESOLVE_STEPS:
            seen.add(name)
            if name in jobs.TASK_DECORATORS:
                return name, options
            built = self.calls.task_decorators.get(name)
            if built is not None:
                if called and not built.takes_options:
                    return None  # a stored decorator takes only the function
                for key, value in built.options:
                    options.setdefault(key, value)
                name = built.via
                continue
            alias = self.calls.aliases.get(name) or self.index.aliases.get(name)
            if alias is None:
                return name, options
            name = alias
        return None

    def _app_library(self, owner: str) -> str:
        """The library of the app object `owner` names ("" when not known)."""
        owner = self.index.canonical(self.calls.aliases.get(owner, owner))
        library = self.index.queue_objects.get(owner)
        if library is None:
            library = jobs.QUEUE_CONSTRUCTORS.get(self.calls.instances.get(owner, ""))
        return library or ""

    def unresolved_decorators(self, qualnames: Iterable[str]) -> set[str]:
        """The project names on the way from the decorators `qualnames` that
        no loaded module tells: the modules that may define them are read."""
        missing: set[str] = set()
        for qualname in qualnames:
            name = qualname
            seen: set[str] = set()
            while name not in seen and len(seen) < MAX_RESOLVE_STEPS:
                seen.add(name)
                built = self.calls.task_decorators.get(name)
                alias = self.calls.aliases.get(name) or self.index.aliases.get(name)
                if name in jobs.TASK_DECORATORS:
                    break
                if built is not None or alias is not None:
                    name = built.via if built is not None else str(alias)
                    continue
                if not jobs.may_be_project_code(name) or self.calls.resolve(name) is not None:
                    break
                owner, _, method = name.rpartition(".")
                if method in jobs.TASK_DECORATOR_METHODS and self._app_library(owner):
                    break
                # A module-level name of a module not read yet, or an app's
                # method (`shop.celery.app.task`): the module may tell.
                missing.add(name)
                break
        return missing

    def runs_as_job(self, function: str) -> bool:
        """A task: a function a job library's decorator (or the project's task
        decorator) registers, or a method of a library's task class."""
        if self.index.task_library(function) is not None:
            return True
        summary = self.calls.functions[function][0]
        for use in summary.decorators:
            if self.task_decorator(use.qualname, use.called) is not None:
                return True
        owner = function.rpartition(".")[0]
        return owner in self.calls.classes and self._task_class_library(owner) is not None

    def _task_class_library(self, qualname: str) -> str | None:
        todo = [qualname]
        seen: set[str] = set()
        while todo and len(seen) < MAX_RESOLVE_STEPS:
            base = todo.pop(0)
            name = self.index.canonical(self.calls.aliases.get(base, base))
            if name in seen:
                continue
            seen.add(name)
            if name in _TASK_BASES:
                return _TASK_BASES[name]
            todo.extend(self.calls.classes.get(name, ()))
        return None

    def _bound_task(self, function: str, libraries: frozenset[str]) -> bool:
        """A method of one of the libraries' task classes, or a function one of
        their task decorators registers with the binding option set."""
        owner = function.rpartition(".")[0]
        if owner in self.calls.classes and self._task_class_library(owner) in libraries:
            return True
        keywords = {_BIND_KEYWORDS.get(library, "") for library in libraries} - {""}
        for use in self.calls.functions[function][0].decorators:
            found = self.task_decorator(use.qualname, use.called)
            if found is None or found.library not in libraries:
                continue
            options = {**found.options, **dict(use.options)}
            if any(options.get(keyword) == "True" for keyword in keywords):
                return True
        return False

    def passing_task(
        self, helper: str, parameter: tuple[str, ...], libraries: frozenset[str]
    ) -> Hop | None:
        """A bound task of one of `libraries` that passes itself to the
        function `helper` at `parameter` ((position, name)): the call it makes."""
        target = self.calls.resolve(helper)
        if target is None:
            return None
        for caller, (summary, path) in sorted(self.calls.functions.items()):
            for call in summary.calls:
                if not call.receiver_at or call.receiver_at not in parameter:
                    continue
                if self.calls.resolve(call.callee) == target and self._bound_task(
                    caller, libraries
                ):
                    return Hop(caller, path, call)
        return None

    def claiming_caller(self, helper: str, uses: frozenset[str]) -> Hop | None:
        """A function that calls `helper` and claims what it returns (its
        `ProjectCall.result_use` is one of `uses`): the call it makes."""
        target = self.calls.resolve(helper)
        if target is None:
            return None
        for caller, (summary, path) in sorted(self.calls.functions.items()):
            for call in summary.calls:
                if call.result_use in uses and self.calls.resolve(call.callee) == target:
                    return Hop(caller, path, call)
        return None

    def job_reaching(self, function: str) -> tuple[Hop, ...] | None:
        """The calls from the nearest task (fewest calls up, at most
        `MAX_HOPS`) down to the project function `function`; None when no
        task of the loaded modules reaches it."""
        start = self.calls.resolve(function)
        if start is None:
            return None
        frontier: list[tuple[str, tuple[Hop, ...]]] = [(start, ())]
        seen = {start}
        for _ in range(MAX_HOPS):
            following: list[tuple[str, tuple[Hop, ...]]] = []
            for name, hops in frontier:
                for hop in self.walks.callers_of(name):
                    step = (hop, *hops)
                    if self.runs_as_job(hop.function):
                        return step
                    if hop.function not in seen:
                        seen.add(hop.function)
                        following.append((hop.function, step))
            frontier = following
        return None

    def callers_decorators(self, function: str) -> set[str]:
        """The decorators of the functions calling `function`, up to
        `MAX_HOPS` calls up: what telling whether one is a task needs loaded."""
        start = self.calls.resolve(function)
        found: set[str] = set()
        frontier = [start] if start is not None else []
        seen = set(frontier)
        for _ in range(MAX_HOPS):
            callers = {hop.function for name in frontier for hop in self.walks.callers_of(name)}
            found.update(
                use.qualname for c in callers for use in self.calls.functions[c][0].decorators
            )
            frontier = sorted(callers - seen)
            seen |= callers
        return found

    def helper_callers(self, helper: str) -> set[str]:
        """The decorators of the functions passing their first parameter to
        `helper`: what telling whether they are bound tasks needs loaded."""
        target = self.calls.resolve(helper)
        found: set[str] = set()
        for summary, _ in self.calls.functions.values():
            if any(c.receiver_at and self.calls.resolve(c.callee) == target for c in summary.calls):
                found.update(use.qualname for use in summary.decorators)
        return found

    def retrying_helper(self, function: str, text: str, position: str) -> Hop | None:
        """The call written `text` in `function` of a helper that retries the
        task it is handed at `position` (`FunctionSummary.retries_handed`)."""
        found = self.calls.functions.get(function)
        if found is None:
            return None
        summary, path = found
        for call in summary.calls:
            if call.text != text:
                continue
            target = self.calls.resolve(call.callee)
            if target is not None and position in self.calls.functions[target][0].retries_handed:
                return Hop(function, path, call)
        return None


def shown(calls: Calls, function: str) -> str:
    """How a message names a function: `send`, or `Mailer.send` for a method."""
    owner, _, name = function.rpartition(".")
    return f"{owner.rsplit('.', 1)[-1]}.{name}" if owner in calls.classes else name


# --- the requirements on task decorators and the callers of helpers ----------------


@judges(RegistersTask)
def _registers_task(index: ProjectIndex, requirement: RegistersTask, path: str, line: int) -> bool:
    found = index.graph.decorators.task_decorator(requirement.decorator, requirement.called)
    return found is not None and found.library in requirement.libraries


@judges(DecoratorSets)
def _decorator_sets(index: ProjectIndex, requirement: DecoratorSets, path: str, line: int) -> bool:
    found = index.graph.decorators.task_decorator(requirement.decorator)
    return found is not None and all(
        found.options.get(key) == value
        for key, _, value in (option.partition("=") for option in requirement.options)
    )


@judges(DecoratorReruns)
def _decorator_reruns(
    index: ProjectIndex, requirement: DecoratorReruns, path: str, line: int
) -> bool:
    built = index.graph.decorators.task_decorator(requirement.decorator, requirement.called)
    return built is not None and bool(work.reruns_by_options(built.library, built.options))


def _passing_task(index: ProjectIndex, requirement: PassedATask) -> Hop | None:
    parameter = (requirement.position, requirement.parameter)
    return index.graph.decorators.passing_task(requirement.helper, parameter, requirement.libraries)


@judges(PassedATask)
def _passed_a_task(index: ProjectIndex, requirement: PassedATask, path: str, line: int) -> bool:
    return _passing_task(index, requirement) is not None


@names(PassedATask, placeholder=CALLER)
def _naming_caller(
    index: ProjectIndex, finding: Finding, requirement: PassedATask, path: str
) -> Finding | None:
    """The message names a task that hands itself to the helper, and where."""
    hop = _passing_task(index, requirement)
    if hop is None:
        return None
    task = shown(index.graph.calls, hop.function)
    text = f"'{task}' passes itself at {hop.path}:{hop.call.line}"
    step = f"{task}() passes itself to {hop.call.text}()"
    related = (Related(hop.path, line_span(hop.call.line), step),)
    return replace(finding, message=finding.message.replace(CALLER, text), related=related)


def _claiming_caller(index: ProjectIndex, requirement: ClaimedByCaller) -> Hop | None:
    uses = frozenset({RESULT_WRITTEN, RESULT_SET} if requirement.set_claims else {RESULT_WRITTEN})
    return index.graph.decorators.claiming_caller(requirement.function, uses)


@judges(ClaimedByCaller)
def _claimed_by_caller(
    index: ProjectIndex, requirement: ClaimedByCaller, path: str, line: int
) -> bool:
    return _claiming_caller(index, requirement) is not None


@names(ClaimedByCaller, placeholder=CLAIMER)
def _naming_claimer(
    index: ProjectIndex, finding: Finding, requirement: ClaimedByCaller, path: str
) -> Finding | None:
    """The message names a caller that claims the row the helper returns, and where."""
    hop = _claiming_caller(index, requirement)
    if hop is None:
        return None
    caller = shown(index.graph.calls, hop.function)
    text = f"its caller '{caller}' claims it at {hop.path}:{hop.call.line}"
    step = f"{caller}() claims what {hop.call.text}() returns"
    related = (Related(hop.path, line_span(hop.call.line), step),)
    return replace(finding, message=finding.message.replace(CLAIMER, text), related=related)


@judges(RunByJob)
def _run_by_job(index: ProjectIndex, requirement: RunByJob, path: str, line: int) -> bool:
    return index.graph.decorators.job_reaching(requirement.function) is not None


@names(RunByJob, placeholder=JOB_RUNNER)
def _naming_job(
    index: ProjectIndex, finding: Finding, requirement: RunByJob, path: str
) -> Finding | None:
    """The message names the task running the function, and the calls down to it."""
    hops = index.graph.decorators.job_reaching(requirement.function)
    if not hops:
        return None
    task = shown(index.graph.calls, hops[0].function)
    text = f"the job '{task}' ({hops_text(hops)})"
    related = tuple(Related(hop.path, line_span(hop.call.line), hop.step()) for hop in hops)
    return replace(finding, message=finding.message.replace(JOB_RUNNER, text), related=related)


@judges(RetriesHandedTask)
def _retries_handed_task(
    index: ProjectIndex, requirement: RetriesHandedTask, path: str, line: int
) -> bool:
    found = index.graph.decorators.retrying_helper(
        requirement.function, requirement.call_text, requirement.task_position
    )
    return found is not None

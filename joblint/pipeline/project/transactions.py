"""Which scopes of the project are transactional, and which enqueues are
deferred to COMMIT: a project callable opens a transaction when it opens a
library's (a `@contextmanager` yielding inside one, a decorator wrapping the
call in one, a function returning one) or one through another project
callable that does, at most `MAX_HOPS` deep; a call is made inside one when
the index records it inside a library's or a project callable's, or inside
a hook a framework runs in its own (a project admin's). A task's enqueue is
deferred when the class the task is built on registers it on commit
(`@app.task(base=OnCommitTask)`, an app's default task class), and a
callable handed to a project function is when that function hands it to an
on-commit hook.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from joblint.knowledge import jobs
from joblint.models import ProjectCall
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.hops import MAX_HOPS
from joblint.pipeline.project.judging import judges
from joblint.pipeline.project.task_decorators import TaskDecorators
from joblint.requirements import EnqueuesNow, OpensTransaction, RunsNow

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex


@dataclass(slots=True)
class Transactions:
    """The transactions the project's callables open, and what is deferred to COMMIT."""

    calls: Calls
    decorators: TaskDecorators
    index: ProjectIndex
    _opens: dict[str, bool] = field(default_factory=dict)

    def opens_transaction(self, qualname: str) -> bool:
        """Whether calling `qualname` (`with it():`, `@it`, `@it(...)`) opens a transaction."""
        return self._opens_within(qualname, MAX_HOPS)

    def _opens_within(self, qualname: str, depth: int) -> bool:
        found = self.calls.resolve(qualname) or self._enter_method(qualname)
        if found is None or depth == 0:
            return False
        if found in self._opens:
            return self._opens[found]
        self._opens[found] = False  # a cycle opens nothing
        opens = self.calls.functions[found][0].opens
        result = opens is not None and (
            not opens.via or any(self._opens_within(via, depth - 1) for via in opens.via)
        )
        self._opens[found] = result
        return result

    def _enter_method(self, qualname: str) -> str | None:
        """The `__enter__` (or `__aenter__`) `with Cls():` runs, when `qualname` is a class."""
        if not self.calls.is_class(qualname):
            return None
        for method in sorted(jobs.ENTER_METHODS):
            found = self.calls.resolve(f"{qualname}.{method}")
            if found is not None:
                return found
        return None

    def inside_transaction(self, call: ProjectCall) -> bool:
        """Whether the call is made inside a transaction: a library's, or one
        a project callable (or a framework's hook) opens."""
        return self._inside_opened(call)

    def _inside_opened(self, call: ProjectCall) -> bool:
        via = call.transaction
        return via is not None and (
            not via or any(self.opens_transaction(q) or self._runs_hooks(q) for q in via)
        )

    def _runs_hooks(self, qualname: str, depth: int = MAX_HOPS) -> bool:
        """Whether `qualname` is a class whose hooks a framework runs in its
        own transaction (a project's admin base): through the bases the
        loaded indexes give, or the class index."""
        if qualname in jobs.ATOMIC_HOOKS or self.index.class_kinds.of(qualname) & jobs.HOOK_KINDS:
            return True
        bases = self.calls.classes.get(self.calls.aliases.get(qualname, qualname), ())
        return depth > 0 and any(self._runs_hooks(base, depth - 1) for base in bases)

    def openers(self) -> set[str]:
        """The unqualified names of the loaded functions that open a transaction
        (for an `__enter__` that does, its class's: `with Cls():` names that)."""
        found = set()
        for name, (summary, _) in self.calls.functions.items():
            if summary.opens is not None and self.opens_transaction(name):
                owner, _, last = name.rpartition(".")
                found.add(owner.rsplit(".", 1)[-1] if last in jobs.ENTER_METHODS else last)
        return found

    def transaction_calls(self, path: str) -> Iterable[ProjectCall]:
        """The calls the file at `path` makes inside a transaction (as its
        index records them: a library's, or one a project callable may open)."""
        module = self.calls.by_path.get(path)
        if module is None:
            return ()
        return [c for s in module.functions for c in s.calls if c.transaction is not None]

    def commit_calls(self, path: str) -> list[ProjectCall]:
        """The calls outside transactions the file at `path` makes before a
        later commit in the same function (JL102's)."""
        module = self.calls.by_path.get(path)
        if module is None:
            return []
        return [
            call
            for summary in module.functions
            if summary.commits
            for call in summary.calls
            if call.transaction is None and call.line < max(summary.commits)
        ]

    def transaction_callees(self, path: str) -> set[str]:
        """What the file at `path` calls inside transactions (and the project
        callables that may open them) or before a commit in the same
        function: what `reports_in` needs loaded."""
        found: set[str] = set()
        for call in self.transaction_calls(path):
            found.add(call.callee)
            found.update(call.transaction or ())
        found.update(call.callee for call in self.commit_calls(path))
        return found

    def deferred(self, enqueue: str) -> bool:
        """Whether the enqueue method `enqueue` (`shop.tasks.send.delay`) of a
        project task is deferred to COMMIT by the class the task is built on
        (`@app.task(base=OnCommitTask)` whose `apply_async` registers on commit)."""
        task, _, method = self.index.canonical(enqueue).rpartition(".")
        return any(
            self._registers_on_commit(f"{cls}.{name}")
            for cls, names in self._task_classes(task, method)
            for name in names
        )

    def defers_argument(self, function: str, position: str, keyword: str) -> bool:
        """Whether the project function `function` hands the argument a call
        passes at `position` (a digit string, "" for none) or as `keyword`
        to an on-commit hook (`def on_commit_delay(func): transaction.on_commit(func)`)."""
        found = self.calls.resolve(function)
        if found is None:
            return False
        summary = self.calls.functions[found][0]
        if not summary.defers:
            return False
        if keyword:
            return keyword in summary.defers
        parameters = list(summary.parameters)
        if parameters[:1] and parameters[0] in ("self", "cls"):
            parameters = parameters[1:]  # a method called on its instance or class
        index = int(position) if position.isdigit() else -1
        return 0 <= index < len(parameters) and parameters[index] in summary.defers

    def deferral_methods(self, enqueue: str) -> set[str]:
        """The task and the methods of its class `deferred` looks up: what it
        needs loaded."""
        task, _, method = self.index.canonical(enqueue).rpartition(".")
        found = {task}
        for cls, names in self._task_classes(task, method):
            found.update(f"{cls}.{name}" for name in names)
        return found

    def _task_classes(self, task: str, method: str) -> Iterable[tuple[str, tuple[str, ...]]]:
        """The classes the task is built on, each with its methods that decide
        the enqueue `method`: its decorator's `base=`, else its app's default."""
        found = self.calls.resolve(task)
        if found is None:
            return
        decorators = self.calls.functions[found][0].decorators
        for decorator in decorators:
            for keyword, value in decorator.names:
                names = jobs.TASK_CLASS_OPTIONS.get(keyword, {}).get(method)
                if names:
                    yield value, names
        path = self.calls.functions[found][1]
        for option in jobs.APP_TASK_CLASS_OPTIONS:
            names = jobs.TASK_CLASS_OPTIONS[option.keyword].get(method)
            for decorator in decorators:
                # `task = app.task` in the app's module: `@task` is the app's.
                root = self.decorators.decorator_root(decorator.qualname, decorator.called)
                via, fixed = root if root is not None else (decorator.qualname, {})
                named = {k for k, _ in (*decorator.names, *decorator.options)} | fixed.keys()
                default = self._app_task_class(via, option, path)
                if names and default is not None and option.keyword not in named:
                    yield default, names

    def _app_task_class(
        self, decorator: str, option: jobs.TaskClassOption, path: str
    ) -> str | None:
        """The class the app whose decorator `decorator` is (`app.task`)
        builds tasks on by default; for a decorator of every app
        (`shared_task`, in the file at `path`), the one class the apps of the
        task's project name (the apps whose top-level package sits in a
        directory holding the task's file)."""
        defaults = self.index.app_task_classes
        if decorator in option.shared_decorators:
            classes = {
                cls for cls, root in defaults.values() if not root or path.startswith(f"{root}/")
            }
            return next(iter(classes)) if len(classes) == 1 else None
        app = decorator.rpartition(".")[0]
        found = defaults.get(self.index.canonical(app)) if app else None
        return found[0] if found is not None else None

    def _registers_on_commit(self, qualname: str) -> bool:
        found = self.calls.resolve(qualname)
        return found is not None and self.calls.functions[found][0].on_commit


# --- the requirements on transactions and what COMMIT defers ----------------------


@judges(OpensTransaction)
def _opens_transaction(
    index: ProjectIndex, requirement: OpensTransaction, path: str, line: int
) -> bool:
    return index.graph.transactions.opens_transaction(requirement.opener)


@judges(EnqueuesNow)
def _enqueues_now(index: ProjectIndex, requirement: EnqueuesNow, path: str, line: int) -> bool:
    return not index.graph.transactions.deferred(requirement.enqueue)


@judges(RunsNow)
def _runs_now(index: ProjectIndex, requirement: RunsNow, path: str, line: int) -> bool:
    function, position, keyword = requirement.function, requirement.position, requirement.keyword
    return not index.graph.transactions.defers_argument(function, position, keyword)

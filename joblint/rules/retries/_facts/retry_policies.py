"""Recognising retry policies: the places the code sets one, turned into the
neutral facts of `joblint.rules.retries._facts.retry_facts`.

The libraries declare their retry APIs as data (`joblint.libraries.retry_api`,
merged in `joblint.knowledge.retries`): which calls, task options, methods and
settings set a policy, and how each parameter's value reads. The readers
interpret those declarations by the kind of reading they ask for (a switch, a
factor, a schedule, strategy objects, predicates...), never by library, so
supporting a library's retry API is adding its declaration to its module.

One `RetrySites` follows each JL3 rule's visit (classes, loops, except
clauses); the policy found at a node is kept in the file context, so it is
recognised once for the three rules, and each of its parts is read the first
time a rule asks for it, while the visit is at that node. This module finds the
places; a policy's parts are read by the classes `RetrySites` builds on, one
question each: how long it waits (`retry_delays`), how many times it retries
(`retry_bounds`) and on what (`retry_catches`), all at the place the visit is
at (`policy_reader`).
"""

from __future__ import annotations

from functools import partial

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import Loop
from joblint.analysis.retry_options import (
    CallArguments,
    DictEntries,
    HandedTask,
    Setting,
    TaskOptions,
    TaskScopes,
    class_options,
    decorator_options,
    factory_options,
    has_star_kwargs,
    is_task_class,
    maker_options,
    retry_receiver,
)
from joblint.knowledge import retries
from joblint.libraries.retry_api import Param, RetryCall, RetryMethod, TaskRetries
from joblint.requirements import Requirement
from joblint.rules.retries._facts.retry_bounds import BoundReading
from joblint.rules.retries._facts.retry_catches import CatchReading
from joblint.rules.retries._facts.retry_delays import DelayReading
from joblint.rules.retries._facts.retry_facts import RetryPolicy, filled
from joblint.rules.retries._facts.retry_loops import WhileLoop, always_true, loops_of, sleep_delays


class _NoSettings:
    """A bare decorator (`@retry`): nothing set, the library's defaults."""

    def find(self, param: Param) -> Setting | None:
        return None


class RetrySites(DelayReading, BoundReading, CatchReading):
    """The places a module sets a retry policy, recognised as a rule visits it."""

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._scopes = TaskScopes()
        # The loops and except clauses being visited, each with the scope it is in.
        self._loops: list[tuple[Loop, cst.CSTNode]] = []
        self._handlers: list[tuple[cst.ExceptHandler, cst.CSTNode]] = []
        # Calls written as decorators: their options are the function's (`at_function`).
        self._decorator_calls: set[int] = set()

    # --- what the visit is in ----------

    def enter_class(self, node: cst.ClassDef) -> None:
        self._scopes.enter_class(node, self._task_class_libraries(node))

    def leave_class(self, node: cst.ClassDef) -> None:
        self._scopes.leave_class(node)

    def enter_loop(self, node: Loop) -> None:
        self._loops.append((node, self.context.frame.node))

    def leave_loop(self) -> None:
        self._loops.pop()

    def enter_handler(self, node: cst.ExceptHandler) -> None:
        self._handlers.append((node, self.context.frame.node))

    def leave_handler(self) -> None:
        self._handlers.pop()

    def _task_class_libraries(self, node: cst.ClassDef) -> frozenset[str]:
        """The job libraries whose `Task` class `node` subclasses."""
        return self.context.memo(
            "retry-task-class",
            node,
            lambda: frozenset(
                r.library for r in retries.TASK_RETRIES if is_task_class(node, r, self.resolver)
            ),
        )

    # --- the places a policy is set ----------

    def at_class(self, node: cst.ClassDef) -> tuple[RetryPolicy, ...]:
        """Task options set as class attributes of a `Task` subclass."""

        def recognise() -> tuple[RetryPolicy, ...]:
            libraries = self._task_class_libraries(node)
            return tuple(
                self._options_policy(node, class_options(node), r)
                for r in retries.TASK_RETRIES
                if r.library in libraries
            )

        return self.context.memo("retry-class", node, recognise)

    def at_function(self, node: cst.FunctionDef) -> tuple[RetryPolicy, ...]:
        """Task options set by the function's task decorators."""

        def recognise() -> tuple[RetryPolicy, ...]:
            found = []
            for decorator in node.decorators:
                for r in retries.TASK_RETRIES:
                    options = decorator_options(decorator, node, r, self.resolver)
                    if options is not None:
                        found.append(self._options_policy(decorator.decorator, options, r))
            return tuple(found)

        return self.context.memo("retry-function", node, recognise)

    def at_decorator(self, node: cst.Decorator) -> tuple[RetryPolicy, ...]:
        """A bare retry decorator (`@retry`): the library's defaults."""
        expr = node.decorator
        if isinstance(expr, cst.Call):
            self._decorator_calls.add(id(expr))
            return ()
        api = retries.BARE_RETRY_DECORATORS.get(self.resolver.library_name(expr) or "")
        if api is None or api.bound is None:
            return ()
        bound = api.bound
        return self.context.memo(
            "retry-decorator",
            node,
            lambda: (RetryPolicy(expr, bounds=partial(self._bounds, _NoSettings(), bound, expr)),),
        )

    def at_call(self, node: cst.Call) -> tuple[RetryPolicy, ...]:
        """A task's own retry, a retry API's call, or a sleep in a loop."""
        return self.context.memo("retry-call", node, lambda: self._call(node))

    def at_assign(self, node: cst.Assign) -> tuple[RetryPolicy, ...]:
        """A module-level settings dict that sets a retry policy."""
        if len(self.context.frames) > 1 or len(node.targets) != 1:
            return ()
        target = node.targets[0].target
        if not isinstance(target, cst.Name) or not isinstance(node.value, cst.Dict):
            return ()
        setting = retries.RETRY_SETTINGS.get(target.value)
        if setting is None:
            return ()
        read = partial(self._bounds, DictEntries(node.value), setting.bound, node)
        return self.context.memo("retry-settings", node, lambda: (RetryPolicy(node, bounds=read),))

    def at_while(self, node: cst.While) -> tuple[RetryPolicy, ...]:
        """A `while True:` loop, which may retry forever."""
        if not always_true(node.test):
            return ()
        read = WhileLoop(node, self.resolver, self.values, self.context.frame.node).bounds
        return self.context.memo("retry-loop", node, lambda: (RetryPolicy(node, bounds=read),))

    def _call(self, node: cst.Call) -> tuple[RetryPolicy, ...]:
        for r in retries.TASK_RETRIES:
            if r.method is None:
                continue
            requires = self._scopes.task_retry(node, r, self.context)
            if requires is not None:
                return (self._method_policy(node, r.method, requires),)
            handed = self._scopes.handed_task(node, r, self.context)
            if handed is not None:
                return self._handed_policies(node, r.method, handed)
        if id(node) not in self._decorator_calls:
            for r in retries.TASK_RETRIES:
                options = factory_options(node, r, self.resolver)
                if options is None:
                    options = maker_options(node, r, self.resolver)
                if options is not None:
                    return (self._options_policy(node, options, r),)
        name = self.resolver.library_name(node.func)
        if name is None:
            return ()
        api = retries.RETRY_CALLS.get(name)
        if api is not None:
            return (self._call_policy(node, api),)
        sleep_keyword = retries.SLEEP_FUNCTIONS.get(name)
        if sleep_keyword is not None:
            return (self._sleep_policy(node, sleep_keyword),)
        return ()

    # --- policies ----------

    def _options_policy(
        self, node: cst.CSTNode, options: TaskOptions, r: TaskRetries
    ) -> RetryPolicy:
        return RetryPolicy(
            node,
            delays=partial(self._delays, options, r.delay, None) if r.delay else None,
            bounds=partial(self._option_bounds, options, r.bounds, node) if r.bounds else None,
            catches=partial(self._catches, options, r.catches) if r.catches else None,
            requires=options.requires,
        )

    def _call_policy(self, call: cst.Call, api: RetryCall) -> RetryPolicy:
        opaque = has_star_kwargs(call) and not api.reads_past_kwargs
        arguments = CallArguments(call)
        return RetryPolicy(
            call,
            delays=partial(self._delays, arguments, api.delay, call)
            if api.delay and not opaque
            else None,
            bounds=partial(self._call_bounds, call, api.bound) if api.bound else None,
            catches=partial(self._catches, arguments, api.catches)
            if api.catches and not opaque
            else None,
        )

    def _method_policy(
        self, call: cst.Call, method: RetryMethod, requires: tuple[Requirement, ...]
    ) -> RetryPolicy:
        receiver = retry_receiver(call, method.name) or ""
        handler = self._handler_here()
        where = filled(method.where, task=receiver)
        return RetryPolicy(
            call,
            delays=partial(self._method_delays, call, method, receiver),
            bounds=partial(self._bounds, CallArguments(call), method.bound, call)
            if method.bound
            else None,
            catches=partial(self._handler_catches, call, handler, where) if handler else None,
            requires=requires,
        )

    def _handed_policies(
        self, call: cst.Call, method: RetryMethod, handed: HandedTask
    ) -> tuple[RetryPolicy, ...]:
        """A bound task handing itself to a helper: from an except clause,
        the helper's retry is of what the clause catches; the other arguments
        may be the delay the helper retries the task with."""
        found = []
        handler = self._handler_here()
        if handler is not None:
            where = f"{handed.written} (a retry of the task)"
            catches = partial(self._handler_catches, call, handler, where)
            needs = (*handed.bound, handed.retried())
            found.append(RetryPolicy(call, catches=catches, requires=needs))
        if len(call.args) > 1:
            delays = partial(self._handed_delays, call, method, handed)
            found.append(RetryPolicy(call, delays=delays, requires=handed.bound))
        return tuple(found)

    def _sleep_policy(self, call: cst.Call, sleep_keyword: str) -> RetryPolicy:
        scope = self.context.frame.node
        loops = tuple(loops_of(self._loops, scope))
        read = partial(
            sleep_delays,
            call,
            sleep_keyword,
            loops,
            scope,
            self.resolver,
            self.values,
            self._helper_site(),
        )
        return RetryPolicy(call, delays=read)

    def _handler_here(self) -> cst.ExceptHandler | None:
        """The innermost except clause around the visit, in the same function."""
        if not self._handlers or self._handlers[-1][1] is not self.context.frame.node:
            return None
        return self._handlers[-1][0]

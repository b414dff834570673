"""Recognising retry policies: the places the code sets one, turned into the
neutral facts of `joblint.analysis.retry_facts`.

The libraries declare their retry APIs as data (`joblint.libraries.retry_api`,
merged in `joblint.knowledge.retries`): which calls, task options, methods and
settings set a policy, and how each parameter's value reads. The readers here
interpret those declarations by the kind of reading they ask for (a switch, a
factor, a schedule, strategy objects, predicates...), never by library, so
supporting a library's retry API is adding its declaration to its module.

One `RetrySites` follows each JL3 rule's visit (classes, loops, except
clauses); the policy found at a node is kept in the file context, so it is
recognised once for the three rules, and each of its parts is read the first
time a rule asks for it, while the visit is at that node.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import (
    AttemptTest,
    DelayAnalysis,
    Loop,
    Randomness,
    ScopeValues,
    counting_target,
    growing_numbers,
    literal_number,
    literal_truth,
    names_test,
    scope_nodes,
)
from joblint.analysis.jitter_rewrite import backoff_shape
from joblint.analysis.names import BindingKind, Resolver
from joblint.analysis.project_calls import project_call_text
from joblint.analysis.references import reference
from joblint.analysis.retry_facts import (
    BoundSetting,
    Catch,
    Delay,
    DelayTerm,
    HelperSite,
    RetryPolicy,
    Rewrite,
    computed_term,
    filled,
    worded,
)
from joblint.analysis.retry_loops import WhileLoop, always_true, loops_of, sleep_delays
from joblint.analysis.retry_options import (
    CallArguments,
    DictEntries,
    HandedTask,
    Setting,
    Settings,
    TaskOptions,
    TaskScopes,
    argument,
    class_options,
    decorator_options,
    factory_options,
    has_star_kwargs,
    is_attempt_count,
    is_task_class,
    keyword,
    maker_options,
    positional,
    retry_receiver,
)
from joblint.analysis.rewrite import with_keyword
from joblint.analysis.walk import encloses
from joblint.knowledge import retries
from joblint.libraries.retry_api import (
    Bound,
    BoundFix,
    BoundParams,
    CatchParam,
    Caught,
    DelayParams,
    Growth,
    GrowthParam,
    Jitter,
    JitterParam,
    Param,
    Positional,
    Reads,
    RetryCall,
    RetryMethod,
    RetryPredicates,
    TaskRetries,
    Value,
    WaitStrategies,
)
from joblint.requirements import Requirement, ReturnsGrowth

_MAX_DEPTH = 10


def _no_attempt(node: cst.BaseExpression) -> bool:
    return False


class _NoSettings:
    """A bare decorator (`@retry`): nothing set, the library's defaults."""

    def find(self, param: Param) -> Setting | None:
        return None


class RetrySites:
    """The places a module sets a retry policy, recognised as a rule visits it."""

    def __init__(self, context: FileContext) -> None:
        self.context = context
        self._scopes = TaskScopes()
        # The loops and except clauses being visited, each with the scope it is in.
        self._loops: list[tuple[Loop, cst.CSTNode]] = []
        self._handlers: list[tuple[cst.ExceptHandler, cst.CSTNode]] = []
        # Calls written as decorators: their options are the function's (`at_function`).
        self._decorator_calls: set[int] = set()

    @property
    def values(self) -> ScopeValues:
        module = self.context.frames[0].node
        assert isinstance(module, cst.Module)
        return self.context.memo("retry-scope-values", module, lambda: ScopeValues(module))

    @property
    def resolver(self) -> Resolver:
        return self.context.resolver

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

    def _option_bounds(
        self, options: TaskOptions, bounds: tuple[BoundParams, ...], node: cst.CSTNode
    ) -> tuple[BoundSetting, ...]:
        return tuple(
            found
            for params in bounds
            for found in self._bounds(options, params, node, requires=options.requires)
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

    def _handed_delays(
        self, call: cst.Call, method: RetryMethod, handed: HandedTask
    ) -> tuple[Delay, ...]:
        """The arguments beside the task growing with its attempt count: the
        delay, if the helper retries the task with what it is handed there
        (`RetriesWithHandedDelay`)."""

        def is_attempt(node: cst.BaseExpression) -> bool:
            return is_attempt_count(node, method.attempt_count)

        analysis = self._here(is_attempt)
        says = worded(method.says, task=handed.task)
        delays = []
        for i, arg in enumerate(call.args):
            if arg.star or i == handed.position:
                continue
            term = computed_term(arg.value, analysis, says)
            if term.growth is not Growth.EXPONENTIAL or term.grown_by is None:
                continue
            at = "" if arg.keyword else str(i)
            needs = handed.delayed(at, arg.keyword.value if arg.keyword else "")
            delays.append(Delay((replace(term, requires=(needs,)),)))
        return tuple(delays)

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

    def _helper_site(self) -> HelperSite:
        """Where a call in the function being visited may be of a project
        function: the function, as the project model's index names it, and
        the call as written."""
        key = self.context.frame.key
        context = self.context

        def site(call: cst.Call) -> tuple[str, str] | None:
            text = project_call_text(context, call)
            if text is None or not key:
                return None
            return context.resolver.local_qualname(key), text

        return site

    def _handler_here(self) -> cst.ExceptHandler | None:
        """The innermost except clause around the visit, in the same function."""
        if not self._handlers or self._handlers[-1][1] is not self.context.frame.node:
            return None
        return self._handlers[-1][0]

    def _here(self, is_attempt: AttemptTest = _no_attempt) -> DelayAnalysis:
        """The values of the function being visited (module names as fallback)."""
        return self.values.analysis(self.resolver, self.context.frame.node, is_attempt)

    def _assigned_once(self, name: str) -> cst.BaseExpression | None:
        values = self._here().assigned(name)
        if len(values) == 1 and isinstance(values[0], cst.BaseExpression):
            return values[0]
        return None

    # --- delays ----------

    def _delays(
        self, settings: Settings, params: DelayParams, call: cst.Call | None
    ) -> tuple[Delay, ...]:
        growth = params.growth
        if isinstance(growth, WaitStrategies):
            return self._strategy_delays(settings, growth, params, call)
        found = settings.find(growth.param)
        if found is None:
            return ()
        jitter, switch = self._jitter(settings, params.jitter)
        rewrite = None
        node: cst.CSTNode = found.node
        if jitter is Jitter.OFF and switch is not None:
            node = switch.node  # where the library's jitter is switched off
            if params.switch_on:
                rewrite = Rewrite(switch.value, cst.Name("True"), params.switch_on)
        growing = self._growth(found.value, growth)
        if growing is Growth.UNKNOWN and growth.reads is Reads.SCHEDULE:
            through = self._helper_schedule(found.value)
            if through is not None:
                call, needs = through
                says = params.says
                term = DelayTerm(node, Growth.EXPONENTIAL, jitter, says, call, requires=(needs,))
                return (Delay((term,)),)
        return (Delay((DelayTerm(node, growing, jitter, params.says, rewrite=rewrite),)),)

    def _helper_schedule(self, value: cst.BaseExpression) -> tuple[cst.Call, Requirement] | None:
        """A list of waits a project function returns (`interval=waits(5)`),
        also through a name bound to such a call (in one branch: the others
        bind it to values with no random part): the call, and what the
        project must confirm for the list to grow (`ReturnsGrowth`, handed
        no attempt)."""
        analysis = self._here()
        if isinstance(value, cst.Name):
            bound = analysis.assigned(value.value)
            calls = [v for v in bound if isinstance(v, cst.Call)]
            others = [v for v in bound if not isinstance(v, cst.Call)]
            plain = all(
                isinstance(v, cst.BaseExpression)
                and analysis.randomness(v) is not Randomness.RANDOM
                for v in others
            )
            if len(calls) != 1 or not plain:
                return None
            value = calls[0]
        if not isinstance(value, cst.Call) or analysis.randomness(value) is not Randomness.UNKNOWN:
            return None
        site = self._helper_site()(value)
        if site is None:
            return None
        function, text = site
        return value, ReturnsGrowth(function, text, "", "")

    def _growth(self, value: cst.BaseExpression, param: GrowthParam) -> Growth:
        if param.reads is Reads.SWITCH:
            truth = literal_truth(value)
            if truth is None:
                return Growth.UNKNOWN
            return Growth.EXPONENTIAL if truth else Growth.CONSTANT
        if param.reads is Reads.FACTOR:
            number = self._number(value)
            if number is None:
                return Growth.UNKNOWN
            return Growth.EXPONENTIAL if number > 0 else Growth.CONSTANT
        if param.reads is Reads.SCHEDULE:
            return self._schedule_growth(value)
        grows = self.resolver.qualified_name(value) in param.growing
        return Growth.EXPONENTIAL if grows else Growth.UNKNOWN

    def _number(self, node: cst.BaseExpression) -> float | None:
        """A number literal, also through a name assigned once."""
        number = literal_number(node)
        if number is None and isinstance(node, cst.Name):
            value = self._assigned_once(node.value)
            number = None if value is None else literal_number(value)
        return number

    def _schedule_growth(self, node: cst.BaseExpression) -> Growth:
        """A list of waits (through a name), or `[5 * 2 ** i for i in range(n)]`
        (also `list(...)` of a generator)."""
        numbers = self._here().numbers(node)
        if numbers is not None:
            return Growth.EXPONENTIAL if growing_numbers(numbers) else Growth.CONSTANT
        if isinstance(node, cst.Call) and len(node.args) == 1:
            node = node.args[0].value
        if not isinstance(node, cst.ListComp | cst.GeneratorExp):
            return Growth.UNKNOWN
        counters = set(counting_target(node.for_in, self.resolver))
        if not counters:
            return Growth.UNKNOWN
        analysis = self._here(names_test(counters))
        grows = analysis.unjittered_growth(node.elt) is not None
        return Growth.EXPONENTIAL if grows else Growth.UNKNOWN

    def _jitter(
        self, settings: Settings, param: JitterParam | None
    ) -> tuple[Jitter, Setting | None]:
        """The random part the library adds, and where that is set."""
        if param is None:
            return Jitter.ABSENT, None
        found = settings.find(param.param)
        if found is None:
            return param.default, None
        if _is(found.value, param.off):
            off = Jitter.OFF if param.default is Jitter.PRESENT else Jitter.ABSENT
            return off, found
        literal = literal_truth(found.value) is not None
        return (Jitter.PRESENT if literal else Jitter.UNKNOWN), found

    # --- waits made of strategy objects ----------

    def _strategy_delays(
        self,
        settings: Settings,
        strategies: WaitStrategies,
        params: DelayParams,
        call: cst.Call | None,
    ) -> tuple[Delay, ...]:
        wait = settings.find(strategies.param)
        if wait is None:
            return ()
        terms = self._wait_terms(wait.value, strategies, 0)
        if terms is None:
            return ()
        return (Delay(tuple(self._strategy(t, strategies, params, call) for t in terms)),)

    def _strategy(
        self, term: cst.Call, strategies: WaitStrategies, params: DelayParams, call: cst.Call | None
    ) -> DelayTerm:
        name = self.resolver.qualified_name(term.func) or ""
        shape = strategies.shapes.get(name)
        if shape is None:
            return DelayTerm(term, Growth.UNKNOWN, Jitter.UNKNOWN, params.says)
        off = shape.switch is not None and _switched_off(term, shape.switch)
        says = params.says_off if off and params.says_off else params.says
        says = worded(says, name=name.rsplit(".", 1)[-1])
        rewrite = None
        if shape.growth is Growth.EXPONENTIAL and not off:
            here = call is not None and encloses(call, term)
            rewrite = self._twin_rewrite(term, name, strategies, here)
        jitter = Jitter.OFF if off else shape.jitter
        return DelayTerm(term, shape.growth, jitter, says, rewrite=rewrite)

    def _wait_terms(
        self, node: cst.BaseExpression, strategies: WaitStrategies, depth: int
    ) -> list[cst.Call] | None:
        """The strategies `node` is made of (`a + b`, a group of them, through
        names); None when one of them is no strategy of the library."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left = self._wait_terms(node.left, strategies, depth + 1)
            right = self._wait_terms(node.right, strategies, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(node, cst.Name):
            value = self._assigned_once(node.value)
            return None if value is None else self._wait_terms(value, strategies, depth + 1)
        if not isinstance(node, cst.Call):
            return None
        name = self.resolver.qualified_name(node.func)
        if name is None or not name.startswith(f"{strategies.namespace}."):
            return None
        if name in strategies.groups:
            terms: list[cst.Call] = []
            for arg in node.args:
                found = self._wait_terms(arg.value, strategies, depth + 1)
                if found is None or arg.star:
                    return None
                terms.extend(found)
            return terms
        return [node]

    def _twin_rewrite(
        self, term: cst.Call, name: str, strategies: WaitStrategies, here: bool
    ) -> Rewrite | None:
        """The strategy's random twin with the same arguments. `here`: the
        strategy is inside the call being visited (not reached through a name
        assigned elsewhere), so names can be resolved at this place."""
        twin = strategies.twins.get(name)
        if twin is None:
            return None
        func = term.func
        imports: tuple[tuple[str, str], ...] = ()
        releases: tuple[tuple[str, str, str], ...] = ()
        if isinstance(func, cst.Attribute):
            new_func: cst.BaseExpression = func.with_changes(attr=cst.Name(twin.name))
        else:
            releases = self._imported_as(func)
            found = reference(
                self.context, f"{twin.module}.{twin.name}", prefer_import=True, anywhere=not here
            )
            if found is None:
                return None
            new_func, imports = found.expr, found.imports
        floor = twin.floor is not None and _may_set(term, twin.floor)
        message = twin.message_with_floor if floor else twin.message
        return Rewrite(term, term.with_changes(func=new_func), message, imports, releases)

    def _imported_as(self, func: cst.BaseExpression) -> tuple[tuple[str, str, str], ...]:
        """The from-import `func` (a bare name) comes by, as `Fix.releases` wants it:
        the fix may leave it unused."""
        if not isinstance(func, cst.Name):
            return ()
        binding = self.resolver.lookup(func.value)
        if binding is None or binding.kind is not BindingKind.IMPORT or "." not in binding.qualname:
            return ()
        module, name = binding.qualname.rsplit(".", 1)
        return ((module, name, "" if name == func.value else func.value),)

    # --- waits the code computes ----------

    def _method_delays(
        self, call: cst.Call, method: RetryMethod, receiver: str
    ) -> tuple[Delay, ...]:
        def is_attempt(node: cst.BaseExpression) -> bool:
            return is_attempt_count(node, method.attempt_count)

        analysis = self._here(is_attempt)
        says = worded(method.says, task=receiver)
        helper = self._helper_site()
        delays = []
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value not in method.delay_keywords:
                continue
            rewrite = None
            if arg.keyword.value == method.rewritten:
                rewrite = partial(
                    self._jitter_rewrite, arg.value, analysis, is_attempt, method.rewritten
                )
            term = computed_term(arg.value, analysis, says, rewrite, helper)
            delays.append(Delay((term,)))
        return tuple(delays)

    def _jitter_rewrite(
        self,
        delay: cst.BaseExpression,
        analysis: DelayAnalysis,
        is_attempt: AttemptTest,
        keyword_name: str,
    ) -> Rewrite | None:
        """`countdown=B * F ** self.request.retries` (capped by `min(C, ...)`) ->
        `countdown=full_jitter(self.request.retries, base=B, factor=F, cap=C)`.
        Through a local (`delay = 2 ** ...; countdown=delay`) the assignment is
        rewritten, so the name keeps meaning the delay the task waits."""
        expr = delay
        if isinstance(expr, cst.Name):
            values = analysis.assigned(expr.value)
            if len(values) != 1 or not isinstance(values[0], cst.BaseExpression):
                return None
            expr = values[0]
        shape = backoff_shape(expr, is_attempt)
        if shape is None:
            return None
        found = reference(self.context, retries.FULL_JITTER, prefer_import=True)
        if found is None:
            return None
        message = (
            f"Randomise the {keyword_name}: {shape.describe()} draws it from 0 up to the old "
            "delay (full jitter); joblint must be installed where the worker runs"
        )
        return Rewrite(expr, cst.Call(found.expr, shape.arguments()), message, found.imports)

    # --- bounds ----------

    def _call_bounds(self, call: cst.Call, params: BoundParams) -> tuple[BoundSetting, ...]:
        """`**options` may hold the bound, and so may positional arguments where
        the library says so."""
        args = positional(call)
        if has_star_kwargs(call) or (params.positional is Positional.OPAQUE and args):
            return (BoundSetting(call, Bound.UNKNOWN, params.says),)
        wraps = not args or (len(args) == 1 and len(call.args) == 1)
        default = Bound.UNKNOWN if params.positional is Positional.WRAPS and not wraps else None
        return self._bounds(CallArguments(call), params, call, default=default)

    def _bounds(
        self,
        settings: Settings,
        params: BoundParams,
        node: cst.CSTNode,
        *,
        default: Bound | None = None,
        requires: tuple[Requirement, ...] = (),
    ) -> tuple[BoundSetting, ...]:
        """The first parameter set to a bounding value; else the first set to a
        value meaning none; else what leaving them out means (`default`, or the
        library's)."""
        unbounded: Setting | None = None
        for param, bound in params.params:
            found = settings.find(param)
            if found is None or any(_is(found.value, value) for value in params.unset):
                continue
            if self._means_no_bound(found.value, params):
                unbounded = unbounded or found
                continue
            none = bound is Bound.ATTEMPTS and _allows_no_retry(found.value, params)
            return (BoundSetting(found.node, bound, params.says, found.value, no_retries=none),)
        if unbounded is not None:
            says = params.says_set or params.says
            rewrite = self._bound_value_rewrite(unbounded, params)
            value = unbounded.value
            return (BoundSetting(unbounded.node, Bound.NONE, says, value, rewrite, requires),)
        left_out = params.default if default is None else default
        if left_out is not Bound.NONE:
            return (BoundSetting(node, left_out, params.says),)
        rewrite = self._missing_bound_rewrite(node, params)
        return (BoundSetting(node, Bound.NONE, params.says, None, rewrite, requires),)

    def _means_no_bound(self, value: cst.BaseExpression, params: BoundParams) -> bool:
        if any(_is(value, v) for v in params.unbounded):
            return True
        return bool(params.never) and self.resolver.qualified_name(value) in params.never

    def _bound_value_rewrite(self, setting: Setting, params: BoundParams) -> Rewrite | None:
        if params.fix is None:
            return None
        value, imports = _bounding_value(params.fix, params.attempts.reference)
        return Rewrite(setting.value, value, params.fix.message, imports)

    def _missing_bound_rewrite(self, node: cst.CSTNode, params: BoundParams) -> Rewrite | None:
        """`@retry` -> `@retry(stop=...)`; `retry(...)` gets `stop=...`; not
        `retry(f)` (a call wrapping a function directly ignores keywords)."""
        fix = params.fix
        if fix is None or not fix.keyword:
            return None
        value, imports = _bounding_value(fix, params.attempts.reference)
        if isinstance(node, cst.Call):
            if positional(node):
                return None
            return Rewrite(node, with_keyword(node, fix.keyword, value), fix.message, imports)
        if not isinstance(node, cst.BaseExpression):
            return None
        no_space = cst.SimpleWhitespace("")
        equal = cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space)
        arg = cst.Arg(value, keyword=cst.Name(fix.keyword), equal=equal)
        return Rewrite(node, cst.Call(node, [arg]), fix.message, imports)

    # --- what is retried ----------

    def _catches(
        self, settings: Settings, catches: CatchParam | RetryPredicates
    ) -> tuple[Catch, ...]:
        if isinstance(catches, RetryPredicates):
            return self._predicate_catches(settings, catches)
        found = settings.find(catches.param)
        return () if found is None else (self._catch(found.value, catches.where),)

    def _catch(self, types: cst.BaseExpression, where: str) -> Catch:
        broad = tuple(broad_exceptions(types, self.resolver))
        return Catch(Caught.BROAD if broad else Caught.SPECIFIC, types, where, broad)

    def _predicate_catches(
        self, settings: Settings, predicates: RetryPredicates
    ) -> tuple[Catch, ...]:
        found = settings.find(predicates.param)
        if found is None:
            return ()
        catches = []
        for term in self._retry_terms(found.value, predicates, 0):
            name = self.resolver.qualified_name(term.func) or ""
            param = predicates.types[name]
            types = argument(term, param.keyword, param.position)
            if types is None:
                continue  # the predicate's default: not read
            where = filled(predicates.where, name=name.rsplit(".", 1)[-1])
            catches.append(self._catch(types.value, where))
        return tuple(catches)

    def _retry_terms(
        self, node: cst.BaseExpression, predicates: RetryPredicates, depth: int
    ) -> list[cst.Call]:
        """The exception-type predicates among the alternatives of `node`
        (`a | b`, an any-of predicate, through a name); none under `&`."""
        if depth > _MAX_DEPTH:
            return []
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            left = self._retry_terms(node.left, predicates, depth + 1)
            return left + self._retry_terms(node.right, predicates, depth + 1)
        if isinstance(node, cst.Name):
            value = self._assigned_once(node.value)
            return [] if value is None else self._retry_terms(value, predicates, depth + 1)
        if not isinstance(node, cst.Call):
            return []
        name = self.resolver.qualified_name(node.func)
        if name in predicates.any_of:
            terms: list[cst.Call] = []
            for arg in node.args:
                terms.extend(self._retry_terms(arg.value, predicates, depth + 1))
            return terms
        return [node] if name in predicates.types else []

    def _handler_catches(
        self, call: cst.Call, handler: cst.ExceptHandler, where: str
    ) -> tuple[Catch, ...]:
        """What the except clause around a task's retry catches; a handler that
        looks at the exception before retrying filters it."""
        if _filters_exception(handler, call):
            return (Catch(Caught.SPECIFIC, handler, where, handler=True),)
        if handler.type is None:
            return (Catch(Caught.EVERYTHING, handler, where, handler=True),)
        broad = tuple(broad_exceptions(handler.type, self.resolver))
        caught = Caught.BROAD if broad else Caught.SPECIFIC
        return (Catch(caught, handler.type, where, broad, handler=True),)


# --- reading values ----------


def _is(node: cst.BaseExpression, value: Value) -> bool:
    if value is Value.NONE:
        return isinstance(node, cst.Name) and node.value == "None"
    if value is Value.TRUE:
        return isinstance(node, cst.Name) and node.value == "True"
    if value is Value.FALSY:
        return literal_truth(node) is False
    return literal_number(node) == 0


def _allows_no_retry(value: cst.BaseExpression, params: BoundParams) -> bool:
    """A literal count of attempts that leaves no retry: 0 retries, or 1
    attempt where the count includes the first run."""
    number = literal_number(value)
    return number == (1 if params.attempts.counts_first_run else 0)


def _switched_off(call: cst.Call, switch: Param) -> bool:
    """`wait_exponential_jitter(jitter=0)`: the random part is there, and zero."""
    if any(arg.star for arg in call.args):
        return False
    found = argument(call, switch.keyword, switch.position)
    return found is not None and literal_number(found.value) == 0


def _may_set(call: cst.Call, param: Param) -> bool:
    """The parameter is given (by keyword or position), or `*args`/`**kwargs` may hold it."""
    if any(arg.star for arg in call.args):
        return True
    if keyword(call, param.keyword) is not None:
        return True
    return param.position is not None and len(positional(call)) > param.position


def _bounding_value(
    fix: BoundFix, reference: int
) -> tuple[cst.BaseExpression, tuple[tuple[str, str], ...]]:
    """The value a bound fix writes, and the import it needs."""
    number = cst.Integer(str(reference))
    if not fix.call:
        return number, ()
    return cst.Call(cst.Name(fix.call), [cst.Arg(number)]), ((fix.module, fix.call),)


# --- broad exceptions ----------


def broad_exceptions(node: cst.BaseExpression, resolver: Resolver) -> list[cst.BaseExpression]:
    """`Exception`/`BaseException` in `node` (a name or a tuple/list of them)."""
    if isinstance(node, cst.Tuple | cst.List):
        found: list[cst.BaseExpression] = []
        for element in node.elements:
            found.extend(broad_exceptions(element.value, resolver))
        return found
    if _is_broad(node, resolver):
        return [node]
    return []


def _is_broad(node: cst.BaseExpression, resolver: Resolver) -> bool:
    if isinstance(node, cst.Name):
        if resolver.lookup(node.value) is not None:
            return False  # shadowed or imported under that name: not the builtin
        return node.value in retries.BROAD_EXCEPTIONS
    name = resolver.qualified_name(node)
    return name is not None and name in retries.BROAD_EXCEPTIONS


def _filters_exception(handler: cst.ExceptHandler, call: cst.Call) -> bool:
    """The handler inspects the exception before retrying: `isinstance(exc, ...)`
    anywhere in it, or an `if` mentioning the exception around the retry."""
    caught = None
    if handler.name is not None and isinstance(handler.name.name, cst.Name):
        caught = handler.name.name.value
    for node in scope_nodes(handler.body):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value in retries.EXCEPTION_FILTERS
        ):
            return True
        if isinstance(node, cst.If) and caught is not None:
            inside = {id(n) for n in scope_nodes(node.body)}
            if id(call) in inside and _mentions(node.test, caught):
                return True
    return False


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(
        isinstance(n, cst.Name) and n.value == name for n in scope_nodes(node, include_root=True)
    )

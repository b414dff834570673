"""How long a retry policy waits: the delays it sets and whether they grow and jitter.

A library's parameters read by the kind of reading they ask for (a switch, a
factor, a schedule of waits, wait strategy objects), a task's own retry
countdown computed by the code (and its full-jitter rewrite), and the waits a
bound task hands a helper along with itself.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import libcst as cst

from joblint.analysis.expressions import (
    AttemptTest,
    DelayAnalysis,
    Randomness,
    counting_target,
    growing_numbers,
    literal_number,
    literal_truth,
    names_test,
)
from joblint.analysis.names import BindingKind
from joblint.analysis.references import reference
from joblint.analysis.retry_options import (
    HandedTask,
    Setting,
    Settings,
    argument,
    is_attempt_count,
    keyword,
    positional,
)
from joblint.analysis.walk import encloses
from joblint.knowledge import retries
from joblint.libraries.retry_api import (
    DelayParams,
    Growth,
    GrowthParam,
    Jitter,
    JitterParam,
    Param,
    Reads,
    RetryMethod,
    WaitStrategies,
)
from joblint.requirements import Requirement, ReturnsGrowth
from joblint.rules.retries._facts.jitter_rewrite import backoff_shape
from joblint.rules.retries._facts.policy_reader import MAX_DEPTH, PolicyReader, is_value
from joblint.rules.retries._facts.retry_facts import (
    Delay,
    DelayTerm,
    Rewrite,
    computed_term,
    worded,
)


class DelayReading(PolicyReader):
    """The delays of a retry policy."""

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
        if is_value(found.value, param.off):
            off = Jitter.OFF if param.default is Jitter.PRESENT else Jitter.ABSENT
            return off, found
        literal = literal_truth(found.value) is not None
        return (Jitter.PRESENT if literal else Jitter.UNKNOWN), found

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
        if depth > MAX_DEPTH:
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
        found = reference(
            self.context,
            retries.FULL_JITTER,
            prefer_import=True,
            aliases=retries.FULL_JITTER_ALIASES,
        )
        if found is None:
            return None
        message = (
            f"Randomise the {keyword_name}: {shape.describe()} draws it from 0 up to the old "
            "delay (full jitter); joblint-runtime must be installed where the worker runs"
        )
        return Rewrite(expr, cst.Call(found.expr, shape.arguments()), message, found.imports)

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

"""How many times a retry policy retries: the bound it sets, or its lack.

The first parameter set to a bounding value wins; one set to a value meaning
"no bound" (or left out where the library's default is none) makes the policy
unbounded, with the rewrite setting the library's bound where it has one.
"""

from __future__ import annotations

import libcst as cst

from joblint.analysis.expressions import literal_number
from joblint.analysis.retry_options import (
    CallArguments,
    Setting,
    Settings,
    TaskOptions,
    has_star_kwargs,
    positional,
)
from joblint.analysis.rewrite import with_keyword
from joblint.libraries.retry_api import Bound, BoundFix, BoundParams, Positional
from joblint.requirements import Requirement
from joblint.rules.retries._facts.policy_reader import PolicyReader, is_value
from joblint.rules.retries._facts.retry_facts import BoundSetting, Rewrite


class BoundReading(PolicyReader):
    """The bound of a retry policy."""

    def _option_bounds(
        self, options: TaskOptions, bounds: tuple[BoundParams, ...], node: cst.CSTNode
    ) -> tuple[BoundSetting, ...]:
        return tuple(
            found
            for params in bounds
            for found in self._bounds(options, params, node, requires=options.requires)
        )

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
            if found is None or any(is_value(found.value, value) for value in params.unset):
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
        if any(is_value(value, v) for v in params.unbounded):
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


def _allows_no_retry(value: cst.BaseExpression, params: BoundParams) -> bool:
    """A literal count of attempts that leaves no retry: 0 retries, or 1
    attempt where the count includes the first run."""
    number = literal_number(value)
    return number == (1 if params.attempts.counts_first_run else 0)


def _bounding_value(
    fix: BoundFix, reference: int
) -> tuple[cst.BaseExpression, tuple[tuple[str, str], ...]]:
    """The value a bound fix writes, and the import it needs."""
    number = cst.Integer(str(reference))
    if not fix.call:
        return number, ()
    return cst.Call(cst.Name(fix.call), [cst.Arg(number)]), ((fix.module, fix.call),)

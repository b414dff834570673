"""What the three retry rules (JL301-JL303) share: Celery task scopes, task
options from decorators and `Task` subclasses, and the module's value table
(computed once per file for all of them)."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.expressions import ScopeValues
from joblint.analysis.retry_options import (
    CeleryScopes,
    TaskOptions,
    class_options,
    function_task_options,
    is_celery_task_class,
)
from joblint.rule import Rule


class RetryRule(Rule):
    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._celery = CeleryScopes()

    @property
    def values(self) -> ScopeValues:
        module = self.context.frames[0].node
        assert isinstance(module, cst.Module)
        return self.context.memo("retry-scope-values", module, lambda: ScopeValues(module))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._celery.enter_class(node, self.context.resolver)
        if is_celery_task_class(node, self.context.resolver):
            self._check_celery_options(class_options(node))

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._celery.leave_class(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for options in function_task_options(node, self.context.resolver):
            self._check_celery_options(options)

    def _check_celery_options(self, options: TaskOptions) -> None:
        """Each rule checks the task options it cares about."""

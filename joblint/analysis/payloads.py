"""What goes into a job's payload, and which of it is a live object.

For an enqueue call (or a Celery `.s()`/`.si()` signature) this finds the
arguments that end up in the payload (per `knowledge.payloads.PAYLOAD_SHAPES`)
and classifies each: an ORM instance or queryset, `self`, the request, an enum
member, a dataclass/attrs/pydantic/NamedTuple instance. Where the answer
depends on what a class is, the issue carries a `ClassOfKind` requirement the
project's class index settles (one alternative per possible kind).

This module holds the entry points the rules call; the questions they ask are
modules of their own: which arguments are payload (`payload_arguments`), which
live objects an argument holds (`payload_classify`), what an expression
evaluates to (`payload_values`), what a library or a signal hands the code
(`payload_received`), and the issue itself (`payload_issues`).
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import Binding, BindingKind, dotted_text, unwrap
from joblint.analysis.payload_arguments import (
    argument_places,
    dict_arguments,
    payload_arguments,
    task_places,
)
from joblint.analysis.payload_classify import classify

# The issue and its kinds, re-exported: the payload rules read them with the sites.
from joblint.analysis.payload_issues import MODEL_PARAMETER as MODEL_PARAMETER
from joblint.analysis.payload_issues import REQUEST as REQUEST
from joblint.analysis.payload_issues import SELF as SELF
from joblint.analysis.payload_issues import PayloadIssue as PayloadIssue
from joblint.analysis.payload_issues import PayloadSite as PayloadSite
from joblint.analysis.payload_received import is_parameter
from joblint.analysis.targets import task_like_target
from joblint.analysis.tasks import classify_enqueue, maybe_task
from joblint.knowledge import jobs
from joblint.knowledge import payloads as kb
from joblint.models import HANDED
from joblint.requirements import HandsToPayload, Requirement, UsedAsModel


def payload_site(call: cst.Call, context: FileContext) -> PayloadSite | None:
    """The payload problems of `call`, computed once per call for all rules."""
    return context.memo("payload", call, lambda: _site(call, context))


def _site(call: cst.Call, context: FileContext) -> PayloadSite | None:
    found = _shape_and_requirements(call, context)
    if found is None:
        return None
    shape, requires = found
    if _is_partial(call, context):
        call = cst.Call(func=call.args[0].value, args=call.args[1:])
    issues: list[PayloadIssue] = []
    dicts = dict_arguments(call, shape)
    for argument in payload_arguments(call, shape):
        for issue in classify(argument, context, id(argument) in dicts):
            issues.append(
                PayloadIssue(
                    issue.node,
                    issue.text,
                    issue.kind,
                    issue.class_name,
                    requires + issue.requires,
                    issue.fixable,
                    issue.holder,
                )
            )
    # A value reported for sure is not read again; one pending (what a helper
    # returns) is: one finding per place stands.
    reported = {id(issue.node) for issue in issues if len(issue.requires) == len(requires)}
    task = _enqueued_task(call, context)
    if task:
        for value, position, keyword in task_places(call, shape):
            if id(unwrap(value)) not in reported and id(value) not in reported:
                unknown = _unknown_object(value, context, task, position, keyword)
                if unknown is not None:
                    issues.append(replace(unknown, requires=requires + unknown.requires))
    text = dotted_text(call.func)
    return PayloadSite(f"{text}()" if text else "the enqueue call", tuple(issues))


def handed_site(call: cst.Call, context: FileContext) -> PayloadSite | None:
    """The live objects a call of a project function passes it, each one a
    finding if the function hands that parameter on to a job's payload
    (`HandsToPayload`: `schedule_email(request.user)` where
    `schedule_email(user)` calls `send_email.delay(user)`)."""
    if not call.args or not context.frame.key or not context.options.payload_forwarders:
        return None  # module level: a decorator's arguments, a script's setup
    enqueue = context.enqueue(call)
    if enqueue is not None and any(not e.requires for e in enqueue.alternatives()):
        return None  # an enqueue (where it may be one, a Huey task called, both are read)
    qualname = context.resolver.qualified_name(call.func)
    text = dotted_text(call.func)
    if qualname is None or text is None or not jobs.may_be_project_code(qualname):
        return None
    called = text.rsplit(".", 1)[-1]
    if called not in context.options.payload_forwarders:
        return None  # no function of that name hands a parameter on to a job
    if called[:1].isupper() or called in kb.ENQUEUE_METHOD_NAMES:
        # A class made (its constructor keeps what it is given), or a method
        # named like an enqueue: read as one where it is one, else no helper.
        return None
    issues: list[PayloadIssue] = []
    for place, arg in argument_places(call):
        if _names_a_module_value(arg.value, context):
            continue  # a module's constant, set up once: not read here
        for issue in classify(arg.value, context):
            if not _read_when_handed(issue):
                continue
            requirement = HandsToPayload(qualname, *place)
            issues.append(replace(issue, requires=(*issue.requires, requirement), fixable=False))
    if not issues:
        return None
    return PayloadSite(f"{text}(), which hands it on to {HANDED}", tuple(issues))


def _returned_by_project_code(binding: Binding, context: FileContext) -> bool:
    """A local bound once, whole, to a call of a function the project may
    define (not a builtin's, the standard library's or another library's)."""
    if binding.expr is None or binding.unpack_index is not None or binding.iterated:
        return False
    call = unwrap(binding.expr)
    if not isinstance(call, cst.Call):
        return False
    text = dotted_text(call.func)
    if text is None or context.resolver.lookup(text.split(".")[0]) is None:
        return False  # a builtin, or a value a call returns
    qualname = context.resolver.qualified_name(call.func)
    return qualname is None or jobs.may_be_project_code(qualname)


def _names_a_module_value(node: cst.BaseExpression, context: FileContext) -> bool:
    """A name in `node` is the module's own value (`DEFAULT = ...` at module level)."""
    module = context.resolver.module_scope.names
    finder = _Names()
    node.visit(finder)
    for name in finder.names:
        binding = context.resolver.lookup(name)
        if binding is not None and module.get(name) is binding and binding.expr is not None:
            return True
    return False


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _read_when_handed(issue: PayloadIssue) -> bool:
    """Whether a live object passed to a helper is read there: only what the
    file alone tells is one (a fetch, a value a library hands the code, a
    receiver's instance); not `self` nor the request (handed to helpers
    everywhere, rarely on to a job), nor what another helper returns or a
    class builds (pending findings at most calls of a project: the cost
    outweighs the rare find)."""
    return issue.kind not in (SELF, REQUEST) and not issue.requires


def _enqueued_task(call: cst.Call, context: FileContext) -> str:
    """The project task an enqueue call enqueues, by its own method ("" for
    another enqueue: a queue's, a signature's)."""
    enqueue = context.enqueue(call)
    if enqueue is None or enqueue.signed:
        return ""
    return enqueue.task


def _unknown_object(
    value: cst.BaseExpression, context: FileContext, task: str, position: str, keyword: str
) -> PayloadIssue | None:
    """A value whose type the file doesn't tell and whose name doesn't say it
    is a key: an unannotated parameter, a loop's item, a local bound to what
    a project function returns (`order`, not `order_id`). A finding where
    the task uses that parameter as a model."""
    node = unwrap(value)
    if not isinstance(node, cst.Name) or kb.names_a_key(node.value):
        return None
    if node.value in ("self", "cls", "request"):
        return None
    binding = context.resolver.lookup(node.value)
    if binding is None or binding.kind is not BindingKind.OTHER:
        return None
    if is_parameter(binding):
        if binding.annotation is not None:
            return None
    elif not (binding.iterated or _returned_by_project_code(binding, context)):
        return None
    requirement = UsedAsModel(task, position, keyword)
    return PayloadIssue(node, node.value, MODEL_PARAMETER, "", (requirement,), fixable=False)


def _shape_and_requirements(
    call: cst.Call, context: FileContext
) -> tuple[kb.PayloadShape, tuple[Requirement, ...]] | None:
    if _is_partial(call, context):
        # `functools.partial(queue.enqueue, func, job=job)`: the same payload,
        # called later (typically by an on-commit hook). The call is built here,
        # so it is classified directly, not through the per-node memo.
        inner = cst.Call(func=call.args[0].value, args=call.args[1:])
        options = context.options
        enqueue = classify_enqueue(
            inner, context.resolver, options.enqueue_functions, options.call_enqueues
        )
    else:
        enqueue = context.enqueue(call)
    if enqueue is not None:
        shape = kb.PAYLOAD_SHAPES.get(enqueue.method)
        return (shape, enqueue.requires) if shape is not None else None
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in {"s", "si"}:
        target = task_like_target(func.value, context.resolver)
        if target is None:
            return None
        requires = () if target.library else (maybe_task(target.qualname, context.resolver),)
        return kb.PAYLOAD_SHAPES[func.attr.value], requires
    return None


def _is_partial(call: cst.Call, context: FileContext) -> bool:
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return False
    return context.resolver.qualified_name(call.func) in kb.PARTIAL_FUNCTIONS

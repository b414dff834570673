"""What goes into a job's payload, and which of it is a live object.

For an enqueue call (or a Celery `.s()`/`.si()` signature) this finds the
arguments that end up in the payload (per `knowledge.payloads.PAYLOAD_SHAPES`)
and classifies each: an ORM instance or queryset, `self`, the request, an enum
member, a dataclass/attrs/pydantic/NamedTuple instance. Where the answer
depends on what a class is, the issue carries a `ClassOfKind` requirement the
project's class index settles (one alternative per possible kind).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import libcst as cst

from joblint.analysis.context import FileContext, Frame
from joblint.analysis.names import (
    Binding,
    BindingKind,
    dotted_parts,
    dotted_text,
    in_standard_library,
    target_names,
    unwrap,
)
from joblint.analysis.targets import task_like_target
from joblint.analysis.tasks import classify_enqueue, maybe_task
from joblint.analysis.walk import children, contains
from joblint.knowledge import jobs
from joblint.knowledge import payloads as kb
from joblint.models import HANDED, M2M, RETURNED, RETURNED_ITEM
from joblint.requirements import (
    ClassOfKind,
    HandsToPayload,
    Requirement,
    ReturnsArgument,
    ReturnsObject,
    UsedAsModel,
)

SELF = "self"
REQUEST = "request"
# A value of unknown type passed where the task uses its parameter as a model
# instance (`UsedAsModel` settles it).
MODEL_PARAMETER = "model-parameter"

_RENDER_LIMIT = 40
_EMPTY_MODULE = cst.Module(body=[])


@dataclass(frozen=True, slots=True)
class PayloadIssue:
    node: cst.BaseExpression  # the offending argument, where the finding is reported
    text: str  # how the argument reads: "order", "Color.RED"
    kind: str  # a kind of knowledge.payloads.OBJECT_KINDS, or SELF, REQUEST
    class_name: str = ""  # "Order"
    requires: tuple[Requirement, ...] = ()
    # The argument itself can be replaced by its key (not a dict holding the
    # value, nor the argument of a helper building the payload).
    fixable: bool = True
    # How the container holding the value reads ("params"), when the argument
    # is a dict or list holding it; `text` is then the value's ("" for a value
    # of a helper's dict).
    holder: str = ""


@dataclass(frozen=True, slots=True)
class PayloadSite:
    call_text: str  # "send_receipt.delay()"
    issues: tuple[PayloadIssue, ...]


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
    dicts = _dict_arguments(call, shape)
    for argument in payload_arguments(call, shape):
        for issue in _classify(argument, context, id(argument) in dicts):
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
    for place, arg in _argument_places(call):
        if _names_a_module_value(arg.value, context):
            continue  # a module's constant, set up once: not read here
        for issue in _classify(arg.value, context):
            if not _read_when_handed(issue):
                continue
            requirement = HandsToPayload(qualname, *place)
            issues.append(replace(issue, requires=(*issue.requires, requirement), fixable=False))
    if not issues:
        return None
    return PayloadSite(f"{text}(), which hands it on to {HANDED}", tuple(issues))


def _argument_places(call: cst.Call) -> Iterator[tuple[tuple[str, str], cst.Arg]]:
    """Each argument before the first `*`/`**`, with the place a callee reads
    it from: ("0", "") for the first positional, ("", "name") for `name=`."""
    position = 0
    for arg in call.args:
        if arg.star:
            return
        if arg.keyword is not None:
            yield ("", arg.keyword.value), arg
        else:
            yield (str(position), ""), arg
            position += 1


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


def task_places(
    call: cst.Call, shape: kb.PayloadShape
) -> Iterator[tuple[cst.BaseExpression, str, str]]:
    """The payload arguments of a task's enqueue with the task's parameter
    each binds: (value, position, "") or (value, "", keyword)."""
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return  # `*args`/`**kwargs`: positions no longer tell
    at = 0
    for index, arg in enumerate(positional):
        if index < shape.skip_positional:
            continue
        if index == shape.args_position:
            yield from _displayed_positions(arg.value)
        elif index == shape.kwargs_position:
            yield from _displayed_keywords(arg.value)
        elif shape.rest_is_payload:
            yield arg.value, str(at), ""
            at += 1
    for arg in call.args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name and name == shape.args_keyword:
            yield from _displayed_positions(arg.value)
        elif name and name == shape.kwargs_keyword:
            yield from _displayed_keywords(arg.value)
        elif shape.rest_is_payload and not _reserved(name, shape):
            yield arg.value, "", name


def _displayed_positions(
    node: cst.BaseExpression,
) -> Iterator[tuple[cst.BaseExpression, str, str]]:
    if isinstance(node, cst.List | cst.Tuple):
        for index, element in enumerate(node.elements):
            if isinstance(element, cst.StarredElement):
                return
            yield element.value, str(index), ""


def _displayed_keywords(
    node: cst.BaseExpression,
) -> Iterator[tuple[cst.BaseExpression, str, str]]:
    if isinstance(node, cst.Dict):
        for item in node.elements:
            if isinstance(item, cst.DictElement) and isinstance(item.key, cst.SimpleString):
                key = item.key.evaluated_value
                if isinstance(key, str):
                    yield item.value, "", key


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
    if _is_parameter(binding):
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


# --- which arguments are payload --------------------------------------------------


def payload_arguments(call: cst.Call, shape: kb.PayloadShape) -> Iterator[cst.BaseExpression]:
    positional = [a for a in call.args if a.keyword is None]
    for index, arg in enumerate(positional):
        if index < shape.skip_positional:
            continue
        if index in (shape.args_position, shape.kwargs_position):
            yield from _container_items(arg.value)
        elif shape.rest_is_payload:
            yield arg.value
    for arg in call.args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name in (shape.args_keyword, shape.kwargs_keyword) and name:
            yield from _container_items(arg.value)
        elif shape.rest_is_payload and not _reserved(name, shape):
            yield arg.value


def _dict_arguments(call: cst.Call, shape: kb.PayloadShape) -> set[int]:
    """The payload arguments that are dicts of keyword arguments: `**spread`
    into the call, or the call's `kwargs=`."""
    found = {id(a.value) for a in call.args if a.star == "**" and shape.rest_is_payload}
    positional = [a for a in call.args if a.keyword is None]
    for index, arg in enumerate(positional):
        if index == shape.kwargs_position and not arg.star:
            found.add(id(arg.value))
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == shape.kwargs_keyword:
            found.add(id(arg.value))
    return found


def _reserved(name: str, shape: kb.PayloadShape) -> bool:
    return name in shape.reserved or bool(
        shape.reserved_prefix and name.startswith(shape.reserved_prefix)
    )


def _container_items(node: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """Elements of an `args=(...)`/`kwargs={...}` literal; the expression itself otherwise."""
    if isinstance(node, cst.List | cst.Tuple):
        for element in node.elements:
            yield element.value
    elif isinstance(node, cst.Dict):
        for item in node.elements:
            yield item.value
    else:
        yield node


# --- classifying one argument ---------------------------------------------------------


# Nodes compare by identity, and a file's classification reaches the same
# argument many times (a name's value from each use, each rule): rendered once.
@functools.lru_cache(maxsize=1024)
def _render(node: cst.BaseExpression) -> str:
    text = dotted_text(node) or _EMPTY_MODULE.code_for_node(node)
    text = " ".join(text.split())
    return text if len(text) <= _RENDER_LIMIT else text[: _RENDER_LIMIT - 1] + "…"


def _classify(
    node: cst.BaseExpression, context: FileContext, as_dict: bool = False, held: bool = False
) -> list[PayloadIssue]:
    """`as_dict`: the value is a dict of keyword arguments the enqueue
    spreads (`**params`, `kwargs=params`): a helper's dict counts too.
    `held`: a value inside a local container (whose own locals are not
    opened again: a dict may hold itself)."""
    node = unwrap(node)
    if isinstance(node, cst.List | cst.Tuple | cst.Set):
        return [i for e in node.elements for i in _classify(e.value, context, held=held)]
    if isinstance(node, cst.Dict):
        return [i for e in node.elements for i in _classify(e.value, context, held=held)]
    built = _dict_call(node)
    if built is not None:
        return [i for a in built.args for i in _classify(a.value, context, held=held)]
    collected = _collection_issues(node, context)
    if collected is not None:
        return [_inside(i, node) for i in collected]
    if isinstance(node, cst.Name):
        return _classify_name(node, context, as_dict, held)
    if isinstance(node, cst.Attribute):
        return _classify_attribute(node, context)
    known = _known_value(node, context) or _received_keyword(node, context)
    if known:
        return known
    if isinstance(node, cst.Call | cst.Subscript):
        issues = [_at(i, node) for i in _value_issues(node, context, None, False)]
        if as_dict and isinstance(node, cst.Call):
            issues.extend(_built_by_helper(node, context))
        return issues
    return []


def _at(issue: PayloadIssue, node: cst.BaseExpression) -> PayloadIssue:
    if issue.holder:
        return replace(issue, node=node, holder=_render(node))
    return replace(issue, node=node, text=_render(node))


def _inside(issue: PayloadIssue, node: cst.BaseExpression) -> PayloadIssue:
    """An issue of a value the container `node` holds, reported at `node`."""
    return replace(issue, node=node, holder=_render(node), fixable=False)


def _classify_name(
    node: cst.Name, context: FileContext, as_dict: bool = False, held: bool = False
) -> list[PayloadIssue]:
    name = node.value
    source = _comprehension_source(node, context)
    if source is not None:
        return [_at(i, node) for i in _row_issues(source, context)]
    binding = context.resolver.lookup(name)
    if name == "self" and context.frame.class_name and _is_parameter(binding):
        return [PayloadIssue(node, name, SELF, context.frame.class_name)]
    if binding is None or binding.kind not in (BindingKind.OTHER, BindingKind.VALUE):
        return []
    if _is_parameter(binding):
        if name == "request":
            return [PayloadIssue(node, name, REQUEST)]
        received = _received_instance(node, binding, context)
        if received is not None:
            return [received]
        if binding.annotation is not None:
            return [_at(i, node) for i in _annotation_issues(binding.annotation, context)]
        return []
    if binding.expr is None:
        return []
    whole = binding.unpack_index is None and not binding.iterated
    if whole and _is_container(binding.expr):
        if held:
            return []
        return [_inside(i, node) for i in _container_issues(name, binding.expr, context)]
    collected = _collection_issues(binding.expr, context) if whole else None
    if collected is not None:
        return [] if held else [_inside(i, node) for i in collected]
    issues = _value_issues(binding.expr, context, binding.unpack_index, binding.iterated)
    found = [_at(i, node) for i in issues]
    expr = unwrap(binding.expr)
    if as_dict and whole and isinstance(expr, cst.Call):
        found.extend(_inside(i, node) for i in _built_by_helper(expr, context))
    return found


def _is_container(node: cst.BaseExpression) -> bool:
    node = unwrap(node)
    return isinstance(node, cst.Dict | cst.List | cst.Tuple) or _dict_call(node) is not None


def _dict_call(node: cst.BaseExpression) -> cst.Call | None:
    """`dict(order=order)`: the builtin, not shadowed."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
        return None
    if node.func.value == "dict" and not any(a.keyword is None for a in node.args):
        return node
    return None


def _container_issues(
    name: str, node: cst.BaseExpression, context: FileContext
) -> list[PayloadIssue]:
    """The values a local dict or list holds: its literal's, and those the
    function stores in it (`params["order"] = order`)."""
    node = unwrap(node)
    built = _dict_call(node)
    values: list[cst.BaseExpression] = []
    if built is not None:
        values.extend(a.value for a in built.args)
    elif isinstance(node, cst.Dict | cst.List | cst.Tuple):
        values.extend(e.value for e in node.elements)
    function = context.frame.node
    if isinstance(function, cst.FunctionDef):
        stores = context.memo("stored-items", function, lambda: _stored_items(function))
        values.extend(stores.get(name, ()))
    return [i for value in values for i in _classify(value, context, held=True)]


def _stored_items(function: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """The values `name[...] = value` statements of the function store, by
    `name` (not those of the functions and lambdas it defines: they store
    when they run). One pass over the function for every name asked."""
    stores: dict[str, list[cst.BaseExpression]] = {}
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.FunctionDef | cst.Lambda):
            continue
        if isinstance(node, cst.Assign):
            for target in node.targets:
                subscript = target.target
                if isinstance(subscript, cst.Subscript) and isinstance(subscript.value, cst.Name):
                    stores.setdefault(subscript.value.value, []).append(node.value)
        stack.extend(reversed(children(node)))
    return stores


def _built_by_helper(call: cst.Call, context: FileContext) -> list[PayloadIssue]:
    """A helper's dict spread into the enqueue: the values of a kind it holds
    (the project step tells, `RETURNED_ITEM`), and the helper's arguments of
    a kind that it puts in the dict (`ReturnsArgument`)."""
    found = _returned_alternatives(call, context, False, RETURNED_ITEM)
    site = _helper_site(call, context)
    if site is None:
        return found
    function, text = site
    for place, arg in _argument_places(call):
        for issue in _classify(arg.value, context):
            requirement = ReturnsArgument(function, text, *place)
            # A value a helper returned is named by where it comes from.
            named = RETURNED in issue.class_name
            found.append(
                PayloadIssue(
                    issue.node,
                    issue.text,
                    issue.kind,
                    issue.class_name if named else f"{issue.class_name}, {RETURNED}",
                    (*issue.requires, requirement),
                    fixable=False,
                )
            )
    return found


def _helper_site(call: cst.Call, context: FileContext) -> tuple[str, str] | None:
    """(the function the call is made in, as the index names it; the call's
    text) when the call may be of a project function."""
    text = dotted_text(call.func)
    key = context.frame.key
    if text is None or not key:
        return None
    root = context.resolver.lookup(text.split(".")[0])
    if root is None:
        return None  # a builtin, or a global no module binds
    qualname = context.resolver.qualified_name(call.func)
    if qualname is not None and not jobs.may_be_project_code(qualname):
        return None
    return context.resolver.local_qualname(key), text


def _returned_alternatives(
    call: cst.Call, context: FileContext, iterated: bool, mode: str = ""
) -> list[PayloadIssue]:
    """What a project helper the call calls returns: one pending issue per
    kind it may be (iterated: a row of the rows it returns)."""
    site = _helper_site(call, context)
    if site is None:
        return []
    function, text = site
    if iterated:
        kinds = [(f.row_kind, f.rows_kind) for f in kb.MANAGER_FETCHES]
    else:
        kinds = [(k, k) for k in sorted(kb.ORM_KINDS | kb.ROWS_KINDS | kb.RICH_KINDS)]
    return [
        PayloadIssue(
            call,
            "",
            kind,
            RETURNED,
            (ReturnsObject(function, text, frozenset({returned}), mode == RETURNED_ITEM),),
            fixable=not mode,
            holder=_render(call) if mode else "",
        )
        for kind, returned in kinds
    ]


def _known_value(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """A value a library hands the code by a name of its own: `request.user`,
    `self.request.user`, `self.get_object()`, `form.save()`, `serializer.instance`
    (`knowledge.payloads.PARAMETER_ATTRIBUTES`)."""
    called = isinstance(node, cst.Call)
    parts = dotted_parts(node.func if isinstance(node, cst.Call) else node)
    if parts is None or len(parts) < 2:
        return []
    known = kb.PARAMETER_ATTRIBUTES.get((parts[0], ".".join(parts[1:])))
    if known is None or known.called != called:
        return []
    if called and parts[0] == "self" and parts[1] in context.own_methods:
        return []  # the class's own method: what it returns is the project model's to tell
    root = context.resolver.lookup(parts[0])
    if not (_is_parameter(root) or (known.local_too and _bound_to_a_call(root))):
        return []
    return [PayloadIssue(node, _render(node), known.kind, known.class_name)]


def _bound_to_a_call(binding: Binding | None) -> bool:
    """A local assigned the result of a call (`form = OrderForm(data)`)."""
    if binding is None or binding.expr is None or binding.unpack_index is not None:
        return False
    return not binding.iterated and isinstance(unwrap(binding.expr), cst.Call)


def _received_instance(
    node: cst.Name, binding: Binding, context: FileContext, of: Frame | None = None
) -> PayloadIssue | None:
    """The instance a model signal hands its receiver (`instance` of a
    `post_save` receiver the module connects; `of`: the receiver's frame,
    known already)."""
    for frame in reversed(context.frames):
        function = frame.node
        if not isinstance(function, cst.FunctionDef):
            continue
        if of is None and not any(p is binding.node for p in _own_parameters(function)):
            continue
        if of is not None and frame is not of:
            continue
        receiving = frame.receiving
        if receiving is None or receiving.instance_keyword != node.value:
            return None
        if not receiving.instance_kind:
            return None
        # A many-to-many change hands either side's instance.
        model = receiving.model.rsplit(".", 1)[-1] if M2M not in receiving.writes else ""
        what = model or f"the instance {receiving.signal} sends"
        return PayloadIssue(node, node.value, receiving.instance_kind, what)
    return None


def _received_keyword(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """`kwargs["instance"]`, `kwargs.get("instance")`: the instance a model
    signal hands its receiver, read from the receiver's `**kwargs`."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        owner, key = node.value, index.value if isinstance(index, cst.Index) else None
    elif (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and node.args
    ):
        owner, key = node.func.value, node.args[0].value
    else:
        return []
    if not (isinstance(owner, cst.Name) and isinstance(key, cst.SimpleString)):
        return []
    binding = context.resolver.lookup(owner.value)
    if binding is None:
        return []
    for frame in reversed(context.frames):
        function = frame.node
        if not isinstance(function, cst.FunctionDef):
            continue
        if function.params.star_kwarg is not binding.node:
            continue
        receiving = frame.receiving
        if receiving is None or key.evaluated_value != receiving.instance_keyword:
            return []
        issue = _received_instance(cst.Name(receiving.instance_keyword), binding, context, frame)
        return [] if issue is None else [_at(issue, node)]
    return []


def _own_parameters(function: cst.FunctionDef) -> Iterator[cst.Param]:
    params = function.params
    yield from (*params.posonly_params, *params.params, *params.kwonly_params)


# Builtins that collect what they iterate over (`list(qs)`: the rows).
_COLLECTING_BUILTINS = frozenset({"list", "tuple", "set", "frozenset", "sorted"})


def _collection_issues(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue] | None:
    """What a collection built from an iteration holds: `list(qs)`, `[o for o
    in qs]`, `(t for t in qs)`, a dict comprehension's values; None when
    `node` is no such collection."""
    node = unwrap(node)
    if isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp):
        element = node.value if isinstance(node, cst.DictComp) else node.elt
        return _element_issues(unwrap(element), node.for_in, context)
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
        return None
    if node.func.value not in _COLLECTING_BUILTINS or context.resolver.lookup(node.func.value):
        return None
    if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
        return None
    issues = _row_issues(node.args[0].value, context)
    return [replace(i, text="", fixable=False) for i in issues]


def _element_issues(
    element: cst.BaseExpression, loops: cst.CompFor, context: FileContext
) -> list[PayloadIssue]:
    """A comprehension's element: a target of its loops (the rows iterated)
    or any value the payload rules read (`Order.objects.get(pk=p)`)."""
    if isinstance(element, cst.Name):
        source = _loop_source(element.value, loops)
        if source is not None:
            return [
                replace(i, text=element.value, fixable=False) for i in _row_issues(source, context)
            ]
        if _binds(loops, element.value):
            return []  # a target of a loop unpacking, or a nested loop's
    return [replace(i, fixable=False) for i in _classify(element, context, held=True)]


def _loop_source(name: str, loops: cst.CompFor) -> cst.BaseExpression | None:
    """What the comprehension loop binding `name` alone iterates over (the
    innermost loop binding it)."""
    found: cst.BaseExpression | None = None
    loop: cst.CompFor | None = loops
    while loop is not None:
        if isinstance(loop.target, cst.Name) and loop.target.value == name:
            found = loop.iter
        elif name in target_names(loop.target):
            found = None
        loop = loop.inner_for_in
    return found


def _binds(loops: cst.CompFor, name: str) -> bool:
    loop: cst.CompFor | None = loops
    while loop is not None:
        if name in target_names(loop.target):
            return True
        loop = loop.inner_for_in
    return False


def _row_issues(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """The rows iterating over `node` gives: a queryset's, a session query's,
    a helper's returning rows; through a local bound once to one."""
    node = unwrap(node)
    if isinstance(node, cst.Name):
        binding = context.resolver.lookup(node.value)
        if binding is None or _is_parameter(binding) or binding.expr is None:
            return []
        if binding.unpack_index is not None or binding.iterated:
            return []
        node = unwrap(binding.expr)
    if isinstance(node, cst.Name | cst.Attribute):
        return []
    return _value_issues(node, context, None, True)


def _comprehension_source(node: cst.Name, context: FileContext) -> cst.BaseExpression | None:
    """What a name bound by a comprehension's loop around `node`, in the
    statement being read, iterates over (`group(t.s(o) for o in qs)`)."""
    statement = context.statement
    if statement is None:
        return None
    sources = context.memo(
        "comprehension-sources", statement, lambda: _comprehension_sources(statement)
    )
    return sources.get(id(node))


def _comprehension_sources(statement: cst.CSTNode) -> dict[int, cst.BaseExpression]:
    """For each name a comprehension's loop in the statement binds, where it
    is read inside the comprehension: what that loop iterates over (one
    visit of the statement for all its names). A compound statement's own
    body holds statements of their own: only its header is visited."""
    finder = _ComprehensionTargets()
    for part in _header(statement):
        if contains(part, cst.CompFor):  # a quick look before the visit
            part.visit(finder)
    return finder.sources


def _header(statement: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The parts of a statement outside the blocks it holds (all of a simple one)."""
    if isinstance(statement, cst.If | cst.While):
        return (statement.test,)
    if isinstance(statement, cst.For):
        return (statement.target, statement.iter)
    if isinstance(statement, cst.With):
        return statement.items
    if isinstance(statement, cst.FunctionDef):
        return (*statement.decorators, statement.params)
    if isinstance(statement, cst.ClassDef):
        return (*statement.decorators, *statement.bases, *statement.keywords)
    if isinstance(statement, cst.Try | cst.TryStar):
        return ()
    if isinstance(statement, cst.Match):
        return (statement.subject,)
    return (statement,)


class _ComprehensionTargets(cst.CSTVisitor):
    """The iterable of the innermost comprehension loop binding each name
    read around it."""

    def __init__(self) -> None:
        self.loops: list[cst.CompFor] = []
        self.sources: dict[int, cst.BaseExpression] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name):
            for loops in reversed(self.loops):
                if _binds(loops, node.value):
                    source = _loop_source(node.value, loops)
                    if source is not None:
                        self.sources[id(node)] = source
                    break
            return False
        if isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp):
            self.loops.append(node.for_in)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp):
            self.loops.pop()


def _is_parameter(binding: Binding | None) -> bool:
    return binding is not None and isinstance(binding.node, cst.Param)


def _classify_attribute(node: cst.Attribute, context: FileContext) -> list[PayloadIssue]:
    known = _known_value(node, context)
    if known:
        return known
    parts = dotted_parts(node)
    if parts is None or len(parts) != 2:
        return []
    root = context.resolver.lookup(parts[0])
    # `Color.RED`: a member of a class the index may know as an enum.
    if root is not None and root.kind in (BindingKind.IMPORT, BindingKind.DEF):
        if not parts[1].isupper() or in_standard_library(root.qualname):
            return []
        requires = (ClassOfKind(root.qualname, frozenset({kb.ENUM})),)
        return [PayloadIssue(node, _render(node), kb.ENUM, parts[0], requires)]
    return []


def _annotation_issues(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """`order: Order`, `Optional[Order]`, `Order | None`."""
    if isinstance(node, cst.Subscript) and dotted_text(node.value) in {
        "Optional",
        "typing.Optional",
    }:
        element = node.slice[0].slice
        if isinstance(element, cst.Index):
            return _annotation_issues(element.value, context)
        return []
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        for side in (node.left, node.right):
            if not (isinstance(side, cst.Name) and side.value == "None"):
                return _annotation_issues(side, context)
        return []
    return _class_alternatives(node, context)


def _class_alternatives(node: cst.BaseExpression, context: FileContext) -> list[PayloadIssue]:
    """An instance of the class `node` names: one pending issue per possible kind."""
    qualname = context.resolver.qualified_name(node)
    parts = dotted_parts(node)
    if qualname is None or parts is None or in_standard_library(qualname):
        return []
    return [
        PayloadIssue(
            node,
            _render(node),
            kind,
            parts[-1],
            (ClassOfKind(qualname, frozenset({kind})),),
        )
        for kind in sorted(kb.ORM_KINDS | kb.RICH_KINDS)
    ]


# --- what an expression evaluates to ---------------------------------------------------


def _value_issues(
    node: cst.BaseExpression, context: FileContext, unpack_index: int | None, iterated: bool
) -> list[PayloadIssue]:
    node = unwrap(node)
    for manager in kb.MANAGER_FETCHES:
        fetched = _manager_fetch(node, context, iterated, manager)
        if fetched is not None:
            return [fetched]
    for session in kb.SESSION_FETCHES:
        found = _session_fetch(node, context, iterated, session)
        if found is not None:
            return found
    if isinstance(node, cst.Call | cst.Subscript) and unpack_index is None and not iterated:
        known = _known_value(node, context) or _received_keyword(node, context)
        if known:
            return known
    if isinstance(node, cst.Call) and unpack_index is None:
        returned = _returned_alternatives(node, context, iterated)
        if iterated:
            return returned
        return [*_class_alternatives(node.func, context), *returned]
    if isinstance(node, cst.Attribute) and unpack_index is None and not iterated:
        return _classify_attribute(node, context)
    return []


def _method_chain(
    node: cst.BaseExpression,
) -> tuple[list[tuple[str, cst.Call]], cst.BaseExpression]:
    """`a.b(x).c(y)` -> ([("c", call), ("b", call)], a): outermost call first."""
    chain: list[tuple[str, cst.Call]] = []
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        chain.append((node.func.attr.value, node))
        node = node.func.value
    return chain, node


def _manager_fetch(
    node: cst.BaseExpression, context: FileContext, iterated: bool, fetches: kb.ManagerFetches
) -> PayloadIssue | None:
    """`Order.objects.get(...)`, `Order.objects.filter(...)[0]`, `get_object_or_404(Order, ...)`."""
    indexed = False
    if isinstance(node, cst.Subscript):
        indexed = not any(isinstance(e.slice, cst.Slice) for e in node.slice)
        node = node.value
    if isinstance(node, cst.Call):
        shortcut = _fetch_function(node, context, fetches)
        if shortcut is not None:
            kind, model = shortcut
            if kind == fetches.rows_kind and (indexed or iterated):
                kind = fetches.row_kind
            return PayloadIssue(node, "", kind, model)
    chain, root = _method_chain(node)
    if not (isinstance(root, cst.Attribute) and root.attr.value == fetches.manager_attribute):
        return None
    model = (dotted_parts(root.value) or ["?"])[-1]
    last = chain[0][0] if chain else None  # the manager itself: all its rows
    if last in fetches.row_methods:
        return PayloadIssue(node, "", fetches.row_kind, model)
    if last is not None and last not in fetches.rows_methods:
        return None  # count(), exists(), aggregate(): plain values
    values = any(name in fetches.plain_methods for name, _ in chain)
    if indexed or iterated:
        return None if values else PayloadIssue(node, "", fetches.row_kind, model)
    return PayloadIssue(node, "", fetches.rows_kind, model)


def _fetch_function(
    call: cst.Call, context: FileContext, fetches: kb.ManagerFetches
) -> tuple[str, str] | None:
    qualname = context.resolver.qualified_name(call.func)
    if qualname is None or not call.args:
        return None
    model = (dotted_parts(call.args[0].value) or ["?"])[-1]
    if qualname in fetches.row_functions:
        return fetches.row_kind, model
    if qualname in fetches.rows_functions:
        return fetches.rows_kind, model
    return None


def _session_fetch(
    node: cst.BaseExpression, context: FileContext, iterated: bool, fetches: kb.SessionFetches
) -> list[PayloadIssue] | None:
    """`session.query(Order).first()`, `session.scalars(select(Order)).all()`,
    `session.get(Order, pk)`."""
    chain, _ = _method_chain(node)
    if not chain:
        return None
    last, last_call = chain[0]
    if last in fetches.get_methods and len(chain) == 1:
        return _session_get(last_call, context, fetches)
    model = _queried_model(chain, context, fetches)
    if model is None:
        return None
    if last in fetches.row_methods or (iterated and last in fetches.rows_methods):
        return [PayloadIssue(node, "", fetches.row_kind, model)]
    if last in fetches.rows_methods:
        return [PayloadIssue(node, "", fetches.rows_kind, model)]
    return None


def _session_get(
    call: cst.Call, context: FileContext, fetches: kb.SessionFetches
) -> list[PayloadIssue] | None:
    """`session.get(Order, pk)`: an instance if the index knows `Order` as a model."""
    if len(call.args) < 2 or call.args[0].keyword is not None:
        return None
    first = call.args[0].value
    qualname = context.resolver.qualified_name(first)
    parts = dotted_parts(first)
    if qualname is None or parts is None:
        return None
    requires = (ClassOfKind(qualname, frozenset({fetches.row_kind})),)
    return [PayloadIssue(call, "", fetches.row_kind, parts[-1], requires)]


def _queried_model(
    chain: Sequence[tuple[str, cst.Call]], context: FileContext, fetches: kb.SessionFetches
) -> str | None:
    """The model `session.query(X)` / `session.scalars(select(X))` fetches."""
    for name, call in reversed(chain):  # innermost first
        takes_entity = name in fetches.entity_methods
        if not (takes_entity or name in fetches.statement_methods) or not call.args:
            continue
        entity: cst.BaseExpression | None = unwrap(call.args[0].value)
        if not takes_entity and entity is not None:
            entity = _selected_entity(entity, context, fetches)
        if isinstance(entity, cst.Name) and entity.value[:1].isupper():
            return entity.value
        return None
    return None


def _selected_entity(
    node: cst.BaseExpression, context: FileContext, fetches: kb.SessionFetches
) -> cst.BaseExpression | None:
    """`select(X).where(...)` -> X."""
    _, call = _method_chain(node)
    if not isinstance(call, cst.Call) or not call.args:
        return None
    name = context.resolver.qualified_name(call.func) or dotted_text(call.func) or ""
    if name.rsplit(".", 1)[-1] not in fetches.select_functions:
        return None
    return call.args[0].value

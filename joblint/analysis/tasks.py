"""Recognising task definitions and enqueue calls from the library tables."""

from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from joblint.analysis.names import (
    Binding,
    BindingKind,
    Resolver,
    dotted_parts,
    dotted_text,
    in_standard_library,
    unwrap,
)
from joblint.analysis.targets import task_like_target
from joblint.analysis.values import value_of
from joblint.knowledge import jobs, payloads
from joblint.requirements import (
    FlagOff,
    IsQueue,
    IsTask,
    MayBeLibraryObject,
    ReachesLibrary,
    Requirement,
)

# --- task definitions ------------------------------------------------------------


def decorator_task_library(decorator: cst.Decorator, resolver: Resolver) -> tuple[str, str] | None:
    """(library, receiver qualname) when the decorator registers a task.

    The library is "" when the decorator is `@<obj>.task` and `<obj>` isn't
    resolvable here; the receiver qualname then lets the project step look it up.
    """
    expr = decorator.decorator
    if isinstance(expr, cst.Call):
        expr = expr.func
    return task_decorator_library(expr, resolver)


def task_decorator_library(expr: cst.BaseExpression, resolver: Resolver) -> tuple[str, str] | None:
    """`decorator_task_library` for the decorator's callable (`shared_task`,
    `app.task`) wherever it is written."""
    qualname = resolver.qualified_name(expr)
    if qualname is not None and qualname in jobs.TASK_DECORATORS:
        return jobs.TASK_DECORATORS[qualname], ""
    if isinstance(expr, cst.Attribute) and expr.attr.value in jobs.TASK_DECORATOR_METHODS:
        value = value_of(expr.value, resolver)
        if value is not None and value.kind == "queue":
            return value.library, ""
        receiver = resolver.qualified_name(expr.value)
        if receiver in jobs.QUEUE_OBJECTS:  # `@HUEY.task()` on the library's own object
            return jobs.QUEUE_OBJECTS[receiver], ""
        return "", receiver or ""
    return None


def definition_binding(
    node: cst.FunctionDef | cst.ClassDef, resolver: Resolver
) -> tuple[Binding, str]:
    """The binding a def creates, and the decorator receiver to resolve later."""
    qualname = resolver.local_qualname(node.name.value)
    receiver = ""
    library: str | None = None
    for decorator in node.decorators:
        found = decorator_task_library(decorator, resolver)
        if found is not None:
            library, receiver = found
            break
    if library is None and isinstance(node, cst.ClassDef) and _subclasses_task(node):
        library = "celery"
    project, called = ("", False) if library is not None else _project_decorator(node, resolver)
    binding = Binding(
        BindingKind.DEF,
        qualname,
        task_library=library,
        decorated=bool(node.decorators),
        task_decorator=project,
        task_decorator_called=called,
    )
    return binding, receiver


def _project_decorator(
    node: cst.FunctionDef | cst.ClassDef, resolver: Resolver
) -> tuple[str, bool]:
    """The project name decorating a function that may be a task decorator
    the project builds (`retrying_task = shared_task(...)`), and whether it
    is called: the project model tells whether it is one."""
    if not isinstance(node, cst.FunctionDef):
        return "", False
    for decorator in node.decorators:
        expr = decorator.decorator
        called = isinstance(expr, cst.Call)
        qualname = resolver.qualified_name(expr.func if isinstance(expr, cst.Call) else expr)
        if qualname is not None and jobs.may_be_project_code(qualname):
            return qualname, called
    return "", False


def _subclasses_task(node: cst.ClassDef) -> bool:
    for base in node.bases:
        text = dotted_text(base.value)
        if text is not None and text.split(".")[-1] in jobs.TASK_BASE_CLASS_NAMES:
            return True
    return False


# --- enqueue calls -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Enqueue:
    """An enqueue call, with what must hold project-wide for it to be one."""

    subject: str  # "Celery task 'send_receipt'"
    verb: str  # "is enqueued"
    library: str
    requires: tuple[Requirement, ...] = ()
    # "send_receipt.delay_on_commit(...)" where the library offers it.
    on_commit_variant: str = ""
    # The call's shape for payload rules: "delay", "apply_async", "__call__" (a
    # task called directly), "async_task", ... (keys of knowledge.payloads.PAYLOAD_SHAPES).
    method: str = ""
    # The task's qualified name when the receiver names one ("" otherwise).
    task: str = ""
    # The task a signature sent here signs (`send.si(pk).delay()`): sending
    # it calls that task's own `apply_async` ("" otherwise).
    signed: str = ""
    # The task whose body the job runs: the task enqueued, the one a
    # signature signs, or the one a `task.chunks(...)` runs per item.
    runs: str = ""
    # The same enqueue as each library it may turn out to be, most specific first
    # (each with its own subject and requirements), when only the project step
    # can tell which: a rule reports each, and the first that holds stands. Empty:
    # this one is the only reading.
    variants: tuple[Enqueue, ...] = ()

    def alternatives(self) -> tuple[Enqueue, ...]:
        """The readings to report, most specific first."""
        return self.variants or (self,)


_subject = jobs.job_subject
_verb = jobs.job_verb


def classify_enqueue(
    call: cst.Call,
    resolver: Resolver,
    extra_functions: frozenset[str],
    call_enqueues: frozenset[str] | None = None,
    own_methods: frozenset[str] = frozenset(),
) -> Enqueue | None:
    """`call_enqueues`: the names of the project's tasks whose call enqueues
    them, when known (a run over the project); None: any imported function.
    `own_methods`: the methods the class around the call defines (`self.x()`
    calls the project's own method, never a library's)."""
    func = call.func
    qualname = resolver.qualified_name(func)
    if qualname is not None:
        found = _enqueue_function(qualname, call, extra_functions)
        if found is not None:
            return replace(found, method=qualname.rsplit(".", 1)[-1])
    if isinstance(func, cst.Attribute):
        if _own_method(func, own_methods) or _project_class(func.value, resolver):
            return None
        found = _enqueue_method(call, func, resolver)
        if found is not None:
            target = task_like_target(func.value, resolver)
            task = target.qualname if target is not None else ""
            signed = _signed_task(func.value, resolver)
            runs = task or signed or _item_task(func.value, resolver)
            found = replace(found, signed=signed)
            return _with_method(found, func.attr.value, task, runs)
    if isinstance(func, cst.Call):
        return _canvas_call(func, resolver)
    found = _task_call(func, resolver, call_enqueues)
    if found is None:
        return None
    target = task_like_target(func, resolver)
    task = target.qualname if target else ""
    return replace(found, method="__call__", task=task, runs=task)


def _signed_task(receiver: cst.BaseExpression, resolver: Resolver) -> str:
    """The task `receiver` signs when it is `task.s(...)`, `task.si(...)` or
    `task.signature(...)`, or a group of such signatures of one task
    (`group([task.si(pk) for pk in pks])`); "" otherwise."""
    if not isinstance(receiver, cst.Call):
        return ""
    if resolver.qualified_name(receiver.func) in jobs.MEMBER_SENDING_CANVASES:
        return _members_task(receiver, resolver)
    if not isinstance(receiver.func, cst.Attribute):
        return ""
    if receiver.func.attr.value not in jobs.OWN_SIGNATURE_METHODS:
        return ""
    target = task_like_target(receiver.func.value, resolver)
    return target.qualname if target is not None else ""


def _item_task(receiver: cst.BaseExpression, resolver: Resolver) -> str:
    """The task `receiver` runs once per item when it is `task.chunks(...)`."""
    if not isinstance(receiver, cst.Call) or not isinstance(receiver.func, cst.Attribute):
        return ""
    if receiver.func.attr.value not in jobs.ITEM_SIGNATURE_METHODS:
        return ""
    target = task_like_target(receiver.func.value, resolver)
    return target.qualname if target is not None else ""


def _members_task(canvas: cst.Call, resolver: Resolver) -> str:
    """The one task every member signature of `canvas` signs ("" when they
    differ, or a member isn't written out)."""
    members: list[cst.BaseExpression] = [arg.value for arg in canvas.args]
    if len(canvas.args) == 1:
        only = canvas.args[0].value
        if isinstance(only, cst.List | cst.Tuple):
            if any(isinstance(e, cst.StarredElement) for e in only.elements):
                return ""
            members = [element.value for element in only.elements]
        elif isinstance(only, cst.ListComp | cst.GeneratorExp):
            members = [only.elt]
    if not members or any(arg.star or arg.keyword for arg in canvas.args):
        return ""
    tasks = {_signed_task(member, resolver) for member in members}
    return tasks.pop() if len(tasks) == 1 else ""


def _with_method(found: Enqueue, method: str, task: str, runs: str) -> Enqueue:
    variants = tuple(replace(v, method=method, task=task, runs=runs) for v in found.variants)
    return replace(found, method=method, task=task, runs=runs, variants=variants)


def _own_method(func: cst.Attribute, own_methods: frozenset[str]) -> bool:
    """`self.enqueue_job(...)` where the class around it defines `enqueue_job`."""
    receiver = func.value
    return (
        isinstance(receiver, cst.Name)
        and receiver.value in {"self", "cls"}
        and func.attr.value in own_methods
    )


def _project_class(receiver: cst.BaseExpression, resolver: Resolver) -> bool:
    """A class defined in this module that is no task: its methods are the project's."""
    parts = dotted_parts(receiver)
    if parts is None or len(parts) != 1:
        return False
    binding = resolver.lookup(parts[0])
    return (
        binding is not None
        and binding.kind is BindingKind.DEF
        and isinstance(binding.node, cst.ClassDef)
        and binding.task_library is None
    )


def _reaching_library(shape: jobs.EnqueueMethod, resolver: Resolver) -> str | None:
    """The first of the shape's libraries this module imports, if any."""
    for library in shape.libraries:
        if resolver.imports_any(jobs.LIBRARY_MODULES.get(library, (library,))):
            return library
    return None


def _enqueue_function(
    qualname: str, call: cst.Call, extra_functions: frozenset[str]
) -> Enqueue | None:
    if qualname in extra_functions:
        return Enqueue(f"'{qualname.split('.')[-1]}'", "enqueues a job", "user")
    library = jobs.ENQUEUE_FUNCTIONS.get(qualname)
    if library is None:
        return None
    requires: tuple[Requirement, ...] = ()
    flag = jobs.TRANSACTIONAL_WHEN_FLAG.get(library)
    if flag is not None:
        requires = (FlagOff(flag),)
    return Enqueue(_subject(library, _job_name(call)), _verb(library), library, requires)


def _names_jobs(library: str) -> bool:
    """Whether a queue call's first argument names the job (RQ's function),
    not the message itself (an SQS body)."""
    lib = jobs.LIBRARIES.get(library)
    return lib is None or lib.names_jobs


def _job_name(call: cst.Call) -> str:
    """The job a queue-style call enqueues: its first positional argument, or
    the last of those its payload shape skips (`enqueue_at(when, func, ...)`)."""
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    position = max(_skipped_positionals(call) - 1, 0)
    if len(positional) <= position:
        return ""
    value = positional[position]
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in jobs.MESSAGE_METHODS
    ):
        value = value.func.value  # `huey.enqueue(send.s(...))` enqueues `send`
    if isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
        return value.evaluated_value.rsplit(".", 1)[-1]
    text = dotted_text(value)
    return text.split(".")[-1] if text else ""


def _skipped_positionals(call: cst.Call) -> int:
    if not isinstance(call.func, cst.Attribute):
        return 0
    shape = payloads.PAYLOAD_SHAPES.get(call.func.attr.value)
    return shape.skip_positional if shape is not None else 0


def _enqueue_method(call: cst.Call, func: cst.Attribute, resolver: Resolver) -> Enqueue | None:
    """The first library's reading of the call; where that is a queue object
    defined in another module (`jobs.enqueue(...)` on an imported name: RQ's
    queue, or a Django task), the later libraries' readings too, as variants
    only the project step can tell apart."""
    method = func.attr.value
    readings: list[Enqueue] = []
    for shape in jobs.ENQUEUE_METHODS.get(method, ()):
        found = _match_receiver(call, func, shape, resolver)
        if found is None:
            continue
        found = replace(found, method=shape.payload_shape or method)
        if not readings and not _imported_queue(found):
            return found
        readings.extend(found.alternatives())
    if len(readings) > 1:
        return replace(readings[0], variants=tuple(readings))
    return readings[0] if readings else None


def _imported_queue(found: Enqueue) -> bool:
    return not found.variants and any(isinstance(r, IsQueue) for r in found.requires)


def _match_receiver(
    call: cst.Call, func: cst.Attribute, shape: jobs.EnqueueMethod, resolver: Resolver
) -> Enqueue | None:
    method = func.attr.value
    receiver = func.value
    primary = shape.libraries[0]
    if shape.receiver is jobs.Receiver.ANY:
        return _any_receiver_enqueue(call, receiver, shape, resolver)
    if shape.receiver is jobs.Receiver.QUEUE:
        imported = resolver.qualified_name(receiver)
        if value_of(receiver, resolver) is None and imported is not None:
            # A queue object defined in another module: the project index knows.
            requires = (IsQueue(imported, frozenset(shape.libraries)),)
            name = _job_name(call) if _names_jobs(primary) else ""
            return Enqueue(_subject(primary, name), _verb(primary), primary, requires)
        value = value_of(receiver, resolver)
        if value is None or value.kind != "queue" or value.library not in shape.libraries:
            return None
        name = _job_name(call) if _names_jobs(value.library) else ""
        return Enqueue(_subject(value.library, name), _verb(value.library), value.library)
    if shape.receiver is jobs.Receiver.TASK_LIKE:
        return _task_like_enqueue(call, method, receiver, shape, resolver)
    return _task_enqueue(receiver, shape.libraries, resolver)


def _any_receiver_enqueue(
    call: cst.Call, receiver: cst.BaseExpression, shape: jobs.EnqueueMethod, resolver: Resolver
) -> Enqueue | None:
    """A distinctive method name (`send_task`, `enqueue_job`): the library's
    wherever the receiver is that library's object, or the library is in reach."""
    name = _job_name(call)
    value = value_of(receiver, resolver)
    if value is not None:
        if value.kind != "queue" or value.library not in shape.libraries:
            return None  # another library's object, or something else altogether
        return Enqueue(_subject(value.library, name), _verb(value.library), value.library)
    parts = dotted_parts(unwrap(receiver))
    binding = resolver.lookup(parts[0]) if parts else None
    if binding is not None and binding.kind is BindingKind.DEF:
        return None  # the project's own function or class
    imported = resolver.qualified_name(receiver) if binding is not None else None
    if imported is not None and binding is not None and binding.kind is BindingKind.IMPORT:
        if in_standard_library(imported):
            return None
        return _resolved_later(call, shape, resolver, imported, queue=True)
    local = _reaching_library(shape, resolver)
    if local is not None:
        return Enqueue(_subject(local, name), _verb(local), local)
    if not shape.reach:
        primary = shape.libraries[0]
        return Enqueue(_subject(primary, name), _verb(primary), primary)
    return _reached_later(call, shape, resolver)


def _reached_later(call: cst.Call, shape: jobs.EnqueueMethod, resolver: Resolver) -> Enqueue:
    """The library isn't imported here: perhaps by a project module this one imports."""
    name = _job_name(call)
    variants = tuple(
        Enqueue(
            _subject(library, name),
            _verb(library),
            library,
            (ReachesLibrary(resolver.module, _modules(library)),),
        )
        for library in shape.libraries
    )
    requires = (ReachesLibrary(resolver.module, shape.reach),)
    return Enqueue(_subject("", name), "is enqueued", "", requires, variants=variants)


def _resolved_later(
    call: cst.Call,
    shape: jobs.EnqueueMethod,
    resolver: Resolver,
    qualname: str,
    *,
    queue: bool,
    display: str = "",
    on_commit: tuple[str, cst.BaseExpression] | None = None,
) -> Enqueue:
    """An enqueue on an object defined elsewhere: which library's, if any, is for
    the project step to say; the message names it only when it does."""
    name = display or _job_name(call)
    libraries = frozenset(shape.libraries)
    base = MayBeLibraryObject(qualname, libraries, resolver.module, shape.reach, queue)
    kind: type[IsQueue | IsTask] = IsQueue if queue else IsTask
    named = tuple(
        Enqueue(
            _subject(library, name),
            _verb(library),
            library,
            (base, kind(qualname, frozenset({library}))),
            _on_commit_variant(*on_commit, library) if on_commit is not None else "",
        )
        for library in shape.libraries
    )
    neutral = Enqueue(_subject("", name), "is enqueued", "", (base,))
    return replace(neutral, variants=(*named, neutral))


def _modules(library: str) -> tuple[str, ...]:
    return jobs.LIBRARY_MODULES.get(library, (library,))


def _on_commit_variant(method: str, receiver: cst.BaseExpression, library: str) -> str:
    """`task.delay_on_commit(...)`, where the library has such a twin."""
    variant = jobs.ON_COMMIT_VARIANTS.get(library, {}).get(method)
    text = dotted_text(receiver)
    return f"{text}.{variant}(...)" if variant and text else ""


def _task_like_enqueue(
    call: cst.Call,
    method: str,
    receiver: cst.BaseExpression,
    shape: jobs.EnqueueMethod,
    resolver: Resolver,
) -> Enqueue | None:
    value = value_of(receiver, resolver)
    if value is not None:
        if value.kind != "signature":
            return None
        library = value.library
        facts = jobs.LIBRARIES[library]
        return Enqueue(f"a {facts.display} {facts.signature_noun}", "is enqueued", library)
    target = task_like_target(receiver, resolver)
    if target is None:
        return None
    if not target.library:  # defined elsewhere, or by a decorator this file can't resolve
        return _resolved_later(
            call,
            shape,
            resolver,
            target.qualname,
            queue=False,
            display=target.display,
            on_commit=(method, receiver),
        )
    if target.library not in shape.libraries:
        return None
    library = target.library
    return Enqueue(
        _subject(library, target.display),
        "is enqueued",
        library,
        (),
        _on_commit_variant(method, receiver, library),
    )


def _task_enqueue(
    receiver: cst.BaseExpression, libraries: tuple[str, ...], resolver: Resolver
) -> Enqueue | None:
    while (
        isinstance(receiver, cst.Call)
        and isinstance(receiver.func, cst.Attribute)
        and receiver.func.attr.value in jobs.TASK_COPY_METHODS
    ):
        receiver = receiver.func.value  # `task.using(priority=1).enqueue(...)` sends `task`
    target = task_like_target(receiver, resolver)
    if target is None:
        return None
    if target.library:
        if target.library not in libraries:
            return None
        return Enqueue(_subject(target.library, target.display), "is enqueued", target.library)
    requires = (IsTask(target.qualname, frozenset(libraries)),)
    library = libraries[0] if len(libraries) == 1 else ""
    return Enqueue(_subject(library, target.display), "is enqueued", library, requires)


def _canvas_call(inner: cst.Call, resolver: Resolver) -> Enqueue | None:
    """`chain(...)()`, `group(...)()`, `chord(h)(b)`, `task.chunks(...)()`."""
    qualname = resolver.qualified_name(inner.func)
    if qualname is not None and qualname in jobs.CANVAS_CALLABLES:
        kind = qualname.rsplit(".", 1)[-1]
        library = jobs.CANVAS_CALLABLES[qualname]
        return Enqueue(f"a {jobs.LIBRARIES[library].display} {kind}", "is enqueued", library)
    func = inner.func
    if isinstance(func, cst.Attribute) and func.attr.value in _CHUNKS:
        target = task_like_target(func.value, resolver)
        if target is not None:
            library = _CHUNKS[func.attr.value]
            requires = () if target.library else (maybe_task(target.qualname, resolver),)
            display = jobs.LIBRARIES[library].display
            return Enqueue(
                f"{display} chunks of '{target.display}'", "are enqueued", library, requires
            )
    return None


# `task.chunks(...)` builds a signature that enqueues when called.
_CHUNKS = {m: lib for m, lib in jobs.SIGNATURE_METHODS.items() if m == "chunks"}


def maybe_task(qualname: str, resolver: Resolver) -> Requirement:
    """`qualname`, defined elsewhere, may be a task: no plain function or
    project object (Celery's distinctive methods need no more)."""
    return MayBeLibraryObject(qualname, module=resolver.module)


def _task_call(
    func: cst.BaseExpression, resolver: Resolver, call_enqueues: frozenset[str] | None
) -> Enqueue | None:
    """Calling a task function: an enqueue only for libraries that enqueue on call."""
    if isinstance(func, cst.Attribute) and func.attr.value in jobs.SIGNATURE_METHODS:
        return None  # `task.s(...)` builds a signature; it enqueues nothing
    target = task_like_target(func, resolver)
    if target is None or (target.library is None and in_standard_library(target.qualname)):
        return None
    name = target.qualname.rsplit(".", 1)[-1]
    if target.library is None and call_enqueues is not None and name not in call_enqueues:
        return None  # no task of the project by that name enqueues on call
    libraries = jobs.ENQUEUE_ON_CALL_LIBRARIES
    if target.library:
        if target.library not in libraries:
            return None
        return Enqueue(_subject(target.library, target.display), "is enqueued", target.library)
    requires = (IsTask(target.qualname, libraries),)
    (library,) = tuple(libraries) if len(libraries) == 1 else ("",)
    return Enqueue(_subject(library, target.display), "is enqueued", library, requires)

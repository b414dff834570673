from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import dotted_text
from joblint.analysis.payloads import payload_arguments
from joblint.analysis.row_writes import carried_instances, written_instance
from joblint.analysis.tasks import Enqueue
from joblint.knowledge import payloads
from joblint.knowledge.jobs import DELAY_OPTIONS, DELAYED_METHODS, ROW_WRITE_METHODS
from joblint.knowledge.payloads import PayloadShape
from joblint.knowledge.tokens import enqueue_and
from joblint.rule import LineOf, Rule, Valid, invalid

# A block of code, and the blocks it sits in: two places are on one path when
# one's blocks are a prefix of the other's (not two arms of an `if`).
Blocks = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Enqueue:
    order: int
    blocks: Blocks
    node: cst.Call
    enqueue: Enqueue
    statement: cst.CSTNode | None


@dataclass(frozen=True, slots=True)
class _Write:
    order: int
    blocks: Blocks
    node: cst.Call
    instance: str


@dataclass(slots=True)
class _FunctionState:
    enqueues: list[_Enqueue] = field(default_factory=list)
    writes: list[_Write] = field(default_factory=list)
    exits: list[tuple[int, Blocks]] = field(default_factory=list)


class EnqueueBeforeWrite(Rule):
    """
    ## What it does
    Finds a job enqueued with an object (or its `pk`/`id`) before the same
    function writes that object's row: `order.save()`, `order.delete()`, or a
    queryset write pinned to it (`Order.objects.filter(pk=order.pk).update(...)`),
    later on the same path.

    ## Why is this bad?
    The worker can pick the job up at once, before the write: it reads the
    row as it was (the old state, or no row at all), or its own update is
    overwritten by the `save()` that follows. Outside a transaction nothing
    orders the two; inside one it is JL101's finding (the enqueue is reported
    once, as JL101).

    ## Example
    ```python
    def publish(article):
        notify_subscribers.delay(article.pk)
        article.status = "published"
        article.save()
    ```

    ## Use instead
    ```python
    def publish(article):
        article.status = "published"
        article.save()
        transaction.on_commit(lambda: notify_subscribers.delay(article.pk))
    ```
    Write first, then enqueue (after the commit, where a transaction is open).

    ## Fix safety
    No automatic fix: moving the enqueue past the write changes what runs
    when the write fails, which only the author can judge.

    ## Known limits
    - One function is looked at: a write in the caller, or in a method of the
      project that saves (`order.mark_paid()`), is not seen.
    - Objects are compared by their text (`order`, `self.object`); a name bound
      again between the enqueue and the write is taken for the same object.
    - A task defined in the same module that never reads the parameter the
      object is passed as does not depend on the row: no finding. A task
      defined elsewhere is assumed to read it.
    - An enqueue that holds the job back (`countdown=`, `eta=`, Dramatiq's and
      Huey's `delay=`, RQ's `enqueue_in`/`enqueue_at`, arq's `_defer_by`) is
      taken as scheduled past the write: no finding.
    - A write in another arm of an `if`/`try` than the enqueue is on another
      path: no finding; so is one after a `return`/`raise` in the enqueue's
      own block.
    """

    CODE = "JL106"
    PREVIEW = True
    YIELDS_TO = ("JL101",)
    TRIGGERS = enqueue_and(
        tuple(f".{method}(" for method in sorted({*ROW_WRITE_METHODS, "update", "aupdate"})),
        r"\.(?:a?save|a?delete|a?update)\(",
    )
    SUMMARY = "Job enqueued before the row it reads is written: a worker may read it first"
    HELP = "Write first, then enqueue (after the commit)"

    VALID = (
        Valid(
            """
from .tasks import notify_subscribers

def publish(article):
    article.status = "published"
    article.save()
    notify_subscribers.delay(article.pk)
""",
            id="write-then-enqueue",
        ),
        Valid(
            """
from .tasks import notify_subscribers

def publish(article, counter):
    notify_subscribers.delay(article.pk)
    counter.value += 1
    counter.save()
""",
            id="a-write-of-another-object",
        ),
    )
    INVALID = (
        invalid(
            """
from .tasks import notify_subscribers

def publish(article):
    notify_subscribers.delay(article.pk)
    article.status = "published"
    article.save()
""",
            (
                5,
                5,
                "task 'notify_subscribers' is enqueued with article before article.save() "
                "(line 7) writes its row",
            ),
            id="enqueue-then-save",
        ),
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._states: list[_FunctionState] = [_FunctionState()]
        # Checked at the end of the module, when every task it defines is known.
        self._done: list[_FunctionState] = []
        self._functions: dict[str, cst.FunctionDef] = {}
        self._blocks: list[int] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if len(self._states) == 1:
            self._functions[node.name.value] = node
        self._states.append(_FunctionState())

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        state = self._states.pop()
        if state.enqueues and state.writes:
            self._done.append(state)

    def leave_Module(self, node: cst.Module) -> None:
        for state in (*self._done, self._states[-1]):
            self._check(state)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.append(id(node))

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.pop()

    def visit_Return(self, node: cst.Return) -> None:
        self._states[-1].exits.append((self.context.order, tuple(self._blocks)))

    def visit_Raise(self, node: cst.Raise) -> None:
        self._states[-1].exits.append((self.context.order, tuple(self._blocks)))

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if context.in_on_commit_callback:
            return
        state = self._states[-1]
        instance = written_instance(node)
        if instance is not None:
            state.writes.append(_Write(context.order, tuple(self._blocks), node, instance))
            return
        transaction = context.transaction
        if transaction is not None and not transaction.requires:
            return  # JL101's; where the project must say whether it is one, JL106 yields to it
        enqueue = context.enqueue(node)
        if enqueue is None or _held_back(node):
            return
        state.enqueues.append(
            _Enqueue(context.order, tuple(self._blocks), node, enqueue, context.statement)
        )

    def _carried(self, node: cst.Call, enqueue: Enqueue) -> frozenset[str]:
        shape = payloads.PAYLOAD_SHAPES.get(enqueue.method)
        if shape is None:
            return frozenset()
        unread = self._unread_arguments(node, enqueue) if _one_to_one(shape) else set()
        arguments = (a for a in payload_arguments(node, shape) if id(a) not in unread)
        return carried_instances(arguments)

    def _unread_arguments(self, node: cst.Call, enqueue: Enqueue) -> set[int]:
        """The arguments of a call passing them straight to the task's
        parameters (`_one_to_one`) whose parameter the task, defined in this
        module, never reads."""
        task = self._task_function(enqueue)
        if task is None:
            return set()
        params = [p.name.value for p in (*task.params.posonly_params, *task.params.params)]
        if isinstance(task.params.star_arg, cst.Param) or task.params.star_kwarg is not None:
            return set()  # `*args`/`**kwargs` may read anything
        read = self.context.memo("names-read", task, lambda: _names_read(task))
        unread: set[int] = set()
        positional = [a for a in node.args if a.keyword is None and not a.star]
        offset = 1 if params[:1] == ["self"] else 0
        for index, arg in enumerate(positional):
            name = params[index + offset] if index + offset < len(params) else None
            if name is not None and name not in read:
                unread.add(id(arg.value))
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value not in read:
                unread.add(id(arg.value))
        return unread

    def _task_function(self, enqueue: Enqueue) -> cst.FunctionDef | None:
        runs = enqueue.runs or enqueue.task
        module, _, name = runs.rpartition(".")
        if not runs or module != self.context.resolver.module:
            return None
        return self._functions.get(name)

    def _check(self, state: _FunctionState) -> None:
        for pending in state.enqueues:
            instances = self._carried(pending.node, pending.enqueue)
            write = _first_write_after(pending, instances, state) if instances else None
            if write is not None:
                self._report(pending, write)

    def _report(self, pending: _Enqueue, write: _Write) -> None:
        for reading in pending.enqueue.alternatives():
            self._report_reading(pending, reading, write)

    def _report_reading(self, pending: _Enqueue, enqueue: Enqueue, write: _Write) -> None:
        target = _write_text(write.node)
        instance = write.instance

        def message(line_of: LineOf) -> str:
            return (
                f"{enqueue.subject} {enqueue.verb} with {instance} before {target} "
                f"(line {line_of(write.node)}) writes its row: a worker may read the row "
                "before the write. Write first, then enqueue (after the commit)"
            )

        self.report(
            pending.node,
            message,
            requires=enqueue.requires,
            statement=pending.statement,
            related=((write.node, f"{instance}'s row is written here"),),
        )


def _first_write_after(
    pending: _Enqueue, instances: frozenset[str], state: _FunctionState
) -> _Write | None:
    for write in state.writes:
        if write.order <= pending.order or write.instance not in instances:
            continue
        if not _one_path(pending.blocks, write.blocks):
            continue
        if _exits_between(pending, write.order, state):
            return None
        return write
    return None


def _one_to_one(shape: PayloadShape) -> bool:
    """The call's arguments are the task's, in order (`task.delay(a, b=c)`),
    not after a function or inside an `args=` list (`enqueue(f, a)`, `apply_async((a,))`)."""
    return (
        shape.skip_positional == 0
        and shape.rest_is_payload
        and shape.args_position < 0
        and shape.kwargs_position < 0
    )


def _held_back(call: cst.Call) -> bool:
    """`apply_async(..., countdown=60)`, `queue.enqueue_in(...)`: no worker
    picks the job up at once (a delay given as `None` or `0` holds nothing)."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in DELAYED_METHODS:
        return True
    return any(
        arg.keyword is not None
        and arg.keyword.value in DELAY_OPTIONS
        and not (isinstance(arg.value, cst.Name) and arg.value.value == "None")
        and not (isinstance(arg.value, cst.Integer) and arg.value.evaluated_value == 0)
        for arg in call.args
    )


def _write_text(call: cst.Call) -> str:
    """`order.save()`; `Order.objects.filter(...).update()` for a queryset write."""
    func = call.func
    text = dotted_text(func)
    if text:
        return f"{text}()"
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
        query = dotted_text(func.value.func)
        return f"{query}(...).{func.attr.value}()" if query else f"{func.attr.value}()"
    return "the write"


def _one_path(first: Blocks, second: Blocks) -> bool:
    shorter = min(len(first), len(second))
    return first[:shorter] == second[:shorter]


def _exits_between(pending: _Enqueue, order: int, state: _FunctionState) -> bool:
    return any(
        pending.order < exit_order < order and blocks == pending.blocks
        for exit_order, blocks in state.exits
    )


def _names_read(function: cst.FunctionDef) -> set[str]:
    names: set[str] = set()

    class _Reads(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    function.body.visit(_Reads())
    return names

"""JL106 enqueue-before-write.

Job enqueued before the row it reads is written: a worker may read it first.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL106` show) and its teaching examples."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.names import BindingKind, dotted_text, unwrap
from joblint.analysis.payload_arguments import payload_arguments, task_places
from joblint.analysis.row_writes import (
    carried_instances,
    instance_of,
    loads_a_row,
    written_instance,
)
from joblint.analysis.tasks import Enqueue
from joblint.knowledge import jobs, payloads
from joblint.knowledge.jobs import (
    DELAY_OPTIONS,
    DELAYED_METHODS,
    PINNED_WRITE_METHODS,
    ROW_WRITE_METHODS,
)
from joblint.knowledge.payloads import PayloadShape
from joblint.models import ANY_FIELD, WHOLE_ROW
from joblint.requirements import Requirement, RowDepends
from joblint.rule import LineOf, Rule, Valid, invalid
from joblint.rules.transactions._tokens import enqueue_and

# How many local names a payload value is followed through (`kwargs=options`,
# `options = {"order_id": order_id}`, `order_id = order.pk`).
_MAX_ALIASES = 3

# The examples' task: it writes one field of the row it loads.
_COUNT_WORDS = """
from celery import shared_task

from .models import Article


@shared_task
def count_words(article_id):
    article = Article.objects.get(pk=article_id)
    article.words = len(article.body.split())
    article.save(update_fields=["words"])

"""

# A block of code, and the blocks it sits in, each with the compound statement
# it is an arm of (`if`/`elif`/`else` arms share one): two places are on one
# path unless, where their blocks first differ, those are two arms of one
# statement (one place after the other's statement ends is on its path).
Blocks = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class _Enqueue:
    order: int
    blocks: Blocks
    node: cst.Call
    enqueue: Enqueue
    statement: cst.CSTNode | None
    # What the payload's local names stand for, read where the enqueue is
    # (its function's names): id(argument) -> the values.
    built_earlier: dict[int, tuple[cst.BaseExpression, ...]]


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
    # What a whole-row save writes: the fields set on an instance
    # (`order.state = ...`), instances handed to a call (which may set any),
    # and names bound to something other than a row loaded from the database
    # (a new instance: every field is new). Each with its place in the order.
    fields_set: list[tuple[int, str, str]] = field(default_factory=list)
    handed: list[tuple[int, str]] = field(default_factory=list)
    bound_new: list[tuple[int, str]] = field(default_factory=list)
    # Values put in a local dict so far (`options.update({...})`, `options[k] = v`).
    dict_items: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)


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

    ## When the job doesn't depend on the write
    Where the task is the project's and loads the row itself by the key it
    is handed (`Order.objects.get(pk=order_id)`), what it does with the row
    decides: a finding where it reads a field the write sets, writes a field
    the write saves again (a whole-row `save()` puts the old value back), or
    saves the whole row itself; none where the fields are apart
    (`save(update_fields=["note"])` against a job that only reads `total`).
    A field every save sets itself (`auto_now=True`) is no conflict. The
    fields a whole-row save sets are those the function assigns on the
    instance; one it handed to a call may have any set, and a row it did
    not load (`Order.objects.create(...)`, `Order(...)`) is new to the job.

    ## Known limits
    - One function is looked at: a write in the caller, or in a method of the
      project that saves (`order.mark_paid()`), is not seen.
    - Objects are compared by their text (`order`, `self.object`); a name bound
      again between the enqueue and the write is taken for the same object.
    - A task defined in the same module that never reads the parameter the
      object is passed as does not depend on the row: no finding. A task
      that hands the row (or only its key) on to other code, or one outside
      the project, is assumed to depend on every field.
    - An enqueue that holds the job back (`countdown=`, `eta=`, Dramatiq's and
      Huey's `delay=`, RQ's `enqueue_in`/`enqueue_at`, arq's `_defer_by`) is
      taken as scheduled past the write: no finding.
    - A write in another arm of an `if`/`try` than the enqueue is on another
      path: no finding; so is one after a `return`/`raise` in the enqueue's
      own block or a block around it.
    - A task picked at run time from a dict of tasks bound once
      (`BUILDERS[kind].delay(...)`, `BUILDERS = {"csv": build_csv, ...}`) is
      read as any of them: the finding stands whatever each task does with
      the row. A payload dict is followed through the items put in it
      before the enqueue (`options.update({"order_id": order.pk})`).
    """

    CODE = "JL106"
    YIELDS_TO = ("JL101",)
    # The AST check: an enqueue and, after it in the same function, a write.
    TRIGGERS = tuple(
        trigger if trigger.gated else replace(trigger, confirm="enqueue-then-write")
        for trigger in enqueue_and(
            tuple(f".{method}(" for method in sorted({*ROW_WRITE_METHODS, *PINNED_WRITE_METHODS})),
            r"\.(?:a?save|a?delete|a?update)\(",
        )
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
        Valid(
            _COUNT_WORDS
            + """
def feature(article):
    count_words.delay(article.pk)
    article.featured = True
    article.save(update_fields=["featured"])
""",
            id="the-job-and-the-write-set-other-fields",
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
        invalid(
            _COUNT_WORDS
            + """
def feature(article):
    count_words.delay(article.pk)
    article.featured = True
    article.save()
""",
            (
                15,
                5,
                "task 'count_words' is enqueued with article before article.save() "
                "(line 17) writes its row",
            ),
            id="a-whole-row-save-puts-back-what-the-job-wrote",
        ),
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._states: list[_FunctionState] = [_FunctionState()]
        # Checked at the end of the module, when every task it defines is known.
        self._done: list[_FunctionState] = []
        self._functions: dict[str, cst.FunctionDef] = {}
        self._blocks: list[tuple[int, int]] = []
        # The compound statements being read, innermost last, each with the
        # id its arms share.
        self._owners: list[tuple[cst.CSTNode, int]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if len(self._states) == 1:
            self._functions[node.name.value] = node
        self._states.append(_FunctionState())
        self._enter(node)

    def _enter(self, node: cst.CSTNode) -> None:
        outer = self._owners[-1] if self._owners else None
        if outer is not None and isinstance(outer[0], cst.If) and outer[0].orelse is node:
            self._owners.append((node, outer[1]))  # an `elif`: an arm of the same `if`
        else:
            self._owners.append((node, id(node)))

    def _leave(self, node: cst.CSTNode) -> None:
        self._owners.pop()

    visit_If = visit_Try = visit_TryStar = visit_For = visit_While = _enter
    visit_With = visit_Match = _enter
    leave_If = leave_Try = leave_TryStar = leave_For = leave_While = _leave
    leave_With = leave_Match = _leave

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._owners.pop()
        state = self._states.pop()
        if state.enqueues and state.writes:
            self._done.append(state)

    def leave_Module(self, node: cst.Module) -> None:
        for state in (*self._done, self._states[-1]):
            self._check(state)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        owner = self._owners[-1][1] if self._owners else 0
        self._blocks.append((owner, id(node)))

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.pop()

    def visit_Return(self, node: cst.Return) -> None:
        self._states[-1].exits.append((self.context.order, tuple(self._blocks)))

    def visit_Raise(self, node: cst.Raise) -> None:
        self._states[-1].exits.append((self.context.order, tuple(self._blocks)))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._note_target(target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._note_target(node.target, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._note_target(node.target, node.value)

    def _note_target(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        state, order = self._states[-1], self.context.order
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and value:
            state.dict_items.setdefault(target.value.value, []).append(value)
        if isinstance(target, cst.Attribute):
            owner = dotted_text(target.value)
            if owner:
                state.fields_set.append((order, owner, target.attr.value))
        elif isinstance(target, cst.Name) and value is not None and not loads_a_row(value):
            state.bound_new.append((order, target.value))

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if context.in_on_commit_callback:
            return
        state = self._states[-1]
        for arg in node.args:
            text = dotted_text(unwrap(arg.value))
            if text:
                state.handed.append((context.order, text))
        _note_dict_update(node, state)
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
        shape = payloads.PAYLOAD_SHAPES.get(enqueue.method)
        names = [a for a in payload_arguments(node, shape)] if shape is not None else []
        built = {id(a): tuple(self._built_earlier(a)) for a in names if isinstance(a, cst.Name)}
        state.enqueues.append(
            _Enqueue(context.order, tuple(self._blocks), node, enqueue, context.statement, built)
        )

    def _carried(self, pending: _Enqueue) -> frozenset[str]:
        node, enqueue = pending.node, pending.enqueue
        shape = payloads.PAYLOAD_SHAPES.get(enqueue.method)
        if shape is None:
            return frozenset()
        unread = self._unread_arguments(node, enqueue) if _one_to_one(shape) else set()
        arguments = (a for a in payload_arguments(node, shape) if id(a) not in unread)
        built = pending.built_earlier
        return carried_instances(v for a in arguments for v in built.get(id(a), (a,)))

    def _built_earlier(
        self, node: cst.BaseExpression, depth: int = 0
    ) -> Iterator[cst.BaseExpression]:
        """The values a local name stands for, bound once in the function: the
        items of a container built earlier (`kwargs=options` with `options =
        {"order_id": order.pk}`, or items put in it since), or a key read
        earlier (`order_id = order.pk`)."""
        node = unwrap(node)
        if isinstance(node, cst.Name) and depth < _MAX_ALIASES:
            # `options.update({"order_id": order.pk})`, `options["order_id"] = ...` before.
            for added in self._states[-1].dict_items.get(node.value, ()):
                yield from self._built_earlier(added, depth + 1)
        binding = self.context.resolver.lookup(node.value) if isinstance(node, cst.Name) else None
        if (
            binding is None
            or binding.expr is None
            or binding.unpack_index is not None
            or binding.iterated
            or binding.kind not in (BindingKind.OTHER, BindingKind.VALUE)
            or isinstance(binding.node, cst.Param)
            or depth >= _MAX_ALIASES
        ):
            yield node
            return
        value = unwrap(binding.expr)
        if isinstance(value, cst.Dict | cst.List | cst.Tuple):
            for item in value.elements:
                if isinstance(item, cst.DictElement | cst.Element):
                    yield from self._built_earlier(item.value, depth + 1)
        elif isinstance(value, cst.Attribute | cst.Name):
            yield from self._built_earlier(value, depth + 1)
        else:
            yield node

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
            instances = self._carried(pending)
            write = _first_write_after(pending, instances, state) if instances else None
            if write is not None:
                self._report(pending, write, state)

    def _report(self, pending: _Enqueue, write: _Write, state: _FunctionState) -> None:
        for reading in pending.enqueue.alternatives():
            depends = _row_depends(pending.node, reading, write, state)
            self._report_reading(pending, reading, write, depends)

    def _report_reading(
        self,
        pending: _Enqueue,
        enqueue: Enqueue,
        write: _Write,
        depends: tuple[Requirement, ...],
    ) -> None:
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
            requires=(*enqueue.requires, *depends),
            statement=pending.statement,
            related=((write.node, f"{instance}'s row is written here"),),
        )


def _note_dict_update(call: cst.Call, state: _FunctionState) -> None:
    """`options.update({"k": v})`, `options.update(k=v)`: the values put in."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return
    if func.attr.value != "update" or not call.args:
        return
    items = state.dict_items.setdefault(func.value.value, [])
    for arg in call.args:
        value = unwrap(arg.value)
        if arg.keyword is not None:
            items.append(value)
        elif isinstance(value, cst.Dict):
            items.extend(e.value for e in value.elements if isinstance(e, cst.DictElement))


def _row_depends(
    node: cst.Call, enqueue: Enqueue, write: _Write, state: _FunctionState
) -> tuple[Requirement, ...]:
    """`RowDepends` for a write of an existing row that a project task's
    argument carries the key of: the job must depend on what the write sets.
    None (the finding stands) for a delete, a new row, or a payload whose
    parameter places are not known."""
    shape = payloads.PAYLOAD_SHAPES.get(enqueue.method)
    written = _fields_written(write, state)
    if shape is None or not enqueue.task or enqueue.signed or written is None:
        return ()
    if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Subscript):
        return ()  # a task picked at run time (`builders[kind].delay(...)`): any of them
    fields, how = written
    for value, position, keyword in task_places(node, shape):
        if instance_of(value) == write.instance:
            whole_row = how == WHOLE_ROW
            return (RowDepends(enqueue.task, position, keyword, frozenset(fields), whole_row),)
    return ()


def _fields_written(write: _Write, state: _FunctionState) -> tuple[set[str], str] | None:
    """The fields a write sets (`ANY_FIELD`: any may be) and whether it saves
    the whole row (`WHOLE_ROW`); None for a delete or a row it creates."""
    call, instance = write.node, write.instance
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else ""
    if method not in jobs.ROW_SAVE_METHODS and method not in jobs.PINNED_UPDATE_METHODS:
        return None  # a delete: whatever the job does with the row, it goes
    if any(o < write.order and name == instance for o, name in state.bound_new):
        return None  # not loaded here: a new row, or one of unknown fields
    if method in jobs.PINNED_UPDATE_METHODS:
        named = {a.keyword.value for a in call.args if a.keyword is not None}
        every = all(a.keyword is not None for a in call.args)
        return (named if every and named else {ANY_FIELD}), ""
    only = _only_fields(call)
    if only is not None:
        return only, ""
    if any(o < write.order and text == instance for o, text in state.handed):
        return {ANY_FIELD}, WHOLE_ROW  # a call handed it may have set any field
    fields = {f for o, owner, f in state.fields_set if o < write.order and owner == instance}
    return fields, WHOLE_ROW


def _only_fields(call: cst.Call) -> set[str] | None:
    """The fields a save names (`update_fields=["state"]`); None: the whole row."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in jobs.ONLY_FIELDS_KEYWORDS:
            value = arg.value
            if isinstance(value, cst.List | cst.Tuple | cst.Set):
                names = [
                    e.value.evaluated_value
                    for e in value.elements
                    if isinstance(e.value, cst.SimpleString)
                ]
                if len(names) == len(value.elements) and all(isinstance(n, str) for n in names):
                    return {str(n) for n in names}
            return {ANY_FIELD}
    return None


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
    for one, other in zip(first, second, strict=False):
        if one != other:
            return one[0] != other[0]  # two arms of one statement: another path
    return True


def _exits_between(pending: _Enqueue, order: int, state: _FunctionState) -> bool:
    """A `return`/`raise` after the enqueue, before the write, in the
    enqueue's block or one around it: every path from the enqueue leaves there."""
    return any(
        pending.order < exit_order < order and pending.blocks[: len(blocks)] == blocks
        for exit_order, blocks in state.exits
    )


def _names_read(function: cst.FunctionDef) -> set[str]:
    names: set[str] = set()

    class _Reads(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    function.body.visit(_Reads())
    return names

"""JL601 unguarded-side-effect-in-retried-task.

Side effect in a task that can run more than once, with no idempotency guard.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL601` show) and its teaching examples."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from joblint.analysis.context import FileContext
from joblint.analysis.project_calls import project_call_text
from joblint.analysis.task_functions import TaskDefinition, made_tasks, task_definition
from joblint.knowledge import jobs, work
from joblint.knowledge.tokens import DEFINES_JOBS, DEFINES_PROJECT_TASKS
from joblint.libraries.job_work import RerunOption
from joblint.models import CHAIN
from joblint.requirements import (
    DecoratorReruns,
    FlagOn,
    IsTask,
    LeadsToEffect,
    RegistersTask,
    Requirement,
)
from joblint.rule import Rule, Valid, invalid
from joblint.rules.idempotency._facts.side_effects import claims_work, effect_call, own_nodes
from joblint.rules.idempotency._tokens import GIVES_RERUN_OPTIONS

_GUARD = (
    "claim the job first with joblint_runtime.idempotency (@idempotent, or "
    "IdempotencyGuard.claim in the job's transaction)"
)
# How long an option's value may be when a message quotes it.
_QUOTED = 40


@dataclass(frozen=True, slots=True)
class _Rerun:
    """One way the task runs more than once, and what the project must confirm."""

    why: str
    requires: tuple[Requirement, ...] = ()
    # The task's library when only the project step tells it ("" otherwise).
    library: str = ""


@dataclass(slots=True)
class _Task:
    definition: TaskDefinition
    reruns: tuple[_Rerun, ...]

    def subject(self, rerun: _Rerun) -> str:
        library = self.definition.library or rerun.library
        return jobs.job_subject(library, self.definition.name)


class UnguardedSideEffectInRetriedTask(Rule):
    """
    ## What it does
    Finds an effect outside the database in a task that can run more than
    once, with nothing that makes a repeat harmless. A task can run more than
    once when:
    - its options retry it: Celery `autoretry_for=` or `acks_late=True`, Huey
      `retries=` above 0, RQ `retry=`, procrastinate `retry=`, taskiq
      `retry_on_error=True`, Dramatiq `retry_when=`;
    - its body asks to (`self.retry(...)` in a bound Celery task);
    - its library retries by default (every Dramatiq actor, unless
      `max_retries=0`);
    - the project's settings redeliver every task (Celery `task_acks_late`,
      `CELERY_TASK_ACKS_LATE`, `app.conf.task_acks_late = True`).

    The effects: Django's `send_mail`, `send_mass_mail`, `mail_admins`,
    `mail_managers`, `EmailMessage.send`, a mail connection's
    `send_messages`; `smtplib` `sendmail`/`send_message` (also on `with smtplib.SMTP(...) as
    smtp:`); requests and httpx `post`, `put` and `patch` (module functions,
    sessions and clients); boto3 SES
    `send_email`/`send_raw_email`/`send_templated_email`/`send_bulk_*` and SNS
    `publish`/`publish_batch`; Stripe's `create` calls (`Charge`,
    `PaymentIntent`, `Refund`, `Transfer`, `Payout`, `Customer`, `Invoice`,
    `Subscription`, `checkout.Session`) and captures. The tables are in the
    library modules (`joblint.libraries`).

    Through the project model, a call of the project's own function (in this
    module or another) counts when it leads to such an effect, up to 6 calls
    deep: the message names each hop with file:line.

    Not findings (the guards): a task or a function on the way that claims
    its work first: the runtime's `@idempotent` / `IdempotencyGuard` (also a
    guard its module keeps in a variable, `runs = IdempotencyGuard()`, whose
    `runs.claim(conn, key)` it calls), an
    `INSERT ... ON CONFLICT DO NOTHING` in a string it runs, an `if` testing
    the `created` flag of a unique get-or-create, a set-if-absent call
    (`cache.add(...)`, Redis `set(..., nx=True)`) or a lock's `acquire(...)`,
    or an `Idempotency-Key` header it sends; an effect call passing the
    provider's idempotency parameter (Stripe `idempotency_key=`, SNS FIFO
    `MessageDeduplicationId=`); a task nothing retries or redelivers.

    ## Why is this bad?
    Every queue here delivers at least once: a retry after the effect, a
    worker killed by a deploy, a visibility timeout or a dead-letter replay
    runs the task again, and the effect happens again: two emails, two
    webhooks, two charges. The database rolls back; the outside world
    doesn't.

    ## Example
    ```python
    import stripe
    from celery import shared_task


    @shared_task(autoretry_for=(stripe.error.APIConnectionError,), max_retries=4)
    def charge(order_id, amount):
        stripe.PaymentIntent.create(amount=amount, currency="eur", confirm=True)
    ```

    ## Use instead
    ```python
    import stripe
    from celery import shared_task


    @shared_task(autoretry_for=(stripe.error.APIConnectionError,), max_retries=4)
    def charge(order_id, amount):
        stripe.PaymentIntent.create(
            amount=amount, currency="eur", confirm=True, idempotency_key=f"charge:{order_id}"
        )
    ```
    For effects without a provider key (email), claim the job with
    `joblint_runtime.idempotency` (`@idempotent(key=..., connect=...)`) in the
    transaction that records it; the key must come from the job's arguments
    or `self.request.id` (Celery keeps it across retries), never from a value
    drawn inside the task.

    ## Fix safety
    No automatic fix: what makes a repeat harmless (which key, which table)
    is the author's decision.

    ## Known limits
    - A task is a function a job library's decorator registers (also through
      an app imported from the project, or a task decorator the project
      builds, which the project step confirms), or an undecorated function
      of the module a module-level call makes a task of, with the options
      the call gives (`sync_task = make_task(sync, acks_late=True)` where
      `make_task` forwards its `**opts` to `app.task`,
      `job(acks_late=True)(sync)`, `app.task(sync, acks_late=True)`); a call
      in another module is not read. Class-based tasks (a `Task` subclass's
      `run`) and arq functions are not read, nor options a task's `base=`
      class sets.
    - A claim anywhere in the task (or in a function on the way) counts for
      all of its effects, before or after it; claims are recognised by shape
      (a get-or-create's unpacked result, a set-if-absent call in an `if`),
      not by what the key is.
    - A receiver is known through imports and the locals a call made
      (`msg = EmailMessage(...)`, `with smtplib.SMTP(...) as smtp:`); an
      attribute (`self.client.post`) or an untyped parameter is not; a
      module-level client of another module is known through the project
      model.
    - HTTP: a PUT or a PATCH is reported like a POST. HTTP calls a PUT
      idempotent (RFC 9110), but that is the service's promise, and many
      break it (a PUT appending a line, a JSON Patch `add`, RFC 6902); where
      the service keeps it, suppress with `# noqa: JL601`. GET, HEAD and
      DELETE are not reported. A POST that reads is not reported: its URL is
      built from a name or string holding `token`, `oauth`, `login` or
      `search`, or it passes a dict with a `grant_type` key (an OAuth token
      request); other POSTs that only read are. `request("POST", ...)` with
      the method as an argument is not read.
    - A guard object counts where the module calling it makes it
      (`runs = IdempotencyGuard()`); one imported from another module, or
      held in an attribute (`self.runs.claim(...)`), is not known as a guard.
    - A get-or-create claims only when an `if` tests its `created` flag
      (`row, created = ...get_or_create(...)`); one whose flag is thrown away
      (`row, _ = ...`) claims nothing.
    - A task's retry asked for by a helper it hands itself to
      (`retry_later(self, exc)`) is not read (JL302 reads it).
    - A guard by checking a flag the task sets after the effect
      (`if order.receipt_sent: return`) is not recognised: it narrows the
      window but a redelivery before the flag is saved still repeats the
      effect.
    - Settings: a setting applies to the files of the project that loads it,
      as JL5's do; only literal `True` values are read.
    """

    CODE = "JL601"
    PREVIEW = True
    READS_SETTINGS = True
    # A task made by a call (`make_task(sync, acks_late=True)`) in a file that
    # neither names a job library nor decorates anything.
    TRIGGERS = (*DEFINES_JOBS, DEFINES_PROJECT_TASKS, GIVES_RERUN_OPTIONS)
    SUMMARY = "Side effect in a task that can run more than once, with no idempotency guard"
    HELP = (
        "Make a repeat harmless: pass the provider's idempotency key, or claim the job "
        "with joblint_runtime.idempotency"
    )
    VALID = (
        Valid(
            """
import stripe
from celery import shared_task

@shared_task(autoretry_for=(stripe.error.APIConnectionError,), max_retries=4)
def charge(order_id, amount):
    stripe.PaymentIntent.create(amount=amount, idempotency_key=f"charge:{order_id}")
""",
            id="stripe-idempotency-key",
        ),
    )
    INVALID = (
        invalid(
            """
import stripe
from celery import shared_task

@shared_task(autoretry_for=(stripe.error.APIConnectionError,), max_retries=4)
def charge(order_id, amount):
    stripe.PaymentIntent.create(amount=amount, currency="eur", confirm=True)
""",
            (7, 5, "stripe.PaymentIntent.create() makes a Stripe API call"),
            id="stripe-charge-retried",
        ),
    )

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._tasks: list[_Task | None] = []
        self._decorators = 0  # the calls in decorators run when the module loads

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._tasks.append(self._task(node))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._tasks.pop()

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self._decorators += 1

    def leave_Decorator(self, node: cst.Decorator) -> None:
        self._decorators -= 1

    def _task(self, node: cst.FunctionDef) -> _Task | None:
        resolver = self.context.resolver
        definition = task_definition(node, resolver, self._made_by(node))
        if definition is None:
            return None
        reruns = _reruns(definition)
        if not reruns or claims_work(node, resolver):
            return None
        return _Task(definition, reruns)

    def _made_by(self, node: cst.FunctionDef) -> cst.BaseExpression | None:
        """The decorator a module-level call making a task of the module's
        undecorated function `node` amounts to (`make_task(sync, acks_late=True)`)."""
        module = self.context.frames[0].node
        if node.decorators or not isinstance(module, cst.Module):
            return None
        made = self.context.memo("made-tasks", module, lambda: made_tasks(module))
        found = made.get(node.name.value)
        if found is None or not any(statement is node for statement in module.body):
            return None
        return found

    def visit_Call(self, node: cst.Call) -> None:
        task = self._tasks[-1] if self._tasks and not self._decorators else None
        if task is None or self.context.frame.node is not task.definition.node:
            return  # not in a task's own body (a nested function runs later, if ever)
        found = effect_call(node, self.context.resolver)
        if found is not None and found.keyed:
            return
        if found is not None:
            said = f"{_written(node)}() {found.effect.what}"
            self._report(node, task, said, found.effect.remedy)
            return
        text = project_call_text(self.context, node)
        if text is not None:
            self._report(node, task, CHAIN, "", (LeadsToEffect(text),))

    def _report(
        self,
        node: cst.Call,
        task: _Task,
        said: str,
        remedy: str,
        requires: tuple[Requirement, ...] = (),
    ) -> None:
        advice = f"{remedy}, or {_GUARD}" if remedy else _GUARD
        advice = f"{advice[0].upper()}{advice[1:]}"
        for rerun in task.reruns:
            message = (
                f"{said}, in {task.subject(rerun)}, which can run more than once ({rerun.why}): "
                f"a retry or a redelivery does it again. {advice}"
            )
            needs = (*task.definition.requires, *rerun.requires, *requires)
            self.report(node, message, requires=tuple(dict.fromkeys(needs)))


def _written(call: cst.Call) -> str:
    """The callee as written, short: `stripe.PaymentIntent.create`, `msg.send`."""
    code = cst.Module([]).code_for_node(call.func)
    return code if len(code) <= _QUOTED else f"{code[:_QUOTED]}..."


def _reruns(definition: TaskDefinition) -> tuple[_Rerun, ...]:
    """Each way the task can run more than once (any one suffices)."""
    if definition.project_decorator:
        return _project_reruns(definition)
    if definition.library:
        return tuple(_library_reruns(definition, definition.library, ()))
    # `@app.task` on an app another module makes: the project tells its library.
    return tuple(
        rerun
        for library in sorted(work.RERUNS)
        for rerun in _library_reruns(
            definition, library, (IsTask(definition.qualname, frozenset({library})),)
        )
    )


def _library_reruns(
    definition: TaskDefinition, library: str, requires: tuple[Requirement, ...]
) -> list[_Rerun]:
    """The ways a task of `library` with the definition's options runs again."""
    literals = {key: definition.literal(key) for key in definition.options}
    told = library if requires else ""
    found = [
        _Rerun(_quoted(definition, option), requires, told)
        for option in _set_options(library, literals)
    ]
    default = work.retries_by_default(library, literals)
    if default:
        found.append(_Rerun(default, requires, told))
    retried = _retries_itself(definition, library)
    if retried:
        found.append(_Rerun(retried, requires, told))
    reruns = work.RERUNS.get(library)
    if reruns is not None and reruns.settings_flag and not _turned_off(definition, library):
        flag = FlagOn(reruns.settings_flag)
        found.append(_Rerun(_settings_said(reruns.settings), (*requires, flag), told))
    return found


def _project_reruns(definition: TaskDefinition) -> tuple[_Rerun, ...]:
    """A task decorator another module builds: the options it fixes there
    (the project step tells), or, by the library it turns out to be, those
    its call here gives and the settings."""
    decorator = definition.project_decorator
    called = definition.called
    fixed = DecoratorReruns(decorator, called)
    name = decorator.rsplit(".", 1)[-1]
    found = [_Rerun(f"the options its decorator '{name}' fixes", (fixed,))]
    for library in sorted(work.RERUNS):
        is_library = RegistersTask(decorator, frozenset({library}), called)
        found.extend(_library_reruns(definition, library, (is_library,)))
    return tuple(found)


def _set_options(library: str, literals: dict[str, str | None]) -> list[str]:
    return [text.partition("=")[0] for text in work.rerun_options(library, literals)]


def _quoted(definition: TaskDefinition, keyword: str) -> str:
    arg = definition.options[keyword]
    value = cst.Module([]).code_for_node(arg.value)
    if len(value) > _QUOTED:
        value = f"{value[:_QUOTED]}..."
    return f"{keyword}={value}"


def _turned_off(definition: TaskDefinition, library: str) -> bool:
    """`acks_late=False` on the task itself overrides the settings."""
    return any(definition.literal(o.keyword) == "False" for o in _options_of(library))


def _options_of(library: str) -> tuple[RerunOption, ...]:
    reruns = work.RERUNS.get(library)
    return reruns.options if reruns is not None else ()


def _settings_said(settings: tuple[str, ...]) -> str:
    return (
        f"{settings[0]} is set in the project's settings: a task whose worker dies "
        "is delivered again"
    )


def _retries_itself(definition: TaskDefinition, library: str) -> str:
    """`self.retry(...)` in a bound task's own body: how a message says it."""
    reruns = work.RERUNS.get(library)
    node = definition.node
    if reruns is None or not reruns.retry_method or not node.params.params:
        return ""
    if definition.literal(reruns.bind_keyword) != "True":
        return ""
    bound = node.params.params[0].name.value
    for inner in own_nodes(node):
        if (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value == reruns.retry_method
            and isinstance(inner.func.value, cst.Name)
            and inner.func.value.value == bound
        ):
            return f"it calls {bound}.{reruns.retry_method}()"
    return ""

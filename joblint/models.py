"""Plain, frozen, picklable data passed between the engine, project step and reporters.

Nothing here refers to LibCST nodes: a `FileResult` can cross a process boundary
or be stored in a cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A source range; lines and columns are 1-based, the end is exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class Requirement:
    """A fact about the whole project that must hold for a pending finding to stand.

    `kind` is one of:
    - "task": `qualname` must be a task known to the project whose library is in
      `libraries` (the per-file pass can't see other files' decorators);
    - "library-object": `qualname` may be an object of one of `libraries` (a task,
      or for `queue=True` a queue/broker object): it is not a plain function, a
      class or an instance of a class defined in the project, nor an object of
      another library; and when the project doesn't tell its library, that
      library must be in reach of `module` (one of the module prefixes `reach`
      imported there or by a project module it imports), unless `reach` is empty;
    - "reaches": one of the module prefixes `reach` is imported by `module` or by
      a project module it imports (a library-specific name needs the library);
    - "writable-database": the Django database alias `qualname` is not one the
      project's settings or routers (that apply to the finding's file) make
      read-only (a transaction on a replica races no write);
    - "flag-off": the project-wide flag `qualname` must not be set (e.g. the
      django-q ORM broker, which makes `async_task` transactional);
    - "flag-on": the project-wide flag `qualname` must be set, by settings
      that apply to the finding's file (Django's `ATOMIC_REQUESTS`);
    - "url-view" (`URL_VIEW`): the function or class `qualname` must be a
      view some URLconf of the project registers (`path("x/", checkout)`,
      `path("y/", Checkout.as_view())`);
    - "queue": `qualname` must be a module-level queue object of one of `libraries`;
    - "class": the class `qualname` must have one of the kinds in `libraries`
      (`django_model`, `enum`, ... from the project's class index);
    - "task-lacks-param": the task `qualname`, if the project defines it, must
      not declare the parameter named in `libraries`;
    - "lacks-unique": no unique column set of the model class `qualname` (its own
      or inherited from its bases) may lie within the columns in `libraries`
      (the columns a query pins by equality: then it pins one row);
    - "cache-lock-api": the lock API of the Django cache alias `qualname`, as the
      project's `CACHES` setting gives its backend, must be one of `libraries`
      ("" stands for "not known");
    - "lock-key": the module constant `qualname`, a Redis SET NX key, must not
      be a string that names no lock (see `joblint.knowledge.locks`);
    - "leads-to-enqueue" (`LEADS_TO_ENQUEUE`): the call the finding is at,
      written `qualname` ("notify.send_receipt"), must lead to an enqueue
      through the project's functions (the project model; the message names
      the chain where it says `CHAIN`); with `reach` (`UNCOMMITTED`,), an
      enqueue a function on the way makes after a commit of its own doesn't
      count (its caller's writes are committed by then);
    - "opens-transaction" (`OPENS_TRANSACTION`): the project callable
      `qualname` must open a transaction when called (`with it():`, `@it`);
    - "task-decorator" (`TASK_DECORATOR`): the project name `qualname`, used
      as a decorator, must register a task of one of `libraries` ("" among
      them: also one whose library the project doesn't tell), called with
      options of its own when `reach` is ("called",);
    - "task-decorator-sets" (`TASK_DECORATOR_SETS`): the project's task
      decorator `qualname` must set each option `libraries` names as
      `key=literal` (`bind=True`), itself or through what it is built from;
    - "claimed-by-caller" (`CLAIMED_BY_CALLER`): some caller of the project
      function `qualname` must claim the row(s) it returns: write them
      (`ProjectCall.result_use` is `RESULT_WRITTEN`) or, with `reach` ==
      (`RESULT_SET`,), where setting a field writes (an ORM flushing what its
      session holds), set a field of them; the message names that caller
      where it says `CLAIMER`;
    - "run-by-job" (`RUN_BY_JOB`): a task of the project (a function a job
      library's decorator or the project's task decorator registers, or a
      method of a task class) must call the project function `qualname`,
      itself or through project functions, at most `MAX_HOPS` calls up; the
      message names the task and the calls where it says `JOB_RUNNER`;
    - "passed-a-task" (`PASSED_A_TASK`): some bound task of one of `libraries`
      must pass itself (its first parameter) to the function `qualname` at the
      parameter `reach` gives as (position, name); the message names that
      task where it says `CALLER`;
    - "enqueues-now" (`ENQUEUES_NOW`): `qualname` is a task's enqueue method
      (`shop.tasks.send.delay`); it must not be deferred to COMMIT by the
      project's task class the task is built on (a `base=` class whose
      `apply_async` registers it on commit), where the project says so;
    - "returns-object" (`RETURNS_OBJECT`): the call written `reach[0]` in the
      project function `qualname` (as its module's index names it) must call
      a project function returning a value of one of the kinds `libraries`
      (`django_model`, `enum`, ...; with `reach[1]` == `RETURNED_ITEM`: a dict
      holding one), through at most `MAX_HOPS` helpers returning what another
      returns; with `reach[1]` == `RETURNED_PARAMETER`, a function returning
      a dict that holds its parameter at `reach[2]` (a position, or "") or
      named `reach[3]`. The message names the helper and where it returns
      the value where it says `RETURNED`;
    - "returns-growth" (`RETURNS_GROWTH`): the call written `reach[0]` in the
      project function `qualname` (as its module's index names it) must call
      a project function every return of which grows with its parameter at
      position `reach[1]` (or named `reach[2]`) and has no random part
      (`return 2 ** attempt`): the caller passes the attempt count there.
      With neither `reach[1]` nor `reach[2]`, a project function returning
      a list of waits growing with their position (`SCHEDULE` return facts,
      followed through the functions whose result it returns).
      The message names the function and where it returns the delay where
      it says `RETURNED`;
    - "retries-handed-task" (`RETRIES_HANDED_TASK`): the call written
      `reach[0]` in the project function `qualname` (as its module's index
      names it) must call a project function that retries the task handed
      at position `reach[1]` (`FunctionSummary.retries_handed`);
    - "retry-delay-handed" (`RETRY_DELAY_HANDED`): the call written
      `reach[0]` in the project function `qualname` must call a project
      function that retries the task handed at position `reach[1]` with the
      delay handed at position `reach[2]` (or as the keyword `reach[3]`),
      as a delay keyword itself or through the dict a project function it
      hands the delay to returns (`FunctionSummary.retry_delays`); the
      message names the helper and its retry where it says `RETURNED`;
    - "hands-to-payload" (`HANDS_TO_PAYLOAD`): the project function
      `qualname` must hand the argument at `reach` (position, keyword) on to
      the payload of an enqueue, itself or through the project functions it
      passes it to (`ProjectCall.flags`, `ProjectCall.held`), at most
      `MAX_HOPS` deep; the message names the enqueue where it says `HANDED`;
    - "used-as-model" (`USED_AS_MODEL`): the task `qualname` must use the
      argument at `reach` (position, keyword) as a model instance
      (`FunctionSummary.model_uses`); the message names the use where it
      says `USED`;
    - "written-in-transaction" (`WRITTEN_IN_TRANSACTION`): the project must
      write the model class `qualname` inside a transaction somewhere, in one
      of the ways `libraries` names (`SAVE`, `DELETE`, `M2M` with the
      many-to-many field `reach[0]`): a call inside a library's transaction
      (or a framework hook the framework runs in one), or a registration with
      a framework that writes it inside its own transaction (Django's
      admin). The message names one such write where it says `WRITTEN`;
    - "leads-to-effect" (`LEADS_TO_EFFECT`): the call the finding is at,
      written `qualname`, must be a side effect outside the database (an
      email, an HTTP POST, a charge: `joblint.knowledge.work`) or lead to one
      through the project's functions, none of which claims its work first
      (`FunctionSummary.claims`); the message names the effect and the chain
      where it says `CHAIN`;
    - "task-decorator-reruns" (`TASK_DECORATOR_RERUNS`): the project's task
      decorator `qualname` must fix options that make its library run a task
      again (`autoretry_for=`, `acks_late=True`; Dramatiq's default retries);
    - "receives" (`RECEIVES`): the function `qualname` must be connected, by
      a module other than its own, to a model signal the framework sends
      inside a transaction (always, or because the project writes the model
      in one: as `WRITTEN_IN_TRANSACTION`); the message says which where it
      says `RECEIVED`;
    - "reached" (`REACHED`): the function `qualname` must be reached, through
      calls none of which is deferred to COMMIT or made inside a transaction
      the caller's own finding covers, from a request handler a framework
      runs inside the request's transaction (`Entry`: Django's
      `ATOMIC_REQUESTS`, Pyramid's `pyramid_tm`); the message names the
      handler and the chain where it says `REACHED_FROM`;
    - "job-touches" (`JOB_TOUCHES`): the task `qualname`'s body, through the
      project's calls, must read or write one of the models `libraries` (those
      the transaction writes), or not be known: a job touching nothing the
      transaction writes can't see its uncommitted rows;
    - "request-depends" (`REQUEST_DEPENDS`): the job of the project task in
      `libraries`, enqueued by the request handler `qualname` itself, must be
      able to depend on what the request writes (as `JOB_TOUCHES`, with the
      classes the handler and everything it calls write; unknown writes or an
      unknown task body keep the finding);
    - "row-depends" (`ROW_DEPENDS`): the job of the task `qualname`, handed
      the key of a row at `reach` (position, keyword), must depend on the
      write that follows the enqueue: the write sets the fields `libraries`
      (`ANY_FIELD`: any) and, with `reach[2]` == `WHOLE_ROW`, saves the whole
      row. It does unless the task (defined in the project) loads the row by
      that key itself, hands it on nowhere, reads none of those fields and
      writes none the write saves (but fields every save sets itself), nor
      saves the whole row back (`RowUse`).
    """

    kind: str
    qualname: str
    libraries: frozenset[str] = frozenset()
    module: str = ""
    reach: tuple[str, ...] = ()
    queue: bool = False


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text in `span` with `content` (an empty span inserts)."""

    span: Span
    content: str


SAFE = "safe"  # behaviour kept
UNSAFE = "unsafe"  # behaviour intentionally changed: only with --unsafe-fixes


@dataclass(frozen=True, slots=True)
class Fix:
    """How to fix a finding: non-overlapping edits of the file's text."""

    safety: str  # SAFE or UNSAFE
    message: str
    edits: tuple[Edit, ...]
    # Imports the fix may leave unused, as (module, name, alias or ""): `--fix`
    # removes those nothing reads any more once every fix is applied.
    releases: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Place:
    """Where a fact was found."""

    path: str
    span: Span


@dataclass(frozen=True, slots=True)
class Related:
    """Another place a finding involves, and what happens there (a hop of a
    chain of calls: "mail.send() is called here")."""

    path: str
    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    name: str
    message: str
    path: str
    span: Span
    help: str = ""
    fix: Fix | None = None
    # Other places the finding involves (the hops of a chain of calls), in
    # order, for formats that show them (SARIF, JSON).
    related: tuple[Related, ...] = ()

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)

    def fixable(self, unsafe: bool) -> bool:
        """Whether `--fix` fixes it (with `--unsafe-fixes` when `unsafe`)."""
        return self.fix is not None and (unsafe or self.fix.safety == SAFE)


@dataclass(frozen=True, slots=True)
class PendingFinding:
    """A finding that stands only if all `requires` hold for the whole project."""

    finding: Finding
    requires: tuple[Requirement, ...]


# Where a pending finding's message names the chain of calls the project step finds.
CHAIN = "\u27e8chain\u27e9"
LEADS_TO_ENQUEUE = "leads-to-enqueue"
# `Requirement.reach` of a LEADS_TO_ENQUEUE made before a commit (JL102).
UNCOMMITTED = "uncommitted"
OPENS_TRANSACTION = "opens-transaction"
TASK_DECORATOR = "task-decorator"
TASK_DECORATOR_SETS = "task-decorator-sets"
PASSED_A_TASK = "passed-a-task"
CLAIMED_BY_CALLER = "claimed-by-caller"
# Where a pending finding's message names the caller claiming the returned row.
CLAIMER = "\u27e8claimer\u27e9"
# What a caller does with what a call returns (`ProjectCall.result_use`):
# writes or deletes it (`job.save()`, `session.delete(job)`), or only sets a
# field of it (`job.state = "running"`).
RESULT_WRITTEN = "written"
RESULT_SET = "set"
RUN_BY_JOB = "run-by-job"
# Where a pending finding's message names the task running the function.
JOB_RUNNER = "\u27e8job\u27e9"
ENQUEUES_NOW = "enqueues-now"
# A callable handed to the project function `qualname` (at the (position,
# keyword) `reach` gives) runs now: the function doesn't defer it to COMMIT.
RUNS_NOW = "runs-now"
# Where a pending finding's message names the task that hands itself to a helper.
CALLER = "\u27e8caller\u27e9"
RETURNS_OBJECT = "returns-object"
# The project function `qualname` hands the argument a call passes it (at the
# (position, keyword) `reach` gives) on to a job's payload, itself or through
# functions it passes it to; the message names the enqueue where it says `HANDED`.
HANDS_TO_PAYLOAD = "hands-to-payload"
HANDED = "\u27e8handed\u27e9"
# The task `qualname` uses the argument an enqueue passes it (at the
# (position, keyword) `reach` gives) as a model instance; the message names
# the use where it says `USED`.
USED_AS_MODEL = "used-as-model"
USED = "\u27e8used\u27e9"
# `RETURNS_OBJECT`'s `reach[1]`: the value is in the dict the call returns;
# or the call's argument (at position `reach[2]`, or keyword `reach[3]`) is.
RETURNED_ITEM = "item"
RETURNED_PARAMETER = "parameter"
# Where a pending finding's message names the helper returning the value.
RETURNED = "\u27e8returned\u27e9"
RETURNS_GROWTH = "returns-growth"
RETRIES_HANDED_TASK = "retries-handed-task"
RETRY_DELAY_HANDED = "retry-delay-handed"
WRITTEN_IN_TRANSACTION = "written-in-transaction"
RECEIVES = "receives"
URL_VIEW = "url-view"
LEADS_TO_EFFECT = "leads-to-effect"
REACHED = "reached"
# A `REACHED` requirement's `reach` for an async function.
ASYNC_REACH = "async"
JOB_TOUCHES = "job-touches"
REQUEST_DEPENDS = "request-depends"
ROW_DEPENDS = "row-depends"
# `ROW_DEPENDS`'s `libraries` when the write may set any field of the row.
ANY_FIELD = "*"
# `ROW_DEPENDS`'s `reach[2]` when the write saves the whole row.
WHOLE_ROW = "whole"
# Where a pending finding's message names the request handler reaching it.
REACHED_FROM = "\u27e8reached\u27e9"
TASK_DECORATOR_RERUNS = "task-decorator-reruns"
# Where a pending finding's message names what a receiver receives (the
# signal, the model, where it is connected and why it is transactional).
RECEIVED = "\u27e8received\u27e9"
# How a model is written (`WRITTEN_IN_TRANSACTION`'s `libraries`), as Django's
# model signals tell them apart: saved, deleted, a many-to-many field changed.
SAVE = "save"
DELETE = "delete"
M2M = "m2m"
# A save that may create the row (a `post_save` receiver's `created` branch
# needs one): `Order.objects.create()`, `get_or_create()`.
CREATE = "create"
# How a message says what each write does to a model.
WRITE_VERBS = {SAVE: "saves", DELETE: "deletes", M2M: "changes", CREATE: "creates"}
# Where a pending finding's message names the transactional write found.
WRITTEN = "\u27e8written\u27e9"
# The requirements the project model settles (`joblint.pipeline.project.call_graph`).
MODEL_REQUIREMENTS = frozenset(
    {
        LEADS_TO_ENQUEUE,
        OPENS_TRANSACTION,
        TASK_DECORATOR,
        TASK_DECORATOR_SETS,
        PASSED_A_TASK,
        CLAIMED_BY_CALLER,
        RUN_BY_JOB,
        ENQUEUES_NOW,
        RUNS_NOW,
        RETURNS_OBJECT,
        RETURNS_GROWTH,
        RETRIES_HANDED_TASK,
        LEADS_TO_EFFECT,
        TASK_DECORATOR_RERUNS,
        JOB_TOUCHES,
        HANDS_TO_PAYLOAD,
        USED_AS_MODEL,
        ROW_DEPENDS,
    }
)


@dataclass(frozen=True, slots=True)
class TaskDef:
    """A function registered as a background job, as seen in one file."""

    qualname: str
    library: str  # "celery", "huey", ... or "" when the decorator's receiver is unresolved here
    # Qualified name of the decorator's receiver (`proj.celery.app` for
    # `@app.task`) when the library must be looked up in another file.
    receiver: str = ""
    # The function's parameter names (JL103: an option it declares is an argument).
    params: tuple[str, ...] = ()
    # A project decorator that may register it (qualname, whether called:
    # `@it(...)`): a task only if the project model says the decorator
    # registers one (`retrying_task = shared_task(...)`); ("", False): none.
    decorator: tuple[str, bool] = ("", False)


@dataclass(frozen=True, slots=True)
class ClassFacts:
    """A class (or class-like: `X = namedtuple(...)`) defined in one file."""

    qualname: str
    # Qualified names of its bases, resolved through this file's imports.
    bases: tuple[str, ...] = ()
    # Kinds known from this file alone: "django_model", "enum", "dataclass", ...
    kinds: tuple[str, ...] = ()
    # Sets of field names its body declares unique (primary key, `unique=True`,
    # unique constraints), each sorted; its bases' come from their own facts.
    unique_keys: tuple[tuple[str, ...], ...] = ()
    # Fields its body declares set by every save itself (`auto_now=True`).
    self_set_fields: tuple[str, ...] = ()


# A static expression from `joblint.analysis.constants` (nested tuples).
Expr = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class ConfigValue:
    """A Celery setting: `setting` is canonical ("broker_url", ...), `spelling`
    how it was written; `from_app` when set on an app (Celery(...), app.conf)
    rather than as a module constant (which counts only in config modules)."""

    setting: str
    spelling: str
    value: Expr | None
    place: Place
    from_app: bool
    # For broker_transport_options: the span of its "visibility_timeout" value.
    visibility_place: Place | None = None
    # The settings class whose body sets it (`class Prod(Base): CELERY_... = ...`);
    # "" for a module constant or an app's setting.
    owner: str = ""
    # The test of the module-level `if` it is set under (`if os.environ.get("X"):`),
    # negated for its `else:`; None when set unconditionally.
    guard: Expr | None = None


@dataclass(frozen=True, slots=True)
class TimeLimit:
    task: str
    value: Expr | None
    place: Place
    # The enqueue call that passes it (`rebuild.apply_async()`); "" for a task's own.
    via: str = ""


@dataclass(frozen=True, slots=True)
class Delay:
    """`apply_async(countdown=...)`, `self.retry(countdown=...)`, `eta=now() + ...`."""

    keyword: str
    call: str
    value: Expr | None
    place: Place


@dataclass(frozen=True, slots=True)
class EnvironmentValue:
    """A value a deployment file gives an environment variable
    (`BROKER_URL=redis://...` in `.env`, a compose service's `environment:`)."""

    variable: str
    value: str
    place: Place


@dataclass(frozen=True, slots=True)
class BrokerFacts:
    config: tuple[ConfigValue, ...] = ()
    # `config_from_object(...)` targets: (module or "django.conf:settings", namespace).
    config_sources: tuple[tuple[str, str], ...] = ()
    # DJANGO_SETTINGS_MODULE values set in this file.
    settings_modules: tuple[str, ...] = ()
    # Settings classes it names (`DJANGO_CONFIGURATION`), within those modules.
    settings_classes: tuple[str, ...] = ()
    time_limits: tuple[TimeLimit, ...] = ()
    delays: tuple[Delay, ...] = ()
    # Modules this one star-imports (`from .base import *`): a settings module
    # built on another, whose own settings override those it imports.
    star_imports: tuple[str, ...] = ()
    # Environment variables a deployment file sets (facts of no Python file).
    environment: tuple[EnvironmentValue, ...] = ()


@dataclass(frozen=True, slots=True)
class RetryDelayHanded:
    """A helper's retry of the task handed at its positional parameter
    `task` (a position) with the delay its parameter `parameter` (at
    `position`, "-1" keyword-only) gives: `task.retry(countdown=delay)`, or
    through the dict the project function `built_by` returns when handed it
    at `built_at` (a position) or as `built_as` (a keyword)."""

    task: str
    position: str
    parameter: str
    line: int  # the retry's
    built_by: str = ""
    built_at: str = ""
    built_as: str = ""


@dataclass(frozen=True, slots=True)
class RowUse:
    """A row a function loads by the key its parameter holds (`order =
    Order.objects.get(pk=order_id)`), and the fields it reads and writes of it."""

    parameter: str
    model: str  # the model class the load names, qualified ("" when not known)
    line: int  # where it loads the row
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    # It saves the whole row (`order.save()`): every field, as it read them.
    saves_all: bool = False
    # It hands the row on (to a call, a return, a container) or calls a
    # method of it no library's data knows: what is done with it is not known.
    handed_on: bool = False


@dataclass(frozen=True, slots=True)
class ProjectCall:
    """A call, in a function's body, of a name that may be the project's own code."""

    # Qualified through imports, `self.`/`cls.` and the types of locals:
    # "shop.mail.send_receipt_mail", "shop.tasks.send.delay", "shop.models.Order.cancel".
    callee: str
    line: int
    text: str  # as written: "mail.send_receipt_mail", "self.cancel", "send.delay"
    # The transaction the call is made in: None for none, () for a library's
    # (`with transaction.atomic():`, `@transaction.atomic`), else the project
    # callables that may open one around it (`with traced_atomic():`, `@in_tx`).
    transaction: tuple[str, ...] | None = None
    # Where the call passes the caller's first parameter (a bound task's
    # `self`): its position ("0") or keyword; "" when it doesn't.
    receiver_at: str = ""
    # It passes a keyword some provider drops a repeated call by
    # (`idempotency_key=`): as a side effect, it is done once.
    idempotent: bool = False
    # The parameters of its function it is made only when true (or false):
    # `if asynchronous:` around it (`joblint.index.flags`).
    guard: tuple[tuple[str, bool], ...] = ()
    # What it passes that the callee's flags may be: (position or keyword,
    # a literal's truth or a parameter handed on; see `joblint.index.flags`).
    flags: tuple[tuple[str, str], ...] = ()
    # The command a command runner runs, named by a literal
    # (`call_command("rebuild_index")`): the project step finds its handler.
    command: str = ""
    # What the caller does with the value the call returns, bound to a name
    # (`job = next_job()`, `for job in next_jobs():`): `RESULT_WRITTEN`,
    # `RESULT_SET`, or "" for neither (`joblint.index.row_uses`).
    result_use: str = ""
    # The caller's own steady parameters it passes inside a list, tuple, set
    # or dict display (`args=[order]`, `kwargs={"order": order}`): (position
    # or keyword of the argument holding it, the parameter).
    held: tuple[tuple[str, str], ...] = ()

    def shown(self) -> str:
        """How a message writes the call: `mail.send()`, `call_command("rebuild_index")`."""
        return f'{self.text}("{self.command}")' if self.command else f"{self.text}()"


@dataclass(frozen=True, slots=True)
class DecoratorUse:
    """A decorator on a function, as the module's index records it."""

    qualname: str  # what the decorator (or the callable it calls) names
    # `@it(...)`: its keywords, each with its literal value ("True", "None",
    # "3"; "" when it isn't a literal).
    options: tuple[tuple[str, str], ...] = ()
    called: bool = False
    # Its keywords whose value is a name, qualified (`base=OnCommitTask`).
    names: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class TaskDecorator:
    """A module-level name that may be a job library's task decorator built
    by the project: `retrying = shared_task(max_retries=None)` (a stored
    decorator), `task = app.task` (an alias), `functools.partial(shared_task,
    ...)`, or a function forwarding its arguments to one."""

    qualname: str
    # What it is built from: a library's decorator ("celery.shared_task"), an
    # app's method ("shop.celery.app.task") or another project name.
    via: str
    line: int
    # The options it fixes, literal values as in `DecoratorUse.options`.
    options: tuple[tuple[str, str], ...] = ()
    # `@it(...)` passes its own options on (an alias, a partial, a forwarding
    # function); a stored decorator takes only the function.
    takes_options: bool = True


@dataclass(frozen=True, slots=True)
class TxOpening:
    """How calling a function opens a transaction around its caller's code."""

    # "with": a context manager yielding inside one; "decorator": its wrapper
    # calls the decorated function inside one; "returns": it returns one.
    how: str
    # The project callables (qualified names) whose transaction it opens, when
    # it opens no library's itself: it opens one if one of them does.
    via: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ReturnFact:
    """What one `return` of a function gives back, as far as `ast` tells."""

    # "row"/"rows": a library's fetch of one row or several (`kind` says
    # whose); "call": what calling `name` gives (an instance of a class, or
    # what a project function returns); "member": a member of the class
    # `name` (`Plan.PRO`); "plain": anything else (a key, a literal, a
    # value no summary follows).
    how: str
    name: str = ""
    line: int = 0
    kind: str = ""
    # A value of the dict the function returns (`return {"order": order}`):
    # its key ("" for the function's own return value).
    key: str = ""


@dataclass(frozen=True, slots=True)
class FunctionSummary:
    """What calling one of a module's functions or methods does, for the project model."""

    qualname: str  # "shop.mail.send_receipt_mail", "shop.models.Order.cancel", "f.<locals>.g"
    line: int
    calls: tuple[ProjectCall, ...] = ()
    opens: TxOpening | None = None
    # Its decorators that may register it as a task (a library's, an app's
    # method, or a project name).
    decorators: tuple[DecoratorUse, ...] = ()
    # It registers a callback to run on COMMIT (`transaction.on_commit(...)`),
    # or publishes a PostgreSQL notification, which is delivered at COMMIT.
    on_commit: bool = False
    # What its `return`s give back (a return annotation naming a class stands
    # for them all); () when it returns nothing.
    returns: tuple[ReturnFact, ...] = ()
    # The lines of its explicit argument-less commits (`session.commit()`):
    # what it enqueues after one races no write made before.
    commits: tuple[int, ...] = ()
    # It claims its work before doing it (an idempotency guard, an `INSERT
    # ... ON CONFLICT DO NOTHING`, a unique get-or-create, a set-if-absent
    # key, an Idempotency-Key header): a repeat of it does nothing twice.
    claims: bool = False
    # Its positional parameters, in order, and the truth of the literal
    # defaults: what a caller's flags bind to.
    parameters: tuple[str, ...] = ()
    defaults: tuple[tuple[str, bool], ...] = ()
    # Its body does nothing to read (`...`, `pass`): what it does is not known.
    stub: bool = False
    # The classes whose rows it writes, by the owner each write names
    # (`Order.objects.create()`, a typed `order.save()`), and whether it
    # makes a write that names none (`session.add(x)`, `obj.save()`).
    writes: tuple[str, ...] = ()
    blind_writes: bool = False
    # Whether it sets a field of a value it was handed or fetched
    # (`obj.status = ...`): a write where the ORM flushes what its session
    # holds (SQLAlchemy's unit of work), none where only `save()` writes.
    field_sets: bool = False
    # Its parameters it hands to an on-commit hook (`transaction.on_commit(func)`):
    # what a caller passes there runs at COMMIT.
    defers: tuple[str, ...] = ()
    # It is `async def`: only an async caller runs it (awaiting it).
    asynchronous: bool = False
    # The line of its first `yield` (0: none): a generator dependency whose
    # commit comes after it commits once the handler has returned.
    yields: int = 0
    # The line of its first call of the app a middleware wraps (`await
    # call_next(request)`, `await self.app(scope, receive, send)`; 0: none):
    # what it commits after that, it commits once the handler has returned.
    hands_on: int = 0
    # The commit settings (`knowledge.requests.COMMIT_SETTINGS`) a test
    # guarding every one of its commits names (`if app.config[
    # "SQLALCHEMY_COMMIT_ON_TEARDOWN"]: session.commit()`): it commits only
    # where the project sets one.
    commit_settings: tuple[str, ...] = ()
    # The methods it calls on `super()` (`super().form_valid(form)`): a
    # library base's may write (`joblint.libraries.django.SUPER_WRITES`).
    super_calls: tuple[str, ...] = ()
    # A decorator factory of the project registering what it decorates as a
    # request handler (`def api_config(**s): return view_config(**s)`): the
    # framework decorator it stands for ("" for none).
    registers: str = ""
    # The positions of its positional parameters whose job library retry
    # method it calls (`task.retry(...)`) outside an except clause of its own
    # and any test of its other parameters: a caller handing it a bound task
    # there retries that task on whatever the caller caught.
    retries_handed: tuple[str, ...] = ()
    # Its retries of a task it is handed with a delay another parameter gives.
    retry_delays: tuple[RetryDelayHanded, ...] = ()
    # Its steady parameters its body uses as a model instance
    # (`order.refresh_from_db()`, `order._meta`): (parameter, line, how it reads).
    model_uses: tuple[tuple[str, int, str], ...] = ()
    # The rows it loads by the key a parameter hands it, and what it does
    # with their fields (`joblint.index.row_fields`).
    row_uses: tuple[RowUse, ...] = ()

    @property
    def commits_after_yield(self) -> bool:
        """A generator committing after its `yield`: a dependency whose
        COMMIT comes once the handler it serves has returned."""
        return bool(self.yields) and any(line > self.yields for line in self.commits)

    @property
    def commits_after_handing_on(self) -> bool:
        """A middleware committing after it ran the handler (`hands_on`)."""
        return bool(self.hands_on) and any(line > self.hands_on for line in self.commits)


@dataclass(frozen=True, slots=True)
class Entry:
    """A function a web framework runs as a request handler: inside the
    request's transaction where the project turns that on (Django's
    `ATOMIC_REQUESTS`, Pyramid's `pyramid_tm`). Read by `joblint.index.entries`."""

    # The function it makes a handler (a method of a class the project may
    # define in a base: the project step resolves it).
    qualname: str
    line: int
    # The framework whose switch makes its request transactional ("django",
    # "pyramid"); "" where the router object decides (`RequestHandlers.routers`).
    framework: str
    # How a message names it: "a view", "a django-ninja operation".
    how: str
    # What else must hold: "" nothing; "url" a URLconf registers `of` (or
    # the function); "class" the class `of` derives from one of `bases`;
    # "router" the module-level object `of` is an instance of a router class;
    # "decorator" the project's decorator factory `of` (`@of(...)`) registers
    # request handlers (`FunctionSummary.registers`), or derives from a
    # framework's decorator class.
    needs: str = ""
    of: str = ""
    bases: tuple[str, ...] = ()
    # The line naming its route (a decorator), 0 if none.
    route: int = 0
    # The dependencies its parameters name (`db = Depends(get_db)`,
    # `Annotated[Session, Depends(get_db)]`, or an alias of such an
    # `Annotated`): qualified names, for the project step to tell which
    # yields a session it commits after the handler.
    depends: tuple[str, ...] = ()
    asynchronous: bool = False


@dataclass(frozen=True, slots=True)
class ModuleIndex:
    """One module's part of the project model, read with Python's `ast`
    (`joblint.index`): its imports, classes, instances and function summaries."""

    module: str
    # Module-level imports: (local qualname, target), for re-exports.
    aliases: tuple[tuple[str, str], ...] = ()
    # Module-level classes: (qualname, the qualified names of their bases).
    classes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Module-level `name = Callee(...)`: (qualname, the callee's qualname).
    instances: tuple[tuple[str, str], ...] = ()
    functions: tuple[FunctionSummary, ...] = ()
    task_decorators: tuple[TaskDecorator, ...] = ()
    # Models registered with a framework that writes them inside a transaction
    # of its own (Django's `admin.site.register(Order)`): (model, line, the
    # registering call's qualified name).
    registered: tuple[tuple[str, int, str], ...] = ()
    # Module-level functions that are certainly what `FileFacts.plain_definitions`
    # lists (`joblint.index.plain`): qualified names.
    plain_functions: tuple[str, ...] = ()
    # Module-level classes the facts list as plain definitions with no kind
    # and no unique key of their own: their `ClassFacts` are their bases here.
    plain_classes: tuple[str, ...] = ()
    # The request handlers it defines.
    entries: tuple[Entry, ...] = ()
    # The receivers it connects to signals: (signal, handler, line); a
    # factory's result is `<factory>.<returned>` (`joblint.index.signals`).
    connections: tuple[tuple[str, str, int], ...] = ()
    # Module-level `Alias = Annotated[T, Depends(dependency)]`: (qualname, dependency).
    dependency_aliases: tuple[tuple[str, str], ...] = ()
    # Classes whose requests Django runs outside `ATOMIC_REQUESTS`: their
    # `dispatch` is marked `non_atomic_requests` (a mixin's, say), or the
    # class through `method_decorator(..., name="dispatch")`. So are the
    # classes deriving from them.
    non_atomic_classes: tuple[str, ...] = ()
    # The services it registers with a service locator (`knowledge.requests.SERVICE_APIS`).
    services: tuple[ServiceRegistration, ...] = ()
    # What it registers to run after or around a framework's request handlers.
    hooks: tuple[RequestHook, ...] = ()


# How a `RequestHook` runs: the whole function after the handler (a Flask
# teardown), around it (a middleware: only what follows its call of the
# next app comes after), or a configuration key committing after every one.
HOOK_AFTER = "after"
HOOK_AROUND = "around"
HOOK_SETTING = "setting"


@dataclass(frozen=True, slots=True)
class RequestHook:
    """A function a module registers to run after a framework's request
    handlers (`@app.teardown_request`) or around them (`app.add_middleware(
    Cls)`), or a setting committing after them: read by `joblint.index.hooks`."""

    # Whose hook it is (`RequestHooks.framework`: "flask", "starlette").
    framework: str
    # The function or middleware class (qualified), or the setting's key.
    target: str
    line: int
    kind: str
    # The blueprint whose own handlers alone it runs after (qualified; "":
    # every handler of the app, or a blueprint's if the object is one).
    of: str = ""


@dataclass(frozen=True, slots=True)
class ServiceRegistration:
    """`config.register_service_factory(factory, iface=..., name=...)`: what
    a find of the key (`interface`, `name`; "" for one not given) returns."""

    interface: str
    name: str
    # The factory's qualified name (a class, or a function returning an
    # instance of one); with `instance`, the registered object's (a
    # module-level instance, or the class a local is an instance of).
    made: str
    line: int
    instance: bool = False


@dataclass(frozen=True, slots=True)
class ReceiverFact:
    """A function of another module connected here to a model signal
    (`post_delete.connect(handlers.on_deleted, sender=Order)`)."""

    handler: str  # the function's qualified name
    signal: str  # "post_delete"
    writes: tuple[str, ...]  # SAVE, DELETE, M2M
    model: str
    line: int = 0  # of the `connect` call
    m2m_field: str = ""
    # How a message names the write the framework wraps in a transaction of
    # its own ("" when the writer's transaction decides).
    own_transaction: str = ""


@dataclass(frozen=True, slots=True)
class FileFacts:
    """Per-file facts whole-project steps need. Pure data, cacheable."""

    module: str
    tasks: tuple[TaskDef, ...] = ()
    # Module-level names bound to a queue-library object: qualname -> library.
    queue_objects: tuple[tuple[str, str], ...] = ()
    # Module-level functions and classes that are neither tasks nor decorated.
    plain_definitions: tuple[str, ...] = ()
    # Project-wide switches this file turns on, e.g. "django_q.orm_broker".
    flags: tuple[str, ...] = ()
    # Module-level imports, so re-exports can be followed: (local qualname, target).
    aliases: tuple[tuple[str, str], ...] = ()
    classes: tuple[ClassFacts, ...] = ()
    # Parameter names of module-level functions and methods ("mod.f", "mod.C.m"),
    # for JL103 (an option the job function declares is one of its arguments).
    function_params: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Module-level constants (qualname -> static expression), for cross-file evaluation.
    constants: tuple[tuple[str, Expr], ...] = ()
    # Broker settings, time limits and delays (the whole-project rules, JL5).
    broker: BrokerFacts = field(default_factory=BrokerFacts)
    # Suppression comments, for findings the project step places in this file:
    # (line, codes, alone on its line); line 0 = file-level codes.
    suppressions: tuple[tuple[int, tuple[str, ...], bool], ...] = ()
    # Module-level objects whose `.Model` attribute is a declarative base
    # (`db = SQLAlchemy(app)`): qualname -> kind of the models deriving from it.
    model_factories: tuple[tuple[str, str], ...] = ()
    # Django database aliases this file says take no writes (a settings
    # module's test mirrors, a router's read-only aliases).
    read_only_databases: tuple[str, ...] = ()
    # Settings modules this file names as its project's (an entry point:
    # `manage.py`, `wsgi.py`, a Celery app): see joblint.pipeline.project.settings_scope.
    loads_settings: tuple[str, ...] = ()
    # Module-level names bound to a call (`processor = Processor()`): qualname ->
    # the callee's qualname, so that an instance of a project class is known
    # to be the project's object, whose methods are never a library's.
    instances: tuple[tuple[str, str], ...] = ()
    # Django `CACHES = {...}` set at module level: (alias, BACKEND), the backend
    # "" when it isn't a plain string and the alias "" when CACHES isn't a dict.
    cache_backends: tuple[tuple[str, str], ...] = ()
    # The task class an app builds its tasks on when they name none
    # (`Celery(task_cls=OnCommitTask)`, `app.Task = OnCommitTask`): (app, class).
    app_task_classes: tuple[tuple[str, str], ...] = ()
    # Functions of other modules this file connects to model signals.
    receivers: tuple[ReceiverFact, ...] = ()
    # Views this file's URLconf registers (functions, and classes by `as_view()`).
    url_views: tuple[str, ...] = ()
    # The apps its settings install (`INSTALLED_APPS`, literal strings):
    # the project's own packages among them share its settings.
    installed_apps: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FileResult:
    path: str
    findings: tuple[Finding, ...] = ()
    pending: tuple[PendingFinding, ...] = ()
    facts: FileFacts = field(default_factory=lambda: FileFacts(module=""))
    # Internal errors (a rule raised): reported separately, exit status 2.
    errors: tuple[str, ...] = ()
    # One-line warnings about the file (a malformed suppression comment).
    warnings: tuple[str, ...] = ()
    # Whether the file was read and parsed (False for JL001 files).
    parsed: bool = True
    # The module's part of the project model (None: not read, or not Python).
    index: ModuleIndex | None = None
    # Lines (first, last) of the functions this file's migrations run with
    # `RunPython(...)`: one-off code, reported like test code (joblint.pipeline.project.scope).
    one_off: tuple[tuple[int, int], ...] = ()

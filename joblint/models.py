"""Plain, frozen, picklable data passed between the engine, project step and reporters.

Nothing here refers to LibCST nodes: a `FileResult` can cross a process boundary
or be stored in a cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a run replayed from its memo never imports the requirement types
    from joblint.requirements import Requirement


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A source range; lines and columns are 1-based, the end is exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


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


# Where a pending finding's message names what the project step finds (each
# a placeholder its requirement's namer fills: `joblint.requirements`): the
# chain of calls to an enqueue or a side effect; the caller claiming the
# returned row; the task running the function; the task that hands itself to
# a helper; the enqueue a helper hands a value to; the task's use of an
# argument as a model instance; the helper returning the value; the request
# handler reaching it; what a receiver receives (the signal, the model, where
# it is connected and why it is transactional); the transactional write found.
CHAIN = "\u27e8chain\u27e9"
CLAIMER = "\u27e8claimer\u27e9"
JOB_RUNNER = "\u27e8job\u27e9"
CALLER = "\u27e8caller\u27e9"
HANDED = "\u27e8handed\u27e9"
USED = "\u27e8used\u27e9"
RETURNED = "\u27e8returned\u27e9"
REACHED_FROM = "\u27e8reached\u27e9"
RECEIVED = "\u27e8received\u27e9"
WRITTEN = "\u27e8written\u27e9"
# What a caller does with what a call returns (`ProjectCall.result_use`):
# writes or deletes it (`job.save()`, `session.delete(job)`), or only sets a
# field of it (`job.state = "running"`).
RESULT_WRITTEN = "written"
RESULT_SET = "set"
# A payload's value in the dict a helper returns (`ReturnsObject.in_dict`).
RETURNED_ITEM = "item"
# `RowDepends.fields` when the write may set any field of the row.
ANY_FIELD = "*"
# A write saving the whole row (`RowDepends.whole_row`).
WHOLE_ROW = "whole"
# How a model is written (`WrittenInTransaction.ways`), as Django's model
# signals tell them apart: saved, deleted, a many-to-many field changed.
SAVE = "save"
DELETE = "delete"
M2M = "m2m"
# A save that may create the row (a `post_save` receiver's `created` branch
# needs one): `Order.objects.create()`, `get_or_create()`.
CREATE = "create"
# How a message says what each write does to a model.
WRITE_VERBS = {SAVE: "saves", DELETE: "deletes", M2M: "changes", CREATE: "creates"}


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

"""What a library module declares: its names, defaults and shapes, as data.

Each module of `joblint.libraries` (one per library: `celery.py`, `rq.py`,
`django.py`, ...) defines `LIBRARIES`, a tuple of `Library` values. The
package merges them into the lookup tables the analysis reads
(`joblint.knowledge`), so supporting a new library is adding one module here.
Qualified names have LibCST's `QualifiedNameProvider` meaning: the dotted
path a name is imported from (`from django.db import transaction` makes
`transaction.atomic` -> `django.db.transaction.atomic`).

Nothing here imports LibCST: the prefilter derives its triggers from these
tables in processes that never parse with LibCST.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Receiver(Enum):
    """What the receiver of an enqueue-named method must be for the call to enqueue."""

    # The name alone is distinctive (`app.send_task`, `redis.enqueue_job`).
    ANY = "any"
    # A module-level name that is imported or defined as a task, or a Celery
    # signature/canvas: the rule for Celery's `.delay`/`.apply_async`. Locals
    # and attributes of instances (`flight.delay(5)`, `pool.apply_async`) are not.
    TASK_LIKE = "task-like"
    # Must resolve to a task of one of the libraries in the project's task index.
    TASK = "task"
    # Must be bound to a queue/broker object of one of the libraries.
    QUEUE = "queue"


@dataclass(frozen=True, slots=True)
class EnqueueMethod:
    """How a method enqueues: on which receiver, for which libraries.

    A library module gives `libraries=()`: the merge fills in the library
    declaring it, and joins the libraries sharing a method and receiver."""

    libraries: tuple[str, ...]
    receiver: Receiver
    # Key into knowledge.payloads.PAYLOAD_SHAPES when it differs from the method
    # name (Django's `task.enqueue(*args)` vs RQ's `queue.enqueue(func, *args)`).
    payload_shape: str = ""
    # Module prefixes one of which must be in reach (imported by the module, or
    # by a project module it imports) when the receiver's library can't be
    # told: the method name alone is that library's only where it is used.
    # Empty: the name is distinctive enough on a task-like receiver.
    reach: tuple[str, ...] = ()


class TxFamily(Enum):
    """Which kind of transaction API: it says how to defer work to COMMIT."""

    DJANGO = "django"
    SQLALCHEMY = "sqlalchemy"
    PSYCOPG = "psycopg"
    # The transaction package's managers (Pyramid's pyramid_tm, Zope).
    TRANSACTION_MANAGER = "transaction"
    GENERIC = "generic"


@dataclass(frozen=True, slots=True)
class AtomicHooks:
    """Methods a framework calls inside a transaction it opens itself: a
    class deriving from one of `bases` (the class index knows such classes
    as `kind`) has its methods named in `methods` run inside `opener`."""

    bases: tuple[str, ...]
    kind: str
    methods: frozenset[str]
    # How a finding names the transaction: "Django's admin".
    runner: str
    opener: str  # "transaction.atomic()"
    family: TxFamily
    # Calls registering a model with the framework, which then writes it in
    # its transaction (`admin.site.register(Order)`, `@admin.register(Order)`).
    registrations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelSignals:
    """A framework's signals sent while a model is written, inside the
    writer's transaction: each signal with the write it reports (`SAVE`,
    `DELETE`, `M2M` of `joblint.models`), the decorators and the method that
    connect receivers, the keyword naming the model, and the ways the model
    is written (methods of an instance, of its manager, of a queryset)."""

    signals: tuple[tuple[str, str], ...]
    receiver_decorators: tuple[str, ...]
    connect_method: str
    sender_keyword: str
    receiver_keyword: str
    # The `Model.<field>.through` attribute naming a many-to-many field's table.
    through_attribute: str
    # Per write: the instance methods, and the manager's methods, that do it.
    instance_writes: tuple[tuple[str, tuple[str, ...]], ...]
    manager_writes: tuple[tuple[str, tuple[str, ...]], ...]
    managers: tuple[str, ...]
    # A queryset's methods that write each row (`Order.objects.filter(...).delete()`).
    queryset_writes: tuple[tuple[str, tuple[str, ...]], ...]
    # A many-to-many field's methods that change it (`order.tags.add(tag)`).
    m2m_methods: tuple[str, ...]
    # The writes whose signals the framework sends inside a transaction it
    # opens itself, whoever writes (with how a message names it).
    own_transactions: tuple[tuple[str, str], ...] = ()
    # Manager methods that write inside a transaction of their own, with how
    # a message names it (`get_or_create`, whose create runs in `atomic()`).
    atomic_manager_writes: tuple[tuple[str, str], ...] = ()
    # Manager methods that may create the row (a receiver's `created` is True).
    creating_methods: tuple[str, ...] = ()
    # The keyword a receiver is handed the written instance by, and the kind
    # of that value (`joblint.libraries.objects`): "" for none.
    instance_keyword: str = ""
    instance_kind: str = ""


@dataclass(frozen=True, slots=True)
class PayloadShape:
    """Which arguments of an enqueue call end up in the job's payload."""

    skip_positional: int = 0  # leading positionals that aren't payload (func, eta)
    args_keyword: str = ""  # keyword holding a list/tuple of positional payload
    kwargs_keyword: str = ""  # keyword holding a dict of keyword payload
    args_position: int = -1  # positional index of the args list, when allowed
    kwargs_position: int = -1
    rest_is_payload: bool = True  # other positionals / keywords are payload too
    reserved: frozenset[str] = frozenset()  # option keywords that aren't payload
    reserved_prefix: str = ""  # arq: `_job_id`, `_defer_by`, ...


@dataclass(frozen=True, slots=True)
class ForwardedOptions:
    """Execution options a call hands to the job as arguments (`task.delay(countdown=5)`):
    the options, and where they belong (`{task}`/`{option}` in the advice)."""

    options: frozenset[str]
    fix: str


@dataclass(frozen=True, slots=True)
class SettingsFlag:
    """A project-wide switch a settings module turns on: `setting` is a dict
    literal holding the key `key` (`Q_CLUSTER = {"orm": "default"}`)."""

    setting: str
    key: str
    flag: str


@dataclass(frozen=True, slots=True)
class Library:
    """One library's facts. Every table is optional: a library declares what it has."""

    key: str
    display: str
    job_noun: str = "task"  # what the library calls a job: "task", "job", "actor"
    # What it calls a job's call built to be sent later: "signature", "kicker".
    signature_noun: str = "signature"
    article: str = "a"  # for "an SQS message"
    verb: str = "is enqueued"  # "is sent" for SQS, "is published" for kombu
    # A queue call's first argument names the job (RQ's function), not the
    # message itself (an SQS body).
    names_jobs: bool = True
    # Import prefixes: the library is in reach of code importing one of them.
    modules: tuple[str, ...] = ()

    # --- jobs ---
    # Decorators (called or bare) that register the decorated function as a job.
    task_decorators: tuple[str, ...] = ()
    # `@<queue object>.<method>` registers a job of the object's library.
    task_decorator_methods: tuple[str, ...] = ()
    # Calls whose result is one of its queue objects (an app, broker or queue).
    queue_constructors: tuple[str, ...] = ()
    # Module prefix + class-name suffix, for libraries with many broker classes.
    queue_constructor_patterns: tuple[tuple[str, str], ...] = ()
    # Queue objects the library itself makes at import (djhuey's `HUEY`):
    # `@HUEY.task()` registers a job of the library wherever it is imported.
    queue_objects: tuple[str, ...] = ()
    # `boto3.client("sqs")`: the constructor and its service-name argument.
    service_clients: tuple[tuple[str, str], ...] = ()
    # `boto3.resource("sqs")`: a resource whose queue accessors give queues.
    service_resources: tuple[tuple[str, str], ...] = ()
    resource_queue_methods: tuple[str, ...] = ()
    # `connection.Producer(...)`: a method making one of its queue objects.
    producer_methods: tuple[str, ...] = ()
    enqueue_methods: tuple[tuple[str, EnqueueMethod], ...] = ()
    # A job's methods building the message a queue's `enqueue` sends
    # (`huey.enqueue(task.s(...))`, `broker.enqueue(actor.message(...))`).
    message_methods: tuple[str, ...] = ()
    # Plain functions that enqueue.
    enqueue_functions: tuple[str, ...] = ()
    # Calling one of its tasks enqueues it (Huey); elsewhere a call runs it in-process.
    enqueues_on_call: bool = False
    # Calling the result enqueues (`chain(a.s(), b.s())()`).
    canvas_callables: tuple[str, ...] = ()
    # Calls and methods that build a signature, whose `.delay()` enqueues.
    signature_functions: tuple[str, ...] = ()
    signature_methods: tuple[str, ...] = ()
    # Of those, the task methods whose signature, sent, calls the task's own
    # `apply_async` (so a task class deferring it defers the signature too).
    own_signature_methods: tuple[str, ...] = ()
    # Task methods whose signature, sent, runs the task's body once per item
    # through a job of the library's own (Celery's `chunks`: its starmap task).
    item_signature_methods: tuple[str, ...] = ()
    # Canvases that send each member signature through its own `apply_async`.
    member_sending_canvases: tuple[str, ...] = ()
    # A task's methods returning a copy of it with other options (Django
    # tasks' `task.using(priority=...)`): sending the copy sends the task.
    task_copy_methods: tuple[str, ...] = ()
    # Which arguments of each enqueue method are the payload (a method name,
    # "__call__" for calling a task, or `EnqueueMethod.payload_shape`).
    payload_shapes: tuple[tuple[str, PayloadShape], ...] = ()
    # Calls that pass every keyword to the job: options given there are lost.
    forwarded_options: tuple[tuple[str, ForwardedOptions], ...] = ()
    # Keywords of its enqueues that hold the job back (`countdown=`, `eta=`),
    # and enqueue methods that always do (`enqueue_in`): a worker can't pick
    # such a job up at once.
    delay_options: tuple[str, ...] = ()
    delayed_methods: tuple[str, ...] = ()
    # Enqueue methods that return a coroutine (nothing is enqueued until it is
    # awaited), and whether the receiver must be known to be async for that.
    async_enqueue_methods: tuple[tuple[str, bool], ...] = ()
    # Its queue objects are async clients (`await pool.enqueue_job(...)`).
    async_queues: bool = False
    # Its own enqueue-after-COMMIT methods (`delay` -> `delay_on_commit`).
    on_commit_variants: tuple[tuple[str, str], ...] = ()
    # A project flag that makes its enqueues part of the database transaction
    # (the queue lives in the database: the transactional outbox).
    transactional_when: str = ""
    settings_flags: tuple[SettingsFlag, ...] = ()

    # --- databases ---
    # Callables that open a transaction as a context manager or decorator.
    transaction_functions: tuple[tuple[str, TxFamily], ...] = ()
    # `with <x>.method(...)`: a transaction whatever `<x>` is (a documented heuristic).
    transaction_methods: tuple[tuple[str, TxFamily], ...] = ()
    # `@<x>.method` / `@<x>.method(...)` as a decorator.
    transaction_decorator_methods: tuple[str, ...] = ()
    # Transactions whose `using=` (or first argument) names the database alias.
    database_alias_calls: tuple[str, ...] = ()
    # `with conn:` where `conn` is bound to one of these: commit on exit.
    connect_functions: tuple[tuple[str, TxFamily], ...] = ()
    # `@method_decorator(transaction.atomic, name="post")`.
    method_decorator_adapters: tuple[str, ...] = ()
    # Registering a callback that runs after COMMIT.
    on_commit_functions: tuple[str, ...] = ()
    on_commit_methods: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    """How a library's app takes its broker settings, for the whole-project
    rules (a visibility timeout against job time limits and delays).

    Settings are named by role: "broker_url", "transport_options" and
    "time_limit" (a global hard time limit)."""

    library: str
    # role -> every spelling that sets it (new, namespaced and legacy names).
    settings: tuple[tuple[str, frozenset[str]], ...]
    # The app class, and its keywords that set a setting (`Celery(broker=...)`).
    app_classes: tuple[str, ...]
    app_keywords: tuple[tuple[str, str], ...]
    # `app.<attribute>.x = ...` and `app.<attribute>.update(...)`.
    config_attribute: str
    update_methods: tuple[str, ...]
    # `app.config_from_object("proj.celeryconfig")`, and what names Django's settings.
    loader_method: str
    django_settings_object: str
    # Config modules found by name when nothing points at them.
    config_module_names: frozenset[str]
    # The transport options' key holding the visibility timeout (the transports
    # and their defaults: `BrokerTransport`).
    visibility_key: str
    # A task's own hard time limit (decorator keyword or Task attribute), and the
    # libraries whose task decorators take it ("" for an unresolved `@app.task`).
    time_limit_option: str
    time_limit_libraries: frozenset[str]
    # Delays: `apply_async(countdown=N)`, `self.retry(countdown=N)`, `eta=...`.
    delay_keywords: frozenset[str]
    delay_methods: frozenset[str]
    # Calls that take execution options as keywords, the delays and a hard
    # time limit among them (`apply_async(time_limit=N)`, `sig.set(countdown=N)`,
    # `task.signature(args, time_limit=N)`), and their keyword holding a dict of
    # them (`signature(..., options={...})`).
    option_methods: frozenset[str] = frozenset()
    options_keyword: str = ""
    # The app keyword naming a config object (`Celery(config_source=Config)`).
    config_source_keyword: str = ""
    # Roles whose setting makes the app run jobs in the caller, with no broker
    # (`task_always_eager = True`): a configuration with it has no visibility timeout.
    eager_role: str = ""


@dataclass(frozen=True, slots=True)
class BrokerTransport:
    """A broker transport that redelivers an unacknowledged message after a
    visibility timeout (kombu's Redis and SQS transports)."""

    name: str  # "Redis", "SQS"
    # Broker URL schemes that select it (`redis://`, `rediss://`, `sqs://`).
    schemes: tuple[str, ...]
    # Its visibility timeout when the transport options give none, in seconds.
    default_visibility: float
    # Transport options that take the visibility timeout out of the code's hands
    # (SQS `predefined_queues`: queues created outside, with their own timeout).
    external_queue_keys: tuple[str, ...] = ()
    # A transport option holding the attributes of the queues it creates, and
    # the attribute among them that overrides `visibility_timeout`
    # (SQS `{"sqs-creation-attributes": {"VisibilityTimeout": "7200"}}`).
    creation_attributes_key: str = ""
    visibility_attribute: str = ""


@dataclass(frozen=True, slots=True)
class EnvironmentReader:
    """How code reads an environment variable, its name a string given first:
    a function (`os.getenv("X", default)`), a mapping read by subscript
    (`os.environ["X"]`), or an instance of a class, called or through a
    method (`env = environ.Env()`, then `env("X")`, `env.str("X")`). The
    whole-project rules take a static default for the value, and without one
    the variable's value in the project's deployment files."""

    library: str
    # (function, the position of its default argument).
    functions: tuple[tuple[str, int], ...] = ()
    mappings: tuple[str, ...] = ()
    instance_classes: tuple[str, ...] = ()
    # (method, the position of its default argument); "" is calling the instance.
    instance_methods: tuple[tuple[str, int], ...] = ()
    default_keyword: str = "default"
    # The instance classes' constructors declare variables' defaults as
    # `NAME=(cast, default)` keywords (django-environ's `Env(**scheme)`).
    declares_defaults: bool = False


@dataclass(frozen=True, slots=True)
class UrlBuilder:
    """Calls that build a URL from its parts, its scheme given by a keyword
    (`yarl.URL.build(scheme=...)`). `word` names a project's own helpers of
    the kind: a function whose name holds it (`make_url(scheme=...)`) and
    that is passed the keyword builds a URL whose scheme it is."""

    library: str
    functions: tuple[str, ...]
    scheme_keyword: str = "scheme"
    word: str = ""


@dataclass(frozen=True, slots=True)
class SettingsModel:
    """Settings classes whose fields are read from environment variables
    (pydantic-settings' `BaseSettings`): a field `broker_url: str` is the
    variable `BROKER_URL` (the class's prefix first; names are matched
    ignoring case unless the class says otherwise), a default is its value
    when the variable isn't set, `Field(validation_alias="X")` names it."""

    library: str
    bases: tuple[str, ...]
    field_functions: tuple[str, ...]
    # `Field(...)` keywords naming the variable, and the default's.
    alias_keywords: tuple[str, ...]
    default_keyword: str = "default"
    # Where the class's options are: the attribute (a dict or a call of keywords)
    # and the inner class; the options giving the prefix and case sensitivity.
    config_attribute: str = "model_config"
    config_class: str = "Config"
    prefix_option: str = "env_prefix"
    case_option: str = "case_sensitive"


@dataclass(frozen=True, slots=True)
class SettingsClasses:
    """Settings written as classes (django-configurations): a class deriving
    from one of `bases` holds settings as class attributes, inherited and
    overridden like any attribute; `values` wrap a setting's default
    (`values.IntegerValue(3600)`, first positional argument or `default=`)."""

    library: str
    bases: tuple[str, ...]
    # Qualified-name prefix and suffix of the value wrappers.
    value_prefix: str = ""
    value_suffix: str = ""
    value_default_keyword: str = "default"
    # The environment variable naming the class a settings module uses.
    class_variable: str = ""


@dataclass(frozen=True, slots=True)
class TaskClassOption:
    """A task decorator's option naming the class a task is built on; a
    project class overriding the class's enqueue methods decides what they do
    (deferring them to COMMIT, say)."""

    keyword: str  # "base"
    # (enqueue method, the methods it calls on the same task): an enqueue is
    # deferred when the class defers it or one of those.
    methods: tuple[tuple[str, tuple[str, ...]], ...]
    # The app-wide default for tasks that don't name one: the app's keyword
    # (`Celery(task_cls=...)`) and attribute (`app.Task = ...`) setting it, and
    # the decorators binding a task to every app (`shared_task`).
    app_keyword: str = ""
    app_attribute: str = ""
    shared_decorators: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RequestHandlers:
    """How a web framework marks the functions it runs as request handlers,
    and the settings flag that makes it run them inside the request's
    transaction (`joblint.index.entries` reads them)."""

    # The framework whose switch it is ("django", "pyramid").
    framework: str
    # How a message names one of its handlers: "a django-ninja operation".
    how: str
    # Decorators (qualified names) that make the function they decorate a
    # handler: `rest_framework.decorators.api_view`, `pyramid.view.view_config`.
    decorators: tuple[str, ...] = ()
    # Router classes whose instances' `route_methods` register the function
    # they decorate (`api = NinjaAPI()`, `@api.post("/x")`).
    routers: tuple[str, ...] = ()
    route_methods: tuple[str, ...] = ()
    # Classes deriving from one of `bases` (qualified-name prefixes) have
    # their `methods` run as handlers (graphene's `Mutation.mutate`).
    bases: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    # How a decorator of the project registers a handler as `decorators` do:
    # it attaches a callback to the function with one of `attach_functions`
    # (run when the app scans its modules) that calls one of the app
    # configurator's `config_methods` (Pyramid's `venusian.attach` and
    # `config.add_view`).
    attach_functions: tuple[str, ...] = ()
    config_methods: tuple[str, ...] = ()
    # Calls registering the function they are handed as a handler: a class
    # or function (`Route("/x", endpoint)`, qualified) or, named ".method", a
    # router's method (`bp.add_url_rule("/x", view_func=f)`); with the
    # position and the keyword the function may be passed as.
    route_calls: tuple[tuple[str, int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class RequestHooks:
    """How a web framework runs the project's functions after its request
    handlers (a Flask `teardown_request`) or around them (a Starlette
    middleware): one that commits a session there commits the request's
    once the handler has returned (`joblint.index.hooks` reads them)."""

    # The framework whose transaction such a commit makes ("flask").
    framework: str
    # The frameworks of the handlers it runs after (`RequestHandlers.framework`).
    handlers: tuple[str, ...]
    # How a message says the request is a transaction, and how to defer a job
    # past its COMMIT ("": another declaration of the framework's says).
    transaction: str = ""
    fix_hint: str = ""
    # Methods of an app or blueprint registering a function run after the
    # handler, as a decorator or called with it (`@app.teardown_request`,
    # `app.teardown_appcontext(f)`).
    hook_methods: tuple[str, ...] = ()
    # Of those, the ones that, called on one of `blueprints` (classes), run
    # only after the handlers that blueprint registers.
    own_hook_methods: tuple[str, ...] = ()
    blueprints: tuple[str, ...] = ()
    # Methods of an app adding a middleware class (`app.add_middleware(Cls)`),
    # classes wrapping one for an app's `middleware=[...]` (`Middleware(Cls)`),
    # and the keyword handing either a function doing its work (`dispatch=f`).
    middleware_adders: tuple[str, ...] = ()
    middleware_wrappers: tuple[str, ...] = ()
    dispatch_keyword: str = ""
    # Decorator methods of an app registering a middleware function
    # (`@app.middleware("http")`).
    middleware_decorators: tuple[str, ...] = ()
    # A middleware class's methods handling a request, and how a middleware
    # runs the handler: a call of its parameter (`await call_next(request)`)
    # or of its own attribute (`await self.app(scope, receive, send)`).
    middleware_methods: tuple[str, ...] = ()
    next_parameters: tuple[str, ...] = ()
    next_attributes: tuple[str, ...] = ()
    # Configuration keys set true to commit after every request
    # (Flask-SQLAlchemy's `SQLALCHEMY_COMMIT_ON_TEARDOWN`).
    commit_settings: tuple[str, ...] = ()
    # Middleware classes of a library committing the request's session after
    # the endpoint where the keyword they are added with is true
    # (`app.add_middleware(DBSessionMiddleware, commit_on_exit=True)`).
    committing_middleware: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ServiceApi:
    """A service locator a request handler asks for its services: a call on
    what it returns is a call of the service's method, the service being what
    the factory the app registers under the same key makes (or the instance
    it registers). Keys are an interface (a class) and a name, either optional."""

    # Methods of the request that find a service (`request.find_service(...)`),
    # on an object whose last name is one of `receivers` (`self.request`).
    find_methods: tuple[str, ...] = ()
    receivers: tuple[str, ...] = ()
    # The parameters a find takes, in order: those keying the service among them.
    find_parameters: tuple[str, ...] = ()
    # Methods of the app's configurator registering a factory (called with
    # the request to make the service), or an instance that is the service:
    # each takes it first, then `register_parameters`.
    factory_registrations: tuple[str, ...] = ()
    instance_registrations: tuple[str, ...] = ()
    register_parameters: tuple[str, ...] = ()
    # The keying parameters: the interface's (a class) and the name's (a string).
    interface_parameter: str = ""
    name_parameter: str = ""
    # A find with no interface finds a service registered under any
    # interface with its name (zope.interface's lookup by a base interface).
    any_interface: bool = False


@dataclass(frozen=True, slots=True)
class SignalApi:
    """How a library's signals connect receivers and send: a receiver runs
    inside the sender's call, so inside whatever transaction the sender is in."""

    # Decorators connecting the function they decorate to the signals their
    # first argument names (`@receiver(order_placed)`, `@receiver([a, b])`).
    receiver_decorators: tuple[str, ...] = ()
    # Methods of a signal object connecting a receiver, the first argument or
    # `receiver=` (`order_placed.connect(handler)`; as a decorator, blinker's
    # `@order_placed.connect`).
    connect_methods: tuple[str, ...] = ()
    # Methods of a signal object calling its receivers there and then.
    send_methods: tuple[str, ...] = ()

"""What the job, queue and database libraries look like, as data.

Rules and analysis helpers consult these tables; they never spell a library's
names themselves. Supporting a new queue library means adding rows here.
Facts come from the libraries' own source (see shared/reference/job-libraries.md).

Qualified names use LibCST's `QualifiedNameProvider` meaning: the dotted path a
name was imported from (`from django.db import transaction` makes
`transaction.atomic` -> `django.db.transaction.atomic`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True, slots=True)
class Library:
    key: str
    display: str
    job_noun: str  # what the library calls a job: "task", "job", "actor"
    article: str = "a"  # for "an SQS message"


LIBRARIES: dict[str, Library] = {
    lib.key: lib
    for lib in (
        Library("celery", "Celery", "task"),
        Library("rq", "RQ", "job", "an"),
        Library("dramatiq", "Dramatiq", "actor"),
        Library("huey", "Huey", "task"),
        Library("arq", "arq", "job"),
        Library("taskiq", "taskiq", "task"),
        Library("procrastinate", "procrastinate", "task"),
        Library("django_q", "django-q", "task"),
        Library("django_tasks", "Django", "task"),
        Library("sqs", "SQS", "message", "an"),
        Library("kombu", "kombu", "message"),
        Library("user", "configured", "job"),
        # Huey's djhuey `on_commit_task` defers itself to COMMIT: never an enqueue race.
        Library("huey_on_commit", "Huey", "task"),
    )
}


# --- Task registration -------------------------------------------------------

# Decorators (called or bare) that register the decorated function as a job.
TASK_DECORATORS: dict[str, str] = {
    "celery.shared_task": "celery",
    "celery.app.shared_task": "celery",
    "celery.task": "celery",
    "dramatiq.actor": "dramatiq",
    "dramatiq.actor.actor": "dramatiq",
    "rq.job": "rq",
    "rq.decorators.job": "rq",
    "django_rq.job": "rq",
    "huey.contrib.djhuey.task": "huey",
    "huey.contrib.djhuey.db_task": "huey",
    "huey.contrib.djhuey.periodic_task": "huey",
    "huey.contrib.djhuey.db_periodic_task": "huey",
    "huey.contrib.djhuey.on_commit_task": "huey_on_commit",
    "django.tasks.task": "django_tasks",
    "django_tasks.task": "django_tasks",
    "taskiq.async_shared_broker.task": "taskiq",
    "taskiq.brokers.shared_broker.shared_task": "taskiq",
}

# `@<queue object>.<method>` registers a job of the object's library. When the
# object can't be resolved the task is still recorded, with an unknown library.
TASK_DECORATOR_METHODS: frozenset[str] = frozenset(
    {"task", "periodic_task", "db_task", "db_periodic_task", "context_task", "actor", "periodic"}
)

# Calls whose result is a queue-library object (an app, broker or queue).
QUEUE_CONSTRUCTORS: dict[str, str] = {
    "celery.Celery": "celery",
    "celery.app.Celery": "celery",
    "celery.app.base.Celery": "celery",
    "huey.Huey": "huey",
    "huey.RedisHuey": "huey",
    "huey.RedisExpireHuey": "huey",
    "huey.PriorityRedisHuey": "huey",
    "huey.PriorityRedisExpireHuey": "huey",
    "huey.SqliteHuey": "huey",
    "huey.MemoryHuey": "huey",
    "huey.FileHuey": "huey",
    "huey.api.Huey": "huey",
    "huey.contrib.djhuey.HUEY": "huey",
    "procrastinate.App": "procrastinate",
    "procrastinate.Blueprint": "procrastinate",
    "rq.Queue": "rq",
    "rq.queue.Queue": "rq",
    "django_rq.get_queue": "rq",
    "django_rq.queues.get_queue": "rq",
    "rq_scheduler.Scheduler": "rq",
    "django_rq.get_scheduler": "rq",
    "arq.create_pool": "arq",
    "arq.connections.create_pool": "arq",
    "arq.connections.ArqRedis": "arq",
    "kombu.Producer": "kombu",
    "kombu.messaging.Producer": "kombu",
    "taskiq.InMemoryBroker": "taskiq",
    "taskiq.ZeroMQBroker": "taskiq",
}

# Module prefix + class-name suffix for libraries with many broker classes
# (taskiq_redis.ListQueueBroker, taskiq_aio_pika.AioPikaBroker, ...).
QUEUE_CONSTRUCTOR_PATTERNS: tuple[tuple[str, str, str], ...] = (("taskiq", "Broker", "taskiq"),)

# `boto3.client("sqs")`: constructor, the service-name argument, the library.
SERVICE_CLIENTS: dict[tuple[str, str], str] = {
    ("boto3.client", "sqs"): "sqs",
    ("boto3.session.Session.client", "sqs"): "sqs",
    ("aioboto3.client", "sqs"): "sqs",
}
# `boto3.resource("sqs")` yields a resource whose queue accessors yield queues.
SERVICE_RESOURCES: dict[tuple[str, str], str] = {("boto3.resource", "sqs"): "sqs"}
RESOURCE_QUEUE_METHODS: frozenset[str] = frozenset({"Queue", "get_queue_by_name", "create_queue"})
# `connection.Producer(...)` in kombu.
PRODUCER_METHODS: dict[str, str] = {"Producer": "kombu"}


# --- Enqueue calls -----------------------------------------------------------


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


# The modules of each library, for "is the library in reach" (EnqueueMethod.reach).
LIBRARY_MODULES: dict[str, tuple[str, ...]] = {
    "celery": ("celery",),
    "rq": ("rq", "django_rq", "rq_scheduler"),
    "arq": ("arq",),
    "taskiq": ("taskiq",),
    "dramatiq": ("dramatiq", "django_dramatiq"),
    "huey": ("huey",),
}
LIBRARY_MODULES_ARQ_RQ = (*LIBRARY_MODULES["arq"], *LIBRARY_MODULES["rq"])

ENQUEUE_METHODS: dict[str, tuple[EnqueueMethod, ...]] = {
    "delay": (EnqueueMethod(("celery", "rq"), Receiver.TASK_LIKE),),
    "apply_async": (EnqueueMethod(("celery",), Receiver.TASK_LIKE),),
    "send_task": (EnqueueMethod(("celery",), Receiver.ANY, reach=("celery",)),),
    "send": (EnqueueMethod(("dramatiq",), Receiver.TASK),),
    "send_with_options": (EnqueueMethod(("dramatiq",), Receiver.TASK_LIKE),),
    "schedule": (EnqueueMethod(("huey",), Receiver.TASK),),
    "kiq": (EnqueueMethod(("taskiq",), Receiver.TASK_LIKE, reach=("taskiq",)),),
    "enqueue": (
        EnqueueMethod(("rq",), Receiver.QUEUE),
        EnqueueMethod(("django_tasks", "rq"), Receiver.TASK, payload_shape="task.enqueue"),
    ),
    "aenqueue": (EnqueueMethod(("django_tasks",), Receiver.TASK_LIKE),),
    "enqueue_call": (EnqueueMethod(("rq",), Receiver.QUEUE),),
    "enqueue_at": (EnqueueMethod(("rq",), Receiver.QUEUE),),
    "enqueue_in": (EnqueueMethod(("rq",), Receiver.QUEUE),),
    "enqueue_many": (EnqueueMethod(("rq",), Receiver.QUEUE),),
    "enqueue_job": (EnqueueMethod(("arq", "rq"), Receiver.ANY, reach=LIBRARY_MODULES_ARQ_RQ),),
    "send_message": (EnqueueMethod(("sqs",), Receiver.QUEUE),),
    "send_message_batch": (EnqueueMethod(("sqs",), Receiver.QUEUE),),
    "send_messages": (EnqueueMethod(("sqs",), Receiver.QUEUE),),
    "publish": (EnqueueMethod(("kombu",), Receiver.QUEUE),),
}

# Plain functions that enqueue: qualified name -> library.
ENQUEUE_FUNCTIONS: dict[str, str] = {
    "django_q.tasks.async_task": "django_q",
    "django_q.tasks.async_chain": "django_q",
    "django_q.tasks.async_iter": "django_q",
}

# Calling a task of these libraries enqueues it (Huey); for all others a direct
# call runs the function in-process.
ENQUEUE_ON_CALL_LIBRARIES: frozenset[str] = frozenset({"huey"})

# Calling the result of these enqueues (`chain(a.s(), b.s())()`, `chord(h)(b)`).
CANVAS_CALLABLES: frozenset[str] = frozenset(
    f"{module}.{name}"
    for module in ("celery", "celery.canvas")
    for name in ("chain", "group", "chord", "chunks")
)
# Celery canvas: these build signatures; `.delay()`/`.apply_async()` on them enqueue.
SIGNATURE_FUNCTIONS: frozenset[str] = CANVAS_CALLABLES | {
    "celery.signature",
    "celery.subtask",
    "celery.canvas.signature",
    "celery.canvas.Signature",
}
SIGNATURE_METHODS: frozenset[str] = frozenset(
    {"s", "si", "signature", "subtask", "set", "clone", "chunks", "map", "starmap"}
)

# Project-wide flags that make an enqueue transactional (the outbox effect).
# library -> flag set by a settings file (see the facts collector).
TRANSACTIONAL_WHEN_FLAG: dict[str, str] = {"django_q": "django_q.orm_broker"}


# --- Transactions ------------------------------------------------------------


class TxFamily(Enum):
    DJANGO = "django"
    SQLALCHEMY = "sqlalchemy"
    PSYCOPG = "psycopg"
    GENERIC = "generic"


@dataclass(frozen=True, slots=True)
class TransactionApi:
    family: TxFamily


# Callables that open a transaction when used as a context manager or decorator.
TRANSACTION_FUNCTIONS: dict[str, TxFamily] = {
    "django.db.transaction.atomic": TxFamily.DJANGO,
    "tortoise.transactions.in_transaction": TxFamily.GENERIC,
    "tortoise.transactions.atomic": TxFamily.GENERIC,
    "joblint.runtime.transaction.atomic": TxFamily.GENERIC,
}

# Transactions whose `using=` (or first argument) names the database alias.
DATABASE_ALIAS_CALLS: frozenset[str] = frozenset({"django.db.transaction.atomic"})
# A Django database that takes no writes: in settings, an alias whose "TEST"
# entry has a "MIRROR" (a replica of another database), and in a database
# router, the aliases `db_for_read` returns that `db_for_write` never does.
DATABASE_TEST_KEY = "TEST"
DATABASE_MIRROR_KEY = "MIRROR"
DATABASES_SETTING = "DATABASES"
ROUTER_READ_METHOD = "db_for_read"
ROUTER_WRITE_METHOD = "db_for_write"

# `with <x>.method(...)`: a transaction whatever `<x>` is (documented heuristic).
TRANSACTION_METHODS: dict[str, TxFamily] = {
    "atomic": TxFamily.GENERIC,
    "transaction": TxFamily.GENERIC,
    "begin": TxFamily.SQLALCHEMY,
    "begin_nested": TxFamily.SQLALCHEMY,
}
# `@<x>.method` / `@<x>.method(...)` as a decorator.
TRANSACTION_DECORATOR_METHODS: frozenset[str] = frozenset({"atomic", "transaction"})

# `with conn:` where `conn` is bound to one of these: commit on exit.
CONNECT_FUNCTIONS: dict[str, TxFamily] = {
    "psycopg2.connect": TxFamily.PSYCOPG,
    "psycopg.connect": TxFamily.PSYCOPG,
    "psycopg.Connection.connect": TxFamily.PSYCOPG,
    "psycopg.AsyncConnection.connect": TxFamily.PSYCOPG,
}

# `@method_decorator(transaction.atomic, name="post")` (Django's class decorator adapter).
METHOD_DECORATOR_ADAPTERS: frozenset[str] = frozenset({"django.utils.decorators.method_decorator"})

# Registering a callback that runs after COMMIT.
ON_COMMIT_FUNCTIONS: frozenset[str] = frozenset(
    {"django.db.transaction.on_commit", "joblint.runtime.transaction.on_commit"}
)
ON_COMMIT_METHODS: frozenset[str] = frozenset({"on_commit"})

# How an entry point names the settings module its project loads: the
# environment variable Django reads (`os.environ.setdefault(NAME, "x.settings")`
# or `os.environ[NAME] = ...`) and Celery's `app.config_from_object("x.celeryconfig")`
# (`"django.conf:settings"` names Django's, i.e. the variable's).
SETTINGS_MODULE_VARIABLE = "DJANGO_SETTINGS_MODULE"
CONFIG_FROM_OBJECT_METHOD = "config_from_object"

# Django migration operations that run a function once, at deploy time
# (`RunPython(forwards, backwards)`): one-off code, not the job path.
RUN_PYTHON_OPERATIONS: frozenset[str] = frozenset(
    {
        "django.db.migrations.RunPython",
        "django.db.migrations.operations.RunPython",
        "django.db.migrations.operations.special.RunPython",
    }
)
RUN_PYTHON_FUNCTION_KEYWORDS: frozenset[str] = frozenset({"code", "reverse_code"})

# What to suggest, per transaction family.
FIX_HINTS: dict[TxFamily, str] = {
    TxFamily.DJANGO: "Enqueue it in transaction.on_commit(...)",
    TxFamily.SQLALCHEMY: (
        "Enqueue it after the commit, or register it with "
        "joblint.runtime.transaction.on_commit(session, ...)"
    ),
    TxFamily.PSYCOPG: (
        "Enqueue it after the commit, use joblint.runtime.transaction.atomic(conn) "
        "and tx.on_commit(...), or write it to joblint.runtime.outbox"
    ),
    TxFamily.GENERIC: (
        "Enqueue it after the transaction commits (an on-commit hook), "
        "or write it to joblint.runtime.outbox"
    ),
}

# `.commit()` with no arguments ends a transaction (JL102) when the receiver's
# last name looks like a session, connection or transaction (`session.commit()`,
# `db.session.commit()`, `self._session.commit()`, `aconn.commit()`,
# `transaction.commit()`). A documented heuristic: `writer.commit()` (a search
# index) or git's `index.commit("msg")` are not database commits.
COMMIT_METHOD = "commit"
# Calls that write to the database (an ORM or a DB-API cursor): an enqueue
# after a commit with none of these between them needs no later commit.
DATABASE_WRITE_METHODS: frozenset[str] = frozenset(
    {
        "add",
        "add_all",
        "bulk_create",
        "bulk_update",
        "bulk_insert_mappings",
        "bulk_update_mappings",
        "create",
        "delete",
        "execute",
        "executemany",
        "flush",
        "get_or_create",
        "insert",
        "merge",
        "save",
        "update",
        "update_or_create",
    }
)
COMMIT_RECEIVER_PATTERN = r"(session|conn|connection|transaction|txn|tx|db|database|uow)s?$"

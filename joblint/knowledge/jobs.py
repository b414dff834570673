"""The job, queue and database libraries' tables, merged from their modules.

Each library declares its own data in `joblint.libraries.<library>`; this module
joins them into the lookups the analysis reads (qualified name -> library,
method -> enqueue shapes, ...). Rules and analysis helpers consult these
tables; they never spell a library's names themselves.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from joblint.libraries import all_libraries, collect
from joblint.libraries.base import AtomicHooks as AtomicHooks
from joblint.libraries.base import EnqueueMethod as EnqueueMethod
from joblint.libraries.base import Library as Library
from joblint.libraries.base import ModelSignals as ModelSignals
from joblint.libraries.base import Receiver as Receiver
from joblint.libraries.base import SettingsFlag as SettingsFlag
from joblint.libraries.base import TaskClassOption as TaskClassOption
from joblint.libraries.base import TxFamily as TxFamily
from joblint.libraries.joblint_runtime import ATOMIC, ON_COMMIT, OUTBOX
from joblint.libraries.joblint_runtime import ON_COMMIT_AFTER_SESSION as ON_COMMIT_AFTER_SESSION
from joblint.libraries.queries import RowWrites

_ALL = all_libraries()

LIBRARIES: dict[str, Library] = {
    **{library.key: library for library in _ALL},
    # The names a user configures (`extend-enqueue-functions`).
    "user": Library("user", "configured", "job"),
}


def _by_name(names_of: Iterable[tuple[str, Iterable[str]]]) -> dict[str, str]:
    return {name: key for key, names in names_of for name in names}


# --- Task registration -------------------------------------------------------

TASK_DECORATORS: dict[str, str] = _by_name((lib.key, lib.task_decorators) for lib in _ALL)
TASK_DECORATOR_METHODS: frozenset[str] = frozenset(
    method for lib in _ALL for method in lib.task_decorator_methods
)
# A class whose base is written with one of these last names is a (Celery)
# class-based task, whatever module the base comes from.
TASK_BASE_CLASS_NAMES = frozenset({"Task", "DjangoTask"})
QUEUE_CONSTRUCTORS: dict[str, str] = _by_name((lib.key, lib.queue_constructors) for lib in _ALL)
QUEUE_OBJECTS: dict[str, str] = _by_name((lib.key, lib.queue_objects) for lib in _ALL)
QUEUE_CONSTRUCTOR_PATTERNS: tuple[tuple[str, str, str], ...] = tuple(
    (prefix, suffix, lib.key) for lib in _ALL for prefix, suffix in lib.queue_constructor_patterns
)
SERVICE_CLIENTS: dict[tuple[str, str], str] = {
    pair: lib.key for lib in _ALL for pair in lib.service_clients
}
SERVICE_RESOURCES: dict[tuple[str, str], str] = {
    pair: lib.key for lib in _ALL for pair in lib.service_resources
}
RESOURCE_QUEUE_METHODS: frozenset[str] = frozenset(
    method for lib in _ALL for method in lib.resource_queue_methods
)
PRODUCER_METHODS: dict[str, str] = _by_name((lib.key, lib.producer_methods) for lib in _ALL)


# --- Enqueue calls -----------------------------------------------------------

# The modules of each library, for "is the library in reach".
LIBRARY_MODULES: dict[str, tuple[str, ...]] = {lib.key: lib.modules for lib in _ALL if lib.modules}

# A queue receiver is tried before a task one (`queue.enqueue(...)` on an
# imported name is RQ's queue method first, a task's `enqueue` second).
_RECEIVER_ORDER = (Receiver.QUEUE, Receiver.ANY, Receiver.TASK_LIKE, Receiver.TASK)


def _enqueue_methods() -> dict[str, tuple[EnqueueMethod, ...]]:
    """Per method, one shape per (receiver, payload shape), joining the
    libraries that share it (in key order) and their reach."""
    shapes: dict[str, dict[tuple[Receiver, str], EnqueueMethod]] = {}
    for lib in _ALL:
        for method, shape in lib.enqueue_methods:
            key = (shape.receiver, shape.payload_shape)
            known = shapes.setdefault(method, {}).get(key)
            libraries = (*known.libraries, lib.key) if known else (lib.key,)
            reach = (*known.reach, *shape.reach) if known else shape.reach
            shapes[method][key] = EnqueueMethod(
                libraries, shape.receiver, shape.payload_shape, reach
            )
    return {
        method: tuple(sorted(found.values(), key=lambda s: _RECEIVER_ORDER.index(s.receiver)))
        for method, found in shapes.items()
    }


ENQUEUE_METHODS: dict[str, tuple[EnqueueMethod, ...]] = _enqueue_methods()
ENQUEUE_FUNCTIONS: dict[str, str] = _by_name((lib.key, lib.enqueue_functions) for lib in _ALL)
# The top-level packages of the libraries joblint knows: never the project's own code.
LIBRARY_TOPS: frozenset[str] = frozenset(
    module.split(".", 1)[0] for modules in LIBRARY_MODULES.values() for module in modules
)


def queue_constructor_library(qualname: str) -> str | None:
    """The library whose queue object a call of `qualname` makes (`rq.Queue`,
    `django_rq.get_queue`, a taskiq `...Broker`), or None."""
    library = QUEUE_CONSTRUCTORS.get(qualname)
    if library is not None:
        return library
    for prefix, suffix, lib in QUEUE_CONSTRUCTOR_PATTERNS:
        if qualname.startswith(prefix) and qualname.endswith(suffix):
            return lib
    return None


def queue_method_library(qualname: str) -> str | None:
    """The library when `qualname` is an enqueue method of the object one of
    its queue constructors makes (`rq.queue.Queue.enqueue`: `Queue(...).enqueue`,
    or `q.enqueue` on `q = Queue(...)`), else None."""
    maker, _, method = qualname.rpartition(".")
    library = queue_constructor_library(maker) if maker else None
    return library if library is not None and enqueues_on_queue(library, method) else None


def enqueues_on_queue(library: str, method: str) -> bool:
    """Whether `method` of one of `library`'s queue objects enqueues."""
    return any(
        shape.receiver in (Receiver.QUEUE, Receiver.ANY) and library in shape.libraries
        for shape in ENQUEUE_METHODS.get(method, ())
    )


def may_be_project_code(qualname: str) -> bool:
    """Whether a qualified name may name the project's own code: not the
    standard library's, nor that of a library joblint knows."""
    top = qualname.split(".", 1)[0]
    return top not in sys.stdlib_module_names and top not in LIBRARY_TOPS


def job_subject(library: str, name: str) -> str:
    """How a finding names a job: "Celery task 'send_receipt'", "an RQ job"."""
    lib = LIBRARIES.get(library)
    if lib is None:
        return f"task '{name}'" if name else "a job"
    if not name:
        return f"{lib.article} {lib.display} {lib.job_noun}"
    return f"{lib.display} {lib.job_noun} '{name}'"


def job_verb(library: str) -> str:
    lib = LIBRARIES.get(library)
    return lib.verb if lib is not None else "is enqueued"


# Calling a task of these libraries enqueues it; for all others a direct call
# runs the function in-process.
ENQUEUE_ON_CALL_LIBRARIES: frozenset[str] = frozenset(
    lib.key for lib in _ALL if lib.enqueues_on_call
)
# Calling the result of these enqueues (`chain(a.s(), b.s())()`, `chord(h)(b)`).
CANVAS_CALLABLES: dict[str, str] = _by_name((lib.key, lib.canvas_callables) for lib in _ALL)
# These build signatures; `.delay()`/`.apply_async()` on them enqueue.
SIGNATURE_FUNCTIONS: dict[str, str] = _by_name((lib.key, lib.signature_functions) for lib in _ALL)
SIGNATURE_METHODS: dict[str, str] = _by_name((lib.key, lib.signature_methods) for lib in _ALL)
# Keywords and methods of enqueues that hold the job back.
DELAY_OPTIONS: frozenset[str] = frozenset(k for lib in _ALL for k in lib.delay_options)
DELAYED_METHODS: frozenset[str] = frozenset(m for lib in _ALL for m in lib.delayed_methods)
# A job's methods building the message a queue's `enqueue` sends: the job is their receiver.
MESSAGE_METHODS: frozenset[str] = frozenset(m for lib in _ALL for m in lib.message_methods)
TASK_COPY_METHODS: frozenset[str] = frozenset(m for lib in _ALL for m in lib.task_copy_methods)
OWN_SIGNATURE_METHODS: frozenset[str] = frozenset(
    method for lib in _ALL for method in lib.own_signature_methods
)
ITEM_SIGNATURE_METHODS: frozenset[str] = frozenset(
    method for lib in _ALL for method in lib.item_signature_methods
)
MEMBER_SENDING_CANVASES: frozenset[str] = frozenset(
    name for lib in _ALL for name in lib.member_sending_canvases
)
# library -> its methods' enqueue-after-COMMIT twins (`delay` -> `delay_on_commit`).
ON_COMMIT_VARIANTS: dict[str, dict[str, str]] = {
    lib.key: dict(lib.on_commit_variants) for lib in _ALL if lib.on_commit_variants
}
# Project-wide flags that make a library's enqueues transactional (the outbox
# effect): library -> the flag a settings module sets.
TRANSACTIONAL_WHEN_FLAG: dict[str, str] = {
    lib.key: lib.transactional_when for lib in _ALL if lib.transactional_when
}
SETTINGS_FLAGS: tuple[SettingsFlag, ...] = tuple(f for lib in _ALL for f in lib.settings_flags)


# --- Transactions ------------------------------------------------------------

TRANSACTION_FUNCTIONS: dict[str, TxFamily] = {
    q: family for lib in _ALL for q, family in lib.transaction_functions
}
DATABASE_ALIAS_CALLS: frozenset[str] = frozenset(
    q for lib in _ALL for q in lib.database_alias_calls
)
TRANSACTION_METHODS: dict[str, TxFamily] = {
    m: family for lib in _ALL for m, family in lib.transaction_methods
}
TRANSACTION_DECORATOR_METHODS: frozenset[str] = frozenset(
    m for lib in _ALL for m in lib.transaction_decorator_methods
)
CONNECT_FUNCTIONS: dict[str, TxFamily] = {
    q: family for lib in _ALL for q, family in lib.connect_functions
}
METHOD_DECORATOR_ADAPTERS: frozenset[str] = frozenset(
    q for lib in _ALL for q in lib.method_decorator_adapters
)
# Framework classes whose methods run inside a transaction the framework opens
# (Django's admin), by base class.
ATOMIC_HOOKS: dict[str, AtomicHooks] = {
    base: hooks for hooks in collect("ATOMIC_HOOKS") for base in hooks.bases
}
ATOMIC_HOOKS_BY_KIND: dict[str, AtomicHooks] = {
    hooks.kind: hooks for hooks in collect("ATOMIC_HOOKS")
}
HOOK_KINDS: frozenset[str] = frozenset(ATOMIC_HOOKS_BY_KIND)
HOOK_METHODS: frozenset[str] = frozenset(
    method for hooks in collect("ATOMIC_HOOKS") for method in hooks.methods
)
# Calls registering a model with a framework that writes it in its own transaction.
FRAMEWORK_REGISTRATIONS: dict[str, AtomicHooks] = {
    call: hooks for hooks in collect("ATOMIC_HOOKS") for call in hooks.registrations
}
# Signals sent inside the transaction that writes a model (Django's `post_save`).
MODEL_SIGNALS: tuple[ModelSignals, ...] = collect("MODEL_SIGNALS")
# signal -> (its library's signals, the write it reports).
SIGNAL_WRITES: dict[str, tuple[ModelSignals, str]] = {
    signal: (signals, write) for signals in MODEL_SIGNALS for signal, write in signals.signals
}
RECEIVER_DECORATORS: dict[str, ModelSignals] = {
    decorator: signals for signals in MODEL_SIGNALS for decorator in signals.receiver_decorators
}
ON_COMMIT_FUNCTIONS: frozenset[str] = frozenset(q for lib in _ALL for q in lib.on_commit_functions)
ON_COMMIT_METHODS: frozenset[str] = frozenset(m for lib in _ALL for m in lib.on_commit_methods)


def in_standard_library(qualname: str) -> bool:
    """Whether a name comes from the standard library, which defines no tasks,
    models or project classes (so it never needs the project's index)."""
    return qualname.split(".", 1)[0] in sys.stdlib_module_names


# Decorators that make a generator function a context manager: one that yields
# inside a transaction opens a transaction for its `with` (and, as a
# `ContextDecorator`, for a function it decorates).
CONTEXT_MANAGER_DECORATORS: frozenset[str] = frozenset(
    {"contextlib.contextmanager", "contextlib.asynccontextmanager"}
)

# A class entered as a context manager (`with Cls():`) runs its `__enter__`;
# one entering a transaction there (`self.tx = atomic(); self.tx.__enter__()`,
# `stack.enter_context(atomic())`) opens one for the `with`. The methods that
# enter another manager: on it (`__enter__`) or on their argument (`enter_context`).
ENTER_METHODS: frozenset[str] = frozenset({"__enter__", "__aenter__"})
ENTERING_METHODS: frozenset[str] = ENTER_METHODS
ENTERING_FUNCTIONS: frozenset[str] = frozenset({"enter_context", "enter_async_context"})

# Functions that fix some of a callable's arguments: `partial(shared_task,
# max_retries=3)` is a task decorator whose call's own keywords override them.
PARTIAL_FUNCTIONS: frozenset[str] = frozenset({"functools.partial"})

# What to suggest, per transaction family.
FIX_HINTS: dict[TxFamily, str] = {
    TxFamily.DJANGO: "Enqueue it in transaction.on_commit(...)",
    TxFamily.SQLALCHEMY: (
        f"Enqueue it after the commit, or register it with {ON_COMMIT}(session, ...)"
    ),
    TxFamily.PSYCOPG: (
        f"Enqueue it after the commit, use {ATOMIC}(conn) "
        f"and tx.on_commit(...), or write it to {OUTBOX}"
    ),
    TxFamily.TRANSACTION_MANAGER: (
        "Enqueue it in an after-commit hook: "
        "transaction.get().addAfterCommitHook(lambda ok: ok and ...)"
    ),
    TxFamily.GENERIC: (
        "Enqueue it after the transaction commits (an on-commit hook), "
        f"or write it to {OUTBOX}"
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


# Task decorators' options naming the class a task is built on: the keyword,
# and for each enqueue method the methods of that class that decide it.
TASK_CLASS_OPTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    option.keyword: {method: (method, *calls) for method, calls in option.methods}
    for option in collect("TASK_CLASS_OPTIONS")
}
# The options whose app-wide default an app sets (`Celery(task_cls=...)`).
APP_TASK_CLASS_OPTIONS: tuple[TaskClassOption, ...] = tuple(
    option for option in collect("TASK_CLASS_OPTIONS") if option.app_keyword
)


# --- writes of one row (JL106) -------------------------------------------------------

_ROW_WRITES: tuple[RowWrites, ...] = collect("ROW_WRITES")
# `order.save()`: the methods of a model instance that write its row.
ROW_WRITE_METHODS: frozenset[str] = frozenset(m for w in _ROW_WRITES for m in w.instance_methods)
# `Order.objects.filter(pk=order.pk).update(...)`: queryset writes, and the
# filters and key lookups that pin them to one instance's row.
PINNED_WRITE_METHODS: frozenset[str] = frozenset(m for w in _ROW_WRITES for m in w.pinned_methods)
PINNING_FILTERS: frozenset[str] = frozenset(m for w in _ROW_WRITES for m in w.filters)
KEY_LOOKUPS: frozenset[str] = frozenset(k for w in _ROW_WRITES for k in w.key_lookups)
ROW_KEY_ATTRIBUTES: frozenset[str] = frozenset(a for w in _ROW_WRITES for a in w.key_attributes)
MODEL_MANAGERS: frozenset[str] = frozenset(m for w in _ROW_WRITES for m in w.managers)
# How a job loads the row it was handed the key of, and what it may do with it
# without handing it on (`joblint.index.row_fields`).
ROW_LOADERS: frozenset[str] = frozenset(m for w in _ROW_WRITES for m in w.row_loaders)
ROW_LOADER_FUNCTIONS: frozenset[str] = frozenset(f for w in _ROW_WRITES for f in w.loader_functions)
ONLY_FIELDS_KEYWORDS: frozenset[str] = frozenset(
    w.only_fields_keyword for w in _ROW_WRITES if w.only_fields_keyword
)
# The writes of one row that set fields of it rather than delete it.
_DELETES: frozenset[str] = frozenset(m for w in _ROW_WRITES for m in w.deleting_methods)
ROW_SAVE_METHODS: frozenset[str] = ROW_WRITE_METHODS - _DELETES
PINNED_UPDATE_METHODS: frozenset[str] = PINNED_WRITE_METHODS - _DELETES
ROW_PLAIN_METHODS: frozenset[str] = frozenset(m for w in _ROW_WRITES for m in w.plain_methods)
SELF_SET_FIELD_OPTIONS: frozenset[str] = frozenset(
    o for w in _ROW_WRITES for o in w.self_set_options
)

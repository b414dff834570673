"""The vocabulary of triggers: what a file must contain for a rule to fire there.

Each rule declares its own triggers (`Rule.TRIGGERS`), built from the pieces
here where they are derived from the library tables (an enqueue call, a
transaction, a Redis client), and the generated rule catalogue carries them,
so the prefilter never imports a rule. A rule fires only where one of its
triggers is in the file's bytes. A trigger
is literal anchors (one of them must occur; cheap `in` tests) and regular
expressions (each must match), all on the lower-cased bytes, so both are
written in lower case. Triggers are derived from the library tables where
those name the trigger, and are kept conservative by a test that lints every
rule example, the examples and the fixtures with and without the prefilter and
requires identical findings.

Some enqueue methods are ordinary words (`x.send(...)`, `q.publish(...)`,
`queue.enqueue(...)`): they enqueue only when the receiver is a task or queue
object of a job library. Their triggers are *gated*: in the first pass a file
needs the method and a job library's name or a task decorator; a file with the
method but neither is linted in a second pass only when it names one of the
project's tasks or queue objects (`joblint.api`).

What several families (or the screen itself) read stays here: the job libraries,
enqueue calls, transactions, the whole-project facts. What only one family's
rules read is that family's (`joblint/rules/<family>/_tokens.py`), built from
the pieces here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from joblint.knowledge import brokers, jobs, locks, payloads, work
from joblint.knowledge.trigger import Trigger as Trigger
from joblint.libraries import django


def alternatives(words: list[str] | set[str] | frozenset[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words))


def tails(qualnames: Iterable[str]) -> set[str]:
    return {q.rsplit(".", 1)[-1].lower() for q in qualnames}


def tops(qualnames: Iterable[str]) -> set[str]:
    """The module a qualified name is imported from, as a file spells it."""
    tops = set()
    for name in qualnames:
        parts = name.split(".")
        # `django.tasks.task`: `django` alone says nothing about job code.
        tops.add(".".join(parts[:2]) if parts[0] == "django" else parts[0])
    return tops


# --- Job libraries and task definitions ----------------------------------------------

_LIBRARY_QUALNAMES = [
    *jobs.TASK_DECORATORS,
    *jobs.QUEUE_CONSTRUCTORS,
    *(q for q, _ in (*jobs.SERVICE_CLIENTS, *jobs.SERVICE_RESOURCES)),
    *(prefix for prefix, _, _ in jobs.QUEUE_CONSTRUCTOR_PATTERNS),
    *jobs.ENQUEUE_FUNCTIONS,
]
LIBRARY_WORDS = sorted(tops(_LIBRARY_QUALNAMES))
_TASK_DECORATOR_TAILS = tails(jobs.TASK_DECORATORS) | set(jobs.TASK_DECORATOR_METHODS)

# A file that may define a task or a queue object: it names a job library or
# decorates something with a task decorator (`@app.task`, `@shared_task`).
DEFINES_JOBS: tuple[Trigger, ...] = (
    Trigger(tuple(LIBRARY_WORDS), (rf"\b(?:{alternatives(LIBRARY_WORDS)})\b",)),
    Trigger(
        ("@",),
        (rf"@\s*[\w.]*\b(?:{alternatives(_TASK_DECORATOR_TAILS)})\b",),
        also=(tuple(sorted(_TASK_DECORATOR_TAILS)),),
    ),
)


# A file that may define a task by a decorator the project builds
# (`@retrying` imported from the project), for the rules about task bodies.
DEFINES_PROJECT_TASKS = Trigger(("@",), confirm="project-decorated-function")


# A file that may define a task whose call enqueues it: it names the library
# (on the lower-cased bytes, like every trigger).
DEFINES_ON_CALL_TASKS = alternatives({name.lower() for name in jobs.ENQUEUE_ON_CALL_LIBRARIES})


# --- Enqueue calls ------------------------------------------------------------------

_TASK_OR_QUEUE = (jobs.Receiver.TASK, jobs.Receiver.QUEUE)
# Task or queue methods whose name is too common to gate on a job library or
# task name alone (`.run(`, `.map(`): the file imports their library.
LIBRARY_BOUND_METHODS: dict[str, tuple[str, ...]] = {
    method: tuple(sorted({module for shape in shapes for module in shape.reach}))
    for method, shapes in jobs.ENQUEUE_METHODS.items()
    if all(shape.receiver in _TASK_OR_QUEUE and shape.reach for shape in shapes)
}
# Methods whose receiver must be a task or queue object: the gated ones.
WORD_METHODS = sorted(
    method
    for method, shapes in jobs.ENQUEUE_METHODS.items()
    if all(shape.receiver in _TASK_OR_QUEUE for shape in shapes)
    and method not in LIBRARY_BOUND_METHODS
)
# Methods distinctive on their own (`.delay(`, `.apply_async(`, `.send_task(`) and
# signature methods (`.s(`, `.si(`) whose payloads are checked too.
_OWN_METHODS = sorted(
    (
        {*jobs.ENQUEUE_METHODS, *payloads.PAYLOAD_SHAPES}
        - set(WORD_METHODS)
        - set(LIBRARY_BOUND_METHODS)
        - {"__call__"}
    )
    - {"task.enqueue"}
)


def calls(methods: list[str]) -> tuple[str, ...]:
    """`.name(`: a method call, not the bare word. (A space before the
    parenthesis, which no formatter writes, is not looked for.)"""
    return tuple(f".{m}(" for m in methods)


_ENQUEUE_FUNCTION_TRIGGERS = tuple(
    Trigger((f"{tails([q]).pop()}(",), (re.escape(tops([q]).pop()),))
    for q in sorted(jobs.ENQUEUE_FUNCTIONS)
)
# `chain(...)()`, `group(...)()`: the file imports from the library that has them.
_CANVAS = Trigger(
    tuple(f"{n}(" for n in sorted(tails(jobs.CANVAS_CALLABLES))),
    (alternatives(tops(jobs.CANVAS_CALLABLES)),),
)
# `functools.partial(queue.enqueue, ...)`: the method is named without a call.
_PARTIAL = Trigger(
    ("partial(",),
    (rf"\.(?:{alternatives({*_OWN_METHODS, *WORD_METHODS})})\s*[,)]",),
)

_LIBRARY_BOUND = tuple(
    Trigger(calls([method]), (rf"\b(?:{alternatives(set(modules))})\b",))
    for method, modules in sorted(LIBRARY_BOUND_METHODS.items())
)

ENQUEUE_TRIGGERS: tuple[Trigger, ...] = (
    Trigger(calls(_OWN_METHODS)),
    *_LIBRARY_BOUND,
    # `task.chunks(...)()` enqueues the chunks.
    Trigger(calls(["chunks"])),
    Trigger(calls(WORD_METHODS), gated=True),
    *_ENQUEUE_FUNCTION_TRIGGERS,
    _CANVAS,
    _PARTIAL,
)

# A transaction scope: `atomic` (with, decorator, method_decorator), `.begin(`,
# `.transaction(`, Tortoise's `in_transaction`, psycopg's `with conn:`.
_TRANSACTION_METHODS = sorted(set(jobs.TRANSACTION_METHODS) - {"atomic"})
# A framework's methods it runs inside its own transaction (`def save_model(` of
# Django's admin): their definitions open one.
_HOOK_METHODS = sorted({m for hooks in jobs.ATOMIC_HOOKS.values() for m in hooks.methods})
# A model signal's receiver runs inside the transaction of whoever writes the model.
_MODEL_SIGNALS = sorted({signal.rsplit(".", 1)[-1] for signal in jobs.SIGNAL_WRITES})
_VIEW_HOOKS = sorted(django.VIEW_HOOK_METHODS)
# A model registered with a framework that writes it in its own transaction
# (`admin.site.register(Order)`, `@admin.register(Order)`).
_REGISTRATIONS = sorted({".".join(c.split(".")[-2:]) + "(" for c in jobs.FRAMEWORK_REGISTRATIONS})
TRANSACTION_ANCHORS = (
    "atomic",
    "in_transaction",
    "psycopg",
    # A transaction manager's block (`with request.tm:`, `with transaction.manager:`).
    "request.tm",
    "transaction.manager",
    *calls(_TRANSACTION_METHODS),
    *(f"def {method}(" for method in _HOOK_METHODS),
    *_MODEL_SIGNALS,
    *_REGISTRATIONS,
    # A view, inside the request's transaction with ATOMIC_REQUESTS.
    "(request",
    "(self, request",
    *(f"def {method}(" for method in _VIEW_HOOKS),
    # A function another module may connect to a model signal (`sender`, `**kwargs`).
    "sender",
    "instance",
)
# Each alternative starts with a literal, a word boundary before it checked
# behind (`def (?<=\bdef )`): the regular expression engine then scans for
# the literal instead of trying every alternative at every position (ten
# times faster on a large application's files).
_DEF = r"def (?<=\bdef )"
# Not the word given a value: a migration's `atomic = False`, an option's
# `atomic=False` open no transaction (the word used elsewhere in the file still counts).
_ATOMIC = r"atomic(?<=\batomic)\b(?!\s*=(?!=))"
_SIGNALS = rf"\b(?:{alternatives(_MODEL_SIGNALS)})\b"
_DEF_HOOK = rf"{_DEF}(?:{alternatives(_HOOK_METHODS)})\("
_DEF_VIEW = rf"{_DEF}\w+\(\s*(?:self,\s*)?request\b"
_DEF_VIEW_HOOK = rf"{_DEF}(?:{alternatives(_VIEW_HOOKS)})\("
_DEF_RECEIVER = rf"{_DEF}\w+\([^)]*\b(?:sender|instance)\b[^)]*\*\*"
TRANSACTION = (
    rf"{_ATOMIC}|in_transaction|psycopg|request\.tm\b|transaction\.manager\b"
    rf"|\.(?:{alternatives(_TRANSACTION_METHODS)})\("
    rf"|{_DEF_HOOK}|{_SIGNALS}|{alternatives(_REGISTRATIONS)}"
    rf"|{_DEF_VIEW}|{_DEF_VIEW_HOOK}|{_DEF_RECEIVER}"
)
# A file that opens a transaction somewhere.
TRANSACTIONS = Trigger(TRANSACTION_ANCHORS, (TRANSACTION,))
# The same test, one alternative at a time, each looked for only where the
# anchors its match implies occur (a view's `request` parameter implies none:
# it stands with any anchor). Screening asks it of every file: first what
# opens or runs in a transaction whatever the settings...
OPENING_TRIGGERS: tuple[Trigger, ...] = (
    Trigger(("atomic",), (_ATOMIC,)),
    Trigger(("in_transaction", "psycopg", *calls(_TRANSACTION_METHODS), *_REGISTRATIONS)),
    Trigger(("request.tm", "transaction.manager"), (r"request\.tm\b|transaction\.manager\b",)),
    Trigger(tuple(f"def {method}(" for method in _HOOK_METHODS), (_DEF_HOOK,)),
    Trigger(tuple(_MODEL_SIGNALS), (_SIGNALS,)),
)
# ... then the shapes of a function run inside another's transaction: a
# request handler's (where the project's settings make requests
# transactions) and a model signal's receiver's (inside its sender's
# write), which the searches up from a function to its handlers and to the
# writes follow; their bodies open none.
HANDLER_TRIGGERS: tuple[Trigger, ...] = (
    Trigger(TRANSACTION_ANCHORS, (_DEF_VIEW,)),
    Trigger(tuple(f"def {method}(" for method in _VIEW_HOOKS), (_DEF_VIEW_HOOK,)),
    Trigger(("sender", "instance"), (_DEF_RECEIVER,)),
)
# A file that commits explicitly somewhere (`session.commit()`).
COMMITS = Trigger((".commit(",), (r"\.commit\(",))


# --- Whole-project facts ------------------------------------------------------------

# Django's `CACHES = {...}` (at the start of a line): the settings that say which
# backend a cache's `lock()` is. Its facts settle JL402's cache findings.
_CACHES = locks.CACHES_SETTING.lower()
CACHES_SETTING = Trigger((_CACHES,), (rf"(?m)^[ \t]*{_CACHES}\s*[:=]",))

_DATABASES = django.DATABASES_SETTING.lower()

_SETTINGS_BASES = brokers.SETTINGS_CLASS_BASES
_SETTING_NAMES = sorted({name.lower() for name in brokers.SPELLING_TO_SETTING})

# Whole-project facts read by rules that scan every file's facts (JL5's Celery
# settings and delays; django-q's ORM-broker switch; the Django cache backends
# JL402's cache findings are settled with; the entry points that say which
# project's files a settings module applies to). Facts looked up by name
# (tasks, classes, constants) are loaded on demand instead.
#
# What configures the project: the places a broker, its visibility timeout or
# a global setting is set, and what says which settings are in force.
PROJECT_SETTINGS: tuple[Trigger, ...] = (
    # A Celery app built or configured here (`Celery(...)`, `app.conf.x = ...`,
    # `app.conf.update(...)`); not every file naming Celery: a tasks module's
    # facts are read on demand, by the names findings depend on.
    Trigger(("celery(", "visibility_timeout")),
    # Also one setting's item or `update(...)`: `app.conf["x"] = ...`,
    # `app.conf.broker_transport_options.update(...)`.
    Trigger(
        (".conf.", ".conf["),
        (rf"\.conf(?:\.\w+\s*[=(\[]|\.\w+\.(?:{alternatives(brokers.UPDATE_METHODS)})\(|\[)",),
    ),
    # A setting set by its name: assigned, passed as a keyword, a dict's key.
    Trigger(tuple(_SETTING_NAMES), (rf"\b(?:{alternatives(_SETTING_NAMES)})['\"]?\s*[:=]",)),
    Trigger(("q_cluster",)),
    # A setting redelivering every task (`CELERY_TASK_ACKS_LATE = True`).
    Trigger(tuple(sorted({name.lower() for name in work.RERUN_SETTINGS}))),
    # Django running every view inside a transaction.
    Trigger(("atomic_requests",)),
    # A Pyramid app including pyramid_tm: every view runs inside a transaction.
    Trigger(("pyramid_tm",)),
    # A model signal connected to a function (of another module, perhaps).
    Trigger(tuple(_MODEL_SIGNALS), (r"\.connect\(",)),
    # A settings module or class setting Celery's namespaced settings
    # (`CELERY_TASK_ACKS_LATE = True`).
    Trigger(("celery_",), (r"(?m)^[ \t]*celery_\w+\s*[:=]",)),
    # A class deriving from a settings base class (django-configurations'
    # `class Base(Configuration)`), in a file naming the base's module.
    Trigger(
        tuple(f"{tail})" for tail in sorted(tails(_SETTINGS_BASES))),
        (rf"(?m)^[ \t]*(?:from|import)[ \t]+(?:{alternatives(tops(_SETTINGS_BASES))})\b",),
    ),
    # Entry points naming the settings module their project loads: settings
    # apply to that project's files only (joblint.pipeline.project.settings_scope),
    # and the settings class they load.
    Trigger(
        (
            django.SETTINGS_MODULE_VARIABLE.lower(),
            *sorted(v.lower() for v in brokers.SETTINGS_CLASS_VARIABLES),
            *sorted(brokers.LOADER_METHODS),
        )
    ),
    # Databases that take no writes: a test mirror in DATABASES, a router.
    Trigger((django.DATABASE_MIRROR_KEY.lower(),), (rf"(?m)^[ \t]*{_DATABASES}\s*[:=]",)),
    Trigger((django.ROUTER_READ_METHOD,)),
    CACHES_SETTING,
)

# A job's time limit (a task's `time_limit=`, an enqueue's, a global
# `task_time_limit`): every limit counts where a finding names the worst.
PROJECT_LIMITS: tuple[Trigger, ...] = (Trigger(("time_limit",)),)

# A delay an enqueue asks for (`countdown=`, `eta=`): each is judged alone.
PROJECT_DELAYS: tuple[Trigger, ...] = (
    Trigger(("countdown",)),
    Trigger(("eta=", "eta ="), (r"\beta\s*=",)),
)

PROJECT_FACTS: tuple[Trigger, ...] = (*PROJECT_SETTINGS, *PROJECT_LIMITS, *PROJECT_DELAYS)


# --- Options given a value ----------------------------------------------------------


def keyword_given(*keywords: str) -> str:
    """One of the options given a value, whatever the value: a keyword
    argument, a class attribute (annotated or not) or a dict entry
    (`max_retries=`, `max_retries: int = `, `"max_retries": `); not the word
    in another name or a comparison (`test_max_retries_exceeded`, `max_retries == 3`)."""
    spelled = alternatives({keyword.lower() for keyword in keywords})
    return rf"\b(?:{spelled})(?:\s*=(?!=)|['\"]\s*:|\s*:[^\n=]*=(?!=))"

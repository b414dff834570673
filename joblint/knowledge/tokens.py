"""What a file must contain for a rule to fire there, as data for the prefilter.

A rule fires only where one of its triggers is in the file's bytes. A trigger
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
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from joblint.knowledge import jobs, locks, payloads, retries


@dataclass(frozen=True, slots=True)
class Trigger:
    anchors: tuple[str, ...]
    patterns: tuple[str, ...] = ()
    # The method is an ordinary word: also needs a job library or task name.
    gated: bool = False
    # A check on Python's AST that must confirm the trigger (`joblint.pipeline.screen.ast_checks`).
    confirm: str = ""
    # Further groups of anchors, one of each must occur too (before any pattern).
    also: tuple[tuple[str, ...], ...] = ()


def _alternatives(words: list[str] | set[str] | frozenset[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words))


def _tails(qualnames: Iterable[str]) -> set[str]:
    return {q.rsplit(".", 1)[-1].lower() for q in qualnames}


def _tops(qualnames: Iterable[str]) -> set[str]:
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
LIBRARY_WORDS = sorted(_tops(_LIBRARY_QUALNAMES))
_TASK_DECORATOR_TAILS = _tails(jobs.TASK_DECORATORS) | set(jobs.TASK_DECORATOR_METHODS)

# A file that may define a task or a queue object: it names a job library or
# decorates something with a task decorator (`@app.task`, `@shared_task`).
DEFINES_JOBS: tuple[Trigger, ...] = (
    Trigger(tuple(LIBRARY_WORDS), (rf"\b(?:{_alternatives(LIBRARY_WORDS)})\b",)),
    Trigger(
        ("@",),
        (rf"@\s*[\w.]*\b(?:{_alternatives(_TASK_DECORATOR_TAILS)})\b",),
        also=(tuple(sorted(_TASK_DECORATOR_TAILS)),),
    ),
)


# A file that may define a task whose call enqueues it: it names the library
# (on the lower-cased bytes, like every trigger).
DEFINES_ON_CALL_TASKS = _alternatives({name.lower() for name in jobs.ENQUEUE_ON_CALL_LIBRARIES})


# --- Enqueue calls ------------------------------------------------------------------

_TASK_OR_QUEUE = (jobs.Receiver.TASK, jobs.Receiver.QUEUE)
# Methods whose receiver must be a task or queue object: the gated ones.
_WORD_METHODS = sorted(
    method
    for method, shapes in jobs.ENQUEUE_METHODS.items()
    if all(shape.receiver in _TASK_OR_QUEUE for shape in shapes)
)
# Methods distinctive on their own (`.delay(`, `.apply_async(`, `.send_task(`) and
# signature methods (`.s(`, `.si(`) whose payloads are checked too.
_OWN_METHODS = sorted(
    ({*jobs.ENQUEUE_METHODS, *payloads.PAYLOAD_SHAPES} - set(_WORD_METHODS) - {"__call__"})
    - {"task.enqueue"}
)


def _calls(methods: list[str]) -> tuple[str, ...]:
    """`.name(`: a method call, not the bare word. (A space before the
    parenthesis, which no formatter writes, is not looked for.)"""
    return tuple(f".{m}(" for m in methods)


_ENQUEUE_FUNCTION_TRIGGERS = tuple(
    Trigger((f"{_tails([q]).pop()}(",), (re.escape(_tops([q]).pop()),))
    for q in sorted(jobs.ENQUEUE_FUNCTIONS)
)
# `chain(...)()`, `group(...)()`: only Celery's, so the file imports from celery.
_CANVAS = Trigger(tuple(f"{n}(" for n in sorted(_tails(jobs.CANVAS_CALLABLES))), ("celery",))
# `functools.partial(queue.enqueue, ...)`: the method is named without a call.
_PARTIAL = Trigger(
    ("partial(",),
    (rf"\.(?:{_alternatives({*_OWN_METHODS, *_WORD_METHODS})})\s*[,)]",),
)

ENQUEUE_TRIGGERS: tuple[Trigger, ...] = (
    Trigger(_calls(_OWN_METHODS)),
    # `task.chunks(...)()` enqueues the chunks.
    Trigger(_calls(["chunks"])),
    Trigger(_calls(_WORD_METHODS), gated=True),
    *_ENQUEUE_FUNCTION_TRIGGERS,
    _CANVAS,
    _PARTIAL,
)

# A transaction scope: `atomic` (with, decorator, method_decorator), `.begin(`,
# `.transaction(`, Tortoise's `in_transaction`, psycopg's `with conn:`.
_TRANSACTION_METHODS = sorted(set(jobs.TRANSACTION_METHODS) - {"atomic"})
TRANSACTION_ANCHORS = ("atomic", "in_transaction", "psycopg", *_calls(_TRANSACTION_METHODS))
TRANSACTION = rf"\batomic\b|in_transaction|psycopg|\.(?:{_alternatives(_TRANSACTION_METHODS)})\("


def _enqueue_and(anchors: tuple[str, ...], pattern: str) -> tuple[Trigger, ...]:
    """An enqueue call in a file that also has one of `anchors` and matches
    `pattern`. (Huey task calls have no token: the second pass finds the files
    naming a Huey task.)"""
    return tuple(
        replace(t, patterns=(*t.patterns, pattern), also=(*t.also, anchors))
        for t in ENQUEUE_TRIGGERS
    )


def _forwarded_options() -> tuple[Trigger, ...]:
    """JL103: `task.delay(..., countdown=5)` and the like, per method."""
    triggers = []
    for method, forwarded in sorted(payloads.FORWARDED_OPTIONS.items()):
        options = rf"\b(?:{_alternatives(forwarded.options)})\s*="
        gated = method in _WORD_METHODS
        triggers.append(Trigger((f".{method}(",), (options,), gated=gated))
    return tuple(triggers)


# --- Retries ------------------------------------------------------------------------

# Sleep functions may be imported under another name: the import says `sleep`.
_SLEEP = "sleep"
_TENACITY_WAITS = _tails(retries.TENACITY_EXPONENTIAL_WAITS)
_BACKOFF_DECORATORS = _tails(retries.BACKOFF_DECORATORS)

JITTER_TRIGGERS: tuple[Trigger, ...] = (
    Trigger((retries.CELERY_RETRY_JITTER,)),
    # self.retry(countdown=...)
    Trigger(
        (f".{retries.CELERY_RETRY_METHOD}(",),
        (_alternatives(retries.CELERY_RETRY_DELAY_KEYWORDS),),
    ),
    Trigger(tuple(sorted(_TENACITY_WAITS))),
    Trigger((retries.BACKOFF_JITTER_KEYWORD,), (r"\bbackoff\b",)),
    Trigger((retries.URLLIB3_BACKOFF_FACTOR,)),
    Trigger((retries.RQ_INTERVAL_KEYWORD,), (r"(?<![\w.])rq\b",)),
    Trigger(tuple(sorted(_tails(retries.TASKIQ_SMART_RETRY)))),
    # A sleep with a computed delay in a retry loop.
    Trigger((_SLEEP,), (r"\b(?:for|while)\b",), confirm="sleep-in-retry-loop"),
)

BOUND_TRIGGERS: tuple[Trigger, ...] = (
    Trigger((retries.CELERY_MAX_RETRIES,)),
    Trigger(("tenacity",)),
    Trigger(tuple(sorted(_BACKOFF_DECORATORS)), (r"\bbackoff\b",)),
    Trigger((retries.PROCRASTINATE_RETRY_KEYWORD,), (r"\bretry\s*=\s*true\b",)),
    Trigger(tuple(sorted(_tails(retries.PROCRASTINATE_RETRY_STRATEGY)))),
    Trigger((retries.DJANGO_Q_SETTINGS.lower(), retries.DJANGO_Q_MAX_ATTEMPTS)),
    # while True: try ... except: sleep
    Trigger((_SLEEP,), (r"\bwhile\b", r"\bexcept\b"), confirm="while-true-retry"),
)

BROAD_RETRY_TRIGGERS: tuple[Trigger, ...] = (
    Trigger((retries.CELERY_AUTORETRY_FOR,)),
    Trigger((f".{retries.CELERY_RETRY_METHOD}(",), (r"\bexcept\b",)),
    Trigger(tuple(sorted(_tails(retries.TENACITY_EXCEPTION_TYPE_RETRIES)))),
    Trigger(tuple(sorted(_BACKOFF_DECORATORS)), (r"\bbackoff\b",)),
)


# --- Locks --------------------------------------------------------------------------

_NX = r"\bnx\s*="


def _modules(qualnames: Iterable[str]) -> str:
    """One of the modules the names are imported from, as a word."""
    return rf"\b(?:{_alternatives(_tops(qualnames))})\b"


# A Redis client or a Django cache is named (`redis.Redis(...)`, `get_redis_connection`,
# `from django.core.cache import cache`): the receivers `.lock(name)` needs.
_CLIENTS = _modules([*locks.REDIS_CLIENT_CONSTRUCTORS, *locks.REDIS_CLIENT_CLASSES, "django.core"])

# Django's `CACHES = {...}` (at the start of a line): the settings that say which
# backend a cache's `lock()` is. Its facts settle JL402's cache findings.
_CACHES = locks.CACHES_SETTING.lower()
CACHES_SETTING = Trigger((_CACHES,), (rf"(?m)^[ \t]*{_CACHES}\s*[:=]",))

LOCK_EXPIRY_TRIGGERS: tuple[Trigger, ...] = (
    Trigger(("nx",), (_NX,)),
    Trigger(tuple(sorted(locks.SETNX_METHODS))),
    # redis-py and django-redis `.lock(name)`: on a Redis client or a Django cache.
    Trigger((".lock(",), (_CLIENTS,)),
    Trigger(tuple(f".{m}(" for m in sorted(set(locks.LOCK_METHODS) - {"lock"}))),
    # redis.lock.Lock, redis_lock.Lock, huey's lock_task
    Trigger(
        tuple(sorted(_tops(locks.LOCK_CONSTRUCTORS))),
        (_modules(locks.LOCK_CONSTRUCTORS),),
        also=(tuple(sorted(_tails(locks.LOCK_CONSTRUCTORS))),),
    ),
    CACHES_SETTING,
)

_DATABASES = jobs.DATABASES_SETTING.lower()

# Whole-project facts read by rules that scan every file's facts (JL5's Celery
# settings and delays; django-q's ORM-broker switch; the Django cache backends
# JL402's cache findings are settled with; the entry points that say which
# project's files a settings module applies to). Facts looked up by name
# (tasks, classes, constants) are loaded on demand instead.
PROJECT_FACTS: tuple[Trigger, ...] = (
    Trigger(("celery", "broker", "time_limit", "visibility_timeout", "countdown", "q_cluster")),
    # Entry points naming the settings module their project loads: settings
    # apply to that project's files only (joblint.pipeline.project.settings_scope).
    Trigger((jobs.SETTINGS_MODULE_VARIABLE.lower(), jobs.CONFIG_FROM_OBJECT_METHOD)),
    # Databases that take no writes: a test mirror in DATABASES, a router.
    Trigger((jobs.DATABASE_MIRROR_KEY.lower(),), (rf"(?m)^[ \t]*{_DATABASES}\s*[:=]",)),
    Trigger((jobs.ROUTER_READ_METHOD,)),
    Trigger(("eta=", "eta ="), (r"\beta\s*=",)),
    CACHES_SETTING,
)

# Rules whose findings the project's settings decide (django-q's ORM broker for
# JL101, the cache backend for JL402, the broker and time limits for JL5): with
# one of them selected, the files holding `PROJECT_FACTS` are read for facts.
SETTINGS_READERS: frozenset[str] = frozenset({"JL101", "JL402", "JL501", "JL502"})

RULE_TRIGGERS: dict[str, tuple[Trigger, ...]] = {
    "JL002": (Trigger(("joblint", "noqa")),),  # suppression comments
    "JL101": _enqueue_and(TRANSACTION_ANCHORS, TRANSACTION),
    "JL102": _enqueue_and((".commit(",), r"\.commit\("),
    "JL103": _forwarded_options(),
    "JL104": (Trigger(("on_commit",)),),
    "JL105": (Trigger(_calls(sorted(payloads.ASYNC_ENQUEUE_METHODS))),),
    # Payload rules look at enqueue arguments; Huey task calls are found by the
    # second pass (files naming a known Huey task).
    "JL201": ENQUEUE_TRIGGERS,
    "JL202": ENQUEUE_TRIGGERS,
    "JL301": JITTER_TRIGGERS,
    "JL302": BOUND_TRIGGERS,
    "JL303": BROAD_RETRY_TRIGGERS,
    "JL401": (
        Trigger(
            ("update", "share"),
            (
                r"for(?:\s+(?:no\s+key\s+)?update|\s+(?:key\s+)?share|_update)\b",
                r"select|for_update",
            ),
        ),
    ),
    "JL402": LOCK_EXPIRY_TRIGGERS,
    "JL403": (Trigger(("nx",), (_NX,)),),
    "JL404": (
        # acquire(blocking=False): a literal False, None or number
        Trigger(("blocking",), (r"\bblocking\s*=[\s(]*(?:false|none|[\d._])",)),
        Trigger(("nx",), (_NX,)),
        Trigger(tuple(sorted(_tails(locks.TRY_ADVISORY_FUNCTIONS)))),
    ),
    # Whole-project rules: their findings sit where the settings and limits are.
    "JL501": PROJECT_FACTS,
    "JL502": PROJECT_FACTS,
}

# Rules whose triggers, where found, make every selected rule run on the file:
# JL002 judges a suppression only by the rules that ran on it.
NEEDS_EVERY_RULE: frozenset[str] = frozenset({"JL002"})

"""What retry and backoff configuration looks like in each library, as data.

The JL3 rules (retry-without-jitter, unbounded-retries, retry-on-any-exception)
and `joblint.analysis.expressions` consult these tables; they never spell a
library's names themselves. Facts come from the libraries' own source (see
shared/reference/job-libraries.md §3): Celery `celery/app/task.py` and
`autoretry.py`, tenacity `tenacity/__init__.py` and `wait.py` (9.x), backoff
2.2 `_decorator.py`, urllib3 2.x `util/retry.py`, RQ 2.x/3.x `job.py`
(`Retry`), taskiq `smart_retry_middleware.py`, procrastinate `retry.py`,
django-q2 `conf.py`.

Qualified names have the meaning `joblint.analysis.names.Resolver` gives them
(the dotted path a name was imported from).
"""

from __future__ import annotations

from dataclasses import dataclass

# --- the shared expression analysis: randomness, growth, sleeping ----------

# Calls into these modules draw random numbers (`random.uniform`,
# `secrets.randbelow`, `numpy.random.default_rng().uniform`...).
RANDOM_MODULES: tuple[str, ...] = ("random", "secrets", "numpy.random")

# Helpers that return a jittered delay (or a generator/list of them).
JITTER_HELPERS: frozenset[str] = frozenset(
    {
        "joblint.runtime.backoff.full_jitter",
        "joblint.runtime.backoff.decorrelated_jitter",
        "joblint.runtime.backoff.delays",
        "joblint.runtime.backoff.jittered_intervals",
        "backoff.full_jitter",
        "backoff.random_jitter",
        "backoff._jitter.full_jitter",
        "backoff._jitter.random_jitter",
    }
)

# An unresolved callee or attribute whose last name contains one of these is
# taken as random (`self._jitter()`, `add_random_spread(x)`): a documented
# heuristic that can only make the rules report less.
RANDOM_NAME_HINTS: tuple[str, ...] = ("jitter", "random")

# Functions that compute a delay growing with their arguments, with the
# parameter that switches their randomness on (keyword, position) and its
# default. Celery's helper `get_exponential_backoff_interval(factor, retries,
# maximum, full_jitter=False)` is what autoretry uses; called by hand it has no
# jitter unless asked.
GROWTH_FUNCTIONS: dict[str, tuple[str, int, bool]] = {
    "celery.utils.time.get_exponential_backoff_interval": ("full_jitter", 3, False),
    "celery.utils.get_exponential_backoff_interval": ("full_jitter", 3, False),
}

# Power-like functions: growth when the attempt reaches any argument.
POWER_FUNCTIONS: frozenset[str] = frozenset(
    {"pow", "math.pow", "math.exp", "math.exp2", "math.ldexp", "numpy.power", "numpy.exp"}
)

# Deterministic helpers that neither add randomness nor hide it: the value
# passes through (`min(cap, 2 ** n)` still grows, still has no jitter).
PURE_FUNCTIONS: frozenset[str] = frozenset(
    {
        "min",
        "max",
        "int",
        "float",
        "round",
        "abs",
        "pow",
        "len",
        "datetime.timedelta",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "django.utils.timezone.now",
        "time.time",
        "time.monotonic",
    }
)
# Every `math.<fn>` is deterministic.
PURE_MODULES: tuple[str, ...] = ("math",)

# Calls that sleep for their first argument (or the keyword named here).
SLEEP_FUNCTIONS: dict[str, str] = {
    "time.sleep": "secs",
    "asyncio.sleep": "delay",
    "gevent.sleep": "seconds",
    "eventlet.sleep": "seconds",
    "trio.sleep": "seconds",
    "anyio.sleep": "delay",
}

# `for attempt in range(5)`: iterables whose loop variable counts attempts.
COUNTING_ITERABLES: frozenset[str] = frozenset({"range", "itertools.count"})
# `for attempt, item in enumerate(...)`: the first target counts.
ENUMERATING_ITERABLES: frozenset[str] = frozenset({"enumerate"})

# --- Celery ----------

# `<task>.request.retries`: the retry count of the running task.
CELERY_RETRY_COUNT: tuple[str, str] = ("request", "retries")
CELERY_RETRY_METHOD = "retry"
# Keywords of `self.retry(...)` that set the delay.
CELERY_RETRY_DELAY_KEYWORDS: frozenset[str] = frozenset({"countdown", "eta"})
# The one JL301's fix rewrites (`eta` is a datetime).
CELERY_COUNTDOWN_KEYWORD = "countdown"
CELERY_BIND_KEYWORD = "bind"

# Bases that make a class a Celery task (options may be class attributes).
CELERY_TASK_BASES: frozenset[str] = frozenset(
    {
        "celery.Task",
        "celery.app.task.Task",
        "celery.contrib.django.task.DjangoTask",
    }
)
# `class MyTask(app.Task)` on a Celery app object.
CELERY_APP_TASK_ATTRIBUTE = "Task"

# Task options (decorator keywords or class attributes).
CELERY_MAX_RETRIES = "max_retries"
CELERY_RETRY_KWARGS = "retry_kwargs"
CELERY_AUTORETRY_FOR = "autoretry_for"
CELERY_RETRY_BACKOFF = "retry_backoff"
CELERY_RETRY_JITTER = "retry_jitter"
# The decorator methods of an unresolved receiver that may be Celery's
# (`@app.task(...)` with `app` imported): Dramatiq's `actor` can't be.
CELERY_DECORATOR_METHODS: frozenset[str] = frozenset({"task", "shared_task"})

# --- tenacity ----------

# `@retry(...)`, `Retrying(...)`, `AsyncRetrying(...)`: keyword-configured controllers.
TENACITY_CONTROLLERS: frozenset[str] = frozenset(
    {
        "tenacity.retry",
        "tenacity.Retrying",
        "tenacity.AsyncRetrying",
        "tenacity.TornadoRetrying",
        "tenacity.asyncio.AsyncRetrying",
        "tenacity._asyncio.AsyncRetrying",
        "tenacity.tornadoweb.TornadoRetrying",
    }
)
# The decorator that can be used bare (`@retry`).
TENACITY_DECORATORS: frozenset[str] = frozenset({"tenacity.retry"})


def _tenacity(*names: str, module: str) -> frozenset[str]:
    """Each name as exported by `tenacity` and by its defining module."""
    return frozenset(
        {*(f"tenacity.{n}" for n in names), *(f"tenacity.{module}.{n}" for n in names)}
    )


# How a tenacity wait strategy's delay changes with the attempt (tenacity 9.x
# `wait.py`): `wait_incrementing` is `start + increment * (attempt - 1)`,
# additive growth, which JL301 does not count; only exponential growth
# without a random part is a finding.
CONSTANT = "constant"
ADDITIVE = "additive"
EXPONENTIAL = "exponential"
# Whatever a predicate of the caller's returns (`wait_exception`).
DELEGATED = "delegated"


@dataclass(frozen=True, slots=True)
class TenacityWait:
    """One tenacity wait strategy: how it grows and whether it draws at random."""

    growth: str
    random: bool = False
    # A random part the caller can switch off with 0 (keyword, position):
    # `wait_exponential_jitter(jitter=0)` is a plain exponential wait.
    jitter: tuple[str, int] | None = None


_TENACITY_WAIT_SHAPES: dict[str, TenacityWait] = {
    "wait_none": TenacityWait(CONSTANT),
    "wait_fixed": TenacityWait(CONSTANT),
    "wait_random": TenacityWait(CONSTANT, random=True),
    "wait_incrementing": TenacityWait(ADDITIVE),
    "wait_exponential": TenacityWait(EXPONENTIAL),
    # Full jitter: uniform(min, the wait_exponential ceiling).
    "wait_random_exponential": TenacityWait(EXPONENTIAL, random=True),
    "wait_full_jitter": TenacityWait(EXPONENTIAL, random=True),
    # multiplier * exp_base ** n + uniform(0, jitter); (initial, max, exp_base, jitter, ...).
    "wait_exponential_jitter": TenacityWait(EXPONENTIAL, random=True, jitter=("jitter", 3)),
    "wait_exception": TenacityWait(DELEGATED),
}
# Each strategy under the names it is imported by (`tenacity.X`, `tenacity.wait.X`).
TENACITY_WAITS: dict[str, TenacityWait] = {
    qualified: shape
    for short, shape in _TENACITY_WAIT_SHAPES.items()
    for qualified in _tenacity(short, module="wait")
}
# The strategies that grow exponentially: those JL301 looks at (and its trigger names).
TENACITY_EXPONENTIAL_WAITS: frozenset[str] = frozenset(
    name for name, shape in TENACITY_WAITS.items() if shape.growth == EXPONENTIAL
)
# The exponential wait with a random twin of the same constructor (JL301's fix):
# `wait_random_exponential(wait_exponential)` takes (multiplier, max, exp_base,
# min) and draws from [min, ceiling] — from [0, ceiling] before tenacity 9.0.
TENACITY_TWINNED_WAITS: frozenset[str] = _tenacity("wait_exponential", module="wait")
TENACITY_RANDOM_EXPONENTIAL = "wait_random_exponential"
TENACITY_MIN_KEYWORD = "min"
TENACITY_MIN_POSITION = 3
# Waits made of the waits they are given: `wait_combine(a, b)` is `a + b`,
# `wait_chain(a, b)` waits `a` first, then `b` for every later attempt.
TENACITY_WAIT_GROUPS: frozenset[str] = _tenacity("wait_combine", "wait_chain", module="wait")
TENACITY_STOP_NEVER: frozenset[str] = _tenacity("stop_never", module="stop")
# `retry_if_exception_type(types)`: types is the first argument.
TENACITY_EXCEPTION_TYPE_RETRIES: frozenset[str] = _tenacity(
    "retry_if_exception_type", module="retry"
)
# `retry_any(a, b)` is `a | b`; `retry_all(a, b)` (`a & b`) narrows and is left alone.
TENACITY_RETRY_ANY: frozenset[str] = _tenacity("retry_any", module="retry")
TENACITY_EXCEPTION_TYPES_KEYWORD = "exception_types"

# --- backoff ----------

# Decorator -> index of its exception argument (None: on_predicate has none).
BACKOFF_DECORATORS: dict[str, int | None] = {
    "backoff.on_exception": 1,
    "backoff._decorator.on_exception": 1,
    "backoff.on_predicate": None,
    "backoff._decorator.on_predicate": None,
}
BACKOFF_EXCEPTION_KEYWORD = "exception"
BACKOFF_WAIT_GEN_KEYWORD = "wait_gen"
BACKOFF_BOUNDS: tuple[str, ...] = ("max_tries", "max_time")
BACKOFF_JITTER_KEYWORD = "jitter"
# Wait generators whose delays grow (`constant` and `runtime` don't).
BACKOFF_GROWING_WAITS: frozenset[str] = frozenset(
    {"backoff.expo", "backoff.fibo", "backoff._wait_gen.expo", "backoff._wait_gen.fibo"}
)

# --- urllib3 / requests ----------

URLLIB3_RETRY: frozenset[str] = frozenset(
    {
        "urllib3.Retry",
        "urllib3.util.Retry",
        "urllib3.util.retry.Retry",
        "requests.adapters.Retry",
        "requests.packages.urllib3.Retry",
        "requests.packages.urllib3.util.Retry",
        "requests.packages.urllib3.util.retry.Retry",
        "botocore.vendored.requests.packages.urllib3.util.retry.Retry",
    }
)
URLLIB3_BACKOFF_FACTOR = "backoff_factor"
URLLIB3_BACKOFF_JITTER = "backoff_jitter"  # urllib3 >= 2.0; default 0.0

# --- RQ ----------

RQ_RETRY: frozenset[str] = frozenset({"rq.Retry", "rq.job.Retry"})
RQ_INTERVAL_KEYWORD = "interval"
RQ_INTERVAL_POSITION = 1  # Retry(max, interval=0, enqueue_at_front=False)

# --- taskiq ----------

TASKIQ_SMART_RETRY: frozenset[str] = frozenset(
    {
        "taskiq.SmartRetryMiddleware",
        "taskiq.middlewares.SmartRetryMiddleware",
        "taskiq.middlewares.smart_retry_middleware.SmartRetryMiddleware",
    }
)
TASKIQ_GROWTH_KEYWORD = "use_delay_exponent"  # default False (constant delay)
TASKIQ_JITTER_KEYWORD = "use_jitter"  # default False

# --- procrastinate and django-q2 ----------

# `@app.task(retry=True)`: unlimited, immediate retries.
PROCRASTINATE_RETRY_KEYWORD = "retry"
PROCRASTINATE_TASK_METHODS: frozenset[str] = frozenset({"task"})
# `RetryStrategy()` without `max_attempts` retries forever too.
PROCRASTINATE_RETRY_STRATEGY: frozenset[str] = frozenset(
    {"procrastinate.RetryStrategy", "procrastinate.retry.RetryStrategy"}
)
PROCRASTINATE_MAX_ATTEMPTS = "max_attempts"

# `Q_CLUSTER = {"max_attempts": 0}` in Django settings: 0 means unlimited.
DJANGO_Q_SETTINGS = "Q_CLUSTER"
DJANGO_Q_MAX_ATTEMPTS = "max_attempts"

# --- exceptions ----------

# Catching or retrying these catches programming errors too.
BROAD_EXCEPTIONS: frozenset[str] = frozenset(
    {"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"}
)
# Calls inside an `except Exception:` that show the handler filters what it retries.
EXCEPTION_FILTERS: frozenset[str] = frozenset({"isinstance", "issubclass", "type"})

# A conflict, not a failure: another writer got there first, and the next pass
# re-reads what it changed (Redis WATCH/MULTI, optimistic locking, a
# serialisation failure). Retrying on these alone is not an unbounded retry.
CONFLICT_EXCEPTIONS: frozenset[str] = frozenset(
    {
        "redis.WatchError",
        "redis.exceptions.WatchError",
        "redis.asyncio.WatchError",
        "sqlalchemy.orm.exc.StaleDataError",
        "concurrency.exceptions.RecordModifiedError",
        "psycopg2.errors.SerializationFailure",
        "psycopg.errors.SerializationFailure",
        "asyncpg.SerializationError",
        "asyncpg.exceptions.SerializationError",
    }
)
# A unique-key collision: a conflict only when the loop tries a new value on
# each pass (a fresh code, slug or token); the same insert again is a failure.
COLLISION_EXCEPTIONS: frozenset[str] = frozenset(
    {
        "django.db.IntegrityError",
        "django.db.utils.IntegrityError",
        "sqlalchemy.exc.IntegrityError",
        "psycopg2.IntegrityError",
        "psycopg2.errors.UniqueViolation",
        "psycopg.IntegrityError",
        "psycopg.errors.UniqueViolation",
        "asyncpg.UniqueViolationError",
        "asyncpg.exceptions.UniqueViolationError",
        "sqlite3.IntegrityError",
        "pymysql.err.IntegrityError",
        "MySQLdb.IntegrityError",
    }
)

# A draw of a fresh value (`uuid.uuid4()`, `secrets.token_hex()`,
# `get_random_string(8)`): calls into these modules, or a callee whose name
# holds one of the hints, make a colliding insert try a new value.
FRESH_VALUE_MODULES: tuple[str, ...] = ("uuid", *RANDOM_MODULES)
FRESH_VALUE_HINTS: tuple[str, ...] = ("random", "uuid")

# Wall-clock readings: a loop that compares one with a limit and gives up is
# bounded by a deadline (`time.monotonic() - start > limit`).
CLOCK_FUNCTIONS: frozenset[str] = frozenset(
    {
        "time.time",
        "time.time_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "time.perf_counter",
        "time.perf_counter_ns",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "django.utils.timezone.now",
    }
)

# --- the reference policy: how many attempts a job gets ----------

# Every bound JL302 proposes, in its messages and its fixes: this many attempts
# in total (the first run included), then the job fails to the dead-letter queue.
REFERENCE_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class AttemptBound:
    """A library's parameter that bounds the attempts, and what it counts."""

    parameter: str
    # True: it counts every run, the first included; False: the retries after the first.
    counts_first_run: bool

    @property
    def reference(self) -> int:
        """The value that gives the reference number of attempts in total."""
        return REFERENCE_ATTEMPTS if self.counts_first_run else REFERENCE_ATTEMPTS - 1

    def advice(self) -> str:
        """`max_retries=4 (5 attempts in total: max_retries counts the retries after the first)`."""
        counts = "every attempt" if self.counts_first_run else "the retries after the first"
        return (
            f"{self.parameter}={self.reference} ({REFERENCE_ATTEMPTS} attempts in total: "
            f"{self.parameter} counts {counts})"
        )


# Celery `max_retries`: retries after the first run (`request.retries > max_retries` fails).
CELERY_BOUND = AttemptBound(CELERY_MAX_RETRIES, counts_first_run=False)
# tenacity `stop_after_attempt(n)`: stops once `attempt_number >= n`.
TENACITY_BOUND = AttemptBound("stop_after_attempt", counts_first_run=True)
# backoff `max_tries`: gives up when `tries == max_tries`, the first try counted.
BACKOFF_BOUND = AttemptBound("max_tries", counts_first_run=True)
# procrastinate `max_attempts` (and `retry=N`): a job's `attempts` counts its
# earlier runs (0 on the first) and it is retried while `attempts < max_attempts`.
PROCRASTINATE_BOUND = AttemptBound(PROCRASTINATE_MAX_ATTEMPTS, counts_first_run=False)
# django-q2 `max_attempts`: a task's `attempt_count` is 1 after its first run and
# it is given up once `attempt_count >= max_attempts`.
DJANGO_Q_BOUND = AttemptBound(DJANGO_Q_MAX_ATTEMPTS, counts_first_run=True)

# --- the fixes the messages point to ----------

# The helper JL301's Celery countdown fix calls.
FULL_JITTER = "joblint.runtime.backoff.full_jitter"
FIX_FULL_JITTER = "joblint.runtime.backoff.full_jitter(attempt, base=30, cap=600)"
# `{task}`: the task as the code names it (`self`, `task`).
FIX_CELERY_COUNTDOWN = (
    "countdown=joblint.runtime.backoff.full_jitter({task}.request.retries, base=30, cap=600)"
)
FIX_TENACITY_WAIT = "wait=wait_random_exponential(multiplier=..., max=...)"
FIX_TENACITY_STOP = f"stop=stop_after_attempt({TENACITY_BOUND.reference})"
FIX_RQ_INTERVALS = "interval=joblint.runtime.backoff.jittered_intervals(...)"
FIX_ATTEMPT_LOOP = (
    f"Count attempts (for attempt in range({REFERENCE_ATTEMPTS}): ...) and re-raise after the last"
)
FIX_TRANSIENT = (
    "a tuple of transient exception types (timeouts, connection errors, 5xx, 429), "
    "so bugs fail fast to the dead-letter queue"
)

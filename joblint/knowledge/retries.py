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


# Waits that grow with the attempt and have no random part.
TENACITY_UNJITTERED_WAITS: frozenset[str] = _tenacity(
    "wait_exponential", "wait_incrementing", module="wait"
)
# Waits with a random part: adding one to a growing wait jitters it.
TENACITY_RANDOM_WAITS: frozenset[str] = _tenacity(
    "wait_random",
    "wait_random_exponential",
    "wait_full_jitter",
    "wait_exponential_jitter",
    module="wait",
)
# The exponential wait with a random twin of the same constructor (JL301's fix):
# `wait_random_exponential(wait_exponential)` takes (multiplier, max, exp_base,
# min) and draws from [min, ceiling] — from [0, ceiling] before tenacity 9.0.
TENACITY_EXPONENTIAL_WAITS: frozenset[str] = _tenacity("wait_exponential", module="wait")
TENACITY_RANDOM_EXPONENTIAL = "wait_random_exponential"
TENACITY_MIN_KEYWORD = "min"
TENACITY_MIN_POSITION = 3
# `wait_combine(a, b)` is `a + b`.
TENACITY_WAIT_SUMS: frozenset[str] = _tenacity("wait_combine", module="wait")
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

# --- the fixes the messages point to ----------

# The helper JL301's Celery countdown fix calls.
FULL_JITTER = "joblint.runtime.backoff.full_jitter"
FIX_FULL_JITTER = "joblint.runtime.backoff.full_jitter(attempt, base=30, cap=600)"
FIX_CELERY_COUNTDOWN = (
    "countdown=joblint.runtime.backoff.full_jitter(self.request.retries, base=30, cap=600)"
)
FIX_TENACITY_WAIT = "wait=wait_random_exponential(multiplier=..., max=...)"
FIX_TENACITY_STOP = "stop=stop_after_attempt(5)"
FIX_RQ_INTERVALS = "interval=joblint.runtime.backoff.jittered_intervals(...)"
FIX_BOUNDED = "a bounded number of attempts (the reference: 5, then dead-letter)"
FIX_TRANSIENT = (
    "a tuple of transient exception types (timeouts, connection errors, 5xx, 429), "
    "so bugs fail fast to the dead-letter queue"
)

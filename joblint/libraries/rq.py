"""RQ (and django-rq, rq-scheduler): queues, `@job` functions, enqueue calls."""

from __future__ import annotations

from joblint.libraries.base import EnqueueMethod, ForwardedOptions, Library, PayloadShape, Receiver
from joblint.libraries.job_work import RerunOption, Reruns
from joblint.libraries.retry_api import DelayParams, GrowthParam, Param, Reads, RetryCall, Says

_MODULES = ("rq", "django_rq", "rq_scheduler")
_ON_QUEUE = EnqueueMethod((), Receiver.QUEUE)

# Keywords RQ's `enqueue` takes itself: not the job's arguments.
_RESERVED = frozenset(
    {
        "job_timeout",
        "description",
        "result_ttl",
        "ttl",
        "failure_ttl",
        "depends_on",
        "job_id",
        "at_front",
        "meta",
        "retry",
        "repeat",
        "on_success",
        "on_failure",
        "on_stopped",
        "rate_limit",
        "webhooks",
        "pipeline",
        "unique",
        "args",
        "kwargs",
    }
)

LIBRARIES = (
    Library(
        "rq",
        "RQ",
        job_noun="job",
        article="an",
        modules=_MODULES,
        delayed_methods=("enqueue_at", "enqueue_in"),
        task_decorators=("rq.job", "rq.decorators.job", "django_rq.job"),
        # django-rq's `enqueue(func, *args, **kwargs)`: `get_queue().enqueue(...)`
        # on the default queue (django_rq/queues.py, django-rq 2.x and 3.x).
        enqueue_functions=("django_rq.enqueue", "django_rq.queues.enqueue"),
        queue_constructors=(
            "rq.Queue",
            "rq.queue.Queue",
            "django_rq.get_queue",
            "django_rq.queues.get_queue",
            "rq_scheduler.Scheduler",
            "django_rq.get_scheduler",
        ),
        enqueue_methods=(
            ("delay", EnqueueMethod((), Receiver.TASK_LIKE)),
            ("enqueue", _ON_QUEUE),
            # `@job` functions' own `.enqueue(*args)` (the task shape of `enqueue`).
            ("enqueue", EnqueueMethod((), Receiver.TASK, payload_shape="task.enqueue")),
            ("enqueue_call", _ON_QUEUE),
            ("enqueue_at", _ON_QUEUE),
            ("enqueue_in", _ON_QUEUE),
            ("enqueue_many", _ON_QUEUE),
            ("enqueue_job", EnqueueMethod((), Receiver.ANY, reach=_MODULES)),
        ),
        payload_shapes=(
            ("delay", PayloadShape()),
            (
                "enqueue",
                PayloadShape(
                    skip_positional=1,
                    args_keyword="args",
                    kwargs_keyword="kwargs",
                    reserved=_RESERVED,
                ),
            ),
            (
                "enqueue_call",
                PayloadShape(
                    skip_positional=1,
                    args_keyword="args",
                    kwargs_keyword="kwargs",
                    args_position=1,
                    kwargs_position=2,
                    rest_is_payload=False,
                ),
            ),
            ("enqueue_at", PayloadShape(skip_positional=2, reserved=_RESERVED)),
            ("enqueue_in", PayloadShape(skip_positional=2, reserved=_RESERVED)),
            ("task.enqueue", PayloadShape()),
        ),
        forwarded_options=(
            ("enqueue", ForwardedOptions(frozenset({"timeout"}), "RQ's option is job_timeout=")),
        ),
    ),
)

# --- retries (RQ 2.x/3.x `job.py`) ----------

_RQ = LIBRARIES[0]
FIX_INTERVALS = "interval=joblint_runtime.backoff.jittered_intervals(...)"

# `Retry(max, interval=0, enqueue_at_front=False)`: a fixed list of waits, and
# RQ adds no jitter.
RETRY_CALLS = (
    RetryCall(
        ("rq.Retry", "rq.job.Retry"),
        delay=DelayParams(
            GrowthParam(Param("interval", 1), Reads.SCHEDULE),
            Says(
                f"{_RQ.display} Retry(interval=[...]) is a fixed growing schedule and "
                f"{_RQ.display} adds no jitter",
                f"Use {FIX_INTERVALS}, built at enqueue time",
            ),
        ),
    ),
)


# --- running a job more than once (JL601) ------------------------------------------

# `@job(..., retry=Retry(max=3))`: RQ retries the failed job.
RERUNS = (Reruns(_RQ.key, options=(RerunOption("retry"),)),)

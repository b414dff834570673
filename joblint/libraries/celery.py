"""Celery: tasks, canvas, enqueue methods and their on-commit twins."""

from __future__ import annotations

from joblint.libraries.base import (
    BrokerConfig,
    EnqueueMethod,
    ForwardedOptions,
    Library,
    PayloadShape,
    Receiver,
    TaskClassOption,
)
from joblint.libraries.job_work import RerunOption, Reruns
from joblint.libraries.retry_api import (
    AttemptBound,
    Bound,
    BoundFix,
    BoundParams,
    CatchParam,
    DelayParams,
    GrowthFunction,
    GrowthParam,
    Jitter,
    JitterParam,
    Param,
    Reads,
    RetryMethod,
    RetryVocabulary,
    Says,
    TaskRetries,
    Unresolved,
    Value,
)

_CANVAS = tuple(
    f"{module}.{name}"
    for module in ("celery", "celery.canvas")
    for name in ("chain", "group", "chord", "chunks")
)

LIBRARIES = (
    Library(
        "celery",
        "Celery",
        modules=("celery",),
        task_decorators=("celery.shared_task", "celery.app.shared_task", "celery.task"),
        task_decorator_methods=("task",),
        queue_constructors=("celery.Celery", "celery.app.Celery", "celery.app.base.Celery"),
        enqueue_methods=(
            ("delay", EnqueueMethod((), Receiver.TASK_LIKE)),
            ("apply_async", EnqueueMethod((), Receiver.TASK_LIKE)),
            ("send_task", EnqueueMethod((), Receiver.ANY, reach=("celery",))),
        ),
        canvas_callables=_CANVAS,
        signature_functions=(
            *_CANVAS,
            "celery.signature",
            "celery.subtask",
            "celery.canvas.signature",
            "celery.canvas.Signature",
        ),
        signature_methods=(
            "s",
            "si",
            "signature",
            "subtask",
            "set",
            "clone",
            "chunks",
            "map",
            "starmap",
        ),
        # `Signature.apply_async` calls `self.type.apply_async` (celery/canvas.py);
        # `chunks`/`map`/`starmap` send Celery's own starmap/xmap tasks instead.
        own_signature_methods=("s", "si", "signature", "subtask"),
        item_signature_methods=("chunks", "map", "starmap"),
        # `group._apply_tasks` calls `sig.apply_async(...)` for each member.
        member_sending_canvases=("celery.group", "celery.canvas.group"),
        # Celery >= 5.4's DjangoTask defers these to `transaction.on_commit`.
        on_commit_variants=(("delay", "delay_on_commit"), ("apply_async", "apply_async_on_commit")),
        delay_options=("countdown", "eta"),
        payload_shapes=(
            ("delay", PayloadShape()),
            ("s", PayloadShape()),
            ("si", PayloadShape()),
            (
                "apply_async",
                PayloadShape(
                    args_keyword="args",
                    kwargs_keyword="kwargs",
                    args_position=0,
                    kwargs_position=1,
                    rest_is_payload=False,
                ),
            ),
            (
                "send_task",
                PayloadShape(
                    skip_positional=1,
                    args_keyword="args",
                    kwargs_keyword="kwargs",
                    args_position=1,
                    kwargs_position=2,
                    rest_is_payload=False,
                ),
            ),
        ),
        forwarded_options=(
            (
                "delay",
                ForwardedOptions(
                    frozenset(
                        {
                            "countdown",
                            "eta",
                            "expires",
                            "queue",
                            "priority",
                            "retry",
                            "retry_policy",
                            "routing_key",
                            "exchange",
                            "headers",
                            "link",
                            "link_error",
                            "shadow",
                            "time_limit",
                            "soft_time_limit",
                        }
                    ),
                    "pass it to {task}.apply_async(args=..., kwargs=..., {option}=...)",
                ),
            ),
        ),
    ),
)

# `app.config_from_object("proj.celeryconfig")`: the settings module a Celery
# app loads (`"django.conf:settings"` names Django's).
CONFIG_FROM_OBJECT_METHOD = "config_from_object"

_APP_CLASSES = ("celery.Celery", "celery.app.Celery", "celery.app.base.Celery")

# From Celery's and kombu's source: setting names (new, `CELERY_` namespaced,
# legacy), and each transport's default visibility timeout.
BROKER_CONFIGS = (
    BrokerConfig(
        "celery",
        settings=(
            ("broker_url", frozenset({"broker_url", "CELERY_BROKER_URL", "BROKER_URL"})),
            (
                "transport_options",
                frozenset(
                    {
                        "broker_transport_options",
                        "CELERY_BROKER_TRANSPORT_OPTIONS",
                        "BROKER_TRANSPORT_OPTIONS",
                    }
                ),
            ),
            (
                "time_limit",
                frozenset(
                    {
                        "task_time_limit",
                        "CELERY_TASK_TIME_LIMIT",
                        "CELERYD_TASK_TIME_LIMIT",
                        "CELERYD_TIME_LIMIT",
                    }
                ),
            ),
            (
                "always_eager",
                frozenset({"task_always_eager", "CELERY_TASK_ALWAYS_EAGER", "CELERY_ALWAYS_EAGER"}),
            ),
        ),
        app_classes=_APP_CLASSES,
        app_keywords=(
            ("broker", "broker_url"),
            ("broker_url", "broker_url"),
            ("broker_transport_options", "transport_options"),
            ("task_time_limit", "time_limit"),
        ),
        config_attribute="conf",
        update_methods=("update", "setdefault"),
        loader_method=CONFIG_FROM_OBJECT_METHOD,
        django_settings_object="django.conf:settings",
        config_module_names=frozenset({"celeryconfig", "celery_config", "celerysettings"}),
        visibility_key="visibility_timeout",
        time_limit_option="time_limit",
        # An unresolved `@app.task` (an imported app) is Celery's in practice.
        time_limit_libraries=frozenset({"celery", ""}),
        delay_keywords=frozenset({"countdown", "eta"}),
        delay_methods=frozenset({"apply_async", "retry"}),
        # `Task.signature(args, **options)` and `Signature(..., options=None, **ex)`
        # merge their extra keywords into the options; `retry(**options)` hands
        # them to `apply_async`.
        option_methods=frozenset({"apply_async", "retry", "signature", "subtask", "set"}),
        options_keyword="options",
        config_source_keyword="config_source",
        eager_role="always_eager",
    ),
)

# --- retries (`celery/app/task.py`, `celery/app/autoretry.py`) ----------

_CELERY = LIBRARIES[0]
MAX_RETRIES = "max_retries"
RETRY_BACKOFF = "retry_backoff"
RETRY_JITTER = "retry_jitter"
# `max_retries`: retries after the first run (`request.retries > max_retries` fails).
MAX_RETRIES_BOUND = AttemptBound(MAX_RETRIES, counts_first_run=False)
# `{task}`: the task as the code names it (`self`, `task`).
FIX_COUNTDOWN = (
    "countdown=joblint_runtime.backoff.full_jitter({task}.request.retries, base=30, cap=600)"
)
_NO_MAX_RETRIES = BoundParams(
    ((Param(MAX_RETRIES), Bound.ATTEMPTS),),
    MAX_RETRIES_BOUND,
    Says(
        f"{_CELERY.display} {MAX_RETRIES}=None retries forever",
        f"Set {MAX_RETRIES_BOUND.advice()}, then let it fail to the dead-letter queue",
    ),
    # Celery retries 3 times by default.
    default=Bound.ATTEMPTS,
    unbounded=frozenset({Value.NONE}),
    fix=BoundFix(f"Set {MAX_RETRIES_BOUND.advice()}"),
)

TASK_RETRIES = (
    TaskRetries(
        _CELERY.key,
        _CELERY.modules,
        # On an unresolved receiver (`@app.task(...)` with `app` imported):
        # Dramatiq's `actor` can't be Celery's.
        decorator_methods=("task", "shared_task"),
        unresolved=Unresolved.TRUSTED,
        task_bases=(
            "celery.Task",
            "celery.app.task.Task",
            "celery.contrib.django.task.DjangoTask",
        ),
        app_task_attribute="Task",
        # `retry_backoff` delays are jittered unless `retry_jitter=False`.
        delay=DelayParams(
            GrowthParam(Param(RETRY_BACKOFF), Reads.SWITCH),
            Says(
                f"{RETRY_JITTER}=False turns off the jitter {_CELERY.display} adds to "
                f"{RETRY_BACKOFF} delays",
                f"Remove it ({_CELERY.display}'s default is full jitter)",
            ),
            jitter=JitterParam(Param(RETRY_JITTER), off=Value.FALSY, default=Jitter.PRESENT),
            switch_on=(
                f"Set {RETRY_JITTER}=True ({_CELERY.display}'s default): each {RETRY_BACKOFF} "
                "delay is drawn at random"
            ),
        ),
        bounds=(
            _NO_MAX_RETRIES,
            BoundParams(
                ((Param(MAX_RETRIES, within="retry_kwargs"), Bound.ATTEMPTS),),
                MAX_RETRIES_BOUND,
                _NO_MAX_RETRIES.says,
                default=Bound.ATTEMPTS,
                unbounded=frozenset({Value.NONE}),
                fix=_NO_MAX_RETRIES.fix,
            ),
        ),
        catches=CatchParam(Param("autoretry_for"), f"{_CELERY.display} autoretry_for"),
        method=RetryMethod(
            "retry",
            attempt_count=("request", "retries"),
            delay_keywords=("countdown", "eta"),
            says=Says("Retry delay", f"Use {FIX_COUNTDOWN}"),
            # `eta` is a datetime.
            rewritten="countdown",
            bind_keyword="bind",
            bound=_NO_MAX_RETRIES,
            where="{task}.retry(...)",
        ),
    ),
)

# `get_exponential_backoff_interval(factor, retries, maximum, full_jitter=False)`
# is what autoretry uses; called by hand it has no jitter unless asked.
RETRY_VOCABULARY = (
    RetryVocabulary(
        growth_functions=tuple(
            GrowthFunction(f"{module}.get_exponential_backoff_interval", Param("full_jitter", 3))
            for module in ("celery.utils.time", "celery.utils")
        ),
    ),
)


# A task's class, chosen per task (`@app.task(base=OnCommitTask)`): a project
# class overriding these methods decides what enqueueing the task does. `delay`
# calls `apply_async`, so a class deferring `apply_async` defers both.
TASK_CLASS_OPTIONS = (
    TaskClassOption(
        keyword="base",
        methods=(("apply_async", ()), ("delay", ("apply_async",))),
        # `Celery(task_cls=...)` (a class or "module:Class") or `app.Task = ...`:
        # `app.task` and `shared_task` build every task without a `base=` on it
        # (celery/app/base.py: `_task_from_fun` takes `base or self.Task`).
        app_keyword="task_cls",
        app_attribute="Task",
        shared_decorators=("celery.shared_task", "celery.app.shared_task"),
    ),
)


# --- running a task more than once (JL601) -----------------------------------------

# A task runs again when an exception it lists is raised (`autoretry_for`),
# when it asks to (`self.retry()` in a bound task), and, with late
# acknowledgement, when its worker dies mid-task (the broker redelivers it).
RERUNS = (
    Reruns(
        _CELERY.key,
        options=(RerunOption("autoretry_for"), RerunOption("acks_late")),
        retry_method="retry",
        bind_keyword="bind",
        settings=("task_acks_late", "CELERY_TASK_ACKS_LATE", "CELERY_ACKS_LATE"),
        settings_flag="celery-task-acks-late",
    ),
)

# `current_app.tasks["shop.tasks.send"]`: the app's registry of tasks by
# name (celery/app/base.py `Celery.tasks`); a task's default name is its
# module's name and its own (celery/utils/imports.py `gen_task_name`).
TASK_REGISTRIES = frozenset({"celery.current_app.tasks", "celery.app.current_app.tasks"})

"""Celery: tasks, canvas, enqueue methods and their on-commit twins."""

from __future__ import annotations

from joblint.libraries.base import (
    BrokerConfig,
    EnqueueMethod,
    ForwardedOptions,
    Library,
    PayloadShape,
    Receiver,
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
        # Celery >= 5.4's DjangoTask defers these to `transaction.on_commit`.
        on_commit_variants=(("delay", "delay_on_commit"), ("apply_async", "apply_async_on_commit")),
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
        predefined_queues_key="predefined_queues",
        transport_defaults=(
            ("redis", "Redis", 3600.0),
            ("rediss", "Redis", 3600.0),
            ("sentinel", "Redis", 3600.0),
            ("sqs", "SQS", 1800.0),
        ),
        time_limit_option="time_limit",
        # An unresolved `@app.task` (an imported app) is Celery's in practice.
        time_limit_libraries=frozenset({"celery", ""}),
        delay_keywords=frozenset({"countdown", "eta"}),
        delay_methods=frozenset({"apply_async", "retry"}),
    ),
)

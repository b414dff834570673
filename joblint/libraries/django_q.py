"""django-q (django-q2): `async_task` and friends; with the ORM broker the queue
is a database table and an enqueue is part of the transaction."""

from __future__ import annotations

from joblint.libraries.base import Library, SettingsFlag

ORM_BROKER = "django_q.orm_broker"

LIBRARIES = (
    Library(
        "django_q",
        "django-q",
        modules=("django_q",),
        enqueue_functions=(
            "django_q.tasks.async_task",
            "django_q.tasks.async_chain",
            "django_q.tasks.async_iter",
        ),
        transactional_when=ORM_BROKER,
        settings_flags=(SettingsFlag("Q_CLUSTER", "orm", ORM_BROKER),),
    ),
)

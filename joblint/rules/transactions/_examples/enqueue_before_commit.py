"""The full example suite of `joblint.rules.transactions.enqueue_before_commit`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

_TASKS = "from celery import shared_task\n\n@shared_task\ndef send_welcome(pk): ...\n"
# A helper in another module that enqueues.
_NOTIFY = (
    "from app.tasks import send_welcome\n\n"
    "def notify_signup(user):\n"
    "    send_welcome.delay(user.id)\n"
)

VALID = (
    Valid(
        """
from .tasks import send_welcome

def enqueue(user):
    send_welcome.delay(user.id)

def save(session):
    session.commit()
""",
        id="different-functions",
    ),
    Valid(
        """
from .tasks import send_welcome

def release(repo, user):
    send_welcome.delay(user.id)
    repo.index.commit("release")
""",
        id="commit-with-arguments",
    ),
    Valid(
        """
from .tasks import send_welcome

def reindex(writer, user):
    send_welcome.delay(user.id)
    writer.commit()
""",
        id="non-database-commit",
    ),
    Valid(
        """
from .tasks import send_welcome

def register(session, user, dry_run):
    if dry_run:
        send_welcome.delay(user.id)
        return
    session.commit()
""",
        id="return-between",
    ),
    Valid(
        """
from django.db import transaction
from .tasks import send_welcome

def register(user):
    with transaction.atomic():
        send_welcome.delay(user.id)
    transaction.commit()
""",
        id="jl101-wins",
    ),
    Valid(
        """
from joblint.runtime.transaction import on_commit
from .tasks import send_welcome

def register(session, user):
    on_commit(session, lambda: send_welcome.delay(user.id))
    session.commit()
""",
        id="on-commit-hook",
    ),
    Valid(
        """
from app.notify import notify_signup

def register(session, user):
    session.add(user)
    notify_signup(user)
    session.commit()
""",
        id="helper-enqueues-on-commit",
        project={
            "app_notify": (
                "from django.db import transaction\n"
                "from app.tasks import send_welcome\n\n"
                "def notify_signup(user):\n"
                "    transaction.on_commit(lambda: send_welcome.delay(user.id))\n"
            ),
            "app_tasks": _TASKS,
        },
    ),
    Valid(
        """
from app.quiet import notify_signup

def register(session, user):
    session.add(user)
    notify_signup(user)
    session.commit()
""",
        id="same-named-helper-elsewhere-does-not-enqueue",
        project={
            "app_notify": _NOTIFY,
            "app_quiet": "def notify_signup(user):\n    user.notified = True\n",
            "app_tasks": _TASKS,
        },
    ),
    Valid(
        """
from app.notify import notify_signup

def register(session, user):
    session.add(user)
    session.commit()
    notify_signup(user)
""",
        id="helper-called-after-commit",
        project={
            "app_notify": _NOTIFY,
            "app_tasks": _TASKS,
        },
    ),
    Valid(
        """
from app.notify import save_and_notify

def register(session, user):
    session.add(user)
    save_and_notify(session, user)
    session.commit()
""",
        id="helper-commits-before-it-enqueues",
        project={
            "app_notify": (
                "from app.tasks import send_welcome\n\n"
                "def save_and_notify(session, user):\n"
                "    session.commit()\n"
                "    send_welcome.delay(user.id)\n"
            ),
            "app_tasks": _TASKS,
        },
    ),
    Valid(
        """
from django.db import transaction
from app.notify import notify_signup

def register(session, user):
    with transaction.atomic():
        notify_signup(user)
    session.commit()
""",
        id="helper-in-a-transaction-is-jl101s",
        project={
            "app_notify": _NOTIFY,
            "app_tasks": _TASKS,
        },
    ),
    Valid(
        """
from app.notify import notify_signup

def register(session, user, dry_run):
    session.add(user)
    if dry_run:
        notify_signup(user)
        return
    session.commit()
""",
        id="helper-then-return",
        project={
            "app_notify": _NOTIFY,
            "app_tasks": _TASKS,
        },
    ),
)

INVALID = (
    invalid(
        """
import rq
from redis import Redis

q = rq.Queue(connection=Redis())

def register(conn, user, notify):
    if notify:
        q.enqueue(send_welcome, user.id)
    conn.commit()
""",
        (9, 9, "RQ job 'send_welcome' is enqueued before conn.commit()"),
        id="rq-nested-if",
    ),
    invalid(
        """
from .tasks import send_welcome

def register(session, user, profile):
    session.add(user)
    session.commit()
    session.add(profile)
    send_welcome.delay(user.id)
    session.commit()
""",
        (8, 5, "task 'send_welcome' is enqueued before session.commit() (line 9)"),
        id="a-write-between-the-commits",
    ),
    invalid(
        """
from app.notify import notify_signup

def register(session, user):
    session.add(user)
    notify_signup(user)
    session.commit()
""",
        (
            6,
            5,
            "notify_signup() is called before session.commit() (line 7) and enqueues Celery "
            "task 'send_welcome' (notify_signup() → send_welcome.delay() at app/notify.py:4)",
        ),
        id="helper-in-another-module-enqueues",
        app_notify=_NOTIFY,
        app_tasks=_TASKS,
    ),
    invalid(
        """
from app.tasks import send_welcome

class Signup:
    def announce(self, user):
        send_welcome.delay(user.id)

    def register(self, session, user):
        session.add(user)
        self.announce(user)
        session.commit()
""",
        (10, 9, "self.announce() is called before session.commit() (line 11) and enqueues"),
        id="method-of-the-same-class-enqueues",
        app_tasks=_TASKS,
    ),
    invalid(
        """
from app.service import Onboarding

def register(session, user):
    session.add(user)
    onboarding = Onboarding()
    onboarding.welcome(user)
    try:
        session.commit()
    except Exception:
        session.rollback()
        raise
""",
        (
            7,
            5,
            "onboarding.welcome() is called before session.commit() (line 9) and enqueues "
            "Celery task 'send_welcome' (welcome() → mailer.send_welcome_mail() at "
            "app/service.py:6 → send_welcome.delay() at app/mailer.py:4)",
        ),
        id="two-hops-to-the-enqueue",
        app_service=(
            "from app import mailer\n\n"
            "class Onboarding:\n"
            "    def welcome(self, user):\n"
            "        user.greeted = True\n"
            "        mailer.send_welcome_mail(user)\n"
        ),
        app_mailer=(
            "from app.tasks import send_welcome\n\n"
            "def send_welcome_mail(user):\n"
            "    send_welcome.delay(user.id)\n"
        ),
        app_tasks=_TASKS,
    ),
)

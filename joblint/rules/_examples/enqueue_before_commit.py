"""The full example suite of `joblint.rules.enqueue_before_commit` (its class keeps the
teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

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
)

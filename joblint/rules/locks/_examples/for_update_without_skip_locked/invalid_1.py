"""INVALID examples of `joblint.rules.locks.for_update_without_skip_locked`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import invalid
from joblint.rules.locks._examples.for_update_without_skip_locked.common import (
    _DJANGO_MODELS,
    _SQLALCHEMY_MODELS,
)

INVALID = (
    invalid(
        """
TABLE = "jobs"

def claim(cursor, queue):
    cursor.execute(
        f"SELECT id FROM {TABLE} WHERE queue = {queue!r} "
        "ORDER BY priority DESC, id "
        f"LIMIT {1} FOR NO KEY UPDATE"
    )
""",
        (6, 9, "FOR NO KEY UPDATE"),
        fixed="""
TABLE = "jobs"

def claim(cursor, queue):
    cursor.execute(
        f"SELECT id FROM {TABLE} WHERE queue = {queue!r} "
        "ORDER BY priority DESC, id "
        f"LIMIT {1} FOR NO KEY UPDATE SKIP LOCKED"
    )
""",
        id="f-string-concatenation",
    ),
    invalid(
        """
def claim(cursor, n):
    q = "SELECT id FROM job WHERE q = %s " + "ORDER BY id LIMIT {} FOR SHARE".format(n)
    cursor.execute(q, ("queued",))
""",
        (3, 9, "FOR SHARE"),
        fixed="""
def claim(cursor, n):
    q = "SELECT id FROM job WHERE q = %s " + "ORDER BY id LIMIT {} FOR SHARE SKIP LOCKED".format(n)
    cursor.execute(q, ("queued",))
""",
        id="plus-and-format",
    ),
    invalid(
        """
from sqlalchemy import text

def claim(session):
    return session.execute(
        text("UPDATE jobs SET status = 'running' WHERE id = ("
             "SELECT id FROM jobs WHERE status = 'new' ORDER BY id LIMIT 1 FOR UPDATE"
             ") RETURNING id")
    ).scalar()
""",
        (6, 14, "FOR UPDATE"),
        fixed="""
from sqlalchemy import text

def claim(session):
    return session.execute(
        text("UPDATE jobs SET status = 'running' WHERE id = ("
             "SELECT id FROM jobs WHERE status = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
             ") RETURNING id")
    ).scalar()
""",
        id="subquery-in-update",
    ),
    invalid(
        """
from django.db import transaction
from .models import Job

def next_job():
    with transaction.atomic():
        job = Job.objects.select_for_update().order_by("created").first()
        batch = Job.objects.filter(status="queued").select_for_update()[:10]
        job.status = "running"
        job.save()
        Job.objects.filter(pk__in=[queued.pk for queued in batch]).update(status="running")
        return job, batch
""",
        (7, 27, "select_for_update(skip_locked=True)"),
        (8, 53, "select_for_update(skip_locked=True)"),
        fixed="""
from django.db import transaction
from .models import Job

def next_job():
    with transaction.atomic():
        job = Job.objects.select_for_update(skip_locked=True).order_by("created").first()
        batch = Job.objects.filter(status="queued").select_for_update(skip_locked=True)[:10]
        job.status = "running"
        job.save()
        Job.objects.filter(pk__in=[queued.pk for queued in batch]).update(status="running")
        return job, batch
""",
        id="django-first-and-slice",
    ),
    invalid(
        """
from django.db import transaction
from .models import Job

def worker():
    while True:
        with transaction.atomic():
            pending = Job.objects.select_for_update().filter(status="queued")
            for job in pending:
                job.status = "running"
                job.save()
""",
        (8, 35, "iterated in a worker loop"),
        fixed="""
from django.db import transaction
from .models import Job

def worker():
    while True:
        with transaction.atomic():
            pending = Job.objects.select_for_update(skip_locked=True).filter(status="queued")
            for job in pending:
                job.status = "running"
                job.save()
""",
        id="django-iterated-in-worker-loop",
    ),
    invalid(
        """
from sqlalchemy import select
from .models import Job

def claim(session):
    stmt = select(Job).order_by(Job.id).limit(1).with_for_update()
    job = session.scalars(stmt).first()
    job.status = "running"
    other = session.query(Job).with_for_update(read=True).first()
    session.delete(other)
""",
        (6, 50, "with_for_update(skip_locked=True)"),
        (9, 32, "with_for_update(skip_locked=True)"),
        fixed="""
from sqlalchemy import select
from .models import Job

def claim(session):
    stmt = select(Job).order_by(Job.id).limit(1).with_for_update(skip_locked=True)
    job = session.scalars(stmt).first()
    job.status = "running"
    other = session.query(Job).with_for_update(skip_locked=True).first()
    session.delete(other)
""",
        id="sqlalchemy",
    ),
    invalid(
        """
from django.db import transaction

from app.models import Report, Seat


def publish_next(kind):
    # `kind` is not unique: the oldest draft of a kind is picked.
    with transaction.atomic():
        report = (
            Report.objects.select_for_update()
            .filter(kind=kind, state="draft")
            .order_by("id")
            .first()
        )
        report.state = "published"
        report.save()


def first_free_seat(hall):
    # A part of the unique set: many seats match.
    with transaction.atomic():
        seat = (
            Seat.objects.select_for_update()
            .filter(hall=hall, taken=False)
            .order_by("row", "number")
            .first()
        )
        seat.taken = True
        seat.save()
""",
        (11, 28, "select_for_update() on a query that picks the next row (.first())"),
        (24, 26, "select_for_update() on a query that picks the next row (.first())"),
        fixed="""
from django.db import transaction

from app.models import Report, Seat


def publish_next(kind):
    # `kind` is not unique: the oldest draft of a kind is picked.
    with transaction.atomic():
        report = (
            Report.objects.select_for_update(skip_locked=True)
            .filter(kind=kind, state="draft")
            .order_by("id")
            .first()
        )
        report.state = "published"
        report.save()


def first_free_seat(hall):
    # A part of the unique set: many seats match.
    with transaction.atomic():
        seat = (
            Seat.objects.select_for_update(skip_locked=True)
            .filter(hall=hall, taken=False)
            .order_by("row", "number")
            .first()
        )
        seat.taken = True
        seat.save()
""",
        id="django-columns-not-unique-in-another-module",
        app_models=_DJANGO_MODELS,
    ),
    invalid(
        """
from app.models import Shard


def adopt(session, region, owner):
    # A part of the composite primary key: the region's first shard.
    shard = (
        session.query(Shard)
        .filter_by(region=region)
        .order_by(Shard.number)
        .with_for_update()
        .first()
    )
    shard.owner = owner
""",
        (11, 10, "with_for_update() on a query that picks the next row (.first())"),
        fixed="""
from app.models import Shard


def adopt(session, region, owner):
    # A part of the composite primary key: the region's first shard.
    shard = (
        session.query(Shard)
        .filter_by(region=region)
        .order_by(Shard.number)
        .with_for_update(skip_locked=True)
        .first()
    )
    shard.owner = owner
""",
        id="sqlalchemy-part-of-composite-key",
        app_models=_SQLALCHEMY_MODELS,
    ),
    invalid(
        """
from django.db import transaction

from .models import Job


def claim_from(queue, queues, now):
    with transaction.atomic():
        # A constant state: any queued job of the queue.
        job = Job.objects.select_for_update().filter(queue=queue, state="queued")[0]
        job.state = "running"
        job.save()
        # A range: one of the due jobs.
        due = Job.objects.select_for_update().filter(queue=queue, due__lte=now)[0]
        due.delete()
        # A set of queues.
        some = Job.objects.select_for_update().filter(queue__in=queues).first()
        some.delete()
        # Equalities, but ordered or several rows taken: picking among many.
        oldest = Job.objects.select_for_update().filter(queue=queue).latest("id")
        oldest.delete()
        batch = Job.objects.select_for_update().filter(queue=queue)[:5]
        batch.delete()
""",
        (10, 27, "(an index)"),
        (14, 27, "(an index)"),
        (17, 28, "(.first())"),
        (20, 30, "(.latest())"),
        (22, 29, "(a slice)"),
        fixed="""
from django.db import transaction

from .models import Job


def claim_from(queue, queues, now):
    with transaction.atomic():
        # A constant state: any queued job of the queue.
        job = Job.objects.select_for_update(skip_locked=True).filter(queue=queue, state="queued")[0]
        job.state = "running"
        job.save()
        # A range: one of the due jobs.
        due = Job.objects.select_for_update(skip_locked=True).filter(queue=queue, due__lte=now)[0]
        due.delete()
        # A set of queues.
        some = Job.objects.select_for_update(skip_locked=True).filter(queue__in=queues).first()
        some.delete()
        # Equalities, but ordered or several rows taken: picking among many.
        oldest = Job.objects.select_for_update(skip_locked=True).filter(queue=queue).latest("id")
        oldest.delete()
        batch = Job.objects.select_for_update(skip_locked=True).filter(queue=queue)[:5]
        batch.delete()
""",
        id="not-a-natural-key",
    ),
    invalid(
        """
from django.db import transaction

from .models import Job


def start_batch(size):
    with transaction.atomic():
        started = []
        queued = Job.objects.filter(state="queued").order_by("id")
        for job in queued.select_for_update()[:size]:
            job.state = "running"
            started.append(job)
        Job.objects.bulk_update(started, ["state"])


def run_next():
    # The follow-up job created here is no find-or-create.
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(state="queued").first()
        if job is None:
            return None
        job.state = "running"
        job.save()
        Job.objects.create(state="queued", parent=job)
        return job
""",
        (11, 27, "(a slice)"),
        (20, 27, "(.first())"),
        fixed="""
from django.db import transaction

from .models import Job


def start_batch(size):
    with transaction.atomic():
        started = []
        queued = Job.objects.filter(state="queued").order_by("id")
        for job in queued.select_for_update(skip_locked=True)[:size]:
            job.state = "running"
            started.append(job)
        Job.objects.bulk_update(started, ["state"])


def run_next():
    # The follow-up job created here is no find-or-create.
    with transaction.atomic():
        job = Job.objects.select_for_update(skip_locked=True).filter(state="queued").first()
        if job is None:
            return None
        job.state = "running"
        job.save()
        Job.objects.create(state="queued", parent=job)
        return job
""",
        id="claimed-through-a-list-or-beside-a-create",
    ),
    invalid(
        """
from sqlalchemy import select

from .models import Message


def deliver_next(session, queue):
    # `queue.id` is the value: the column compared is `queue_id`, shared by
    # every message of the queue.
    stmt = (
        select(Message)
        .where(Message.queue_id == queue.id)
        .order_by(Message.created)
        .limit(1)
        .with_for_update()
    )
    message = session.scalars(stmt).first()
    message.state = "delivered"


def retry_next(session, done):
    # `notin_` is no equality: it pins nothing.
    message = (
        session.query(Message)
        .filter(Message.id.notin_(done))
        .order_by(Message.created)
        .with_for_update()
        .first()
    )
    message.state = "retrying"
""",
        (15, 10, "(.limit())"),
        (27, 10, "(.first())"),
        fixed="""
from sqlalchemy import select

from .models import Message


def deliver_next(session, queue):
    # `queue.id` is the value: the column compared is `queue_id`, shared by
    # every message of the queue.
    stmt = (
        select(Message)
        .where(Message.queue_id == queue.id)
        .order_by(Message.created)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    message = session.scalars(stmt).first()
    message.state = "delivered"


def retry_next(session, done):
    # `notin_` is no equality: it pins nothing.
    message = (
        session.query(Message)
        .filter(Message.id.notin_(done))
        .order_by(Message.created)
        .with_for_update(skip_locked=True)
        .first()
    )
    message.state = "retrying"
""",
        id="sqlalchemy-value-side-key-and-notin",
    ),
    invalid(
        """
from sqlalchemy import select

from .models import Job, Task


def next_job(s):
    return s.scalars(
        select(Job)
        .where(Job.state == "pending")
        .order_by(Job.id)
        .with_for_update()
        .limit(1)
    ).first()


def next_task(session):
    query = session.query(Task).filter(Task.state == "pending")
    return query.with_for_update(read=True).first()


def next_batch(session, size):
    stmt = select(Task).where(Task.state == "pending").order_by(Task.id)
    return session.scalars(stmt.limit(size).with_for_update()).all()


def run_one(s):
    job = next_job(s)
    job.state = "running"
    task = next_task(s)
    s.delete(task)
    for queued in next_batch(s, 10):
        queued.state = "running"
""",
        (12, 10, "its caller 'run_one' claims it at app/example.py:28"),
        (19, 18, "its caller 'run_one' claims it at app/example.py:30"),
        (24, 45, "its caller 'run_one' claims it at app/example.py:32"),
        fixed="""
from sqlalchemy import select

from .models import Job, Task


def next_job(s):
    return s.scalars(
        select(Job)
        .where(Job.state == "pending")
        .order_by(Job.id)
        .with_for_update(skip_locked=True)
        .limit(1)
    ).first()


def next_task(session):
    query = session.query(Task).filter(Task.state == "pending")
    return query.with_for_update(skip_locked=True).first()


def next_batch(session, size):
    stmt = select(Task).where(Task.state == "pending").order_by(Task.id)
    return session.scalars(stmt.limit(size).with_for_update(skip_locked=True)).all()


def run_one(s):
    job = next_job(s)
    job.state = "running"
    task = next_task(s)
    s.delete(task)
    for queued in next_batch(s, 10):
        queued.state = "running"
""",
        id="sqlalchemy-pick-next-returned-to-a-claiming-caller",
    ),
    invalid(
        """
from .models import Job


def next_job():
    queued = Job.objects.filter(state="queued").order_by("id")
    return queued.select_for_update().first()


class Queue:
    def take(self):
        jobs = Job.objects.filter(state="queued").select_for_update()[:5]
        return list(jobs)
""",
        (7, 19, "its caller 'work' claims it at app/worker.py:10"),
        (12, 51, "its caller 'drain' claims it at app/worker.py:17"),
        fixed="""
from .models import Job


def next_job():
    queued = Job.objects.filter(state="queued").order_by("id")
    return queued.select_for_update(skip_locked=True).first()


class Queue:
    def take(self):
        jobs = Job.objects.filter(state="queued").select_for_update(skip_locked=True)[:5]
        return list(jobs)
""",
        id="django-pick-next-claimed-by-a-caller-in-another-module",
        app_worker="""
from django.db import transaction

from app.example import Queue, next_job
from app.models import Job


def work():
    with transaction.atomic():
        job = next_job()
        job.state = "running"
        job.save()


def drain(queue: Queue):
    with transaction.atomic():
        for job in queue.take():
            Job.objects.filter(pk=job.pk).update(state="running")
""",
    ),
    invalid(
        """
from celery import shared_task
from django.db import transaction

from .models import Job


@shared_task
def start_queued():
    with transaction.atomic():
        for job in Job.objects.select_for_update().filter(state="queued"):
            job.state = "running"
            job.save()
""",
        (11, 32, "every row the job 'start_queued' loops over, with no LIMIT"),
        fixed="""
from celery import shared_task
from django.db import transaction

from .models import Job


@shared_task
def start_queued():
    with transaction.atomic():
        for job in Job.objects.select_for_update(skip_locked=True).filter(state="queued"):
            job.state = "running"
            job.save()
""",
        id="job-loop-over-every-queued-row",
    ),
    invalid(
        """
from celery import shared_task

from .models import Reminder, db
from .mail import deliver


def mark_due_reminders(now):
    due = (
        Reminder.query.filter(Reminder.state == "waiting", Reminder.due_at < now)
        .order_by(Reminder.due_at)
        .with_for_update()
        .all()
    )
    for reminder in due:
        reminder.state = "sending"
    db.session.commit()
    return due


@shared_task
def send_due_reminders(now):
    for reminder in mark_due_reminders(now):
        deliver.delay(reminder.id)
""",
        (
            12,
            10,
            "every row 'mark_due_reminders' loops over for the job 'send_due_reminders' "
            "(send_due_reminders() → mark_due_reminders() at app/example.py:23)",
        ),
        fixed="""
from celery import shared_task

from .models import Reminder, db
from .mail import deliver


def mark_due_reminders(now):
    due = (
        Reminder.query.filter(Reminder.state == "waiting", Reminder.due_at < now)
        .order_by(Reminder.due_at)
        .with_for_update(skip_locked=True)
        .all()
    )
    for reminder in due:
        reminder.state = "sending"
    db.session.commit()
    return due


@shared_task
def send_due_reminders(now):
    for reminder in mark_due_reminders(now):
        deliver.delay(reminder.id)
""",
        id="function-looping-over-every-row-run-by-a-job-in-its-module",
    ),
    invalid(
        """
from sqlalchemy import select

from .models import Export


def restart_stale_exports(session):
    stmt = select(Export).where(Export.status == "stale").with_for_update()
    for export in session.scalars(stmt).all():
        export.status = "rebuilding"
    session.commit()
""",
        (8, 59, "for the job 'rebuild' (rebuild() → refresh() at app/jobs.py:15"),
        fixed="""
from sqlalchemy import select

from .models import Export


def restart_stale_exports(session):
    stmt = select(Export).where(Export.status == "stale").with_for_update(skip_locked=True)
    for export in session.scalars(stmt).all():
        export.status = "rebuilding"
    session.commit()
""",
        id="function-looping-over-every-row-run-by-a-job-in-another-module",
        app_jobs="""
import dramatiq

from app.db import Session
from app.example import restart_stale_exports


def refresh():
    with Session() as session:
        restart_stale_exports(session)


@dramatiq.actor
def rebuild():
    refresh()
""",
    ),
)

"""VALID examples of `joblint.rules.locks.for_update_without_skip_locked`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import Valid
from joblint.rules.locks._examples.for_update_without_skip_locked.common import (
    _DJANGO_MODELS,
    _SQLALCHEMY_MODELS,
)

VALID = (
    Valid(
        """
def claim(cursor):
    cursor.execute("select id from jobs order by id limit 5 for update of jobs skip locked")
    cursor.execute("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR NO KEY UPDATE NOWAIT")
""",
        id="of-table-and-nowait",
    ),
    Valid(
        """
def lock_job(cursor, job_id):
    cursor.execute("SELECT * FROM jobs WHERE id = %s LIMIT 1 FOR UPDATE", (job_id,))
    cursor.execute(
        "SELECT * FROM jobs WHERE jobs.uuid = %(u)s AND status = 'new' ORDER BY 1 FOR UPDATE",
        {"u": job_id},
    )
    cursor.execute("SELECT * FROM jobs WHERE id IN %s ORDER BY id FOR UPDATE", (tuple([1, 2]),))
""",
        id="one-row-by-key",
    ),
    Valid(
        """
def claim(cursor):
    cursor.execute(
        '''
        SELECT id FROM jobs  -- never FOR UPDATE here
        WHERE note <> 'ORDER BY id LIMIT 1 FOR UPDATE'
        /* FOR UPDATE */
        ORDER BY id LIMIT 1
        '''
    )
""",
        id="for-update-in-comment-or-string",
    ),
    Valid(
        """
import logging

log = logging.getLogger(__name__)

def claim():
    log.info("Select the next job for update, order by age, limit 1")
    print("we lock with FOR UPDATE and ORDER BY id LIMIT 1")
""",
        id="prose-is-not-sql",
    ),
    Valid(
        """
def claim(cursor, where):
    cursor.execute(f"SELECT id FROM jobs WHERE {where} ORDER BY id LIMIT 1 FOR UPDATE")
    cursor.execute("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE %s" % "SKIP LOCKED")
""",
        id="unknown-condition-or-clause",
    ),
    Valid(
        """
def sweep(cursor):
    cursor.execute("SELECT id FROM jobs WHERE status = 'stale' FOR UPDATE")
    cursor.execute("SELECT last_number FROM invoice_counter LIMIT 1 FOR UPDATE")
""",
        id="no-order-no-limit",
    ),
    Valid(
        """
from django.db import transaction
from .models import Job

def run(job_id):
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        same = Job.objects.select_for_update().filter(pk=job_id).first()
        other = Job.objects.select_for_update().filter(id__in=[1, 2]).order_by("id")[0]
        queued = Job.objects.select_for_update(skip_locked=True).filter(status="queued").first()
        waiting = Job.objects.select_for_update(nowait=True).order_by("id").first()
""",
        id="django-by-key-or-skip-locked",
    ),
    Valid(
        """
from .models import Job

def claim(options, filters):
    a = Job.objects.select_for_update(**options).order_by("id").first()
    b = Job.objects.select_for_update().filter(**filters).order_by("id").first()
""",
        id="django-unknown-kwargs",
    ),
    Valid(
        """
from django.db import transaction
from .models import Job

def take(job_id, ids, condition, wait):
    # Each lock names its row, skips or may not wait: the writes claim nothing picked.
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).first()
        job.state = "taken"
        job.save()
        Job.objects.select_for_update().filter(id__in=ids)[0].delete()
        picked = Job.objects.filter(condition).select_for_update().order_by("id").first()
        picked.save()
        queued = Job.objects.select_for_update(skip_locked=True).order_by("id").first()
        queued.save()
        maybe = Job.objects.select_for_update(nowait=wait).order_by("id").first()
        maybe.save()
        pending = Job.objects.select_for_update()
        pending.get(state="new").save()
""",
        id="claimed-rows-named-by-key-or-not-waited-for",
    ),
    Valid(
        """
from sqlalchemy import select
from .models import Job

def claim(session, job_id):
    stmt = select(Job).where(Job.id == job_id).limit(1).with_for_update()
    job = session.scalars(stmt).first()
    row = (
        session.query(Job)
        .filter(Job.status == "queued")
        .with_for_update(skip_locked=True)
        .first()
    )
""",
        id="sqlalchemy-by-key-or-skip-locked",
    ),
    Valid(
        """
from django.db import transaction

from app.models import Report, Seat, Ticket, Wallet


def publish_nightly():
    # `slug` is unique: a constant value still names one row.
    with transaction.atomic():
        report = Report.objects.select_for_update().filter(slug="nightly", state="draft").first()
        report.state = "published"
        report.save()


def stamp(serial):
    # `serial` is declared unique on the abstract base.
    with transaction.atomic():
        report = (
            Report.objects.select_for_update()
            .filter(serial=serial, state="draft")
            .order_by("id")
            .first()
        )
        report.state = "stamped"
        report.save()


def debit(user, amount):
    # A OneToOneField is unique.
    with transaction.atomic():
        wallet = Wallet.objects.select_for_update().filter(holder=user, frozen=False).first()
        wallet.balance -= amount
        wallet.save()


def take_seat(hall, row, number):
    # All the fields of `unique_together`, and a state: one seat.
    with transaction.atomic():
        seat = (
            Seat.objects.select_for_update()
            .filter(hall=hall, row=row, number=number, taken=False)
            .first()
        )
        seat.taken = True
        seat.save()


def use_ticket(event_id, code):
    # A UniqueConstraint's fields, the foreign key spelled `event_id`.
    with transaction.atomic():
        ticket = (
            Ticket.objects.select_for_update()
            .filter(event_id=event_id, code=code, used=False)
            .first()
        )
        ticket.delete()
""",
        id="django-unique-fields-declared-in-another-module",
        project={"app_models": _DJANGO_MODELS},
    ),
    Valid(
        """
from sqlalchemy import select

from app.models import Mailbox, Shard, Voucher


def redeem(session, campaign, token):
    stmt = (
        select(Voucher)
        .where(Voucher.campaign == campaign, Voucher.token == token, Voucher.spent.is_(False))
        .limit(1)
        .with_for_update()
    )
    voucher = session.scalars(stmt).first()
    voucher.spent = True


def grow(session, amount):
    box = (
        session.query(Mailbox)
        .filter(Mailbox.address == "postmaster@example.org")
        .order_by(Mailbox.quota)
        .with_for_update()
        .first()
    )
    box.quota += amount


def hand_over(session, region, number, owner):
    shard = (
        session.query(Shard)
        .filter_by(region=region, number=number)
        .order_by(Shard.owner)
        .with_for_update()
        .first()
    )
    shard.owner = owner
""",
        id="sqlalchemy-unique-columns-declared-in-another-module",
        project={"app_models": _SQLALCHEMY_MODELS},
    ),
    Valid(
        """
from django.db import transaction
from sqlalchemy import select

from .models import Lease, Token


def renew(host, port, until):
    # Equalities with the caller's values and nothing else: the caller names
    # its row. Skipping a locked one would read "no such lease".
    with transaction.atomic():
        lease = Lease.objects.select_for_update().filter(host=host, port=port).first()
        lease.expires = until
        lease.save(update_fields=["expires"])


def revoke(session, owner):
    stmt = select(Token).where(Token.owner == owner.name).limit(1).with_for_update()
    token = session.scalars(stmt).first()
    token.value = None
""",
        id="natural-key-equalities-name-the-row",
    ),
    Valid(
        """
from django.db import transaction

from .models import Invoice, Job


def next_invoice(series):
    # The last number is read under the lock to serialise numbering: the
    # locked row itself is never written.
    with transaction.atomic():
        last = (
            Invoice.objects.select_for_update()
            .filter(series=series, void=False)
            .order_by("-number")
            .first()
        )
        number = 1 if last is None else last.number + 1
        invoice = Invoice(series=series, number=number, previous=last)
        invoice.save()
        return invoice


def peek():
    # Handed back to the caller, not claimed here.
    with transaction.atomic():
        job = Job.objects.select_for_update().order_by("created").first()
        batch = Job.objects.filter(status="queued").select_for_update()[:10]
        return job, batch
""",
        id="locked-rows-read-not-claimed",
    ),
    Valid(
        """
from django.db import transaction

from .models import Cart


def open_cart(customer):
    # Find-or-create: skipping a locked cart would create a second one.
    with transaction.atomic():
        carts = Cart.objects.select_for_update().filter(customer=customer, state="open")
        if carts:
            cart = carts.first()
        else:
            cart = Cart.objects.create(customer=customer, state="open")
        cart.touched = True
        cart.save()
        return cart


def latest_draft(author):
    with transaction.atomic():
        draft = Cart.objects.select_for_update().filter(state="draft").order_by("-id").first()
        if draft is None:
            draft = Cart.objects.create(customer=author, state="draft")
        draft.save()
        return draft


def reopen_cart(customer, total):
    # The newest open cart, or a new one made by the model's constructor and
    # saved below: skipping a locked cart would make a second one.
    with transaction.atomic():
        cart = (
            Cart.objects.select_for_update()
            .filter(customer=customer, state="open")
            .order_by("-created")
            .first()
        )
        if cart is None:
            cart = Cart(customer=customer, state="open")
        cart.total = total
        cart.save()
        return cart
""",
        id="find-or-create-waits-on-purpose",
    ),
    Valid(
        """
import logging

log = logging.getLogger(__name__)


def report(cursor, errors):
    log.warning("select the next job from the queue for update, order by age limit 1")
    errors.append("Select jobs from the queue for update order by priority limit 1")
    raise ValueError("select one row for update order by id limit 1")
""",
        id="prose-with-sql-words-is-not-sql",
    ),
    Valid(
        """
from django.db import transaction
from sqlalchemy import select

from .models import Job, Task


def job_by_key(pk):
    # Pinned by key: the caller names its row and waits for it on purpose.
    return Job.objects.select_for_update().filter(pk=pk).first()


def task_by_key(session, task_id):
    stmt = select(Task).where(Task.id == task_id).order_by(Task.id).limit(1).with_for_update()
    return session.scalars(stmt).first()


def next_task(session):
    return session.scalars(
        select(Task).where(Task.state == "pending").with_for_update(skip_locked=True).limit(1)
    ).first()


def oldest_job():
    queued = Job.objects.filter(state="queued").order_by("id")
    return queued.select_for_update().first()


def restart(pk, session, task_id):
    with transaction.atomic():
        job = job_by_key(pk)
        job.state = "queued"
        job.save()
    task = task_by_key(session, task_id)
    task.state = "queued"
    claimed = next_task(session)
    claimed.state = "running"


def show_oldest():
    # The caller only reads the row it is handed.
    with transaction.atomic():
        job = oldest_job()
        return {"id": job.pk, "state": job.state}
""",
        id="returned-row-pinned-or-skip-locked-or-only-read",
    ),
    Valid(
        """
from sqlalchemy import select

from .models import Task


def next_pending(session):
    # No caller claims what it returns: it is a look under lock.
    stmt = select(Task).where(Task.state == "pending").order_by(Task.id).limit(1).with_for_update()
    return session.scalars(stmt).first()


def oldest_pending_django():
    return Task.objects.select_for_update().filter(state="pending").order_by("id").first()


def report(session, out):
    task = next_pending(session)
    out.write(task.name)
    other = oldest_pending_django()
    # Setting a field without `save()` writes nothing with Django.
    other.seen = True
    log = other.log
    log.save()
""",
        id="returned-row-no-caller-claims",
    ),
    Valid(
        """
from celery import shared_task
from django.db import transaction

from .models import Job


@shared_task
def expire_owner_jobs(owner_id):
    # A job looping over rows pinned by a key: they are the owner's rows.
    with transaction.atomic():
        for job in Job.objects.select_for_update().filter(pk__in=[owner_id]):
            job.state = "expired"
            job.save()


@shared_task
def expire_queued():
    with transaction.atomic():
        for job in Job.objects.select_for_update(skip_locked=True).filter(state="queued"):
            job.state = "expired"
            job.save()


def expire_all():
    # Not a job nor a worker loop: an administrator's one-off call.
    with transaction.atomic():
        for job in Job.objects.select_for_update().filter(state="queued"):
            job.state = "expired"
            job.save()


@shared_task
def ship_order(order_id):
    # Each run locks the rows of the order it is given, not every worker's.
    with transaction.atomic():
        for job in Job.objects.select_for_update().filter(order=order_id, state="queued"):
            job.state = "shipped"
            job.save()


@shared_task
def close_batch(batch):
    with transaction.atomic():
        for job in batch.jobs.select_for_update().filter(state="queued"):
            job.state = "closed"
            job.save()


@shared_task
def count_queued():
    with transaction.atomic():
        total = 0
        for job in Job.objects.select_for_update().filter(state="queued"):
            total += job.size
        return total
""",
        id="job-loop-pinned-scoped-skip-locked-not-a-job-or-not-claimed",
    ),
    Valid(
        """
from flask import Flask

from .models import Reminder, db

app = Flask(__name__)


def flag_waiting_reminders():
    # A loop over every waiting row, but only a request runs it.
    waiting = Reminder.query.filter(Reminder.state == "waiting").with_for_update().all()
    for reminder in waiting:
        reminder.state = "held"
    db.session.commit()


@app.post("/reminders/hold")
def hold_reminders():
    flag_waiting_reminders()
    return "", 204
""",
        id="function-looping-over-every-row-run-by-a-request-only",
    ),
    Valid(
        """
from celery import shared_task
from sqlalchemy import select

from .models import Reminder, db


def flag_due(session):
    stmt = select(Reminder).where(Reminder.state == "due").with_for_update(skip_locked=True)
    for reminder in session.scalars(stmt):
        reminder.state = "sending"
    session.commit()


def flag_listed(ids):
    # The rows are pinned by their keys: the caller names them.
    for reminder in Reminder.query.filter(Reminder.id.in_(ids)).with_for_update():
        reminder.state = "sending"
    db.session.commit()


def count_due():
    # Locked to read a stable count, never written.
    due = Reminder.query.filter(Reminder.state == "due").with_for_update().all()
    return sum(reminder.weight for reminder in due)


@shared_task
def send_due(ids):
    flag_due(db.session)
    flag_listed(ids)
    count_due()
""",
        id="function-run-by-a-job-skip-locked-pinned-or-read-only",
    ),
    Valid(
        """
from django.core.management.base import BaseCommand

from app.archive import purge_expired


class Command(BaseCommand):
    # An administrator's one-off command serialises on the rows.
    def handle(self, *args, **options):
        purge_expired()
""",
        id="function-looping-over-every-row-run-by-a-command",
        project={
            "app_archive": """
from django.db import transaction

from app.models import Upload


def purge_expired():
    with transaction.atomic():
        for upload in Upload.objects.select_for_update().filter(state="expired"):
            upload.delete()
""",
        },
    ),
    Valid(
        """
from sqlalchemy import select

from .models import Mailbox, Parcel
from .views import ParcelView


def mailbox_for(session, address):
    # Pinned by a unique column: the caller names its row.
    return session.scalars(
        select(Mailbox).where(Mailbox.address == address).with_for_update()
    ).first()


def next_parcel_skipping(session):
    stmt = select(Parcel).where(Parcel.stage == "sorted").with_for_update(skip_locked=True)
    return session.scalars(stmt).first()


def peek_parcel(session):
    return session.scalars(select(Parcel).where(Parcel.stage == "sorted").with_for_update()).first()


def parcels_on_hold(session, size):
    stmt = select(Parcel).where(Parcel.stage == "held").limit(size).with_for_update()
    return list(session.scalars(stmt))


def parcel_view(session):
    # One row handed to a constructor: the caller gets a view, not the row.
    stmt = select(Parcel).where(Parcel.stage == "sorted").limit(1).with_for_update()
    return ParcelView(session.scalars(stmt).first())
""",
        id="first-of-a-locking-result-pinned-skipping-read-or-wrapped",
        project={
            "app_models": _SQLALCHEMY_MODELS,
            "app_desk": """
from app.example import (
    mailbox_for,
    next_parcel_skipping,
    parcel_view,
    parcels_on_hold,
    peek_parcel,
)


def serve(session, address, out):
    box = mailbox_for(session, address)
    box.quota = 10
    parcel = next_parcel_skipping(session)
    parcel.stage = "out"
    out.write(peek_parcel(session).label)
    for held in parcels_on_hold(session, 5):
        out.write(held.label)
    view = parcel_view(session)
    view.highlighted = True
""",
        },
    ),
)

"""Claiming work from queue tables, raw SQL and ORM."""

import textwrap

from django.db import transaction
from sqlalchemy import select, text

from .models import Export, Job

JOBS = "worker_jobs"

# The classic one-consumer queue: every worker waits on the same row.
CLAIM_NEXT = textwrap.dedent(
    "SELECT id, payload FROM worker_jobs"  # JL401: FOR UPDATE, ORDER BY ... LIMIT, no SKIP LOCKED
    " WHERE status = 'queued'"
    " ORDER BY priority DESC, id"
    " LIMIT 1"
    " FOR UPDATE"
)

# Correct: each worker gets a different row.
CLAIM_BATCH = f"""
    select id, payload from {JOBS}
     where status = 'queued'  -- a comment saying FOR UPDATE changes nothing
     order by id
     limit %s
     for update of {JOBS} skip locked
"""


def claim_next(conn):
    with conn.cursor() as cur:
        cur.execute(CLAIM_NEXT)
        return cur.fetchone()


def claim_batch(conn, size):
    with conn.cursor() as cur:
        cur.execute(CLAIM_BATCH, (size,))
        return cur.fetchall()


def lock_job(conn, job_id):
    # Correct: locks one row by key; waiting for it is the point.
    with conn.cursor() as cur:
        cur.execute(f"SELECT * FROM {JOBS} WHERE id = %s FOR UPDATE", (job_id,))
        return cur.fetchone()


def requeue_stale(session, minutes):
    return session.execute(
        text(
            "UPDATE worker_jobs SET status = 'queued' WHERE id IN ("  # JL401: subquery waits
            "SELECT id FROM worker_jobs WHERE status = 'running' "
            f"AND heartbeat < now() - interval '{minutes} minutes' "
            "ORDER BY heartbeat LIMIT 100 FOR NO KEY UPDATE)"
        )
    ).rowcount


def next_export():
    with transaction.atomic():
        export = (
            Export.objects.select_for_update()  # JL401: .first() picks the next row
            .filter(state="pending")
            .order_by("created")
            .first()
        )
        if export is not None:
            export.state = "running"
            export.save()
        return export


def export_by_id(export_id):
    with transaction.atomic():
        return Export.objects.select_for_update().filter(pk=export_id).first()


def next_exports(limit):
    with transaction.atomic():
        return list(Export.objects.select_for_update(skip_locked=True).order_by("created")[:limit])


def claim_orm(session):
    stmt = (
        select(Job)
        .where(Job.status == "queued")
        .order_by(Job.id)
        .limit(1)
        .with_for_update()  # JL401: with_for_update() without skip_locked
    )
    job = session.scalars(stmt).first()
    if job is not None:
        job.status = "running"
    return job

"""The full example suite of `joblint.rules.transactions.enqueue_before_write`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

VALID = (
    Valid(
        """
from .tasks import notify_subscribers

def publish(article, draft):
    if draft:
        notify_subscribers.delay(article.pk)
    else:
        article.status = "published"
        article.save()
""",
        id="a-write-in-the-other-arm-of-the-if",
    ),
    Valid(
        """
from .tasks import notify_subscribers

def publish(article, quick):
    notify_subscribers.delay(article.pk)
    if quick:
        return
    article.refresh_from_db()
""",
        id="a-refresh-is-no-write",
    ),
    Valid(
        """
from .tasks import notify_subscribers

def publish(article):
    notify_subscribers.delay(article.pk)
    return article

def archive(article):
    article.save()
""",
        id="the-write-in-another-function",
    ),
    Valid(
        """
from django.db import transaction
from .tasks import notify_subscribers

def publish(article):
    transaction.on_commit(lambda: notify_subscribers.delay(article.pk))
    article.status = "published"
    article.save()
""",
        id="enqueued-on-commit",
    ),
    Valid(
        """
from django.db import transaction
from .tasks import notify_subscribers

def publish(article):
    with transaction.atomic():
        notify_subscribers.delay(article.pk)
        article.save()
""",
        id="inside-a-transaction-it-is-jl101s",
    ),
    Valid(
        """
from celery import shared_task

@shared_task
def count_view(article_id):
    VIEWS.incr()

def show(article):
    count_view.delay(article.pk)
    article.views += 1
    article.save()
""",
        id="a-task-that-never-reads-its-parameter",
    ),
    Valid(
        """
from .models import Article
from .tasks import notify_subscribers

def publish(article, author):
    notify_subscribers.delay(article.author_id)
    Article.objects.filter(author=author).update(seen=True)
    Article.objects.exclude(pk=article.pk).delete()
    article.tags.all().delete()
""",
        id="writes-not-pinned-to-the-objects-row",
    ),
    Valid(
        """
from .tasks import notify_subscribers

def publish(article):
    try:
        notify_subscribers.delay(article.pk)
    except ConnectionError:
        article.status = "failed"
        article.save()
""",
        id="a-write-in-the-handler-of-the-enqueue-failing",
    ),
    Valid(
        """
from .tasks import reactivate

def mark_failing(endpoint):
    endpoint.status = "paused"
    reactivate.apply_async(kwargs={"endpoint_id": endpoint.pk}, countdown=60)
    endpoint.save()
""",
        id="a-job-held-back-by-a-countdown",
    ),
)

INVALID = (
    invalid(
        """
from .models import Order
from .tasks import charge

def checkout(order):
    charge.delay(order_id=order.id)
    Order.objects.filter(pk=order.pk).update(state="charging")
""",
        (
            6,
            5,
            "task 'charge' is enqueued with order before Order.objects.filter(...).update() "
            "(line 7) writes its row",
        ),
        id="a-queryset-update-pinned-to-the-object",
    ),
    invalid(
        """
from django.db import models
from .tasks import render_pdf

class Invoice(models.Model):
    def issue(self):
        render_pdf.apply_async(args=(self.pk,), queue="pdf")
        self.issued = True
        self.save(update_fields=["issued"])
""",
        (7, 9, "with self before self.save() (line 9) writes its row"),
        id="a-model-method-enqueues-then-saves-itself",
    ),
    invalid(
        """
from .tasks import purge_files

def remove(upload, notify):
    if notify:
        purge_files.delay(upload)
    upload.delete()
""",
        (6, 9, "task 'purge_files' is enqueued with upload before upload.delete() (line 7)"),
        id="an-object-enqueued-in-an-if-then-deleted",
    ),
    invalid(
        """
from celery import shared_task

@shared_task
def send_receipt(order_id):
    order = Order.objects.get(pk=order_id)
    mail(order)

def pay(order):
    send_receipt.delay(order.pk)
    order.paid = True
    order.save()
""",
        (10, 5, "Celery task 'send_receipt' is enqueued with order before order.save() (line 12)"),
        id="a-task-of-the-module-that-reads-the-row",
    ),
    invalid(
        """
import django_rq
from .jobs import transcode

def upload_done(upload):
    django_rq.enqueue(transcode, str(upload.pk))
    upload.state = "queued"
    upload.save()
""",
        (6, 5, "RQ job 'transcode' is enqueued with upload before upload.save() (line 8)"),
        id="an-rq-job-enqueued-before-the-save",
    ),
    invalid(
        """
from .tasks import notify_subscribers

async def publish(article):
    notify_subscribers.delay(article.pk)
    article.status = "published"
    await article.asave()
""",
        (5, 5, "with article before article.asave() (line 7) writes its row"),
        id="an-async-save",
    ),
    invalid(
        """
from .tasks import reactivate

def mark_failing(endpoint):
    endpoint.status = "paused"
    reactivate.apply_async(kwargs={"endpoint_id": endpoint.pk}, countdown=0)
    endpoint.save()
""",
        (6, 5, "with endpoint before endpoint.save() (line 7)"),
        id="a-countdown-of-zero-holds-nothing-back",
    ),
    invalid(
        """
from .base import ProjectAPIView
from .tasks import fetch_metadata

class AttachmentView(ProjectAPIView):
    def patch(self, request, pk):
        attachment = Attachment.objects.get(pk=pk)
        if not attachment.metadata:
            fetch_metadata.delay(str(attachment.id))
        attachment.uploaded = True
        attachment.save()
""",
        (9, 13, "task 'fetch_metadata' is enqueued with attachment before attachment.save()"),
        id="a-view-method-whose-request-transaction-the-project-must-confirm",
    ),
)

"""What several parts of the example suite
`joblint.rules.transactions._examples.enqueue_in_transaction` share."""

from __future__ import annotations

_CELERY_TASKS = "from celery import shared_task\n\n@shared_task\ndef send_receipt(pk): ...\n"

_RECEIPT_MODEL = (
    "from django.db import models\n\n"
    "class Receipt(models.Model):\n"
    "    total = models.IntegerField()\n"
)

_ATOMIC_REQUESTS_SETTINGS = "DATABASES = {'default': {'NAME': 'shop', 'ATOMIC_REQUESTS': True}}\n"

_REINDEX_TASK = (
    "from celery import shared_task\n"
    "from app.models import Receipt\n\n"
    "@shared_task\n"
    "def reindex():\n"
    "    return Receipt.objects.count()\n"
)

_REINDEX_COMMAND = (
    "from django.core.management.base import BaseCommand\n"
    "from app.tasks import reindex\n\n"
    "class Command(BaseCommand):\n"
    "    def handle(self, *args, **options):\n"
    "        reindex.delay()\n"
)

_REINDEX_PROJECT = {
    "app_settings": _ATOMIC_REQUESTS_SETTINGS,
    "app_models": _RECEIPT_MODEL,
    "app_tasks": _REINDEX_TASK,
    "app_management_commands_reindex": _REINDEX_COMMAND,
}

_PYRAMID_APP = (
    "def includeme(config):\n"
    "    config.include('pyramid_tm')\n"
    "    config.include('pyramid_services')\n"
)

_SIGNUP_SERVICE = (
    "from app.tasks import send_welcome\n\n"
    "class SignupService:\n"
    "    def __init__(self, session):\n"
    "        self.session = session\n\n"
    "    def signup(self, member):\n"
    "        member.active = True\n"
    "        self._welcome(member)\n\n"
    "    def _welcome(self, member):\n"
    "        send_welcome.delay(member.id)\n\n"
    "def signup_factory(context, request):\n"
    "    return SignupService(request.dbsession)\n"
)

_WELCOME_TASK = (
    "from celery import shared_task\n"
    "from app.models import Member\n\n"
    "@shared_task\n"
    "def send_welcome(member_id):\n"
    "    return Member.get(member_id).email\n"
)

_MEMBER_MODEL = (
    "from sqlalchemy import Boolean, Column, Integer\n"
    "from sqlalchemy.orm import declarative_base\n\n"
    "class Member(declarative_base()):\n"
    "    __tablename__ = 'members'\n"
    "    id = Column(Integer, primary_key=True)\n"
    "    active = Column(Boolean)\n"
)

_JOIN_VIEW = """
from .config import api_config
from .models import Member
from .tasks import send_welcome

@api_config(route_name="join", request_method="POST")
def join(request):
    member = request.dbsession.get(Member, request.POST["id"])
    member.active = True
    send_welcome.delay(member.id)
"""

_SAVES_RECEIPT_IN_ATOMIC = (
    "from django.db import transaction\n"
    "from app.models import Receipt\n\n"
    "@transaction.atomic\n"
    "def sell(total):\n"
    "    return Receipt.objects.create(total=total)\n"
)

_REPORT_MIXIN = (
    "from app.models import Receipt\n"
    "from app.tasks import reindex\n\n"
    "class ReceiptReportMixin:\n"
    '    actions = ["report"]\n\n'
    "    def report(self, request, queryset):\n"
    "        # An admin action of every model admin deriving from the mixin.\n"
    "        Receipt.objects.create(total=queryset.count())\n"
    "        reindex.delay()\n"
)

_ACTION_RECEIVER = """
from django.apps import apps
from django.db.models.signals import post_save
from .tasks import reindex

def on_action(sender, instance, **kwargs):
    reindex.delay()

def connect_handlers():
    Action = apps.get_model("actstream", "Action")
    post_save.connect(on_action, sender=Action)
"""


def _events_module(inside_transaction: bool) -> str:
    """A registry's kinds record actstream actions; `edit()` records one,
    inside `transaction.atomic()` or not."""
    record = (
        "    with transaction.atomic():\n        receipt.save()\n        edited.record(receipt)\n"
        if inside_transaction
        else "    receipt.save()\n    edited.record(receipt)\n"
    )
    return (
        "from actstream import action\n"
        "from django.db import transaction\n\n"
        "class Kind:\n"
        "    def record(self, actor):\n"
        "        action.send(actor, verb='edited')\n\n"
        "class Registry:\n"
        "    def add_kind(self):\n"
        "        kind = Kind()\n"
        "        return kind\n\n"
        "registry = Registry()\n"
        "edited = registry.add_kind()\n\n"
        "def edit(receipt):\n" + record
    )

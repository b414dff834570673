"""The full example suite of `joblint.rules.rich_type_payload` (its class keeps the
teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import invalid

INVALID = (
    invalid(
        """
import enum
from .tasks import ship

class Status(enum.IntEnum):
    PAID = 1
    SHIPPED = 2

def run(order_id, current: Status, paid):
    ship.delay(order_id, current)
    status = None
    if paid:
        status = Status.PAID
    ship.delay(order_id, status)
""",
        (10, 26, "'current' is an enum member (Status)"),
        (14, 26, "'status' is an enum member (Status)"),
        id="no-fix-for-parameters-and-names-bound-twice",
    ),
    invalid(
        """
from app.schemas import Address, Limits
from .tasks import geocode

def run(limits: Limits):
    geocode.delay(Address(street="x"), limits=limits)
""",
        (6, 19, "'Address(street=\"x\")' is a pydantic model (Address)"),
        (6, 47, "'limits' is a dataclass instance (Limits)"),
        id="classes-from-another-file",
        app_schemas=(
            "import dataclasses\nfrom pydantic import BaseModel\n"
            "class Base(BaseModel):\n    pass\n"
            "class Address(Base):\n    street: str\n"
            "@dataclasses.dataclass(frozen=True)\nclass Limits:\n    seats: int = 1\n"
        ),
    ),
    invalid(
        """
import dataclasses
import functools
import django_rq
from celery import group
from django.db import transaction
from .tasks import ingest

@dataclasses.dataclass
class Doc:
    path: str

def run(paths):
    group(ingest.s(doc=Doc(p)) for p in paths).delay()
    queue = django_rq.get_queue()
    transaction.on_commit(functools.partial(queue.enqueue, ingest, Doc("x")))
""",
        (14, 24, "'Doc(p)' is a dataclass instance (Doc) passed to ingest.s()"),
        (16, 68, "passed to queue.enqueue()"),
        id="signature-and-partial",
    ),
)

"""The full example suite of `joblint.rules.payloads.rich_type_payload`
(its class keeps the teaching examples the docs open with)."""

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
    invalid(
        """
from app import plans
from app.tasks import change_plan

def upgrade(user):
    plan = plans.default_plan()
    change_plan.delay(user.pk, plan)
    change_plan.delay(user.pk, plans.limits_for(user))
    change_plan.delay(user.pk, plans.plan_name())
""",
        (
            7,
            32,
            "'plan' is an enum member (Plan, returned by plans.default_plan() at app/plans.py:13)",
        ),
        (
            8,
            32,
            "is a dataclass instance (Limits, returned by plans.limits_for() at app/plans.py:16)",
        ),
        id="helpers-returning-rich-values",
        app_plans=(
            "import dataclasses\n"
            "import enum\n\n"
            "class Plan(enum.Enum):\n"
            "    FREE = 'free'\n"
            "    PRO = 'pro'\n\n"
            "@dataclasses.dataclass\n"
            "class Limits:\n"
            "    seats: int\n\n"
            "def default_plan():\n"
            "    return Plan.PRO\n\n"
            "def limits_for(user):\n"
            "    return Limits(seats=3)\n\n"
            "def plan_name():\n"
            "    return Plan.PRO.value\n"
        ),
    ),
)

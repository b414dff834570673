from __future__ import annotations

import libcst as cst

from joblint.analysis.payloads import PayloadIssue, payload_site
from joblint.knowledge import payloads as kb
from joblint.rule import Rule, Valid, invalid

_WHAT = {
    kb.ENUM: ("an enum member", "{text}.value (a str/int) and rebuild the enum in the task"),
    kb.DATACLASS: ("a dataclass instance", "dataclasses.asdict({text}) (primitive values)"),
    kb.ATTRS: ("an attrs instance", "attrs.asdict({text}) (primitive values)"),
    kb.PYDANTIC: ("a pydantic model", "{text}.model_dump(mode='json')"),
    kb.NAMEDTUPLE: ("a NamedTuple", "{text}._asdict() or its fields"),
}


def _message(issue: PayloadIssue, call_text: str) -> str:
    what, fix = _WHAT[issue.kind]
    return (
        f"'{issue.text}' is {what} ({issue.class_name}) passed to {call_text}: "
        f"pass {fix.format(text=issue.text)}"
    )


class RichTypePayload(Rule):
    """
    ## What it does
    Finds enum members and instances of dataclasses, attrs classes, pydantic
    models and NamedTuples in a job's payload (enqueue arguments, also inside
    `args=`/`kwargs=`), including Django `TextChoices`/`IntegerChoices`
    members, locals bound to them and parameters annotated with such classes.

    ## Why is this bad?
    Jobs outlive deploys. A pickling serializer (RQ's default, Celery with
    `pickle`) stores a reference to the class: rename the enum, move the
    dataclass or add a required field, and every job already in the queue
    fails to load. Even `str`/`int` enums are stored by class, not by value.
    JSON serializers reject most of these types outright.

    ## Example
    ```python
    class Plan(enum.Enum):
        FREE = "free"
        PRO = "pro"


    def upgrade(user):
        change_plan.delay(user.pk, Plan.PRO)
    ```

    ## Use instead
    ```python
    def upgrade(user):
        change_plan.delay(user.pk, Plan.PRO.value)


    @shared_task
    def change_plan(user_id, plan):
        plan = Plan(plan)
    ```

    ## Fix safety
    No automatic fix yet: the task must rebuild the value from primitives.

    ## Known limits
    - A class's kind comes from the files linted together (decorators and bases
      resolved through imports and inheritance); classes from outside them are
      not known. Enum members are recognised as `Class.MEMBER` (upper-case
      member names).
    - `.value`, `.name`, `dataclasses.asdict(...)`, `model_dump()` and any
      other call or attribute yield plain values and are never reported.
    """

    CODE = "JL202"
    SUMMARY = "Enum, dataclass or model instance passed in a job payload: pass primitive values"
    HELP = "Pass primitive values (enum .value, dataclasses.asdict(), model_dump()) and rebuild"

    VALID = (
        Valid(
            """
import dataclasses
import enum
from .tasks import change_plan

class Plan(enum.Enum):
    FREE = "free"

@dataclasses.dataclass
class Limits:
    seats: int

def upgrade(user, limits: Limits):
    change_plan.delay(user.pk, Plan.FREE.value, Plan.FREE.name)
    change_plan.delay(dataclasses.asdict(limits), limits.seats)
""",
            id="primitive-values",
        ),
        Valid(
            """
from .models import Order
from .tasks import ship

def run(order_id):
    ship.delay(Order.STATUS_PAID, order_id)
""",
            id="constant-on-a-non-enum-class",
        ),
    )

    INVALID = (
        invalid(
            """
import enum
from .tasks import change_plan

class Plan(enum.Enum):
    FREE = "free"
    PRO = "pro"

def upgrade(user):
    change_plan.delay(user.pk, Plan.PRO)
""",
            (
                10,
                32,
                "'Plan.PRO' is an enum member (Plan) passed to change_plan.delay(): "
                "pass Plan.PRO.value",
            ),
            id="enum-member",
        ),
        invalid(
            """
from django.db import models
from .tasks import ship

class Status(models.TextChoices):
    PAID = "paid"

def run(order_id):
    status = Status.PAID
    ship.apply_async(args=(order_id, status))
""",
            (10, 38, "'status' is an enum member (Status)"),
            id="django-choices-via-local",
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

    def visit_Call(self, node: cst.Call) -> None:
        site = payload_site(node, self.context)
        if site is None:
            return
        for issue in site.issues:
            if issue.kind in kb.RICH_KINDS:
                self.report(issue.node, _message(issue, site.call_text), requires=issue.requires)

"""JL202 rich-type-payload.

Enum, dataclass or model instance passed in a job payload: pass primitive values.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL202` show) and its teaching examples."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.names import module_name_from_import
from joblint.analysis.payloads import PayloadIssue, payload_site
from joblint.knowledge import payloads as kb
from joblint.rule import FixSpec, Rule, Valid, fix, invalid
from joblint.rules.payloads._tokens import PAYLOAD_TRIGGERS


def _message(issue: PayloadIssue, call_text: str) -> str:
    kind = kb.OBJECT_KINDS[issue.kind]
    if issue.holder:
        held = f"'{issue.text}', {kind.what}" if issue.text else kind.what
        instead = kind.instead.format(text=issue.text) if issue.text else "primitive values in it"
        return (
            f"'{issue.holder}' holds {held} ({issue.class_name}) passed to {call_text}: "
            f"pass {instead}"
        )
    return (
        f"'{issue.text}' is {kind.what} ({issue.class_name}) passed to {call_text}: "
        f"pass {kind.instead.format(text=issue.text)}"
    )


class RichTypePayload(Rule):
    """
    ## What it does
    Finds enum members and instances of dataclasses, attrs classes, pydantic
    models and NamedTuples in a job's payload (enqueue arguments, also inside
    `args=`/`kwargs=`), including Django `TextChoices`/`IntegerChoices`
    members, locals bound to them and parameters annotated with such classes,
    values a project helper returns (in any module: `plan = plans.default()`
    where `default` returns `Plan.PRO` or `Limits(...)`), and such values in
    a dict spread into the enqueue (`**params`, `kwargs=params`).

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
    Unsafe fix (`--fix --unsafe-fixes`) for enum members: `Plan.PRO` becomes
    `Plan.PRO.value`, and so does a name bound (once in the whole module) to
    one. Unsafe because the task now receives the plain value: it must rebuild
    the member (`Plan(plan)`), and code comparing it to the enum breaks
    (except for `IntEnum`/`StrEnum`, which compare equal to their values).
    Parameters annotated with an enum and names bound more than once get no
    fix (they may hold `None`), and neither do dataclasses, attrs classes,
    pydantic models and NamedTuples: the task would receive a dict or tuple
    where its code expects the object.

    ## Known limits
    - A class's kind comes from the files linted together (decorators and bases
      resolved through imports and inheritance); classes from outside them are
      not known. Enum members are recognised as `Class.MEMBER` (upper-case
      member names).
    - `.value`, `.name`, `dataclasses.asdict(...)`, `model_dump()` and any
      other call or attribute yield plain values and are never reported.
    - What a project helper returns comes from the project model's index
      (a member, a constructor call of a rich class, another helper's
      result, a return annotation), every `return` agreeing, up to six
      helpers deep; the message names the helper and where it returns it.
    """

    CODE = "JL202"
    TRIGGERS = PAYLOAD_TRIGGERS
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
            fixed="""
import enum
from .tasks import change_plan

class Plan(enum.Enum):
    FREE = "free"
    PRO = "pro"

def upgrade(user):
    change_plan.delay(user.pk, Plan.PRO.value)
""",
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
            fixed="""
from django.db import models
from .tasks import ship

class Status(models.TextChoices):
    PAID = "paid"

def run(order_id):
    status = Status.PAID
    ship.apply_async(args=(order_id, status.value))
""",
            id="django-choices-via-local",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        site = payload_site(node, self.context)
        if site is None:
            return
        for issue in site.issues:
            if issue.kind in kb.RICH_KINDS:
                self.report(
                    issue.node,
                    _message(issue, site.call_text),
                    requires=issue.requires,
                    fix=self._value_fix(issue),
                )

    def _value_fix(self, issue: PayloadIssue) -> FixSpec | None:
        """An enum member -> its `.value`. Only `Class.MEMBER` itself, or a local
        name bound once in the whole module, to `Class.MEMBER`: a parameter or a
        name bound twice may hold `None` or something else at run time, and
        `.value` would raise. Other rich types have no fix: the task would
        receive a dict where it expected the object."""
        node = issue.node
        if issue.kind != kb.ENUM or not issue.fixable or not self._surely_member(node):
            return None
        new = cst.Attribute(node, cst.Name("value"))
        message = (
            f"Pass {issue.text}.value; the task receives the plain value and must rebuild "
            f"the member ({issue.class_name}(value))"
        )
        return fix(node, new, message)

    def _surely_member(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Attribute):
            return _is_member_access(node)
        if not isinstance(node, cst.Name):
            return False
        binding = self.context.resolver.lookup(node.value)
        if binding is None or not isinstance(binding.expr, cst.Attribute):
            return False
        if not _is_member_access(binding.expr) or binding.unpack_index is not None:
            return False
        return not binding.iterated and self._assigned_once(node.value)

    def _assigned_once(self, name: str) -> bool:
        """`name` is bound once in the whole module, by `name = ...`."""
        module = self.context.frames[0].node
        counter = self.context.memo("jl202-bindings", module, lambda: _binding_counts(module))
        return counter.counts.get(name, 0) == 1 and name in counter.assigned


def _is_member_access(node: cst.Attribute) -> bool:
    """`Class.MEMBER`: the shape the payload analysis takes for an enum member."""
    return isinstance(node.value, cst.Name) and node.attr.value.isupper()


def _binding_counts(module: cst.CSTNode) -> _BindingCounter:
    counter = _BindingCounter()
    module.visit(counter)
    return counter


class _BindingCounter(cst.CSTVisitor):
    """How many times each name is bound anywhere in the module (any scope), and
    which names a plain `name = ...` binds."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.assigned: set[str] = set()

    def _bind(self, node: cst.CSTNode) -> None:
        """Count the names a target binds (`a.b = ...`, `a[i] = ...` bind none)."""
        if isinstance(node, cst.Name):
            self.counts[node.value] = self.counts.get(node.value, 0) + 1
        elif isinstance(node, cst.Tuple | cst.List):
            for element in node.elements:
                self._bind(element.value)
        elif isinstance(node, cst.StarredElement):
            self._bind(node.value)

    def visit_Param(self, node: cst.Param) -> None:
        self._bind(node.name)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)
        if isinstance(node.target, cst.Name):
            self.assigned.add(node.target.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)
        if isinstance(node.target, cst.Name) and node.value is not None:
            self.assigned.add(node.target.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self._bind(item.name)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self._bind(item.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._bind(node.name)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:  # `import a.b` binds `a`; `as` names are AsNames
            self._bind(cst.Name(module_name_from_import(node.name).split(".")[0]))

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._bind(node.name)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self._bind(node.name)

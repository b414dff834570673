"""JL201 orm-object-payload.

ORM object or other live object passed in a job payload: pass its ID instead.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL201` show) and its teaching examples."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.payloads import (
    MODEL_PARAMETER,
    REQUEST,
    SELF,
    PayloadIssue,
    handed_site,
    payload_site,
)
from joblint.knowledge import payloads as kb
from joblint.models import USED
from joblint.rule import FixSpec, Rule, Valid, fix, invalid
from joblint.rules.payloads._tokens import PAYLOAD_TRIGGERS

_REPORTED = frozenset({*kb.ORM_KINDS, *kb.ROWS_KINDS, SELF, REQUEST, MODEL_PARAMETER})


def _message(issue: PayloadIssue, call_text: str) -> str:
    text, model = issue.text, issue.class_name
    passed = f"passed to {call_text}"
    kind = kb.OBJECT_KINDS.get(issue.kind)
    if kind is not None and issue.holder:
        if not text:
            return (
                f"'{issue.holder}' holds {kind.what} ({model}) {passed}: put identifiers "
                "in it instead and re-fetch the rows in the task"
            )
        instead = kind.instead.format(text=text)
        return f"'{issue.holder}' holds '{text}', {kind.what} ({model}) {passed}: pass {instead}"
    if kind is not None:
        return f"'{text}' is {kind.what} ({model}) {passed}: pass {kind.instead.format(text=text)}"
    if issue.kind == MODEL_PARAMETER:
        return (
            f"'{text}' is {passed}, whose task uses it as a model instance ({USED}): pass "
            f"its primary key ({text}.pk) and re-fetch the row in the task"
        )
    if issue.kind == SELF:
        return (
            f"'self' (a {model} instance) {passed}: pass its identifier and rebuild or "
            "re-fetch the object in the task"
        )
    return (
        f"'{text}' is the HTTP request {passed}: pass only the values the job needs "
        "(request.user.pk, form fields)"
    )


class OrmObjectPayload(Rule):
    """
    ## What it does
    Finds live objects in a job's payload: a Django or SQLAlchemy model
    instance, a queryset, `self`, the request or `request.user`, passed as an
    argument of an enqueue call — positionally, by keyword, or inside the
    `args=`/`kwargs=` of `apply_async`, `send_task`, `enqueue_call`,
    `send_with_options` and Huey's `.schedule`. Also a value a project
    helper returns (in any module, through helpers returning what another
    returns: `order = orders.load(pk)` where `load` returns
    `Order.objects.get(...)`), and a model instance in a dict spread into the
    enqueue (`**params`, `kwargs=params`: a local dict, its `params["k"] = v`
    stores, or the dict a helper returns). Also the objects a step away: the
    `instance` a model signal hands its receiver, rows collected from a
    queryset (`list(qs)`, `[o for o in qs]`, `group(t.s(o) for o in qs)`),
    what views, forms and serializers hand the code (`self.request.user`,
    `self.get_object()`, `form.save()`, `serializer.instance`), a live object
    passed to a project function that hands that parameter on to an enqueue
    (reported at the caller, the enqueue named), and any non-key value passed
    where the task's body uses the parameter as a model instance
    (`order.refresh_from_db()`, `order.save()`, `order._meta`, `order.pk`).
    A task whose class defers the enqueue to COMMIT (a `base=` class or the
    app's task class registering `apply_async` with `on_commit`) is no
    exception: the deferral fixes the race with the transaction, not the
    payload.

    ## Why is this bad?
    The object is serialized when the job is enqueued and used when it runs,
    seconds or hours later: by then the row may have changed or been deleted,
    and the job works on stale data (or saves it back, undoing someone else's
    change). Pickled model instances also break in-flight jobs when a deploy
    changes the model, and JSON serializers reject them outright.

    ## Example
    ```python
    def checkout(request):
        order = Order.objects.create(customer=request.user)
        send_receipt.delay(order)
    ```

    ## Use instead
    ```python
    def checkout(request):
        order = Order.objects.create(customer=request.user)
        send_receipt.delay(order.pk)


    @shared_task
    def send_receipt(order_id):
        order = Order.objects.get(pk=order_id)  # fresh state, at run time
    ```

    ## Fix safety
    Unsafe fix (`--fix --unsafe-fixes`) for model instances: `order` becomes
    `order.pk` (Django) or `order.id` (SQLAlchemy). Unsafe because passing the
    key instead of the object changes what the task receives: the task must
    re-fetch the object (and handle it being gone). Querysets, `self` and the
    request have no automatic fix.

    ## Known limits
    - Values are tracked inside one function: a local bound to
      `X.objects.get/create/first/...`, `get_object_or_404`, a queryset, a
      SQLAlchemy `query(X)...first()`, `scalars(select(X)).one()`,
      `session.get(X, pk)`, a constructor call of a model class, a `for`
      loop over a queryset, or a parameter annotated with a model class.
      Objects reached through attributes (`order.customer`) are not followed.
    - What a project helper returns comes from the project model's index: a
      manager fetch, `get_object_or_404`, a constructor of a model class, a
      local assigned once to one of those, a return annotation naming a
      model, or another helper's result, up to six helpers deep. Every
      `return` of the helper must agree (one returning `order.pk` or
      `.values_list(...)` makes it plain). A helper's method is followed
      where the receiver's type is known (`repo = Repo()`, `self.method()`).
      The message names the helper and where it returns the object.
    - A dict spread into an enqueue is read where it is built in the same
      function (a literal, `dict(...)`, `params["k"] = v`) or returned by a
      helper as a literal; no fix is offered for values inside a dict.
    - A receiver's `instance` (its parameter, or `kwargs["instance"]`) is
      read where the module connects it
      (`@receiver(post_save, sender=Order)`, `post_save.connect(f, ...)`),
      not where another module does. `form`/`serializer` are read by those
      names (a parameter, or a local bound to a call); `self.get_object()`
      of a class defining its own is read through what that returns.
    - A value passed to a project function is read when it is a fetch, a
      value a library hands the code, or a class built; not `self`, the
      request, nor what another helper returns. The function hands the
      parameter on unchanged (itself, in a list or dict display), directly or
      through the project functions it passes it to.
    - A task uses a parameter as a model where its body calls
      `refresh_from_db()` or `save()` (no positional argument) on it or reads
      its `_meta` or `pk`; then a parameter, a loop's item or what a project
      function returns is reported there unless its name says it is a key
      (`order_id`, `pks`). The task's JSON serializer is not read.
    - A class is a model when the files linted together say so (bases
      resolved through imports, across files and levels of inheritance). A
      class that can't be resolved counts as a Django model only when it is
      imported from a module named `models` and named like a class.
    """

    CODE = "JL201"
    # Huey task calls have no token: the second pass finds files naming a Huey task.
    TRIGGERS = PAYLOAD_TRIGGERS
    # `schedule_email(request.user)` in a file with no enqueue of its own.
    FOLLOWS_ARGUMENTS = True
    SUMMARY = "ORM object or other live object passed in a job payload: pass its ID instead"
    HELP = "Pass the primary key (obj.pk / obj.id) and re-fetch the object inside the job"

    VALID = (
        Valid(
            """
from .models import Order
from .tasks import send_receipt

def checkout(request, order_id):
    order = Order.objects.get(pk=order_id)
    send_receipt.delay(order.pk)
    send_receipt.delay(order.id, str(order.uuid), [order.pk], {"id": order.pk})
    send_receipt.apply_async(args=(order.pk,), kwargs={"email": order.email})
    send_receipt.delay(request.user.pk, int(order_id))
""",
            id="identifiers",
        ),
        Valid(
            """
from .models import Order
from .tasks import export

def run():
    for row in Order.objects.values("pk", "email"):
        export.delay(row)
    export.delay(Order.objects.count())
""",
            id="values-rows-and-counts",
        ),
    )

    INVALID = (
        invalid(
            """
from .models import Order
from .tasks import send_receipt

def checkout(email):
    order = Order.objects.create(email=email)
    send_receipt.delay(order)
""",
            (
                7,
                24,
                "'order' is a Django model instance (Order) passed to send_receipt.delay(): "
                "pass order.pk",
            ),
            fixed="""
from .models import Order
from .tasks import send_receipt

def checkout(email):
    order = Order.objects.create(email=email)
    send_receipt.delay(order.pk)
""",
            id="django-create",
        ),
        invalid(
            """
from django.shortcuts import get_object_or_404
from .models import Order
from .tasks import send_receipt, archive

def view(request, pk):
    order = get_object_or_404(Order, pk=pk)
    customer, created = Order.objects.get_or_create(email="x")
    send_receipt.apply_async(args=[order], kwargs={"who": customer})
    archive.delay(Order.objects.filter(paid=True))
""",
            (9, 36, "'order' is a Django model instance (Order)"),
            (9, 59, "'customer' is a Django model instance"),
            (10, 19, "is a Django queryset (Order)"),
            fixed="""
from django.shortcuts import get_object_or_404
from .models import Order
from .tasks import send_receipt, archive

def view(request, pk):
    order = get_object_or_404(Order, pk=pk)
    customer, created = Order.objects.get_or_create(email="x")
    send_receipt.apply_async(args=[order.pk], kwargs={"who": customer.pk})
    archive.delay(Order.objects.filter(paid=True))
""",
            id="args-kwargs-and-queryset",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        for site in (payload_site(node, self.context), handed_site(node, self.context)):
            if site is None:
                continue
            for issue in site.issues:
                if issue.kind in _REPORTED:
                    self.report(
                        issue.node,
                        _message(issue, site.call_text),
                        requires=issue.requires,
                        fix=_key_fix(issue),
                    )


# --- fixes ---------------------------------------------------------------------------------


def _key_fix(issue: PayloadIssue) -> FixSpec | None:
    """A model instance -> its primary key (`order` -> `order.pk`, or its
    library's key attribute)."""
    kind = kb.OBJECT_KINDS.get(issue.kind)
    key = kind.key_attribute if kind is not None and issue.fixable else ""
    node = issue.node
    if not key or not isinstance(node, cst.Name | cst.Attribute | cst.Call | cst.Subscript):
        return None
    new = cst.Attribute(node, cst.Name(key))
    return fix(node, new, f"Pass {issue.text}.{key}; the task must re-fetch the row from its key")

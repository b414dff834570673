"""The index's readers, one question each (`joblint.index`'s modules): small
modules of our own writing, and the summary field each reader fills."""

from __future__ import annotations

from joblint.index import index_source
from joblint.index.returns import ROW
from joblint.libraries import django
from joblint.models import (
    DecoratorUse,
    FunctionSummary,
    ModuleIndex,
    ProjectCall,
    ReturnFact,
    TaskDecorator,
    TxOpening,
)
from joblint.settings import ModuleInfo, Options


def _index(source: str, module: str = "app.m", options: Options | None = None) -> ModuleIndex:
    found = index_source(source, ModuleInfo(module), options or Options())
    assert found is not None
    return found


def _function(index: ModuleIndex, qualname: str) -> FunctionSummary:
    return next(f for f in index.functions if f.qualname == qualname)


def _callees(index: ModuleIndex, qualname: str) -> list[str]:
    return [call.callee for call in _function(index, qualname).calls]


def _call(index: ModuleIndex, qualname: str, text: str) -> ProjectCall:
    return next(c for c in _function(index, qualname).calls if c.text == text)


# --- scope: what a name means -------------------------------------------------


def test_scope_qualifies_names_through_imports_definitions_and_receivers() -> None:
    index = _index(
        "import shop.models as models\n"
        "from shop.mail import Mailer\n"
        "from .tasks import send\n"
        "def helper():\n"
        "    pass\n"
        "class Shop:\n"
        "    def close(self, order: 'models.Order', mailer: Mailer):\n"
        "        order.cancel()\n"
        "        mailer.deliver()\n"
        "        Mailer().deliver()\n"
        "        self.reopen()\n"
        "        helper()\n"
        "        send.s(order.pk).delay()\n"
        "        unknown.call()\n"
    )
    assert _callees(index, "app.m.Shop.close") == [
        "shop.models.Order.cancel",
        "shop.mail.Mailer.deliver",
        "shop.mail.Mailer.deliver",  # `Mailer().deliver`: a method of what the call makes
        "shop.mail.Mailer",
        "app.m.Shop.reopen",
        "app.m.helper",
        "app.tasks.send.delay",  # enqueueing a signature enqueues the task
        "app.tasks.send.s",
    ]
    assert ("app.m.Mailer", "shop.mail.Mailer") in index.aliases


# --- bindings: what each local name holds ------------------------------------


def test_bindings_follow_typed_locals_rows_and_entered_makers_not_rebound_names() -> None:
    index = _index(
        "import smtplib\n"
        "from shop.models import Order, OrderLine\n"
        "from shop.mail import Mailer\n"
        "def work(order_line, items):\n"
        "    mailer = Mailer()\n"
        "    mailer.deliver()\n"
        "    for order in Order.objects.filter(paid=True):\n"
        "        order.ship()\n"
        "    made, created = Order.objects.get_or_create(pk=1)\n"
        "    made.ship()\n"
        "    order_line.refund()\n"
        "    with smtplib.SMTP('host') as smtp:\n"
        "        smtp.sendmail()\n"
        "    for item in items:\n"
        "        item.ship()\n"
        "    twice = Mailer()\n"
        "    twice = Order()\n"
        "    twice.ship()\n"
    )
    assert _callees(index, "app.m.work") == [
        "shop.mail.Mailer",
        "shop.mail.Mailer.deliver",
        "shop.models.Order.objects.filter",
        "shop.models.Order.ship",  # a row of the loop's queryset
        "shop.models.Order.objects.get_or_create",
        "shop.models.Order.ship",  # the row of the pair
        "shop.models.OrderLine.refund",  # the class the parameter is named after
        "smtplib.SMTP.sendmail",  # what `with` binds: the object the maker makes
        "shop.mail.Mailer",
        "shop.models.Order",
    ]  # not `item.ship` (a loop over a parameter) nor `twice.ship` (bound twice)


def test_bindings_type_a_class_s_attributes_from_its_methods() -> None:
    index = _index(
        "from shop.mail import Mailer\n"
        "class Notifier:\n"
        "    def __init__(self, mailer: Mailer, other):\n"
        "        self.mailer = mailer\n"
        "        self.other = other\n"
        "    def run(self):\n"
        "        self.mailer.deliver()\n"
    )
    assert ("app.m.Notifier.mailer", "shop.mail.Mailer") in index.instances
    assert not any(name == "app.m.Notifier.other" for name, _ in index.instances)


# --- openings: which transaction a function opens and runs in ----------------


def test_openings_of_returns_context_managers_enter_and_wrappers() -> None:
    index = _index(
        "import functools\n"
        "from contextlib import contextmanager\n"
        "from django.db import transaction\n"
        "def opened():\n"
        "    return transaction.atomic()\n"
        "@contextmanager\n"
        "def scope():\n"
        "    with transaction.atomic():\n"
        "        yield\n"
        "class Tx:\n"
        "    def __enter__(self):\n"
        "        self.tx = transaction.atomic()\n"
        "        self.tx.__enter__()\n"
        "def in_tx(func):\n"
        "    @functools.wraps(func)\n"
        "    def wrapper(*a, **k):\n"
        "        with transaction.atomic():\n"
        "            return func(*a, **k)\n"
        "    return wrapper\n"
        "def plain():\n"
        "    with open('x'):\n"
        "        yield\n"
    )
    assert _function(index, "app.m.opened").opens == TxOpening("returns")
    assert _function(index, "app.m.scope").opens == TxOpening("with")
    assert _function(index, "app.m.Tx.__enter__").opens == TxOpening("with")
    assert _function(index, "app.m.in_tx").opens == TxOpening("decorator")
    assert _function(index, "app.m.plain").opens is None


def test_openings_give_each_call_the_transaction_around_it() -> None:
    index = _index(
        "from django.contrib import admin\n"
        "from django.db import transaction\n"
        "from .spans import span\n"
        "from .work import step\n"
        "def body():\n"
        "    step(1)\n"
        "    with transaction.atomic():\n"
        "        step(2)\n"
        "    with span():\n"
        "        step(3)\n"
        "@transaction.atomic\n"
        "def decorated():\n"
        "    step(4)\n"
        "class OrderAdmin(admin.ModelAdmin):\n"
        "    def save_model(self, request, obj, form, change):\n"
        "        step(5)\n"
    )
    transactions = [c.transaction for c in _function(index, "app.m.body").calls if c.text == "step"]
    assert transactions == [None, (), ("app.spans.span",)]
    assert _call(index, "app.m.decorated", "step").transaction == ()
    assert _call(index, "app.m.OrderAdmin.save_model", "step").transaction == ()


def test_openings_read_the_configured_transaction_functions() -> None:
    source = "from app.db import atomic\ndef f():\n    with atomic():\n        g()\ndef g(): ...\n"
    configured = Options(transaction_functions=frozenset({"app.db.atomic"}))
    assert _call(_index(source), "app.m.f", "g").transaction == ("app.db.atomic",)
    assert _call(_index(source, options=configured), "app.m.f", "g").transaction == ()


# --- calls: what a function calls, and what it defers to COMMIT --------------


def test_calls_leave_out_deferred_lambdas_and_note_on_commit_hooks() -> None:
    index = _index(
        "from django.db import transaction\n"
        "from django.core.management import call_command\n"
        "from .work import now, later, returned\n"
        "def f(order_id, other):\n"
        "    now()\n"
        "    transaction.on_commit(lambda: later(order_id))\n"
        "    transaction.on_commit(order_id)\n"
        "    call_command('rebuild_index')\n"
        "    return lambda: returned()\n"
        "def g(cursor):\n"
        "    cursor.execute(\"SELECT pg_notify('jobs', '1')\")\n"
    )
    f = _function(index, "app.m.f")
    assert [c.callee for c in f.calls] == ["app.work.now", "django.core.management.call_command"]
    assert f.calls[1].command == "rebuild_index"
    assert f.on_commit and f.defers == ("order_id",)
    assert _function(index, "app.m.g").on_commit


def test_calls_note_passed_receivers_idempotency_and_services() -> None:
    index = _index(
        "from .mail import make_mailer\n"
        "from .tasks import retry_later\n"
        "def task(self, exc):\n"
        "    retry_later(1, self)\n"
        "    retry_later(task=self, idempotency_key='k')\n"
        "def includeme(config):\n"
        "    config.register_service_factory(make_mailer, name='mailer')\n"
    )
    first, second = _function(index, "app.m.task").calls
    assert (first.receiver_at, first.idempotent) == ("1", False)
    assert (second.receiver_at, second.idempotent) == ("task", True)
    (service,) = index.services
    assert (service.name, service.made) == ("mailer", "app.mail.make_mailer")


# --- commits: where a function commits, and when -------------------------------


def test_commits_their_settings_and_a_middleware_handing_on() -> None:
    index = _index(
        "def teardown(app, session):\n"
        "    if app.config['SQLALCHEMY_COMMIT_ON_TEARDOWN']:\n"
        "        session.commit()\n"
        "def always(db):\n"
        "    db.commit()\n"
        "    mailer.commit()\n"
        "async def middleware(request, call_next):\n"
        "    response = await call_next(request)\n"
        "    return response\n"
    )
    teardown = _function(index, "app.m.teardown")
    assert teardown.commits == (3,)
    assert teardown.commit_settings == ("SQLALCHEMY_COMMIT_ON_TEARDOWN",)
    always = _function(index, "app.m.always")
    assert always.commits == (5,) and always.commit_settings == ()
    assert _function(index, "app.m.middleware").hands_on == 8
    assert _function(index, "app.m.always").hands_on == 0


# --- claims: whether a function claims its work --------------------------------


def test_claims_by_set_if_absent_created_flag_or_guard() -> None:
    index = _index(
        "from django.core.cache import cache\n"
        "from joblint.runtime.idempotency import IdempotencyGuard\n"
        "from .models import Order\n"
        "runs = IdempotencyGuard()\n"
        "def by_cache(key):\n"
        "    if cache.add(key, 1):\n"
        "        send()\n"
        "def by_created(pk):\n"
        "    order, created = Order.objects.get_or_create(pk=pk)\n"
        "    if created:\n"
        "        send()\n"
        "def by_guard(key):\n"
        "    with runs.claim(key):\n"
        "        send()\n"
        "def unclaimed(key):\n"
        "    cache.set(key, 1)\n"
        "    send()\n"
    )
    claims = {f.qualname.rsplit(".", 1)[1]: f.claims for f in index.functions}
    assert claims == {"by_cache": True, "by_created": True, "by_guard": True, "unclaimed": False}


# --- task_decorators: which decorators make tasks ------------------------------


def test_task_decorators_the_module_builds_and_its_functions_use() -> None:
    index = _index(
        "import functools\n"
        "from celery import shared_task\n"
        "from .base import OnCommitTask\n"
        "retrying = shared_task(max_retries=3, bind=True)\n"
        "partly = functools.partial(shared_task, acks_late=True)\n"
        "def task(**opts):\n"
        "    return shared_task(**opts)\n"
        "@shared_task(base=OnCommitTask, max_retries=None)\n"
        "def send():\n"
        "    pass\n"
    )
    assert index.task_decorators == (
        TaskDecorator(
            "app.m.retrying",
            "celery.shared_task",
            4,
            (("max_retries", "3"), ("bind", "True")),
            takes_options=False,  # the options are given
        ),
        TaskDecorator("app.m.partly", "celery.shared_task", 5, (("acks_late", "True"),), True),
        TaskDecorator("app.m.task", "celery.shared_task", 6),
    )
    assert _function(index, "app.m.send").decorators == (
        DecoratorUse(
            "celery.shared_task",
            (("base", ""), ("max_retries", "None")),
            True,
            (("base", "app.base.OnCommitTask"),),
        ),
    )


# --- writes: what a function writes ------------------------------------------------


def test_writes_by_owner_blind_writes_field_sets_and_super_calls() -> None:
    index = _index(
        "from .models import Order\n"
        "def named(pk):\n"
        "    Order.objects.filter(pk=pk).update(state='x')\n"
        "def blind(obj):\n"
        "    obj.save()\n"
        "def built():\n"
        "    seen = set()\n"
        "    seen.update([1])\n"
        "    data = {}\n"
        "    data.x = 1\n"
        "def sets(row):\n"
        "    row.status = 'done'\n"
        "class Form:\n"
        "    def save(self):\n"
        "        super().save()\n"
        "        super().save()\n"
    )
    named = _function(index, "app.m.named")
    assert (named.writes, named.blind_writes) == (("app.models.Order",), False)
    assert _function(index, "app.m.blind").blind_writes
    built = _function(index, "app.m.built")
    assert not built.blind_writes and not built.field_sets
    assert _function(index, "app.m.sets").field_sets
    assert _function(index, "app.m.Form.save").super_calls == ("save",)


# --- model_uses: the parameters a function uses as a model instance ----------------


def test_model_uses_are_the_first_use_of_each_steady_parameter() -> None:
    index = _index(
        "def task(order, line, rebound):\n"
        "    x = order.pk\n"
        "    order.refresh_from_db()\n"
        "    line.save()\n"
        "    line._meta\n"
        "    rebound = load()\n"
        "    rebound.save()\n"
    )
    assert _function(index, "app.m.task").model_uses == (
        ("line", 4, "line.save()"),
        ("order", 2, "order.pk"),
    )


# --- classes: a module's classes, their bases and views ------------------------------


def test_classes_bases_nested_views_and_plain_classes() -> None:
    source = (
        "from django.db import models\n"
        "from django.views.generic import DetailView\n"
        "from .base import Base\n"
        "from .models import Order\n"
        "class Model(models.Model):\n"
        "    pass\n"
        "class Plain(Base):\n"
        "    pass\n"
        "class Unresolved(Base, unknown.Mixin):\n"
        "    pass\n"
        "class OrderCRUDL:\n"
        "    model = Order\n"
        "    class Read(DetailView):\n"
        "        def get(self, request):\n"
        "            return self.get_object()\n"
    )
    found = _index(source)
    assert found.classes == (
        ("app.m.Model", ("django.db.models.Model",)),
        ("app.m.Plain", ("app.base.Base",)),
        ("app.m.Unresolved", ("app.base.Base",)),
        ("app.m.OrderCRUDL", ()),
        ("app.m.OrderCRUDL.Read", ("django.views.generic.DetailView",)),
    )
    # A kind's base (a model's) or a base the index can't name: not plain.
    assert found.plain_classes == ("app.m.OrderCRUDL", "app.m.Plain")
    getter = _function(found, "app.m.OrderCRUDL.Read.get_object")
    assert getter.returns == (ReturnFact(ROW, "app.models.Order", 13, django.MODEL),)

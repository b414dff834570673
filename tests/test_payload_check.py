"""The payload rules' AST check says yes wherever JL201/JL202 could report."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write
from hypothesis import given, settings
from hypothesis import strategies as st

from joblint.api import RunOptions, lint_paths
from joblint.config import Config
from joblint.index.ast_walk import quiet_ast_parse
from joblint.pipeline.lint import lint_source
from joblint.pipeline.screen.prefilter import Prefilter
from joblint.pipeline.screen.verdicts import screen_source
from joblint.registry import all_rules
from joblint.rules.payloads._screen.payload_check import (
    forwarder_call_may_hold,
    payload_may_hold_object,
)
from joblint.settings import LintSettings, ModuleInfo, Options

PAYLOAD_RULES = frozenset({"JL201", "JL202"})
# As a run lints once it knows the project's tasks that enqueue when called
# and its functions handing a parameter on to a payload (`FORWARDERS`).
SETTINGS = LintSettings(
    PAYLOAD_RULES,
    Options(
        call_enqueues=frozenset(),
        payload_forwarders=frozenset({"t", "remind", "load", "append", "Order", "later"}),
    ),
)

PAYLOAD_CASES = [
    # Keys, literals and conversions: nothing the rules read.
    ("def f(order_id):\n    send.delay(order_id, 1, 'a', f'{order_id}')\n", False),
    ("def f(order):\n    send.delay(order.pk, order.customer.id, [order.pk])\n", False),
    ("import json\ndef f(o):\n    send.delay(json.dumps(o), str(o), len(o))\n", False),
    (
        "def f(a):\n    send.apply_async(args=[a.pk], kwargs={'k': a.id}, queue=get_queue(a))\n",
        False,
    ),
    ("def f(a):\n    ids = [x.pk for x in a]\n    send.delay(ids)\n", False),
    (
        "def f(a):\n    params = {'id': a.pk}\n    params['n'] = 1\n    send.delay(**params)\n",
        False,
    ),
    ("def f():\n    send.delay(telemetry().to_dict())\n", False),
    ("def f(a):\n    send.delay(dict(id=a.pk))\n", False),
    ("def f(a):\n    partial(send.delay, a.pk)\n", False),
    # What a name is bound to: a fetch, a helper's value, a loop's item.
    ("def f(pk):\n    order = Order.objects.get(pk=pk)\n    send.delay(order)\n", True),
    ("def f():\n    order = get_order()\n    send.delay(order)\n", True),
    ("def f(rows):\n    for row in rows:\n        send.delay(row)\n", True),
    ("def f(o):\n    o = load(o)\n    send.delay(o)\n", True),
    ("def f(o: Order):\n    send.delay(o)\n", True),
    ("def f(a):\n    params = {}\n    params['order'] = load(a)\n    send.delay(**params)\n", True),
    ("send.delay(order)\n", True),  # a module's name: not read here
    ("def f(request):\n    send.delay(request)\n", True),
    ("class V:\n    def f(self):\n        send.delay(self)\n", True),
    # Attributes the rules read; calls that may fetch or build an object.
    ("def f(request):\n    send.delay(request.user)\n", True),
    ("def f():\n    send.delay(Color.RED)\n", True),
    ("def f():\n    send.delay(Order.objects.filter(a=1).first())\n", True),
    ("def f():\n    send.delay(Order.objects.filter(a=1)[0])\n", True),
    ("def f(s):\n    send.delay(s.query(Order).first())\n", True),
    ("from .models import make\ndef f():\n    send.delay(make())\n", True),
    ("str = make\ndef f(a):\n    send.delay(str(a))\n", True),  # not the builtin
    ("def f(a):\n    send.delay(dict(order=load(a)))\n", True),
    ("def f(a):\n    partial(send.delay, load(a))\n", True),
    # The payload's place per shape: an option is no payload, `args` is.
    ("def f(a):\n    send.apply_async(args=[load(a)])\n", True),
    ("def f(a):\n    q.enqueue(job_function, load(a))\n", True),
    # A decorated function of the module may be a task enqueued on call.
    ("@huey.task()\ndef t(o):\n    pass\ndef f():\n    t(load())\n", True),
    # (A project function's call is read only once the run knows it hands a
    # parameter on to a payload: `HANDED_CASES`.)
    # Collections of rows, values a library hands the code, a receiver's instance.
    ("def f():\n    send.delay(list(Order.objects.all()))\n", True),
    ("def f(qs):\n    send.delay(list(qs), [o.pk for o in qs])\n", False),
    ("def f():\n    send.delay([o for o in Order.objects.all()])\n", True),
    ("class V:\n    def f(self):\n        send.delay(self.request.user)\n", True),
    ("class V:\n    def f(self):\n        send.delay(self.request.user.pk)\n", False),
    ("def f(form):\n    send.delay(form.instance)\n", True),
    ("def f(sender, instance, **kw):\n    send.delay(instance)\n", True),
    ("def f(sender, **kw):\n    send.delay(kw['instance'], kw['created'])\n", True),
    ("def f(sender, **kw):\n    send.delay(kw['created'])\n", False),
    # A task may use an unannotated parameter as a model; not one named as a key.
    ("def f(order):\n    send.delay(order)\n", True),
    ("def f(order_id, pks):\n    send.delay(order_id, pks)\n", False),
]


# The project functions a run found handing a parameter on to a payload,
# and the places a caller passes it at.
FORWARDERS = {
    "t": frozenset({("0", ""), ("", "o")}),
    "remind": frozenset({("0", "")}),
    "load": frozenset({("0", ""), ("1", ""), ("", "key")}),
    "append": frozenset({("0", "")}),
    "Order": frozenset({("", "customer")}),
    "later": frozenset({("1", ""), ("", "order")}),
}
HANDED_CASES = [
    # A call of one passing a live object: it may hand it on (not what
    # another helper returns, nor `self`, the request, an import).
    ("def t(o):\n    pass\ndef f():\n    t(load())\n", False),
    ("def t(o):\n    pass\ndef f():\n    t(Order.objects.get(pk=1))\n", True),
    ("import json\ndef f(self, request):\n    t(self, request, json, len)\n", False),
    ("def f(rows):\n    out = []\n    out.append(Order.objects.first())\n", False),
    ("def t(o):\n    pass\ndef f(o):\n    t(o, o.pk, str(o))\n", False),
    ("def f(request):\n    remind(request.user)\n", True),
    ("def f():\n    Order(customer=load())\n", False),
    ("def f(request):\n    other(request.user)\n", False),  # no forwarder of that name
    # Only the places it hands on are read.
    ("def f(request):\n    later(request.user, 1)\n", False),
    ("def f(request):\n    later(1, request.user)\n", True),
    ("def f(request):\n    later(1, order=request.user)\n", True),
    ("def f(request):\n    later(note=request.user)\n", False),
]


@pytest.mark.parametrize(("source", "expected"), HANDED_CASES)
def test_the_forwarder_check_says_yes_only_where_a_forwarder_may_be_handed_an_object(
    source: str, expected: bool
) -> None:
    assert forwarder_call_may_hold(quiet_ast_parse(source), FORWARDERS) is expected


@pytest.mark.parametrize(("source", "expected"), HANDED_CASES)
def test_where_the_forwarder_check_says_no_the_rules_find_nothing(
    source: str, expected: bool
) -> None:
    if not expected:
        assert _payload_results(source) == []


@pytest.mark.parametrize(("source", "expected"), PAYLOAD_CASES)
def test_the_payload_check_says_yes_only_where_an_argument_may_be_read(
    source: str, expected: bool
) -> None:
    assert payload_may_hold_object(quiet_ast_parse(source)) is expected


@pytest.mark.parametrize(("source", "expected"), PAYLOAD_CASES)
def test_where_the_payload_check_says_no_the_rules_find_nothing(
    source: str, expected: bool
) -> None:
    if not expected:
        assert _payload_results(source) == []


def _payload_results(source: str) -> list[str]:
    """The payload rules' findings and pending findings on the module."""
    result = lint_source("app/views.py", source.encode(), SETTINGS, ModuleInfo("app.views"))
    pending = [p.finding for p in result.pending]
    return [f"{f.code}:{f.span.line}" for f in [*result.findings, *pending]]


_ARGUMENTS = [
    "order",
    "order.pk",
    "order.customer.id",
    "Color.RED",
    "request.user",
    "str(order)",
    "json.dumps(order)",
    "get_order()",
    "make().to_dict()",
    "Order.objects.filter(a=1)[0]",
    "Order.objects.get(pk=1)",
    "session.query(Order).first()",
    "rows[0]",
    "[order]",
    "{'k': order}",
    "dict(k=order)",
    "(order, 1)",
    "*order",
    "**order",
    "f'{order}'",
    "1",
    "await order",
    "order if order else None",
    "self",
    "request",
    "self.request.user",
    "self.get_object()",
    "form.save()",
    "serializer.instance",
    "list(rows)",
    "[o for o in rows]",
    "(t.s(o) for o in rows)",
    "{o.pk: o for o in Order.objects.all()}",
    "instance",
    "kw['instance']",
    "kw.get('instance')",
]
_BINDINGS = [
    "",
    "order = Order.objects.get(pk=1)\n",
    "order = 1\n",
    "order = [o.pk for o in rows]\n",
    "order = get_order()\n",
    "order = {}\n    order['k'] = get_order()\n",
    "order = {}\n    order['k'] = 1\n",
    "for order in rows:\n        pass\n",
    "with lock() as order:\n        pass\n",
    "order, created = Order.objects.get_or_create(a=1)\n",
    "order: Order = load()\n",
    "rows = Order.objects.filter(a=1)\n",
    "form = OrderForm(data)\n",
    "for order in get_list_or_404(Order):\n        pass\n",
    "try:\n        pass\n    except Exception as order:\n        pass\n",
]
_PARAMETERS = [
    "order",
    "order: Order",
    "order=None",
    "*order",
    "request, order",
    "self, order",
    "sender, instance, **kw",
    "sender, **kw",
    "form, serializer",
]
_CALLS = [
    "send.delay({})",
    "send.apply_async(args=[{}], queue={})",
    "send.apply_async(({},), countdown=5)",
    "send.s({})",
    "partial(send.delay, {})",
    "q.enqueue(job, {})",
    "redis.enqueue_job('job', {})",
    "async_task('app.job', {})",
    "local_task({})",
    "send.send_with_options(args=({},))",
    # A project function, which may hand its argument on to a job.
    "load({}, key={})",
    "load(list({}), [{}])",
    "rows.append({})",
]
_HEADER = (
    "import json\nfrom functools import partial\nfrom django_q.tasks import async_task\n"
    "from django.shortcuts import get_list_or_404\n"
    "from .models import Order, Color, get_order, make, load, lock\nfrom .tasks import send\n\n"
    "@app.task\ndef local_task(value):\n    pass\n\n"
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(_PARAMETERS),
    st.sampled_from(_BINDINGS),
    st.sampled_from(_CALLS),
    st.lists(st.sampled_from(_ARGUMENTS), min_size=1, max_size=2),
    st.booleans(),
)
def test_an_enqueue_the_check_passes_over_is_one_the_rules_never_read(
    parameters: str, binding: str, call: str, arguments: list[str], in_class: bool
) -> None:
    """Conservative by construction: wherever the check says no, linting the
    module with the payload rules gives no finding and nothing pending."""
    body = f"    {binding}    {call.format(*arguments, *arguments)}\n"
    function = f"async def view({parameters}):\n{body}"
    if in_class:
        function = "class View:\n" + "".join(f"    {line}\n" for line in function.splitlines())
    source = _HEADER + function
    try:
        tree = quiet_ast_parse(source)
    except SyntaxError:
        return  # `*order` where no star goes
    if not payload_may_hold_object(tree) and not forwarder_call_may_hold(tree, FORWARDERS):
        assert _payload_results(source) == [], source


def test_a_file_whose_enqueues_pass_only_keys_is_not_parsed_for_the_payload_rules(
    tmp_path: Path,
) -> None:
    files = {
        "app/views.py": "from .tasks import send\n\ndef pay(order):\n    send.delay(order.pk)\n",
        "app/mail.py": "from .tasks import send\nfrom .models import Order\n\n"
        "def pay(pk):\n    order = Order.objects.get(pk=pk)\n    send.delay(order)\n",
        "app/tasks.py": "from celery import shared_task\n\n@shared_task\ndef send(pk):\n    pass\n",
        "app/models.py": "from django.db import models\n\nclass Order(models.Model):\n    pass\n",
    }
    write(tmp_path, files)
    prefilter = Prefilter([rule.CODE for rule in all_rules()], [], False)
    wanted = {
        name: screen_source(prefilter, code.encode(), check_syntax=False).wanted
        for name, code in files.items()
    }
    assert not wanted["app/views.py"] and wanted["app/mail.py"]
    run = lint_paths([tmp_path], Config(root=tmp_path), RunOptions(jobs=1, cache=False))
    assert [(Path(f.path).name, f.code) for f in run.findings] == [("mail.py", "JL201")]


def test_a_gated_trigger_counts_where_an_ast_check_confirms_the_file() -> None:
    """`.send(` counts only in a file that is linted: one an AST check
    confirms is, so the rules of its gated triggers run there too."""
    prefilter = Prefilter([rule.CODE for rule in all_rules()], [], False)
    source = (
        b"def f(pks):\n    for pk in pks:\n        transaction.on_commit(lambda: g(pk))\n"
        b"    actor.send(1, delay=5)\n"
    )
    screening = screen_source(prefilter, source, check_syntax=False)
    assert screening.wanted and screening.codes is not None
    assert {"JL104", "JL103"} <= screening.codes

"""The project model: the index (`joblint.index`), chains across modules in
findings, and results that don't depend on how the run was made."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import Run

from joblint.api import RunOptions, lint_paths
from joblint.config import Config
from joblint.index import index_source
from joblint.models import FunctionSummary, ModuleIndex, TxOpening
from joblint.pipeline.project import candidate_modules, package_roots
from joblint.settings import ModuleInfo, Options

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "project_model"


def _index(source: str, module: str = "app.m") -> ModuleIndex:
    found = index_source(source, ModuleInfo(module), Options())
    assert found is not None
    return found


def _function(index: ModuleIndex, qualname: str) -> FunctionSummary:
    return next(f for f in index.functions if f.qualname == qualname)


def test_index_summarises_transaction_openers() -> None:
    index = _index(
        "import functools\n"
        "from contextlib import contextmanager\n"
        "from django.db import transaction\n"
        "from .spans import span\n"
        "@contextmanager\n"
        "def atomic_span():\n"
        "    with span():\n"
        "        with transaction.atomic():\n"
        "            yield\n"
        "@contextmanager\n"
        "def only_span():\n"
        "    with span():\n"
        "        yield\n"
        "def in_tx(func):\n"
        "    @functools.wraps(func)\n"
        "    def wrapper(*a, **k):\n"
        "        with transaction.atomic():\n"
        "            return func(*a, **k)\n"
        "    return wrapper\n"
        "def plain():\n"
        "    return 1\n"
    )
    assert _function(index, "app.m.atomic_span").opens == TxOpening("with")
    assert _function(index, "app.m.only_span").opens == TxOpening("with", ("app.spans.span",))
    assert _function(index, "app.m.in_tx").opens == TxOpening("decorator")
    assert _function(index, "app.m.plain").opens is None


def test_index_types_rows_a_loop_or_a_pair_gives() -> None:
    index = _index(
        "from .models import Oven\n"
        "def bulk(names):\n"
        "    for oven in Oven.objects.filter(name__in=names).order_by('name'):\n"
        "        oven.start()\n"
        "    for timer in Oven.objects.values_list('timer', flat=True):\n"
        "        timer.start()\n"
        "    for item in names:\n"
        "        item.start()\n"
        "    made, created = Oven.objects.get_or_create(name='x')\n"
        "    made.start()\n"
        "    created.start()\n"
        "    locked = Oven.objects.select_for_update().get(pk=1)\n"
        "    locked.start()\n"
    )
    callees = {c.text: c.callee for c in _function(index, "app.m.bulk").calls}
    assert callees["oven.start"] == "app.models.Oven.start"
    assert callees["made.start"] == "app.models.Oven.start"
    # A row at the end of a chain, read as what a function returns is read.
    assert callees["locked.start"] == "app.models.Oven.start"
    # Plain values, a parameter's items and the pair's flag are nothing the index can tell.
    assert {"timer.start", "item.start", "created.start"}.isdisjoint(callees)


def test_index_types_an_instances_attributes_every_assignment_agrees_on() -> None:
    index = _index(
        "from dataclasses import dataclass\n"
        "from .models import Order\n"
        "from .mail import Mailer\n"
        "class Checkout:\n"
        "    def __init__(self, order: Order, note):\n"
        "        self.order = order\n"
        "        self.mailer = Mailer()\n"
        "        self.note = note\n"
        "        self.maybe = order\n"
        "    def reset(self):\n"
        "        self.maybe = None\n"
        "@dataclass\n"
        "class Refund:\n"
        "    order: Order\n"
    )
    assert set(index.instances) == {
        ("app.m.Checkout.order", "app.models.Order"),
        ("app.m.Checkout.mailer", "app.mail.Mailer"),
        ("app.m.Refund.order", "app.models.Order"),
    }


def test_index_tells_each_with_block_its_own_transaction() -> None:
    """Many `with` blocks in one function, transactional or not, one after
    another and nested: each call is inside exactly the blocks around it."""
    blocks = []
    for n in range(40):
        opener = "transaction.atomic()" if n % 3 == 0 else "span()"
        inner = f"            steps.step_{n}_inner()\n" if n % 2 else ""
        blocks.append(
            f"    with {opener}:\n        steps.step_{n}()\n"
            + (f"        with span():\n{inner}" if inner else "")
        )
    index = _index(
        "from django.db import transaction\nfrom .spans import span\nfrom . import steps\n"
        "def long_job():\n" + "".join(blocks)
    )
    calls = {c.text: c.transaction for c in _function(index, "app.m.long_job").calls}
    span = ("app.spans.span",)
    for n in range(40):
        expected = () if n % 3 == 0 else span
        assert calls[f"steps.step_{n}"] == expected
        if n % 2:
            assert calls[f"steps.step_{n}_inner"] == expected


def test_index_qualifies_calls_through_imports_types_and_self() -> None:
    index = _index(
        "from django.db import transaction\n"
        "from shop import mail\n"
        "from shop.models import Order\n"
        "from .tasks import send\n"
        "class Service:\n"
        "    def run(self, order: Order):\n"
        "        with transaction.atomic():\n"
        "            order.cancel()\n"
        "            self.notify(order)\n"
        "            fetched = Order.objects.get(pk=1)\n"
        "            fetched.refund()\n"
        "            send.s(order.pk).delay()\n"
        "            transaction.on_commit(lambda: send.delay(order.pk))\n"
        "        mail.send_receipt(order)\n"
        "    def notify(self, order):\n"
        "        pass\n",
        module="shop.service",
    )
    calls = {(c.callee, c.transaction) for c in _function(index, "shop.service.Service.run").calls}
    assert ("shop.models.Order.cancel", ()) in calls
    assert ("shop.service.Service.notify", ()) in calls
    assert ("shop.models.Order.refund", ()) in calls
    assert ("shop.tasks.send.delay", ()) in calls
    assert ("shop.mail.send_receipt", None) in calls
    # The on-commit callback runs after COMMIT: its enqueue is not a call in the transaction.
    assert not any(c.line == 13 for c in _function(index, "shop.service.Service.run").calls)


def test_index_records_commits_and_not_a_returned_lambdas_calls() -> None:
    index = _index(
        "from .tasks import send\n"
        "def save(session, order):\n"
        "    send.delay(order.pk)\n"
        "    session.commit()\n"
        "    repo.commit('message')\n"
        "def callback_for(order):\n"
        "    return lambda: send.delay(order.pk)\n"
    )
    save = _function(index, "app.m.save")
    assert save.commits == (4,)
    assert [call.line for call in save.calls] == [3]
    assert _function(index, "app.m.callback_for").calls == ()


def test_index_of_unparseable_source_is_none() -> None:
    assert index_source("def broken(:\n", ModuleInfo("app.m"), Options()) is None


def _findings(paths: list[Path], **options: object) -> set[tuple[str, int, str, str]]:
    run = lint_paths(paths, Config(root=ROOT), RunOptions(**options))  # type: ignore[arg-type]
    assert run.internal_errors == [] and run.errors == []
    return {(f.path, f.span.line, f.code, f.message) for f in run.findings}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "project_model")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "project_model"


def test_chain_is_named_with_each_hop(project: Path) -> None:
    run = lint_paths([project], Config(root=project.parent), RunOptions())
    finding = next(f for f in run.findings if f.span.line == 15)
    assert finding.message == (
        "notify_customer() is called inside transaction.atomic() (line 13) and enqueues "
        "Celery task 'email_invoice' (notify_customer() → mail.send_invoice_mail() at "
        "project_model/bakery/notify.py:6 → Mailer().send() at project_model/bakery/mail.py:14 "
        "→ email_invoice.apply_async() at project_model/bakery/mail.py:10): a worker may run "
        "the job before COMMIT. Enqueue it in transaction.on_commit(...)"
    )
    assert [(r.path, r.span.line, r.message) for r in finding.related] == [
        ("project_model/bakery/notify.py", 6, "notify_customer() calls mail.send_invoice_mail()"),
        ("project_model/bakery/mail.py", 14, "send_invoice_mail() calls Mailer().send()"),
        ("project_model/bakery/mail.py", 10, "send() calls email_invoice.apply_async()"),
    ]


def test_results_do_not_depend_on_how_the_run_is_made(project: Path) -> None:
    whole = _findings([project])
    assert len({f for f in whole if f[0].startswith("project_model/bakery/")}) == 14
    assert _findings([project], jobs=2) == whole
    assert _findings([project], cache=True) == whole  # fills the cache
    assert _findings([project], cache=True, jobs=2) == whole  # reads it
    # File by file, as pre-commit names them: the findings in each file are the
    # same (a whole-project finding elsewhere that involves the file is shown too).
    for path in sorted(project.rglob("*.py")):
        shown = path.relative_to(project.parent).as_posix()
        expected = {f for f in whole if f[0] == shown}
        assert {f for f in _findings([path]) if f[0] == shown} == expected
        assert {f for f in _findings([path], cache=True) if f[0] == shown} == expected


def test_a_wrapper_edited_to_open_no_transaction_drops_its_findings(project: Path) -> None:
    db = project / "bakery" / "db.py"
    before = _findings([project], cache=True)
    db.write_text(
        db.read_text(encoding="utf-8").replace(
            "        with transaction.atomic():\n            yield\n", "        yield\n"
        ),
        encoding="utf-8",
    )
    after = _findings([project], cache=True)
    assert {(f[0], f[1]) for f in before - after} == {
        ("project_model/bakery/views.py", line) for line in (45, 56, 78)
    }
    assert after < before


def test_a_wrapper_edited_on_disk_changes_a_named_files_findings(project: Path) -> None:
    """Naming one file on a warm cache: the project's other files come by
    their digests from the manifest, and the edited wrapper is read again."""
    views = project / "bakery" / "views.py"
    shown = views.relative_to(project.parent).as_posix()
    before = {f for f in _findings([views], cache=True) if f[0] == shown}
    assert before == {f for f in _findings([views], cache=True) if f[0] == shown}  # warm
    db = project / "bakery" / "db.py"
    db.write_text(
        db.read_text(encoding="utf-8").replace(
            "        with transaction.atomic():\n            yield\n", "        yield\n"
        ),
        encoding="utf-8",
    )
    after = {f for f in _findings([views], cache=True) if f[0] == shown}
    assert {f[1] for f in before - after} == {45, 56, 78}


def test_show_project_model(run: Run, project: Path) -> None:
    result = run(
        "check",
        "--isolated",
        "--show-project-model",
        "project_model/bakery/db.py",
        cwd=project.parent,
    )
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "project_model/bakery/db.py: module bakery.db",
        "  traced_atomic (line 12)",
        "    - opens a transaction (a context manager that yields inside one)",
        "  traced (line 20)",
        "    - would open a transaction if bakery.tracing.tracer.span did; none of them does",
        "  in_transaction (line 26)",
        "    - opens a transaction (a decorator whose wrapper calls the function inside one)",
        "  timed (line 37)",
        "    - would open a transaction if bakery.tracing.tracer.span did; none of them does",
        "  unit_of_work (line 49)",
        "    - opens a transaction (a context manager that yields inside one)",
    ]
    views = run(
        "check",
        "--isolated",
        "--show-project-model",
        "project_model/bakery/views.py",
        cwd=project.parent,
    )
    assert (
        "    - line 27: elsewhere.notify.notify_customer() inside a transaction: "
        "no enqueue found within 6 calls"
    ) in views.stdout.splitlines()
    missing = run("check", "--show-project-model", "nope.py", cwd=project.parent)
    assert missing.code == 2 and "nope.py: not a file" in missing.stderr


def test_show_project_model_says_what_helpers_return_and_which_decorators_make_tasks(
    run: Run, project: Path
) -> None:
    def shown(path: str) -> list[str]:
        result = run("check", "--isolated", "--show-project-model", path, cwd=project.parent)
        assert result.code == 0, result.stderr
        return result.stdout.splitlines()

    assert (
        "    - returns a Django model instance (Prescription, through pharmacy.store.fetch())"
        in (shown("project_model/pharmacy/services.py"))
    )
    worker = shown("project_model/ledger/worker.py")
    assert (
        "    - task decorator built on celery.shared_task: celery's task, with "
        "autoretry_for=..., max_retries=None, retry_backoff=True, retry_jitter=False"
    ) in worker
    accounts = shown("project_model/ledger/accounts.py")
    assert (
        "    - a celery task by the project's @ledger.worker.task, with bind=True, max_retries=None"
    ) in accounts


def test_json_carries_the_chain(run: Run, project: Path) -> None:
    result = run("check", "--isolated", "--format", "json", ".", cwd=project.parent)
    found = json.loads(result.stdout)
    chained = next(f for f in found if f["line"] == 15)
    assert [(r["path"], r["line"]) for r in chained["related"]] == [
        ("project_model/bakery/notify.py", 6),
        ("project_model/bakery/mail.py", 14),
        ("project_model/bakery/mail.py", 10),
    ]


def test_helpers_returning_calls_of_themselves_end(tmp_path: Path) -> None:
    """What a helper returns is followed to its class a bounded number of
    hops: a task returning a call of itself, or two helpers returning each
    other's results, resolve to nothing instead of recursing without end."""
    shop = tmp_path / "shop"
    shop.mkdir()
    (shop / "__init__.py").write_text("")
    (shop / "tasks.py").write_text(
        "from celery import shared_task\n"
        "from django.db import transaction\n"
        "\n"
        "@shared_task(bind=True)\n"
        "def countdown(self, n):\n"
        "    if n:\n"
        "        return countdown.apply(args=(n - 1,))\n"
        "    return n\n"
        "\n"
        "def first():\n"
        "    return second().start()\n"
        "\n"
        "def second():\n"
        "    return first().start()\n"
        "\n"
        "def close_till():\n"
        "    with transaction.atomic():\n"
        "        countdown.apply(args=(2,)).get()\n"
        "        first().start()\n"
        "        countdown.delay(3)\n"
    )
    run = lint_paths([tmp_path], Config(root=tmp_path), RunOptions())
    assert run.internal_errors == [] and run.errors == []
    assert [(f.code, f.span.line) for f in run.findings] == [("JL101", 20)]


def test_index_reads_a_guard_a_module_imports() -> None:
    source = (
        "from joblint.runtime.idempotency import idempotent\n"
        "from .mail import send\n"
        "@idempotent(key=lambda order_id: order_id)\n"
        "def notify(order_id):\n"
        "    send(order_id)\n"
        "def remind(order_id):\n"
        "    send(order_id)\n"
    )
    index = _index(source)
    assert _function(index, "app.m.notify").claims
    assert not _function(index, "app.m.remind").claims


def test_child_nodes_are_the_ast_children_without_contexts() -> None:
    import ast
    import dataclasses
    import inspect
    import json as json_module

    from joblint.index.nodes import child_nodes

    own = (
        "def f(a, *, b=1, c):\n"
        "    global g\n"
        "    def h():\n"
        "        nonlocal a\n"
        "    x = {**a, 'k': b}\n"
        "    match x:\n"
        "        case {'k': 1, **rest} | C(y=2) | None | [1, *_]: pass\n"
        "    return f'{x!r:>{b}}' if x else lambda *, k=None: k\n"
    )
    sources = [own, *(inspect.getsource(m) for m in (ast, json_module, dataclasses))]
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            expected = [
                child
                for child in ast.iter_child_nodes(node)
                if not isinstance(child, ast.expr_context)
            ]
            assert child_nodes(node) == expected, ast.dump(node)[:80]


def test_own_nodes_and_their_kinds_are_a_walk_of_the_function_s_own_code() -> None:
    """`own_nodes` (its own walk, for speed) visits what a plain walk by
    `child_nodes` does, in the same order: the body, and of nested scopes
    only what runs where they are defined; `nodes_by_kind` keeps that order."""
    import ast
    import dataclasses
    import inspect
    import json as json_module

    from joblint.index.nodes import child_nodes, nodes_by_kind, own_nodes

    def walked(body: list[ast.stmt]) -> list[ast.AST]:
        found: list[ast.AST] = []
        for statement in body:
            todo: list[ast.AST] = [statement]
            while todo:
                node = todo.pop()
                found.append(node)
                if isinstance(node, ast.Lambda):
                    todo.extend(
                        reversed([*node.args.defaults, *filter(None, node.args.kw_defaults)])
                    )
                elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    here = [*node.decorator_list]
                    if isinstance(node, ast.ClassDef):
                        here += [*node.bases, *(k.value for k in node.keywords)]
                    else:
                        here += [*node.args.defaults, *filter(None, node.args.kw_defaults)]
                    todo.extend(reversed(here))
                else:
                    todo.extend(reversed(child_nodes(node)))
        return found

    own = (
        "def f(a, *, b=1, c=None):\n"
        "    @deco(a)\n"
        "    def g(x=b, *, y=None, z):\n"
        "        return x\n"
        "    class C(Base, metaclass=M):\n"
        "        attr = a\n"
        "    h = lambda k=c, *, m=None: k\n"
        "    return {**a, 'k': [g(i) for i in b if i]}\n"
    )
    sources = [own, *(inspect.getsource(m) for m in (ast, json_module, dataclasses))]
    functions = 0
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions += 1
                found = own_nodes(node.body)
                assert found == walked(node.body), node.name
                for kind, nodes in nodes_by_kind(found).items():
                    assert nodes == [n for n in found if type(n) is kind]
    assert functions > 100


def test_a_queue_a_project_function_makes_is_a_queue(project: Path) -> None:
    run = lint_paths([project / "printshop"], Config(root=project.parent), RunOptions())
    views = "project_model/printshop/views.py"
    found = {f.span.line: f for f in run.findings if f.path == views}
    assert sorted(found) == [12, 18, 24, 30, 36]
    assert found[12].message == (
        "print_queue().enqueue() is called inside transaction.atomic() (line 10) and "
        "enqueues an RQ job (print_queue() at project_model/printshop/queues.py:7 returns "
        "Queue()): a worker may run the job before COMMIT. Enqueue it in "
        "transaction.on_commit(...)"
    )
    assert found[30].related[-1].message == "queue_render() calls queue.enqueue()"
    assert found[36].code == "JL102"


def test_index_records_the_flags_a_call_needs_and_passes() -> None:
    index = index_source(
        "from app.tasks import helper, notify, task\n"
        "def sync(self, asynchronous=True, *, quiet=None):\n"
        "    if asynchronous:\n"
        "        task.delay(1)\n"
        "    else:\n"
        "        task(1)\n"
        "    if not quiet:\n"
        "        notify(1)\n"
        "    helper(False, asynchronous, quiet=0, other=compute())\n"
        "    helper(*rest)\n"
        "def rebinds(flag):\n"
        "    flag = not flag\n"
        "    if flag:\n"
        "        helper(1)\n",
        ModuleInfo("app.m"),
        Options(),
    )
    assert index is not None
    sync = _function(index, "app.m.sync")
    assert sync.parameters == ("self", "asynchronous")
    assert sync.defaults == (("asynchronous", True), ("quiet", False))
    calls = {call.line: call for call in sync.calls}
    assert calls[4].guard == (("asynchronous", True),)
    assert calls[6].guard == (("asynchronous", False),)
    assert calls[8].guard == (("quiet", False),)
    assert calls[9].flags == (("0", "0"), ("1", "=asynchronous"), ("quiet", "0"), ("other", ""))
    assert calls[10].flags[0] == ("*", "")
    # A parameter the function assigns is no flag: its value isn't the caller's.
    assert [call.guard for call in _function(index, "app.m.rebinds").calls] == [()]


def test_index_records_each_flag_an_and_of_tests_needs() -> None:
    index = index_source(
        "from app.tasks import notify, task\n"
        "def create(cls, org, country, schemes=()):\n"
        "    if org and country and 'tel' in schemes:\n"
        "        task(org)\n"
        "    else:\n"
        "        notify(1)\n"
        "    if org and not country:\n"
        "        task.delay(1)\n",
        ModuleInfo("app.m"),
        Options(),
    )
    assert index is not None
    calls = {call.line: call for call in _function(index, "app.m.create").calls}
    assert calls[4].guard == (("country", True), ("org", True))
    # The `else` of an `and` runs when any test fails: it needs none.
    assert calls[6].guard == ()
    assert calls[8].guard == (("country", False), ("org", True))


def test_index_types_a_parameter_named_after_a_class_the_module_binds() -> None:
    index = index_source(
        "from app.models import Org, OrderLine\n"
        "def claim(org, order_line, user, _org, Org2=None):\n"
        "    org.normalize()\n"
        "    order_line.ship()\n"
        "    user.notify()\n"
        "    _org.normalize()\n",
        ModuleInfo("app.m"),
        Options(),
    )
    assert index is not None
    callees = [call.callee for call in _function(index, "app.m.claim").calls]
    # `user` names no class the module binds; `_org` is no plain name.
    assert callees == ["app.models.Org.normalize", "app.models.OrderLine.ship"]


def test_index_lists_classes_whose_dispatch_is_non_atomic() -> None:
    index = index_source(
        "from django.db import transaction\n"
        "from django.utils.decorators import method_decorator\n"
        "class Outside:\n"
        "    @transaction.non_atomic_requests\n"
        "    def dispatch(self, request, *args, **kwargs):\n"
        "        return super().dispatch(request, *args, **kwargs)\n"
        "@method_decorator(transaction.non_atomic_requests, name='dispatch')\n"
        "class Whole:\n"
        "    pass\n"
        "class Inside:\n"
        "    def dispatch(self, request, *args, **kwargs):\n"
        "        return super().dispatch(request, *args, **kwargs)\n",
        ModuleInfo("app.mixins"),
        Options(),
    )
    assert index is not None
    assert index.non_atomic_classes == ("app.mixins.Outside", "app.mixins.Whole")


def test_index_tells_what_a_caller_does_with_a_result() -> None:
    index = _index(
        "from sqlalchemy import update\n"
        "from .queue import next_job, next_jobs, peek\n"
        "async def run(s):\n"
        "    job = await next_job(s)\n"
        "    job.state = 'running'\n"
        "    for queued in next_jobs(s):\n"
        "        queued.save()\n"
        "    seen = peek(s)\n"
        "    print(seen.state)\n"
        "def by_key(s):\n"
        "    job = next_job(s)\n"
        "    s.execute(update(Job).where(Job.id == job.id).values(state='running'))\n"
        "    rows = next_jobs(s)\n"
        "    for row in rows:\n"
        "        Job.objects.filter(pk=row.pk).update(state='running')\n"
        "def rebound(s):\n"
        "    job = next_job(s)\n"
        "    job = Job()\n"
        "    job.save()\n"
        "    other = next_job(s)\n"
        "    cache.delete(other.id)\n"
    )
    uses = {call.line: call.result_use for f in index.functions for call in f.calls}
    assert uses[4] == "set"  # a field set: a write where the session flushes it
    assert uses[6] == "written"  # each row of the loop saved
    assert uses[8] == ""  # only read
    assert uses[11] == "written"  # an update whose filter names its key
    assert uses[13] == "written"  # the rows of a name looped over
    assert uses[17] == ""  # the name is bound again: what is saved is another row
    assert uses[20] == ""  # a cache key, not a row write


def test_index_tells_functions_returning_a_growing_list_of_waits() -> None:
    index = _index(
        "import random\n"
        "def squares(count) -> list:\n"
        "    waits = [1]\n"
        "    for step in range(2, count):\n"
        "        waits.append(step ** 2)\n"
        "    return waits\n"
        "def waits_for(count, on) -> list | int:\n"
        "    if on:\n"
        "        return squares(count)\n"
        "    return 0\n"
        "def doubling(count):\n"
        "    return [5 * 2 ** i for i in range(count)]\n"
        "def literal():\n"
        "    return [1, 10, 60]\n"
        "def even(count):\n"
        "    return [30 for _ in range(count)]\n"
        "def spread(count):\n"
        "    waits = []\n"
        "    for step in range(count):\n"
        "        waits.append(2 ** step + random.random())\n"
        "    return waits\n"
        "def extended(count):\n"
        "    waits = []\n"
        "    for step in range(count):\n"
        "        waits.append(2 ** step)\n"
        "    waits.insert(0, other())\n"
        "    return waits\n"
        "def forwarding(count):\n"
        "    return squares(count)\n"
    )

    def facts(name: str) -> set[tuple[str, str]]:
        return {(f.how, f.name) for f in _function(index, f"app.m.{name}").returns}

    assert facts("squares") == {("schedule", "")}
    assert facts("waits_for") == {("schedule", "app.m.squares")}
    assert facts("doubling") == facts("literal") == {("schedule", "")}
    # Constant, jittered or changed otherwise: no growing list; an
    # unannotated forwarder keeps the call it returns.
    assert "schedule" not in {how for how, _ in facts("even") | facts("spread")}
    assert "schedule" not in {how for how, _ in facts("extended")}
    assert facts("forwarding") == {("call", "app.m.squares")}


def test_helpers_retry_the_task_they_are_handed_in_every_arm_of_an_if() -> None:
    index = _index(
        "def routed(task, note, exc):\n"
        "    if note is None:\n"
        "        task.retry(exc=exc)\n"
        "    else:\n"
        "        task.retry(exc=exc, queue=note.queue)\n"
        "def some(task, note, exc):\n"
        "    if note:\n"
        "        task.retry()\n"
        "    elif exc:\n"
        "        task.retry()\n"
        "def caught(task, note, exc):\n"
        "    if note:\n"
        "        task.retry()\n"
        "    else:\n"
        "        try:\n"
        "            note.send()\n"
        "        except OSError:\n"
        "            task.retry()\n"
    )
    assert _function(index, "app.m.routed").retries_handed == ("0",)
    assert _function(index, "app.m.some").retries_handed == ()
    assert _function(index, "app.m.caught").retries_handed == ()


def test_helpers_retry_the_task_they_are_handed_with_the_delay_handed_beside_it() -> None:
    index = _index(
        "from typing import Any\n"
        "def later(task, exc, wait=None):\n"
        "    raise task.retry(exc=exc, **params('retry', countdown=wait))\n"
        "def at(task, exc, when):\n"
        "    try:\n"
        "        exc.log()\n"
        "    except OSError:\n"
        "        task.retry(eta=when)\n"
        "def logged(task, waited):\n"
        "    log(waited)\n"
        "    task.retry(countdown=60)\n"
        "def params(queue, countdown=None) -> dict[str, Any]:\n"
        "    found: dict[str, Any] = {'queue': queue}\n"
        "    if countdown is not None:\n"
        "        found['countdown'] = countdown\n"
        "    return found\n"
        "def plain(queue) -> dict[str, Any]:\n"
        "    return {'queue': queue}\n"
    )

    def delays(name: str) -> set[tuple[str, str, str, str, str, str]]:
        return {
            (d.task, d.position, d.parameter, d.built_by, d.built_at, d.built_as)
            for d in _function(index, f"app.m.{name}").retry_delays
        }

    # Through a dict a project function builds, by keyword; an except clause
    # of the helper's own waits as long; a parameter only logged is no delay.
    assert delays("later") == {("0", "2", "wait", "app.m.params", "", "countdown")}
    assert delays("at") == {("0", "2", "when", "", "", "")}
    assert delays("logged") == set()
    # A dict annotation keeps the parameters the dict holds, also set by key.
    held = {(f.how, f.name, f.kind, f.key) for f in _function(index, "app.m.params").returns}
    assert ("param", "countdown", "1", "countdown") in held
    assert ("param", "queue", "0", "queue") in held
    assert {f.how for f in _function(index, "app.m.plain").returns} == {"plain", "param"}


def test_packages_imported_from_their_own_import_root() -> None:
    modules = {"workers", "workers.jobs", "workers.jobs.decorator", "workers.general.tasks"}
    modules |= {"backend", "backend.celery", "backend.utils", "web.utils"}
    roots = package_roots(modules)
    assert roots["jobs"] == "workers.jobs"
    # A library's name, or one two packages end with, says nothing.
    assert "celery" not in roots and "utils" not in roots
    assert candidate_modules({"jobs.worker_task"}, modules, roots) == {"workers.jobs"}
    assert candidate_modules({"celery.shared_task", "utils.x"}, modules, roots) == set()


def test_a_loop_over_every_row_is_a_jobs_where_a_task_reaches_it_through_a_cycle(
    tmp_path: Path,
) -> None:
    """A function looping over every due row and claiming each is reported
    where a task runs it, through callers calling each other; no task up
    there, nothing is reported, and the search ends."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "__init__.py").write_text("")
    (app / "store.py").write_text(
        "from django.db import transaction\n"
        "\n"
        "from app.models import Slot\n"
        "\n"
        "def release_due():\n"
        "    with transaction.atomic():\n"
        "        for slot in Slot.objects.select_for_update().filter(state='due'):\n"
        "            slot.state = 'free'\n"
        "            slot.save()\n"
    )
    (app / "sweep.py").write_text(
        "from app.store import release_due\n"
        "\n"
        "def sweep(again):\n"
        "    if again:\n"
        "        resweep()\n"
        "    release_due()\n"
        "\n"
        "def resweep():\n"
        "    sweep(False)\n"
    )
    run = lint_paths([tmp_path], Config(root=tmp_path), RunOptions())
    assert run.internal_errors == [] and run.findings == []
    (app / "tasks.py").write_text(
        "from celery import shared_task\n"
        "\n"
        "from app.sweep import resweep\n"
        "\n"
        "@shared_task\n"
        "def nightly():\n"
        "    resweep()\n"
    )
    run = lint_paths([tmp_path], Config(root=tmp_path), RunOptions())
    found = [(f.code, Path(f.path).relative_to(tmp_path), f.span.line) for f in run.findings]
    assert found == [("JL401", Path("app/store.py"), 7)]
    message = run.findings[0].message
    assert "for the job 'nightly' (nightly() → resweep() at " in message
    assert "→ release_due() at " in message

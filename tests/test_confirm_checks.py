"""The AST checks confirming JL106's, JL401's, the cache locks' and JL405's triggers:
yes where the rules may report, no on the look-alikes (and there the rules
find nothing); and how the screen finds the steps: each registered by name in
its family's `_screen/` package, a trigger naming none failing loudly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from joblint import registry
from joblint.index.ast_walk import quiet_ast_parse
from joblint.knowledge import confirm
from joblint.knowledge.trigger import Trigger
from joblint.pipeline.lint import lint_source
from joblint.pipeline.screen import ast_checks
from joblint.pipeline.screen.prefilter import Prefilter
from joblint.rules.locks._screen.cache_check import cache_add_call
from joblint.rules.locks._screen.key_check import key_checked_then_set
from joblint.rules.locks._screen.row_lock_check import row_lock_picking_rows
from joblint.rules.transactions._screen.write_check import enqueue_then_write
from joblint.settings import LintSettings, ModuleInfo

_TASK = "from .tasks import notify\n\n"
ENQUEUE_THEN_WRITE = [
    (_TASK + "def f(o):\n    notify.delay(o.pk)\n    o.save()\n", True),
    (_TASK + "async def f(o):\n    if o:\n        notify.delay(o.pk)\n    await o.asave()\n", True),
    (_TASK + "notify.delay(O.pk)\nO.save()\n", True),  # the module's own statements
    # Look-alikes: the write first, or in another function.
    (_TASK + "def f(o):\n    o.save()\n    notify.delay(o.pk)\n", False),
    (_TASK + "def f(o):\n    notify.delay(o.pk)\n\ndef g(o):\n    o.save()\n", False),
    (_TASK + "def f(o):\n    def later():\n        notify.delay(o.pk)\n    o.save()\n", False),
]
CACHE_ADD = [
    ("from django.core.cache import cache\n\ndef f(k):\n    cache.add(k, 1)\n", True),
    ("from django.core.cache import cache as store\n\ndef f(k):\n    store.add(k, 1)\n", True),
    (
        "from django.core.cache import caches\n\nlocks = caches['locks']\n\n"
        "def f(k):\n    locks.add(k, 1, timeout=None)\n",
        True,
    ),
    ("from django.core.cache import BaseCache\n\ndef f(c: BaseCache, k):\n    c.add(k, 1)\n", True),
    # Look-alikes: a set's add in a module using a cache.
    (
        "from django.core.cache import cache\n\ndef f(ks):\n    seen = set()\n    seen.add(ks)\n",
        False,
    ),
    (
        "from django.core.cache import cache\n\ndef f(user, group):\n"
        "    user.groups.add(group)\n    cache.set('k', 1)\n",
        False,
    ),
    # Kept results with the default timeout or a number: no rule reads them.
    (
        "from django.core.cache import cache\n\ndef f(k, t):\n"
        "    if not cache.add(k, 1, timeout=t):\n        return\n"
        "    return cache.add(k, 2, 30)\n",
        False,
    ),
    # Kept with a literal None timeout (JL402); awaited as a bare statement (JL404).
    ("from django.core.cache import cache\n\ndef f(k):\n    ok = cache.add(k, 1, None)\n", True),
    (
        "from django.core.cache import cache\n\nasync def f(k):\n    await cache.aadd(k, 1, 60)\n",
        True,
    ),
    # A value read from a cache, or handed to a call, is no cache.
    (
        "from django.core.cache import cache\n\ndef f(k, group):\n"
        "    data = cache.get(k)\n    user = load(data)\n    user.groups.add(group)\n"
        "    members = cache.get(group)\n    members.add(k)\n",
        False,
    ),
]

_CACHE = "from django.core.cache import cache\n\n"
_TIERED = "from edx_django_utils.cache import TieredCache\n\n"
KEY_CHECKED_THEN_SET = [
    # The key names a lock; through a local name; a constant of another module.
    (
        _CACHE + "def f(pk):\n    if cache.get(f'lock:{pk}') is None:\n"
        "        cache.set(f'lock:{pk}', 1, 60)\n",
        True,
    ),
    (
        _CACHE + "def f(pk):\n    key = f'sync-lock:{pk}'\n    if not cache.get(key):\n"
        "        cache.set(key, True, 60)\n",
        True,
    ),
    (
        _CACHE + "from .keys import REPORT\n\ndef f():\n    if cache.get(REPORT):\n"
        "        return\n    cache.set(REPORT, 'held', 60)\n",
        True,
    ),
    # The key deleted after the set, whatever the value.
    (
        _CACHE + "def f(pk, v):\n    if cache.get(pk) is None:\n        cache.set(pk, v)\n"
        "        work()\n        cache.delete(pk)\n",
        True,
    ),
    # A try-lock function: a TieredCache lookup, a key naming no lock.
    (
        _TIERED + "def take_plan_lock(pk):\n    key = make_key(pk)\n"
        "    found = TieredCache.get_cached_response(key)\n    if found.is_found:\n"
        "        return False\n    TieredCache.set_all_tiers(key, 'held', 60)\n    return True\n",
        True,
    ),
    # Look-alikes: cache fills (a computed value, a refill), a marker under a
    # key naming no lock, a set in another function, on another receiver,
    # a lock-named function with no True/False answer.
    (
        _CACHE + "def f(pk):\n    v = cache.get(f'price:{pk}')\n    if v is None:\n"
        "        v = compute(pk)\n        cache.set(f'price:{pk}', v, 300)\n    return v\n",
        False,
    ),
    (
        _CACHE + "def f(pk):\n    key = f'seen:{pk}'\n    if cache.get(key):\n        return\n"
        "    cache.set(key, True, 60)\n",
        False,
    ),
    (
        _CACHE + "def f(pk):\n    return cache.get(f'lock:{pk}')\n\n"
        "def g(pk):\n    cache.set(f'lock:{pk}', 1)\n",
        False,
    ),
    (
        _CACHE + "def f(other, pk):\n    if cache.get(f'lock:{pk}') is None:\n"
        "        other.set(f'lock:{pk}', 1)\n",
        False,
    ),
    (
        _CACHE + "def lock_tip(pk):\n    if cache.get(make_key(pk)) is None:\n"
        "        cache.set(make_key(pk), 'shown', 60)\n",
        False,
    ),
    (
        _TIERED + "def outline(pk):\n    key = make_key(pk)\n"
        "    found = TieredCache.get_cached_response(key)\n    if found.is_found:\n"
        "        return found.value\n    value = build(pk)\n"
        "    TieredCache.set_all_tiers(key, value, 60)\n    return value\n",
        False,
    ),
]

_ROWS = "from sqlalchemy import select\n\nfrom .models import Job\n\n"
_LOCKED = 'select(Job).where(Job.state == "due").with_for_update()'
ROW_LOCK_LOOPS = [
    # A loop in a plain function, which a job may run: the rule asks the project.
    (_ROWS + f"def f(s):\n    for j in s.scalars({_LOCKED}):\n        j.state = 'x'\n", True),
    (
        _ROWS + f"def f(s):\n    stmt = {_LOCKED}\n    rows = s.execute(stmt).scalars().all()\n"
        "    for j in rows:\n        j.state = 'x'\n",
        True,
    ),
    (
        _ROWS + "def f():\n    for j in Job.query.filter(Job.state == 'due').with_for_update():\n"
        "        j.delete()\n",
        True,
    ),
    # Look-alikes: one row fetched, a loop outside functions, nothing written.
    (_ROWS + f"def f(s):\n    j = s.scalars({_LOCKED}).first()\n    print(j)\n", False),
    (_ROWS + f"for j in S.scalars({_LOCKED}):\n    j.state = 'x'\n", False),
    (_ROWS + f"def f(s):\n    for j in s.scalars({_LOCKED}):\n        print(j)\n", False),
]


@pytest.mark.parametrize(("source", "expected"), ENQUEUE_THEN_WRITE)
def test_enqueue_then_write(source: str, expected: bool) -> None:
    data = source.encode()
    assert enqueue_then_write(quiet_ast_parse(data), data.lower()) is expected
    if not expected:
        assert _found(source, "JL106") == []


@pytest.mark.parametrize(("source", "expected"), CACHE_ADD)
def test_cache_add_call(source: str, expected: bool) -> None:
    data = source.encode()
    assert cache_add_call(quiet_ast_parse(data), data.lower()) is expected
    if not expected:
        assert _found(source, "JL402") == [] and _found(source, "JL404") == []


@pytest.mark.parametrize(("source", "expected"), KEY_CHECKED_THEN_SET)
def test_key_checked_then_set(source: str, expected: bool) -> None:
    data = source.encode()
    assert key_checked_then_set(quiet_ast_parse(data), data.lower()) is expected
    if not expected:
        assert _found(source, "JL405") == []


@pytest.mark.parametrize(("source", "expected"), ROW_LOCK_LOOPS)
def test_row_lock_loops(source: str, expected: bool) -> None:
    data = source.encode()
    assert row_lock_picking_rows(quiet_ast_parse(data), data.lower()) is expected
    if not expected:
        assert _found(source, "JL401") == []


def _found(source: str, code: str) -> list[str]:
    result = lint_source(
        "app/views.py", source.encode(), LintSettings(frozenset({code})), ModuleInfo("app.views")
    )
    return [
        f"{f.code}:{f.span.line}" for f in [*result.findings, *(p.finding for p in result.pending)]
    ]


# Where each step the rules' triggers name is defined: the family whose rules
# name it, or the screen (a step any family may name).
STEP_HOMES = {
    "sleep-in-retry-loop": "joblint.rules.retries._screen.",
    "while-true-retry": "joblint.rules.retries._screen.",
    "on-commit-in-loop": "joblint.rules.transactions._screen.",
    "enqueue-then-write": "joblint.rules.transactions._screen.",
    "cache-add-call": "joblint.rules.locks._screen.",
    "key-checked-then-set": "joblint.rules.locks._screen.",
    "row-lock-picking-rows": "joblint.rules.locks._screen.",
    "payload-may-hold-object": "joblint.rules.payloads._screen.",
    "project-decorated-function": "joblint.pipeline.screen.",
}


def test_every_step_a_trigger_names_is_registered_in_its_family() -> None:
    named = {t.confirm for info in registry.catalog() for t in info.triggers if t.confirm}
    steps = ast_checks.steps()
    assert named == set(steps) == set(STEP_HOMES)
    for name, found in steps.items():
        assert found.module.startswith(STEP_HOMES[name]), (name, found.module)
    # The steps that can answer on parts of a module.
    assert {n for n, found in steps.items() if found.in_parts} == {
        "on-commit-in-loop",
        "row-lock-picking-rows",
    }


def test_a_trigger_naming_an_unregistered_step_fails_loudly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(confirm.UnknownConfirmStep, match="no-such-step"):
        ast_checks.step("no-such-step")
    unknown = (Trigger(("sleep",), confirm="no-such-step"),)
    monkeypatch.setattr(registry, "triggers", lambda code: unknown)
    with pytest.raises(confirm.UnknownConfirmStep, match="no-such-step"):
        Prefilter(["JL301"], [], False).build()  # the checks, built before any file is screened


def test_a_step_name_registers_once() -> None:
    with pytest.raises(ValueError, match="on-commit-in-loop"):
        confirm.confirm_step("on-commit-in-loop")(lambda tree, lowered: True)


def test_steps_reading_one_view_share_it_per_file() -> None:
    """The two sleep steps read one scan of the tree, made once per file."""
    from joblint.rules.retries._screen.sleep_check import SleepScan

    source = b"import time\nwhile True:\n    try:\n        go()\n    except E:\n"
    source += b"        time.sleep(n)\n"
    tree = quiet_ast_parse(source)
    views: confirm.Views = {}
    steps = ast_checks.steps()
    for name in ("sleep-in-retry-loop", "while-true-retry"):
        assert steps[name].holds(tree, source, views)
    assert [type(view) for view in views.values()] == [SleepScan]


# Prints the modules of LibCST, sqlglot and the rules (not the families'
# `_screen`, `_facts`, ... packages) imported once the steps are found.
_FIND_STEPS = """
import sys
from joblint.pipeline.screen import ast_checks

assert len(ast_checks.steps()) == 9


def heavy(name):
    parts = name.split(".")
    rule = parts[:2] == ["joblint", "rules"] and len(parts) == 4
    return parts[0] in {"libcst", "sqlglot"} or (rule and not parts[3].startswith("_"))


print(sorted(filter(heavy, sys.modules)))
"""


def test_finding_the_steps_imports_no_libcst() -> None:
    """The screen runs before LibCST is needed (and a warm run never needs it):
    the families' `_screen` packages read `ast` only."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", _FIND_STEPS],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

"""What a function does with the values its calls return, for the project
model: whether it claims a row a helper hands back (`job = next_job(s);
job.state = "running"; job.save()`).

A call's result is followed through the name it is bound to once in the
function (`job = next_job(s)`, `job = await next_job(s)`, `for job in
next_jobs(s):`, and a loop over such a name: `jobs = next_jobs(s); for job in
jobs:`). It is written when the function saves, updates or deletes it
(`job.save()`, `jobs.update(...)`, `session.delete(job)`, `bulk_update(jobs,
...)`, a write whose filter names its key: `Job.objects.filter(pk=job.pk)
.update(...)`), and set when it only assigns a field of it (`job.state =
"running"`), which writes where the ORM flushes what its session holds.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import cast

from joblint.knowledge import locks
from joblint.models import RESULT_SET, RESULT_WRITTEN

_Kinds = Mapping[type[ast.AST], list[ast.AST]]

_SAVES = locks.ROW_SAVE_METHODS | locks.ROW_WRITE_CALLS
# The binding forms of a name in a function body (what makes it bound twice).
_BINDING_KINDS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.withitem)


def result_uses(kinds: _Kinds) -> dict[int, str]:
    """`id(call)` -> `RESULT_WRITTEN` or `RESULT_SET` for the calls (among a
    function's own nodes, grouped by kind) whose result the function claims."""
    writes = [c for c in kinds.get(ast.Call, ()) if _method(cast(ast.Call, c)) in _SAVES]
    if not writes and not _sets_a_field(kinds):
        return {}  # most functions set no field of a name and call no save
    bound = _bound_results(kinds)
    if not bound:
        return {}
    uses: dict[int, str] = {}
    for name, use in _name_uses(kinds, set(bound), writes):
        call = bound[name]
        if uses.get(call) != RESULT_WRITTEN:
            uses[call] = use
    return uses


def _sets_a_field(kinds: _Kinds) -> bool:
    """Whether the function sets an attribute of a name (`job.state = ...`)."""
    for node in _of(kinds, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        assert isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) for t in targets):
            return True
    return False


def _bound_results(kinds: _Kinds) -> dict[str, int]:
    """The names bound once, to what a call returns or to its rows: name -> id(call)."""
    assigned: list[tuple[str, int]] = []
    for node in _of(kinds, (ast.Assign, ast.AnnAssign)):
        assert isinstance(node, ast.Assign | ast.AnnAssign)
        call = _call(node.value)
        if call is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        assigned.extend((t.id, id(call)) for t in targets if isinstance(t, ast.Name))
    loops = [
        n for n in _of(kinds, (ast.For, ast.AsyncFor)) if isinstance(n, ast.For | ast.AsyncFor)
    ]
    if not assigned and not loops:
        return {}
    once = bound_once(kinds)
    bound = {name: call for name, call in assigned if name in once}
    for loop in sorted(loops, key=lambda n: (n.lineno, n.col_offset)):
        target = loop.target
        if not (isinstance(target, ast.Name) and target.id in once):
            continue
        call = _call(loop.iter)
        if call is not None:
            bound[target.id] = id(call)
        elif isinstance(loop.iter, ast.Name) and loop.iter.id in bound:
            bound[target.id] = bound[loop.iter.id]
    return bound


def bound_once(kinds: _Kinds) -> set[str]:
    """The names the function binds exactly once (a rebound name may hold another value)."""
    counts: dict[str, int] = {}
    for node in _of(kinds, _BINDING_KINDS):
        for target in _binding_targets(node):
            for name in _names_in(target):
                counts[name] = counts.get(name, 0) + 1
    return {name for name, count in counts.items() if count == 1}


def _of(kinds: _Kinds, wanted: tuple[type[ast.AST], ...]) -> Iterator[ast.AST]:
    for kind in wanted:
        yield from kinds.get(kind, ())


def _binding_targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        return [node.target]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars]
    return []


def _names_in(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _names_in(element)
    elif isinstance(target, ast.Starred):
        yield from _names_in(target.value)


def _call(value: ast.expr | None) -> ast.Call | None:
    if isinstance(value, ast.Await):
        value = value.value
    return value if isinstance(value, ast.Call) else None


def _name_uses(kinds: _Kinds, names: set[str], writes: list[ast.AST]) -> Iterator[tuple[str, str]]:
    """(name, use) for each write or field set of a bound name (`writes`:
    the calls of a write method)."""
    for node in _of(kinds, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        assert isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            value = target.value if isinstance(target, ast.Attribute) else None
            if isinstance(value, ast.Name) and value.id in names:
                yield value.id, RESULT_SET
    # A write at the root of a chain (`update(Job).where(...)`) is found from
    # the chain's outer calls: every call is read then (rare), else the writes.
    rooted = any(isinstance(cast(ast.Call, c).func, ast.Name) for c in writes)
    for call in kinds.get(ast.Call, ()) if rooted else writes:
        assert isinstance(call, ast.Call)
        yield from ((name, RESULT_WRITTEN) for name in _written(call, names))


def _written(call: ast.Call, names: set[str]) -> Iterator[str]:
    """The bound names a write call writes: its receiver (`job.save()`), a
    positional argument (`session.delete(job)`), or a key of it another link
    of its chain compares (`Job.objects.filter(pk=job.pk).update(...)`,
    `update(Job).where(Job.id == job.id)`)."""
    func = call.func
    receiver = func.value if isinstance(func, ast.Attribute) else None
    if isinstance(receiver, ast.Name) and receiver.id in names and _method(call) in _SAVES:
        yield receiver.id
        return
    links = chain_links(call)
    writes = [link for link in links if _method(link) in locks.ROW_WRITE_CALLS]
    if not writes:
        return
    if writes[-1] is call:
        for arg in call.args:
            if isinstance(arg, ast.Name) and arg.id in names:
                yield arg.id
    for link in links:
        if link not in writes:
            yield from _keys_named(link, names)


def chain_links(call: ast.Call) -> list[ast.Call]:
    """The calls of the chain `call` ends, itself last (`update(Job)`,
    `.where(...)`, `.values(...)`)."""
    links = [call]
    node: ast.expr = call.func
    while isinstance(node, ast.Attribute | ast.Call):
        node = node.value if isinstance(node, ast.Attribute) else node.func
        if isinstance(node, ast.Call):
            links.append(node)
    links.reverse()
    return links


def _method(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _keys_named(link: ast.Call, names: set[str]) -> Iterator[str]:
    """Bound names whose key (`job.pk`, `job.id`) a link's arguments compare."""
    for arg in [*link.args, *(keyword.value for keyword in link.keywords)]:
        for node in ast.walk(arg):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in locks.KEY_COLUMNS
                and isinstance(node.value, ast.Name)
                and node.value.id in names
            ):
                yield node.value.id

"""An ORM query chain that locks the rows it reads, as a neutral fact.

A chain with one of the ORMs' row-locking methods (`locks.ROW_LOCK_METHODS`:
`select_for_update()`, `with_for_update()`) is a row lock: the fact says which
link locks, whether the lock waits for rows other transactions hold (none of
the API's non-waiting keywords, `skip_locked=`/`nowait=`, is true), and why
the chain picks the next row(s) among many, if it does (a pick-next method,
an index or a slice, or a `for` in a worker's loop). A statement a session
runs (`session.scalars(stmt)`) gives the rows of the chain it is, and a
pick-next method of its result (`session.scalars(stmt).first()`) picks among
them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import libcst as cst

from joblint.analysis.chains import Link, chain_links
from joblint.analysis.sql import Lookup
from joblint.knowledge import locks
from joblint.rules.locks._facts.redis_clients import Tri


class Pick(Enum):
    """How a chain picks the next row(s) among many."""

    METHOD = "method"  # `.first()`, `.limit(n)`
    INDEX = "index"  # `[0]`
    SLICE = "slice"  # `[:n]`
    LOOP = "loop"  # iterated by a `for` in a worker's `while` loop


@dataclass(frozen=True, slots=True)
class PickNext:
    how: Pick
    method: str = ""  # for Pick.METHOD


@dataclass(frozen=True, slots=True)
class RowLock:
    """A chain locking the rows it reads: `links[index]` is the lock call."""

    links: tuple[Link, ...]
    index: int
    api: locks.RowLockApi
    # YES when it waits for locked rows, NO when told to skip them or not to
    # wait, UNKNOWN when that can't be read (`**options`).
    waits: Tri
    # Why it picks the next row(s); None: it doesn't.
    picks_next: PickNext | None

    @property
    def lock(self) -> Link:
        return self.links[self.index]

    @property
    def call(self) -> cst.Call:
        call = self.lock.call
        assert call is not None  # a locking link is a method call
        return call

    @property
    def after_lock(self) -> tuple[Link, ...]:
        return self.links[self.index + 1 :]

    @property
    def fetches_one(self) -> bool:
        """The chain ends in a fetch of one row (`.first()`, `[0]`)."""
        after = self.after_lock
        if not after:
            return False
        last = after[-1]
        if isinstance(last.node, cst.Subscript):
            return not is_slice(last.node)
        return last.method in locks.ROW_FETCH_METHODS

    @property
    def shared(self) -> bool:
        """The lock is shared (`with_for_update(read=True)`: FOR SHARE)."""
        return any(
            arg.keyword is not None
            and arg.keyword.value in self.api.shared
            and _literal_flag(arg.value) is Tri.YES
            for arg in self.call.args
        )


def row_lock(top: cst.BaseExpression, lookup: Lookup, *, iterated: bool) -> RowLock | None:
    """The row lock of the chain ending at `top` (`iterated`: a worker loop's
    `for` iterates it); None when no link of the chain locks."""
    links = tuple(chain_links(top, lookup))
    index = _lock_index(links)
    if index is None:
        return None if iterated else _picked_from_result(links)
    return _row_lock(links, index, iterated)


def _lock_index(links: Sequence[Link]) -> int | None:
    index = next((i for i, link in enumerate(links) if link.method in locks.ROW_LOCK_METHODS), None)
    return None if index is None or links[index].call is None else index


def _row_lock(links: tuple[Link, ...], index: int, iterated: bool) -> RowLock:
    lock = links[index]
    api = locks.ROW_LOCK_METHODS[lock.method]
    return RowLock(links, index, api, _waits(lock, api), _picks_next(links, iterated))


def _picked_from_result(links: tuple[Link, ...]) -> RowLock | None:
    """A locking statement a session runs, whose result the chain picks
    from (`session.scalars(stmt).first()`): the statement's links, then the
    result's. None when the statement picks by itself (`.limit(1)`): its
    own chain is the lock, read where it is written."""
    for position, link in enumerate(links):
        statement = _statement_run(link)
        if statement is None:
            continue
        after = links[position + 1 :]
        if not any(later.method in locks.RESULT_PICK_METHODS for later in after):
            return None
        ran = tuple(chain_links(statement, link.lookup))
        index = _lock_index(ran)
        if index is None or _picks_next(ran, iterated=False) is not None:
            return None
        return _row_lock((*ran, *after), index, iterated=False)
    return None


def _statement_run(link: Link) -> cst.BaseExpression | None:
    """The statement an execute link runs (`session.scalars(stmt)`)."""
    call = link.call
    if link.method not in locks.EXECUTE_METHODS or call is None:
        return None
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[0] if positional else None


def executed_statement(top: cst.BaseExpression, lookup: Lookup) -> cst.BaseExpression | None:
    """The statement whose rows `top` gives, where it runs one and keeps its
    rows (`session.scalars(stmt)`, `session.execute(stmt).scalars().all()`,
    or a name assigned one); None otherwise."""
    links = chain_links(top, lookup)
    for index, link in enumerate(links):
        statement = _statement_run(link)
        if statement is None:
            continue  # `result.scalars()`: the rows of what ran before
        if any(later.method not in locks.RESULT_ROWS_METHODS for later in links[index + 1 :]):
            return None  # `.first()`: one row, no loop over them
        return statement
    return None


def _waits(lock: Link, api: locks.RowLockApi) -> Tri:
    call = lock.call
    assert call is not None
    result = Tri.YES
    for arg in call.args:
        if arg.star or arg.keyword is None:
            return Tri.UNKNOWN  # `**options`, or a positional flag
        if arg.keyword.value in api.non_waiting:
            flag = _literal_flag(arg.value)
            if flag is Tri.YES:
                return Tri.NO
            if flag is Tri.UNKNOWN:
                result = Tri.UNKNOWN
    return result


def _literal_flag(node: cst.BaseExpression) -> Tri:
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return Tri.YES if node.value == "True" else Tri.NO
    return Tri.UNKNOWN


def _picks_next(links: Sequence[Link], iterated: bool) -> PickNext | None:
    if any(link.method in locks.SINGLE_ROW_METHODS for link in links):
        return None
    for link in reversed(links):
        if link.method in locks.PICK_NEXT_METHODS:
            return PickNext(Pick.METHOD, link.method)
        if isinstance(link.node, cst.Subscript):
            return PickNext(Pick.SLICE if is_slice(link.node) else Pick.INDEX)
    return PickNext(Pick.LOOP) if iterated else None


def is_slice(node: cst.Subscript) -> bool:
    return any(isinstance(element.slice, cst.Slice) for element in node.slice)

"""The prefilter's confirm steps, each registered by name where it is defined.

A trigger made of ordinary words (`sleep` in a loop, a cache's `add(`) names a
confirm step (`Trigger(confirm="name")`): a check on Python's own `ast` that
must say yes before the file is linted with LibCST. A rule family defines its
steps in its `_screen/` package and registers each with `confirm_step`; the
screen imports those packages (`joblint.pipeline.screen.ast_checks`) and looks
the steps up here, so adding a step means writing it, never editing a table.

The registry sits this low so that the rules (which may not import the
pipeline) and the screen both reach it. A step must stay conservative: it may
say yes where its rules find nothing, never no where they would report.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar, cast, overload

# A step's answer on a module's tree and its source, lower-cased.
TreeCheck = Callable[[ast.Module, bytes], bool]
# What a file's steps have prepared for one another (a step's `reads`, once per file).
Views = dict[object, object]
_View = TypeVar("_View")
_Check = TypeVar("_Check", bound=TreeCheck)


class ModuleParts(Protocol):
    """Some of a module's top-level statements, each parsed only when a step
    asks for it (`joblint.index.ast_walk.ModuleParts` is the one the screen
    hands over): what a step answering on parts may ask of them."""

    @property
    def lowered(self) -> bytes:
        """The module's source, lower-cased."""

    @property
    def spans(self) -> list[tuple[int, int]]:
        """Where each part starts and ends in the source."""

    def having(self, words: Iterable[bytes]) -> set[int]:
        """The parts whose (lower-cased) text holds one of `words`."""

    def naming(self, names: Iterable[str]) -> set[int]:
        """The parts whose text holds one of `names` as a word."""

    def assigning(self, names: Iterable[str]) -> set[int]:
        """The parts that may assign one of `names`."""

    def tree(self, chosen: Iterable[int]) -> ast.Module:
        """The chosen parts' statements, parsed, at their own lines."""


def _always(lowered: bytes) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class PartReading:
    """How a step answers on only some of a module's top-level statements
    (parsing a few definitions of a large module instead of all of it)."""

    holds: Callable[[ModuleParts], bool]
    # Whether the parts can answer for this (lower-cased) file: else the whole tree.
    applies: Callable[[bytes], bool] = _always


@dataclass(frozen=True, slots=True)
class ConfirmStep:
    """A registered step: its name, where it is defined, how it answers."""

    name: str
    module: str
    # The answer on the whole tree (`views`: what other steps prepared for this file).
    holds: Callable[[ast.Module, bytes, Views], bool]
    in_parts: PartReading | None = None


class UnknownConfirmStep(LookupError):
    """A trigger names a confirm step no family registers."""


_STEPS: dict[str, ConfirmStep] = {}


@overload
def confirm_step(
    name: str, *, in_parts: PartReading | None = None
) -> Callable[[_Check], _Check]: ...


@overload
def confirm_step(
    name: str, *, reads: Callable[[ast.Module, bytes], _View]
) -> Callable[[Callable[[_View], bool]], Callable[[_View], bool]]: ...


def confirm_step(
    name: str,
    *,
    in_parts: PartReading | None = None,
    reads: Callable[[ast.Module, bytes], object] | None = None,
) -> Callable[[Callable[..., bool]], Callable[..., bool]]:
    """Register the decorated function as the confirm step `name`.

    It answers on a module's tree and its lower-cased source, or, given
    `reads`, on what `reads` makes of them: a view (a scan of the tree) made
    once per file for every step that reads it. `in_parts`: how it answers on
    some of the module's top-level statements, where that is allowed."""

    def register(check: Callable[..., bool]) -> Callable[..., bool]:
        if name in _STEPS:
            raise ValueError(f"two confirm steps are named {name!r}")
        holds = _on_tree(check) if reads is None else _through(reads, check)
        _STEPS[name] = ConfirmStep(name, check.__module__, holds, in_parts)
        return check

    return register


def _on_tree(check: TreeCheck) -> Callable[[ast.Module, bytes, Views], bool]:
    def holds(tree: ast.Module, lowered: bytes, views: Views) -> bool:
        return check(tree, lowered)

    return holds


def _through(
    reads: Callable[[ast.Module, bytes], _View], check: Callable[[_View], bool]
) -> Callable[[ast.Module, bytes, Views], bool]:
    def holds(tree: ast.Module, lowered: bytes, views: Views) -> bool:
        if reads not in views:
            views[reads] = reads(tree, lowered)
        return check(cast(_View, views[reads]))

    return holds


def registered() -> Mapping[str, ConfirmStep]:
    """The steps registered so far, by name (the screen imports the families'
    `_screen` packages first: `joblint.pipeline.screen.ast_checks.steps`)."""
    return _STEPS


def step(name: str) -> ConfirmStep:
    """The step registered as `name`; a name none is registered as fails loudly."""
    found = _STEPS.get(name)
    if found is None:
        known = ", ".join(sorted(_STEPS)) or "none"
        raise UnknownConfirmStep(
            f"no confirm step is registered as {name!r} (registered: {known}); "
            "define it in its family's _screen/ package with @confirm_step"
        )
    return found

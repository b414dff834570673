"""The prefilter's second stage: confirm a trigger on Python's own AST.

Some triggers are ordinary words (`sleep` in a loop); the bytes alone would
send many files to LibCST for nothing. For those, the worker parses the file
with `ast` (many times cheaper than LibCST, and the syntax check the file
needs anyway) and runs the confirm step the trigger names, which
over-approximates the rule's condition; only a confirmed file is linted.
Each step must stay conservative: it may say yes where the rule finds
nothing, never no where the rule would report.

The steps are defined by the rule families, each in its `_screen/` package,
and register themselves by name (`joblint.knowledge.confirm.confirm_step`);
the one every family may name is `project_check`'s. This module finds them
by importing those packages (no LibCST: they read `ast` only) and runs them:
on the whole tree, or on some of a module's top-level statements
(`ModuleParts`) where every step asked can answer there.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterable, Mapping
from functools import cache

from joblint import rules
from joblint.index.ast_walk import ModuleParts
from joblint.knowledge import confirm
from joblint.knowledge.confirm import ConfirmStep, PartReading, Views

# The folder of a family's confirm steps (`joblint/rules/<family>/_screen/`).
SCREEN_PACKAGE = "_screen"
# The modules of the steps no one family owns.
SHARED_STEPS = ("joblint.pipeline.screen.project_check",)


@cache
def steps() -> Mapping[str, ConfirmStep]:
    """Every confirm step, by name: the families' `_screen` packages imported
    (each module in them registers its steps), with the shared ones."""
    for shared in SHARED_STEPS:
        importlib.import_module(shared)
    for family in pkgutil.iter_modules(rules.__path__):
        if not family.ispkg or family.name.startswith("_"):
            continue
        package = f"{rules.__name__}.{family.name}.{SCREEN_PACKAGE}"
        try:
            screen = importlib.import_module(package)
        except ModuleNotFoundError as missing:
            if missing.name != package:
                raise
            continue  # a family whose triggers need no AST step
        for module in pkgutil.iter_modules(screen.__path__):
            importlib.import_module(f"{package}.{module.name}")
    return confirm.registered()


def step(name: str) -> ConfirmStep:
    """The step named `name` (a trigger's `confirm`); a name no family
    registers fails loudly (`joblint.knowledge.confirm.UnknownConfirmStep`)."""
    steps()
    return confirm.step(name)


def confirmed(tree: ast.Module, checks: Iterable[str], lowered: bytes) -> set[str]:
    """The named checks that hold for the tree (`lowered`: its source, lower-cased)."""
    known = steps()
    views: Views = {}  # what steps reading the same scan share, made once
    return {check for check in checks if known[check].holds(tree, lowered, views)}


def reads_in_parts(data: bytes, lowered: bytes, checks: Iterable[str]) -> bool:
    """Whether the checks can be answered on parts of the file: each reads
    only some top-level statements of this file, and no line ends in a lone
    carriage return (a part's lines are counted by its line feeds)."""
    known = steps()
    found = [known[name].in_parts if name in known else None for name in checks]
    return b"\r" not in data and all(c is not None and c.applies(lowered) for c in found)


def confirmed_in_parts(data: bytes, lowered: bytes, checks: Iterable[str]) -> set[str] | None:
    """`confirmed`, parsing only the top-level statements the checks read,
    for a file `reads_in_parts` allows and Python certainly parses; None
    where a part doesn't parse on its own (a cut inside a string): parse
    the whole file."""
    known = steps()
    parts = ModuleParts(data, lowered)
    try:
        return {name for name in checks if _in_parts(known[name]).holds(parts)}
    except (SyntaxError, ValueError):
        return None


def _in_parts(found: ConfirmStep) -> PartReading:
    reading = found.in_parts
    if reading is None:
        raise LookupError(f"the confirm step {found.name!r} can't answer on parts of a module")
    return reading

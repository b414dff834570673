"""What the project step settles a run's findings with: the run's
project-wide settings (a module of its own, as light as the data it holds:
a run replayed from its memo needs these and nothing else of the project
step)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProjectSettings:
    codes: frozenset[str]
    margin: float = 60.0
    # In a run that names only some files: their paths. Whole-project findings
    # are kept when a place they involve is one of them. None: the whole project.
    named: frozenset[str] | None = None
    # `extend-enqueue-functions`: the project model takes their calls for enqueues.
    enqueue_functions: frozenset[str] = frozenset()
    # Under hierarchical configuration: a path's own (codes, margin). A
    # whole-project finding stands where its file's configuration selects its
    # code, judged with that configuration's margin. None: `codes` and `margin`.
    for_path: Callable[[str], tuple[frozenset[str], float]] | None = None
    # `broker`: the transport the project deploys with, where its code reads
    # the broker URL from the environment ("" for none).
    broker: str = ""

"""The whole-project step: merge per-file facts and settle pending findings.

`ProjectIndex` (`project_index.py`) merges every file's facts, with the call
graph over the modules' index (`call_graph.py`, split by question); each
requirement type of a pending finding (`joblint.requirements`) is judged,
and named in its message, by the module answering its question
(`judging.py`); `settle` (`settling.py`) gives the run's findings, and
`loading.py` what the project model needs read on demand.

Works on `FileResult`s only (never on CST), so per-file results can come from
a cache or a worker process.

The names below are imported when first used: importing one of the
package's light modules (`project_settings`, `scope`) must not build the
library tables the model reads, which a run replayed from its memo never
needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from joblint.pipeline.project.loading import (
        candidate_modules,
        job_names,
        package_roots,
        task_helpers,
        wanted,
        wanted_functions,
        wanted_names,
    )
    from joblint.pipeline.project.project_index import ProjectIndex
    from joblint.pipeline.project.project_settings import ProjectSettings
    from joblint.pipeline.project.settling import settle

_LOADING = frozenset(
    {
        "candidate_modules",
        "job_names",
        "package_roots",
        "task_helpers",
        "wanted",
        "wanted_functions",
        "wanted_names",
    }
)


def __getattr__(name: str) -> Any:
    if name in _LOADING:
        from joblint.pipeline.project import loading

        return getattr(loading, name)
    if name == "ProjectIndex":
        from joblint.pipeline.project.project_index import ProjectIndex

        return ProjectIndex
    if name == "ProjectSettings":
        from joblint.pipeline.project.project_settings import ProjectSettings

        return ProjectSettings
    if name == "settle":
        from joblint.pipeline.project.settling import settle

        return settle
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ProjectIndex",
    "ProjectSettings",
    "candidate_modules",
    "job_names",
    "package_roots",
    "settle",
    "task_helpers",
    "wanted",
    "wanted_functions",
    "wanted_names",
]

"""The whole-project step: merge per-file facts and settle pending findings.

`ProjectIndex` (`project_index.py`) merges every file's facts, with the call
graph over the modules' index (`call_graph.py`, split by question); each
requirement type of a pending finding (`joblint.requirements`) is judged,
and named in its message, by the module answering its question
(`judging.py`); `settle` (`settling.py`) gives the run's findings, and
`loading.py` what the project model needs read on demand.

Works on `FileResult`s only (never on CST), so per-file results can come from
a cache or a worker process.
"""

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
from joblint.pipeline.project.settling import ProjectSettings, settle

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

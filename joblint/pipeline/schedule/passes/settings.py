"""The settings modules the project loads, and what its deployment files set.

Takes every file read and the results and context so far; gives, as
context, the facts of the settings modules entry points name (and the
project's configuration files: pytest's `DJANGO_SETTINGS_MODULE`, a Pyramid
ini's includes; the deployment files' `DJANGO_SETTINGS_MODULE`), and of
those they star-import in turn; where the settings read a broker setting
from the environment, the values the deployment files (`.env`, Compose)
give it.
"""

from __future__ import annotations

from joblint.analysis.evaluation import environment_variables
from joblint.knowledge.brokers import SETTINGS_CLASS_VARIABLES
from joblint.libraries.django import SETTINGS_MODULE_VARIABLE
from joblint.models import EnvironmentValue, FileResult
from joblint.pipeline.schedule.deployment_files import deployment_values, facts_of
from joblint.pipeline.schedule.project_files import project_file_facts
from joblint.pipeline.schedule.roots import project_root
from joblint.pipeline.schedule.sources import Source, display_path
from joblint.pipeline.schedule.state import Run

# How many settings modules deep star-imports are followed.
_MAX_SETTINGS_DEPTH = 4


def read_settings_modules(
    run: Run, everything: list[Source], results: list[FileResult], context: list[FileResult]
) -> list[FileResult]:
    """The facts of the settings modules entry points name, and of those
    they star-import in turn (`from api.settings import *` in the admin's):
    what one sets holds for the project loading the other. Returns those
    read now."""
    loaded: list[FileResult] = []
    deployed: list[EnvironmentValue] = []
    if run.selector.reads_settings:
        root = project_root(run.config)
        configured = project_file_facts(root, display_path)
        had = {h.path for h in [*results, *context]}
        loaded.extend(run.derived([r for r in configured if r.path not in had]))
        deployed = deployment_values(root, display_path)
    have = [*results, *context, *loaded]
    read = {r.path for r in have}
    modules = run.grouped(everything)
    asked = {named for r in have for named in r.facts.loads_settings}
    # The settings module the deployment files run the project with.
    asked |= {v.value for v in deployed if v.variable == SETTINGS_MODULE_VARIABLE}
    asked |= {star for r in have for star in r.facts.broker.star_imports}
    done: set[str] = set()
    for _ in range(_MAX_SETTINGS_DEPTH):
        fresh = [s for s in modules.of(asked - done) if s.shown not in read]
        done |= asked
        if not fresh:
            break
        read.update(s.shown for s in fresh)
        found = run.facts(fresh)
        loaded.extend(found)
        asked |= {star for r in found for star in r.facts.broker.star_imports}
    if run.selector.reads_settings:
        # Where the settings read the broker URL from the environment, the
        # project's deployment files say its value.
        variables = _environment_variables([*results, *context, *loaded])
        if _has_broker_settings([*results, *context, *loaded]):
            given = facts_of(deployed, variables)
            loaded.extend(run.derived([r for r in given if r.path not in read]))
    return loaded


def _environment_variables(results: list[FileResult]) -> set[str]:
    """The environment variables the files' settings and module constants read
    (the broker URL's among them): those the deployment files are read for."""
    # The variables naming the settings in force: where the deployment files
    # set them, they choose the configuration.
    found: set[str] = {SETTINGS_MODULE_VARIABLE, *SETTINGS_CLASS_VARIABLES}
    for result in results:
        for _name, expr in result.facts.constants:
            found |= environment_variables(expr)
        for value in result.facts.broker.config:
            found |= environment_variables(value.value) | environment_variables(value.guard)
    return found


def _has_broker_settings(results: list[FileResult]) -> bool:
    """Whether any file sets a broker setting (else no deployment file can matter)."""
    return any(result.facts.broker.config for result in results)

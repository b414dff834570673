"""The plain settings the config, cache and engine layers share.

Kept apart from `joblint.pipeline.lint` and `joblint.analysis.context` (which import
LibCST) so that reading the configuration and looking results up in the cache
never import the parser: a run whose results all come from the cache doesn't
need it at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

RuleOptionValue = bool | int | float | str

# JL402's option (`[tool.joblint.rules.JL402]`): the expiry its fix adds, in seconds.
LOCK_TIMEOUT_OPTION = "default-lock-timeout"


@dataclass(frozen=True, slots=True)
class Options:
    """The settings the shared analysis needs (from config)."""

    enqueue_functions: frozenset[str] = frozenset()
    transaction_functions: frozenset[str] = frozenset()
    on_commit_functions: frozenset[str] = frozenset()
    # The project's Celery tasks are DjangoTasks (delay_on_commit exists).
    celery_django_task: bool = False
    # Per-rule options, (code, key, value) (`[tool.joblint.rules.JL402]`).
    rule_options: tuple[tuple[str, str, RuleOptionValue], ...] = ()
    # Unqualified names of the project's tasks whose call enqueues them (Huey's).
    # None: not known (any call of an imported function may enqueue).
    call_enqueues: frozenset[str] | None = None
    # Django database aliases that take no writes (`read-only-databases`): a
    # transaction on one is no transaction a job can race.
    read_only_databases: frozenset[str] = frozenset()
    # Unqualified names of the project's functions that hand a parameter on
    # to a job's payload (`CallGraph.payload_forwarders`, learned from the
    # index by the run): only their calls are read for the live objects they
    # are handed (JL201). Empty: none is known, no call is read so.
    payload_forwarders: frozenset[str] = frozenset()

    def rule_option(self, code: str, key: str) -> RuleOptionValue | None:
        return next((v for c, k, v in self.rule_options if (c, k) == (code, key)), None)


@dataclass(frozen=True, slots=True)
class LintSettings:
    codes: frozenset[str]
    options: Options = field(default_factory=Options)


@dataclass(frozen=True, slots=True)
class ModuleInfo:
    name: str  # dotted module name, "" when unknown
    is_package: bool = False  # the file is a package's __init__

    def absolute(self, level: int, target: str) -> str:
        """The module `from <level dots><target> import ...` names here."""
        package_parts = self.name.split(".") if self.name else []
        if not self.is_package and package_parts:
            package_parts = package_parts[:-1]
        if level > 1:
            package_parts = package_parts[: max(0, len(package_parts) - (level - 1))]
        if target:
            package_parts = [*package_parts, *target.split(".")]
        return ".".join(package_parts)

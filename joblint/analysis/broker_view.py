"""The project's broker settings, merged from every file's facts and
evaluated: broker transport, visibility timeouts, time limits, delays.

Works on plain facts only (no CST), so it runs on cached or worker results.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from joblint.analysis.evaluation import Expr, as_seconds, evaluate
from joblint.knowledge import brokers as kb
from joblint.models import ConfigValue, FileFacts, Place


@dataclass(frozen=True, slots=True)
class Limit:
    label: str  # "task 'rebuild_index' has time_limit" / "task_time_limit is"
    seconds: float
    place: Place


@dataclass(frozen=True, slots=True)
class Visibility:
    seconds: float | None  # None: set, but not statically known
    place: Place


@dataclass(frozen=True, slots=True)
class Transport:
    name: str  # "Redis", "SQS"
    default_seconds: float
    place: Place


@dataclass(frozen=True, slots=True)
class TimedDelay:
    keyword: str
    call: str
    seconds: float
    place: Place


@dataclass(slots=True)
class BrokerView:
    limits: list[Limit] = field(default_factory=list)
    visibility: list[Visibility] = field(default_factory=list)
    transport: Transport | None = None
    delays: list[TimedDelay] = field(default_factory=list)

    @classmethod
    def build(cls, facts: Iterable[FileFacts]) -> BrokerView:
        all_facts = list(facts)
        constants: dict[str, Expr] = {}
        for file_facts in all_facts:
            constants.update(file_facts.constants)
        config_modules = _config_modules(all_facts)
        project = cls()
        brokers: list[tuple[str, Place]] = []
        for file_facts in all_facts:
            for value in file_facts.broker.config:
                if _counts(value, file_facts.module, config_modules):
                    project._add_config(value, constants, brokers)
            for limit in file_facts.broker.time_limits:
                seconds = as_seconds(limit.value, constants)
                if seconds is not None:
                    label = f"task '{limit.task}' has time_limit"
                    project.limits.append(Limit(label, seconds, limit.place))
            for delay in file_facts.broker.delays:
                seconds = as_seconds(delay.value, constants)
                if seconds is not None:
                    project.delays.append(
                        TimedDelay(delay.keyword, delay.call, seconds, delay.place)
                    )
        project.transport = _transport(brokers)
        return project

    def _add_config(
        self, value: ConfigValue, constants: dict[str, Expr], brokers: list[tuple[str, Place]]
    ) -> None:
        if value.setting == kb.TIME_LIMIT:
            seconds = as_seconds(value.value, constants)
            if seconds is not None:
                label = f"{value.spelling} is"
                self.limits.append(Limit(label, seconds, value.place))
        elif value.setting == kb.BROKER_URL:
            url = evaluate(value.value, constants)
            brokers.append((url if isinstance(url, str) else "", value.place))
        elif value.setting == kb.TRANSPORT_OPTIONS:
            self._add_transport_options(value, constants)

    def _add_transport_options(self, value: ConfigValue, constants: dict[str, Expr]) -> None:
        options = evaluate(value.value, constants)
        if not isinstance(options, dict):
            self.visibility.append(Visibility(None, value.place))  # set, value unknown
            return
        if not kb.PREDEFINED_QUEUES_KEYS.isdisjoint(options):
            return  # SQS predefined queues use their own attribute: out of reach
        key = next((k for k in kb.VISIBILITY_KEYS if k in options), None)
        if key is None:
            return
        raw = options[key]
        seconds = float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else None
        self.visibility.append(Visibility(seconds, value.visibility_place or value.place))


def _config_modules(all_facts: list[FileFacts]) -> set[str]:
    """Modules whose plain constants are Celery settings."""
    modules: set[str] = set()
    for file_facts in all_facts:
        for target, _namespace in file_facts.broker.config_sources:
            if target in kb.DJANGO_SETTINGS_OBJECTS:
                continue  # settings modules are recognised by name and env below
            modules.add(target)
        modules.update(file_facts.broker.settings_modules)
    return modules


def _counts(value: ConfigValue, module: str, config_modules: set[str]) -> bool:
    if value.from_app:
        return True
    parts = module.split(".")
    if module in config_modules or parts[-1] in kb.CONFIG_MODULE_NAMES:
        return True
    # Upper-case Celery names are unambiguous in a Django settings module.
    in_settings = any(p in kb.SETTINGS_MODULE_COMPONENTS for p in parts)
    return in_settings and value.spelling.isupper()


def _transport(brokers: list[tuple[str, Place]]) -> Transport | None:
    """The broker transport when every statically known broker URL agrees."""
    found: dict[str, Transport] = {}
    for url, place in brokers:
        scheme = url.split("://", 1)[0].lower() if "://" in url else ""
        known = kb.TRANSPORT_DEFAULTS.get(scheme)
        if known is None:
            return None  # an unknown or non-Redis/SQS broker: no default applies
        found.setdefault(known[0], Transport(known[0], known[1], place))
    return next(iter(found.values())) if len(found) == 1 else None

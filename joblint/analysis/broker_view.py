"""The project's broker settings, merged from every file's facts and
evaluated: per configuration the project can run with, its broker transport,
visibility timeouts and global time limit; and the tasks' time limits and the
delays of its enqueues.

A configuration is a settings layer nothing else builds on, or one that is
loaded by name. Layers are the project's settings modules (a module's own
settings override those of the modules it star-imports: `from .base import *`)
and its settings classes (`class Prod(Base)`: own attributes override the
bases', the first base first, as attribute lookup goes). `Base` holding a
timeout that `Prod` raises is then no configuration of its own: only `Prod`
is. Settings an app sets itself (`Celery(broker=...)`, `app.conf...`) override
every configuration's, as Celery's `conf` changes override its config source.

Works on plain facts only (no CST), so it runs on cached or worker results.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from joblint.analysis.evaluation import Expr, Value, as_seconds, evaluate, text_of, truth
from joblint.knowledge import brokers as kb
from joblint.libraries.django import SETTINGS_MODULE_VARIABLE
from joblint.models import ConfigValue, Delay, EnvironmentValue, FileFacts, Place, TimeLimit

# Settings by role: every value a layer gives it (assignments in branches all count).
Settings = dict[str, list[ConfigValue]]


@dataclass(frozen=True, slots=True)
class Limit:
    label: str  # "task 'rebuild_index' has time_limit" / "task_time_limit is"
    seconds: float
    place: Place


@dataclass(frozen=True, slots=True)
class Visibility:
    seconds: float | None  # None: set, but not statically known
    place: Place
    # The configuration it is in force in, when it is set in a layer it builds on.
    inherited_by: str = ""


@dataclass(frozen=True, slots=True)
class Transport:
    name: str  # "Redis", "SQS"
    default_seconds: float
    place: Place
    # What says it when the code's URL doesn't: "CELERY_BROKER_URL is redis:// in
    # .env:3", "joblint's `broker` setting".
    source: str = ""
    # The deployment files' lines that say it.
    source_places: tuple[Place, ...] = ()


@dataclass(frozen=True, slots=True)
class TimedDelay:
    keyword: str
    call: str
    seconds: float
    place: Place


@dataclass(slots=True)
class Configuration:
    """Settings the project may run with: one leaf (or loaded) layer, with
    what it inherits and what the app sets on top."""

    name: str  # the settings module or class ("" when the app's settings are all)
    # The module that holds it (settings apply to the project that loads them).
    module: str = ""
    visibility: list[Visibility] = field(default_factory=list)
    transport: Transport | None = None
    # Global hard time limits (`task_time_limit`).
    limits: list[Limit] = field(default_factory=list)
    # The time limits and delays of the files these settings apply to.
    task_limits: list[Limit] = field(default_factory=list)
    delays: list[TimedDelay] = field(default_factory=list)


# Whether the settings a module sets apply to the file at a path.
Applies = Callable[[str, str], bool]
# Variable -> the values the project's deployment files give it.
Environment = dict[str, list[EnvironmentValue]]


@dataclass(slots=True)
class BrokerView:
    # Configurations that hand jobs to a broker (not eager, not a transport
    # without visibility timeouts such as `amqp://` or `memory://`).
    configurations: list[Configuration] = field(default_factory=list)
    # Time limits of tasks and enqueues, whatever the configuration.
    task_limits: list[Limit] = field(default_factory=list)
    delays: list[TimedDelay] = field(default_factory=list)

    @classmethod
    def build(
        cls,
        files: Iterable[tuple[str, FileFacts]],
        applies: Applies | None = None,
        declared: str = "",
    ) -> BrokerView:
        """The view of the files' facts, given by path; `applies` says whether
        a settings module's settings apply to a file (None: everywhere);
        `declared` is the broker joblint's configuration names ("" for none)."""
        all_facts = [facts for _path, facts in files]
        constants: dict[str, Expr] = {}
        environment: Environment = defaultdict(list)
        for file_facts in all_facts:
            constants.update(file_facts.constants)
            for value in file_facts.broker.environment:
                environment[value.variable].append(value)
        constants.update(_instance_attributes(all_facts, constants))
        constants.update(_star_imported(all_facts, constants))
        urls = _Urls(constants, dict(environment), declared)
        project = cls()
        # Limits and delays read from Django's settings: known per configuration.
        pending_limits: list[TimeLimit] = []
        pending_delays: list[Delay] = []
        for file_facts in all_facts:
            for limit in file_facts.broker.time_limits:
                seconds = as_seconds(limit.value, constants)
                if seconds is not None:
                    project.task_limits.append(Limit(_limit_label(limit), seconds, limit.place))
                elif _reads_settings(limit.value, constants):
                    pending_limits.append(limit)
            for delay in file_facts.broker.delays:
                seconds = as_seconds(delay.value, constants)
                if seconds is not None:
                    project.delays.append(
                        TimedDelay(delay.keyword, delay.call, seconds, delay.place)
                    )
                elif _reads_settings(delay.value, constants):
                    pending_delays.append(delay)
        layers = _Layers.build(all_facts)
        layers.selected = _deployed_settings(environment)
        app = _by_role(v for f in all_facts for v in f.broker.config if v.from_app)
        found: list[Configuration | None] = []
        for name in layers.in_force():
            settings = {**layers.effective(name), **app}
            found.append(_configuration(name, settings, urls, layers.own(name)))
        if not layers.layers and app:
            found.append(_configuration("", app, urls, app))
        for configuration in found:
            if configuration is None:
                continue
            configuration.module = layers.modules.get(configuration.name, "")
            module = configuration.module

            def here(place: Place, module: str = module) -> bool:
                return applies is None or applies(module, place.path)

            configuration.task_limits = [lim for lim in project.task_limits if here(lim.place)]
            configuration.delays = [d for d in project.delays if here(d.place)]
            read = _SettingsReads(configuration.name, constants)
            for limit in pending_limits:
                seconds = read.seconds(limit.value)
                if seconds is not None and here(limit.place):
                    configuration.task_limits.append(
                        Limit(_limit_label(limit), seconds, limit.place)
                    )
            for delay in pending_delays:
                seconds = read.seconds(delay.value)
                if seconds is not None and here(delay.place):
                    timed = TimedDelay(delay.keyword, delay.call, seconds, delay.place)
                    configuration.delays.append(timed)
                    if timed not in project.delays:
                        project.delays.append(timed)
            project.configurations.append(configuration)
        return project


def _instance_attributes(all_facts: list[FileFacts], constants: dict[str, Expr]) -> dict[str, Expr]:
    """`module.settings.field` for an instance of a class whose fields are
    constants (`settings = Settings()`, a settings model's fields)."""
    classes = {c.qualname for f in all_facts for c in f.classes}
    members: dict[str, list[tuple[str, Expr]]] = defaultdict(list)
    for name, expr in constants.items():
        owner, _, attribute = name.rpartition(".")
        if owner in classes:
            members[owner].append((attribute, expr))
    found: dict[str, Expr] = {}
    for file_facts in all_facts:
        for instance, cls in file_facts.instances:
            for attribute, expr in members.get(cls, ()):
                found.setdefault(f"{instance}.{attribute}", expr)
    return found


def _reads_settings(expr: Expr | None, constants: dict[str, Expr], depth: int = 0) -> bool:
    """Whether a value reads Django's settings (`settings.X`, `getattr(settings,
    "X", d)`), also through module constants."""
    if expr is None or depth > _MAX_REF_DEPTH:
        return False
    if expr[0] == "setting":
        return True
    if expr[0] == "ref":
        if expr[1].rpartition(".")[0] in kb.SETTINGS_OBJECT_NAMES:
            return True
        return _reads_settings(constants.get(expr[1]), constants, depth + 1)
    return any(_is_expr(part) and _reads_settings(part, constants, depth + 1) for part in expr[1:])


@dataclass(frozen=True, slots=True)
class _SettingsReads:
    """Values reading Django's settings, in one configuration: `settings.X`
    is its `X` (also one a settings module star-imports), `getattr(settings,
    "X", d)` the same or `d` where it sets none."""

    configuration: str
    constants: dict[str, Expr]

    def seconds(self, expr: Expr | None) -> float | None:
        if expr is None or not self.configuration:
            return None
        return as_seconds(self._in_force(expr, 0), self.constants)

    def _in_force(self, expr: Expr, depth: int) -> Expr:
        if depth > _MAX_REF_DEPTH:
            return _UNKNOWN
        kind = expr[0]
        if kind == "setting":
            key = f"{self.configuration}.{expr[1]}"
            return ("ref", key) if key in self.constants else expr[2]
        if kind == "ref":
            owner, _, name = expr[1].rpartition(".")
            if owner in kb.SETTINGS_OBJECT_NAMES:
                key = f"{self.configuration}.{name}"
                return ("ref", key) if key in self.constants else _UNKNOWN
            target = self.constants.get(expr[1])
            return self._in_force(target, depth + 1) if target is not None else expr
        if kind == "dict":
            return expr
        return (
            kind,
            *(self._in_force(part, depth + 1) if _is_expr(part) else part for part in expr[1:]),
        )


def _star_imported(all_facts: list[FileFacts], constants: dict[str, Expr]) -> dict[str, Expr]:
    """`module.NAME` for a constant a module gets by `from .base import *`
    (and that it doesn't bind itself), also through a chain of them."""
    stars = {f.module: f.broker.star_imports for f in all_facts if f.broker.star_imports}
    if not stars:
        return {}
    wanted = {target for targets in stars.values() for target in targets}
    names: dict[str, set[str]] = defaultdict(set)
    for qualname in constants:
        module, _, name = qualname.rpartition(".")
        if module in wanted:
            names[module].add(name)
    found: dict[str, Expr] = {}
    for _ in range(_MAX_STAR_DEPTH):
        grew = False
        for module, targets in stars.items():
            for target in targets:
                for name in sorted(names.get(target, ())):
                    key = f"{module}.{name}"
                    if key not in constants and key not in found:
                        found[key] = ("ref", f"{target}.{name}")
                        if module in wanted:
                            names[module].add(name)
                        grew = True
        if not grew:
            break
    return found


_MAX_STAR_DEPTH = 4


def _limit_label(limit: TimeLimit) -> str:
    return f"{limit.via} passes time_limit" if limit.via else f"task '{limit.task}' has time_limit"


def _by_role(values: Iterable[ConfigValue]) -> Settings:
    found: Settings = defaultdict(list)
    for value in values:
        found[value.setting].append(value)
    return dict(found)


@dataclass(slots=True)
class _Layer:
    own: Settings
    # Layers it builds on, lowest precedence first.
    parents: list[str]


@dataclass(slots=True)
class _Layers:
    layers: dict[str, _Layer] = field(default_factory=dict)
    named: set[str] = field(default_factory=set)
    # Layer -> the module that defines it.
    modules: dict[str, str] = field(default_factory=dict)
    # The settings the deployment files select (`DJANGO_SETTINGS_MODULE` in compose).
    selected: set[str] = field(default_factory=set)
    _effective: dict[str, Settings] = field(default_factory=dict)

    @classmethod
    def build(cls, all_facts: list[FileFacts]) -> _Layers:
        found = cls(named=_named(all_facts))
        config_modules = _config_modules(all_facts)
        classes = {c.qualname: c.bases for f in all_facts for c in f.classes}
        settings_classes = _settings_classes(classes, found.named)
        modules: dict[str, Settings] = {}
        owned: dict[str, Settings] = {}
        for file_facts in all_facts:
            for value in file_facts.broker.config:
                if value.from_app:
                    continue
                if value.owner:
                    in_config_module = _counts(value, file_facts.module, config_modules)
                    if value.owner in settings_classes or in_config_module:
                        owned.setdefault(value.owner, {}).setdefault(value.setting, [])
                        owned[value.owner][value.setting].append(value)
                elif _counts(value, file_facts.module, config_modules):
                    modules.setdefault(file_facts.module, {}).setdefault(value.setting, [])
                    modules[file_facts.module][value.setting].append(value)
        stars = {f.module: f.broker.star_imports for f in all_facts if f.broker.star_imports}
        found._add_modules(modules, stars)
        found._add_classes(owned, classes)
        defined = {c.qualname: f.module for f in all_facts for c in f.classes}
        found.modules = {name: defined.get(name, name) for name in found.layers}
        return found

    def _add_modules(self, modules: dict[str, Settings], stars: dict[str, tuple[str, ...]]) -> None:
        for module, own in modules.items():
            self.layers[module] = _Layer(own, [])
        # Modules star-importing a settings layer, at any depth.
        self._grow({m: list(imported) for m, imported in stars.items()})

    def _add_classes(self, owned: dict[str, Settings], classes: dict[str, tuple[str, ...]]) -> None:
        for owner, own in owned.items():
            self.layers[owner] = _Layer(own, [])
        # Subclasses of a settings class, at any depth; the first base wins.
        self._grow({q: list(reversed(bases)) for q, bases in classes.items()})

    def _grow(self, candidates: dict[str, list[str]]) -> None:
        """Make each candidate a layer built on those of its parents that are
        layers, until nothing changes (bounded: a layer only gains parents)."""
        for _ in range(_MAX_CLASS_DEPTH):
            changed = False
            for name, parents in candidates.items():
                found = [p for p in parents if p in self.layers and p != name]
                layer = self.layers.get(name)
                if found and (layer is None or layer.parents != found):
                    self.layers[name] = _Layer(layer.own if layer else {}, found)
                    changed = True
            if not changed:
                return

    def in_force(self) -> list[str]:
        """The leaves of the layers, and the layers loaded by name; only those
        the deployment files select, where they select any."""
        chosen = self.selected & set(self.layers)
        if chosen:
            return sorted(chosen)
        built_on = {p for layer in self.layers.values() for p in layer.parents}
        return sorted(n for n in self.layers if n not in built_on or n in self.named)

    def own(self, name: str) -> Settings:
        layer = self.layers.get(name)
        return layer.own if layer is not None else {}

    def effective(self, name: str, seen: frozenset[str] = frozenset()) -> Settings:
        if name in self._effective:
            return self._effective[name]
        layer = self.layers.get(name)
        if layer is None or name in seen:
            return {}
        settings: Settings = {}
        for parent in layer.parents:
            settings.update(self.effective(parent, seen | {name}))
        settings.update(layer.own)
        self._effective[name] = settings
        return settings


def _deployed_settings(environment: Environment) -> set[str]:
    """The settings modules (and classes) the deployment files name."""
    modules = {v.value for v in environment.get(SETTINGS_MODULE_VARIABLE, ())}
    classes = {v.value for name in kb.SETTINGS_CLASS_VARIABLES for v in environment.get(name, ())}
    return modules | {f"{module}.{cls}" for module in modules for cls in classes}


def _named(all_facts: list[FileFacts]) -> set[str]:
    """Settings modules and objects loaded by name (`config_from_object`,
    `DJANGO_SETTINGS_MODULE`)."""
    named: set[str] = set()
    for file_facts in all_facts:
        for target, _namespace in file_facts.broker.config_sources:
            if target not in kb.DJANGO_SETTINGS_OBJECTS:
                named.add(target.replace(":", "."))
        named.update(file_facts.broker.settings_modules)
        named.update(
            f"{module}.{name}"
            for module in file_facts.broker.settings_modules
            for name in file_facts.broker.settings_classes
        )
    return named


def _settings_classes(classes: dict[str, tuple[str, ...]], named: set[str]) -> set[str]:
    """Classes holding settings: those deriving from a settings base class
    (django-configurations'), at any depth, and those loaded by name."""
    found: dict[str, bool] = {}

    def derives(qualname: str, depth: int = 0) -> bool:
        if qualname in kb.SETTINGS_CLASS_BASES:
            return True
        if qualname in found:
            return found[qualname]
        found[qualname] = False  # a cycle ends here
        if depth < _MAX_CLASS_DEPTH:
            found[qualname] = any(derives(b, depth + 1) for b in classes.get(qualname, ()))
        return found[qualname]

    return {q for q in classes if derives(q)} | (named & set(classes))


_MAX_CLASS_DEPTH = 16


def _configuration(
    name: str, settings: Settings, urls: _Urls, own: Settings
) -> Configuration | None:
    """The configuration of `settings`, or None when it hands no job to a
    broker that redelivers (eager, or a transport without visibility timeout)."""
    constants = urls.constants
    settings = urls.in_force(settings, defaults=False)
    for role in kb.EAGER_ROLES:
        if any(_truthy(evaluate(v.value, constants)) for v in settings.get(role, ())):
            return None
    configuration = Configuration(name)
    transport, redelivers = urls.transport(settings.get(kb.BROKER_URL, []))
    if not redelivers:
        return None
    configuration.transport = transport
    if transport is not None and transport.source_places:
        # The deployment files say the transport: what they leave unset has
        # the value the code gives it then.
        settings = urls.in_force(settings, defaults=True)
    for value in settings.get(kb.TIME_LIMIT, []):
        seconds = as_seconds(value.value, constants)
        if seconds is not None:
            configuration.limits.append(Limit(f"{value.spelling} is", seconds, value.place))
    for value in settings.get(kb.TRANSPORT_OPTIONS, []):
        found = _visibility(value, constants)
        if found is not None:
            inherited = not value.from_app and value not in own.get(kb.TRANSPORT_OPTIONS, [])
            configuration.visibility.append(
                Visibility(found.seconds, found.place, name if inherited else "")
            )
    return configuration


def _truthy(value: Value | None) -> bool:
    return isinstance(value, float | int) and bool(value)


def _visibility(value: ConfigValue, constants: dict[str, Expr]) -> Visibility | None:
    """The visibility timeout transport options set: None when they set none,
    `Visibility(None, ...)` when they set one that can't be known here."""
    options = evaluate(value.value, constants)
    if not isinstance(options, dict):
        return Visibility(None, value.place)  # set, value unknown
    for transport in kb.TRANSPORTS:
        if any(key in options for key in transport.external_queue_keys):
            return Visibility(None, value.place)  # each queue's own, set outside
        attributes = options.get(transport.creation_attributes_key)
        if isinstance(attributes, dict) and transport.visibility_attribute in attributes:
            return Visibility(_number(attributes[transport.visibility_attribute]), value.place)
    key = next((k for k in sorted(kb.VISIBILITY_KEYS) if k in options), None)
    if key is None:
        return None
    return Visibility(_number(options[key]), value.visibility_place or value.place)


def _number(raw: object) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, str):  # SQS attributes are strings: "7200"
        try:
            return float(raw.strip())
        except ValueError:
            return None
    return None


def _config_modules(all_facts: list[FileFacts]) -> set[str]:
    """Modules whose plain constants are Celery settings."""
    modules: set[str] = set()
    for file_facts in all_facts:
        for target, _namespace in file_facts.broker.config_sources:
            if target in kb.DJANGO_SETTINGS_OBJECTS:
                continue  # settings modules are recognised by name and env below
            modules.add(target.partition(":")[0])
        modules.update(file_facts.broker.settings_modules)
    return modules


def _counts(value: ConfigValue, module: str, config_modules: set[str]) -> bool:
    parts = module.split(".")
    if module in config_modules or parts[-1] in kb.CONFIG_MODULE_NAMES:
        return True
    # Upper-case Celery names are unambiguous in a Django settings module.
    in_settings = any(p in kb.SETTINGS_MODULE_COMPONENTS for p in parts)
    return in_settings and value.spelling.isupper()


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A broker URL a setting may take: its text (None: not known), and what
    says it when the code doesn't."""

    text: str | None
    source: str = ""
    places: tuple[Place, ...] = ()

    def then(self, other: _Candidate) -> _Candidate:
        """This text followed by `other`'s, said by both."""
        text = None if self.text is None or other.text is None else self.text + other.text
        source = "; ".join(s for s in (self.source, other.source) if s)
        places = (*self.places, *(p for p in other.places if p not in self.places))
        return _Candidate(text, source, places)


@dataclass(frozen=True, slots=True)
class _Urls:
    """Reads broker URL settings: static in the code, else (the URL read
    from an environment variable, or not static at all) the broker joblint's
    configuration names, else the variable's values in the deployment files."""

    constants: dict[str, Expr]
    environment: Environment
    declared: str = ""

    def transport(self, urls: list[ConfigValue]) -> tuple[Transport | None, bool]:
        """The broker transport when every known broker URL agrees, and whether
        the configuration may use a transport that redelivers (False when every
        URL names one that doesn't: `amqp://`, `memory://`)."""
        found: dict[str, Transport] = {}
        unknown = others = 0
        for value in urls:
            for candidate in self._candidates(value):
                known = kb.TRANSPORT_OF_SCHEME.get(_scheme(candidate.text or ""))
                if known is not None:
                    transport = Transport(
                        known.name,
                        known.default_visibility,
                        value.place,
                        candidate.source,
                        candidate.places,
                    )
                    found.setdefault(known.name, transport)
                elif candidate.text is not None and _scheme(candidate.text).isidentifier():
                    others += 1
                else:
                    unknown += 1  # not static, or a template: `f"{scheme}://..."`
        redelivers = bool(found) or bool(unknown) or not urls
        single = len(found) == 1 and not unknown and not others
        return (next(iter(found.values())) if single else None), redelivers

    def _candidates(self, value: ConfigValue) -> list[_Candidate]:
        url = evaluate(value.value, self.constants)
        if isinstance(url, str) and _scheme(url).isidentifier():
            return [_Candidate(url)]
        if self.declared:
            text = self.declared if "://" in self.declared else f"{self.declared}://"
            return [_Candidate(text, "joblint's `broker` setting")]
        found = self._texts(value.value)
        # A deployment file's value that is no URL (`change-me`) says nothing.
        urls = [c for c in found if c.text is None or "://" in c.text]
        return urls or [_Candidate(None)]

    def _texts(self, expr: Expr | None, depth: int = 0) -> list[_Candidate]:
        """The texts a value may have, each with what says it: static, the
        deployment files' values of the variables it reads, or a URL built of
        parts (`"{}://{}".format(transport, host)`, `f"{scheme}://..."`, a
        URL helper's `scheme=`) up to its scheme; `a if test else b` gives the
        arm the deployment files decide, else both. Text None: not known."""
        unknown = [_Candidate(None)]
        if expr is None or depth > _MAX_REF_DEPTH:
            return unknown
        static = evaluate(expr, self.constants)
        text = text_of(static)
        if text is not None:
            return [_Candidate(text)]
        kind = expr[0]
        if kind == "ref":
            return self._texts(self.constants.get(expr[1]), depth + 1)
        if kind in ("env", "env_or"):
            return self._deployed(expr if kind == "env" else expr[2]) or unknown
        if kind == "cat" or (kind == "op" and expr[1] == "+"):
            return self._prefixes(expr[1:] if kind == "cat" else expr[2:], depth)
        if kind == "cond":
            decided = self.decide(expr[1])
            if decided is not None:
                return self._texts(expr[2] if decided else expr[3], depth + 1)
            return [*self._texts(expr[2], depth + 1), *self._texts(expr[3], depth + 1)]
        return unknown

    def _deployed(self, expr: Expr) -> list[_Candidate]:
        deployed = [
            v
            for variable in _variables(expr, self.constants)
            for v in self.environment.get(variable, ())
        ]
        return [_Candidate(v.value, _said(v), tuple(d.place for d in deployed)) for v in deployed]

    def _prefixes(self, parts: tuple[Expr, ...], depth: int) -> list[_Candidate]:
        """A built string's texts up to its scheme's "://" (what follows it
        never decides the transport)."""
        found = [_Candidate("")]
        for part in parts:
            if all(c.text is not None and "://" in c.text for c in found):
                break
            options = self._texts(part, depth + 1)
            found = [c.then(o) for c in found for o in options][:_MAX_CANDIDATES]
        return found

    def in_force(self, settings: Settings, *, defaults: bool) -> Settings:
        """The settings less those set under a test the deployment files
        decide false (`if os.environ.get("X"):` where they leave X unset);
        with `defaults`, a variable they don't set has the code's default."""
        kept: Settings = {}
        for role, values in settings.items():
            kept[role] = [
                v
                for v in values
                if v.guard is None or self.decide(v.guard, defaults=defaults) is not False
            ]
        return kept

    def decide(self, test: Expr, *, defaults: bool = False) -> bool | None:
        """A test's truth with the deployment files' values (and, with
        `defaults`, the code's default of a variable they leave unset)."""
        return truth(evaluate(self._resolved(test, defaults, 0), self.constants))

    def _resolved(self, expr: Expr, defaults: bool, depth: int) -> Expr:
        """`expr` with its environment reads replaced by what the deployment
        files give them (when they agree)."""
        if depth > _MAX_REF_DEPTH:
            return _UNKNOWN
        kind = expr[0]
        if kind == "ref":
            target = self.constants.get(expr[1])
            return self._resolved(target, defaults, depth + 1) if target is not None else expr
        if kind in ("env", "env_or"):
            values = {c.text for c in self._deployed(expr if kind == "env" else expr[2])}
            if len(values) == 1:
                return ("str", values.pop())
            if not values and defaults and kind == "env_or":
                return self._resolved(expr[1], defaults, depth + 1)
            return _UNKNOWN
        if kind in _TESTED_KINDS:
            return (
                kind,
                *(
                    self._resolved(part, defaults, depth + 1) if _is_expr(part) else part
                    for part in expr[1:]
                ),
            )
        return expr


_UNKNOWN: Expr = ("unknown",)
# Kinds whose parts a test's environment reads may be in.
_TESTED_KINDS = frozenset({"cmp", "len", "not", "num_of", "op", "cat", "cond", "neg"})
_MAX_CANDIDATES = 16


def _is_expr(part: object) -> bool:
    return isinstance(part, tuple) and bool(part) and isinstance(part[0], str)


def _said(value: EnvironmentValue) -> str:
    """ "BROKER_URL is redis:// in .env:2", "BROKER_SCHEME is redis in compose.yml:7"."""
    scheme = _scheme(value.value)
    shown = f"{scheme}://" if scheme else value.value
    return f"{value.variable} is {shown} in {_where(value.place)}"


def _scheme(text: str) -> str:
    """A URL's transport: kombu reads `transport+url` as the transport's name
    first (`sqla+sqlite://`). "" when `text` is no URL."""
    return text.split("://", 1)[0].split("+", 1)[0].lower() if "://" in text else ""


def _variables(expr: Expr | None, constants: dict[str, Expr], depth: int = 0) -> tuple[str, ...]:
    """The environment variables a value is read from (`("env", "X", ...)`,
    through module constants)."""
    if expr is None or depth > _MAX_REF_DEPTH:
        return ()
    if expr[0] == "env":
        return tuple(str(name) for name in expr[1:])
    if expr[0] == "env_or":
        return _variables(expr[2], constants, depth + 1)
    if expr[0] == "ref":
        return _variables(constants.get(expr[1]), constants, depth + 1)
    return ()


_MAX_REF_DEPTH = 16


def _where(place: Place) -> str:
    return f"{place.path}:{place.span.line}"


def described(transport: Transport) -> str:
    """Where the transport is said: "proj/settings.py:3", and what says it
    when the code's URL doesn't ("...; BROKER_URL is redis:// in .env:2")."""
    place = _where(transport.place)
    return f"{place}; {transport.source}" if transport.source else place

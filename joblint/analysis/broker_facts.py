"""Per-file broker settings for the whole-project rules (JL501, JL502): the
settings, the config modules an app loads, job time limits and delays, read
the way each library's `BrokerConfig` says its app takes them.

Collected during the one traversal (the context calls in), holding CST nodes
until the engine has positions; `finish` turns them into plain `BrokerFacts`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from joblint.analysis.constants import Expr, to_expr
from joblint.analysis.names import Resolver, dotted_text
from joblint.knowledge import brokers as kb
from joblint.libraries.django import SETTINGS_MODULE_VARIABLE
from joblint.models import BrokerFacts, ConfigValue, Delay, Place, Span, TimeLimit

SpanOf = Callable[[cst.CSTNode], Span]


@dataclass(slots=True)
class _Config:
    setting: str
    spelling: str
    value: cst.BaseExpression
    from_app: bool


@dataclass(slots=True)
class _TimeLimit:
    task: str
    value: cst.BaseExpression


@dataclass(slots=True)
class _Delay:
    keyword: cst.Arg
    call: str


@dataclass(slots=True)
class BrokerCollector:
    resolver: Resolver
    configs: list[_Config] = field(default_factory=list)
    sources: list[tuple[str, str]] = field(default_factory=list)
    settings_modules: list[str] = field(default_factory=list)
    time_limits: list[_TimeLimit] = field(default_factory=list)
    delays: list[_Delay] = field(default_factory=list)

    @property
    def nodes(self) -> bool:
        """Whether anything needs a position."""
        return bool(self.configs or self.time_limits or self.delays)

    # --- module-level constants: `CELERY_TASK_TIME_LIMIT = 60 * 60` ------------

    def module_assignment(self, name: str, value: cst.BaseExpression) -> None:
        setting = kb.SPELLING_TO_SETTING.get(name)
        if setting is not None:
            self.configs.append(_Config(setting, name, value, from_app=False))

    # --- `app.conf.task_time_limit = 600` -----------------------------------------

    def assignment(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if not isinstance(target, cst.Attribute):
            return
        owner = dotted_text(target.value) or ""
        if owner.rpartition(".")[2] not in kb.CONFIG_ATTRIBUTES:
            return
        setting = kb.SPELLING_TO_SETTING.get(target.attr.value)
        if setting is not None:
            self.configs.append(_Config(setting, target.attr.value, value, from_app=True))

    # --- calls ----------------------------------------------------------------------

    def call(self, node: cst.Call) -> None:
        qualname = self.resolver.qualified_name(node.func) or ""
        app = kb.APP_CLASSES.get(qualname)
        if app is not None:
            self._keywords(node, kb.APP_KEYWORDS[app.library])
        elif qualname in kb.ENV_DEFAULT_FUNCTIONS:
            self._settings_module_env(node)
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        owner = dotted_text(func.value) or ""
        if method in kb.UPDATE_METHODS and owner.rpartition(".")[2] in kb.CONFIG_ATTRIBUTES:
            self._keywords(node, kb.SPELLING_TO_SETTING)
            self._dict_argument(node)
        elif method in kb.LOADER_METHODS:
            self._config_source(node)
        if method in kb.DELAY_METHODS:
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in kb.DELAY_KEYWORDS:
                    self.delays.append(_Delay(arg, f"{dotted_text(func) or method}()"))

    def _keywords(self, node: cst.Call, names: dict[str, str]) -> None:
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in names:
                setting = names[arg.keyword.value]
                self.configs.append(_Config(setting, arg.keyword.value, arg.value, from_app=True))

    def _dict_argument(self, node: cst.Call) -> None:
        """`app.conf.update({"task_time_limit": 60})`."""
        positional = [a for a in node.args if a.keyword is None]
        if not positional or not isinstance(positional[0].value, cst.Dict):
            return
        for element in positional[0].value.elements:
            key = element.key if isinstance(element, cst.DictElement) else None
            if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
                setting = kb.SPELLING_TO_SETTING.get(key.evaluated_value)
                if setting is not None:
                    self.configs.append(
                        _Config(setting, key.evaluated_value, element.value, from_app=True)
                    )

    def _config_source(self, node: cst.Call) -> None:
        positional = [a for a in node.args if a.keyword is None]
        if not positional:
            return
        target = positional[0].value
        if isinstance(target, cst.SimpleString) and isinstance(target.evaluated_value, str):
            name = target.evaluated_value
        else:
            name = self.resolver.qualified_name(target) or ""
        namespace = ""
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "namespace":
                value = arg.value
                if isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
                    namespace = value.evaluated_value
        if name:
            self.sources.append((name, namespace))

    def _settings_module_env(self, node: cst.Call) -> None:
        """`os.environ.setdefault("DJANGO_SETTINGS_MODULE", "proj.settings")`."""
        values = [
            a.value.evaluated_value
            for a in node.args
            if a.keyword is None
            and isinstance(a.value, cst.SimpleString)
            and isinstance(a.value.evaluated_value, str)
        ]
        if len(values) == 2 and values[0] == SETTINGS_MODULE_VARIABLE:
            self.settings_modules.append(values[1])

    # --- task time limits ---------------------------------------------------------------

    def task_decorator(self, task: str, decorator: cst.Decorator) -> None:
        call = decorator.decorator
        if not isinstance(call, cst.Call):
            return
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in kb.TIME_LIMIT_OPTIONS:
                self.time_limits.append(_TimeLimit(task, arg.value))

    def task_class(self, node: cst.ClassDef) -> None:
        """`class Rebuild(Task): time_limit = 3600`."""
        if not isinstance(node.body, cst.IndentedBlock):
            return
        for line in node.body.body:
            if not isinstance(line, cst.SimpleStatementLine):
                continue
            for small in line.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and small.targets[0].target.value in kb.TIME_LIMIT_OPTIONS
                ):
                    self.time_limits.append(_TimeLimit(node.name.value, small.value))

    # --- to plain facts ---------------------------------------------------------------

    def finish(self, path: str, span_of: SpanOf) -> BrokerFacts:
        def place(node: cst.CSTNode) -> Place:
            return Place(path, span_of(node))

        def expr(node: cst.BaseExpression) -> Expr | None:
            return to_expr(node, self.resolver)

        return BrokerFacts(
            config=tuple(
                ConfigValue(
                    c.setting,
                    c.spelling,
                    expr(c.value),
                    place(c.value),
                    c.from_app,
                    _visibility_place(c.value, place),
                )
                for c in self.configs
            ),
            config_sources=tuple(self.sources),
            settings_modules=tuple(self.settings_modules),
            time_limits=tuple(
                TimeLimit(t.task, expr(t.value), place(t.value)) for t in self.time_limits
            ),
            delays=tuple(
                Delay(d.keyword.keyword.value, d.call, expr(d.keyword.value), place(d.keyword))
                for d in self.delays
                if d.keyword.keyword is not None
            ),
        )


def _visibility_place(
    value: cst.BaseExpression, place: Callable[[cst.CSTNode], Place]
) -> Place | None:
    if not isinstance(value, cst.Dict):
        return None
    for element in value.elements:
        if not isinstance(element, cst.DictElement):
            continue
        key = element.key
        if isinstance(key, cst.SimpleString) and key.evaluated_value in kb.VISIBILITY_KEYS:
            return place(element.value)
    return None

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
from joblint.analysis.names import (
    Resolver,
    class_attributes,
    dotted_text,
    module_name_from_import,
    resolve_relative,
)
from joblint.knowledge import brokers as kb
from joblint.libraries.django import SETTINGS_MODULE_VARIABLE
from joblint.models import BrokerFacts, ConfigValue, Delay, Place, Span, TimeLimit

SpanOf = Callable[[cst.CSTNode], Span]
# The test of the top-level `if` a statement is under, and whether in its `else:`.
Guard = tuple[cst.BaseExpression, bool]


@dataclass(slots=True)
class _Config:
    setting: str
    spelling: str
    value: cst.BaseExpression
    from_app: bool
    owner: str = ""
    guard: Guard | None = None
    # Where it is set, when `value` is built here (one transport option set
    # alone: `options["visibility_timeout"] = 600`); else `value` itself.
    at: cst.CSTNode | None = None


@dataclass(slots=True)
class _TimeLimit:
    task: str
    # The value, or the `**options` argument holding it under `option`.
    value: cst.BaseExpression
    option: str = ""
    via: str = ""


@dataclass(slots=True)
class _Delay:
    keyword: str
    # Where it is reported: the keyword argument, or the options dict's entry
    # (or the `**options` argument, its value under `keyword`).
    node: cst.CSTNode
    value: cst.BaseExpression
    call: str
    from_options: bool = False


@dataclass(slots=True)
class BrokerCollector:
    resolver: Resolver
    configs: list[_Config] = field(default_factory=list)
    sources: list[tuple[str, str]] = field(default_factory=list)
    settings_modules: list[str] = field(default_factory=list)
    settings_classes: list[str] = field(default_factory=list)
    time_limits: list[_TimeLimit] = field(default_factory=list)
    delays: list[_Delay] = field(default_factory=list)
    star_imports: list[str] = field(default_factory=list)

    @property
    def nodes(self) -> bool:
        """Whether anything needs a position."""
        return bool(self.configs or self.time_limits or self.delays)

    # --- `from .base import *`, `class Prod(Base): CELERY_... = ...` ---------------

    def module_statement(self, statement: cst.CSTNode) -> None:
        if isinstance(statement, cst.ImportFrom) and isinstance(statement.names, cst.ImportStar):
            target = module_name_from_import(statement.module) if statement.module else ""
            level = len(statement.relative)
            if level:
                target = resolve_relative(
                    self.resolver.module, self.resolver.is_package, level, target
                )
            if target:
                self.star_imports.append(target)
        elif isinstance(statement, cst.ClassDef):
            self._settings_class(statement)

    def _settings_class(self, node: cst.ClassDef) -> None:
        """Settings as class attributes; the project step decides whether the
        class is a settings class (by its bases or by what loads it)."""
        owner = self.resolver.local_qualname(node.name.value)
        for name, value in class_attributes(node):
            setting = kb.SPELLING_TO_SETTING.get(name)
            if setting is not None:
                self.configs.append(_Config(setting, name, value, from_app=False, owner=owner))

    # --- module-level constants: `CELERY_TASK_TIME_LIMIT = 60 * 60` ------------

    def module_assignment(
        self, name: str, value: cst.BaseExpression, guard: Guard | None = None
    ) -> None:
        setting = kb.SPELLING_TO_SETTING.get(name)
        if setting is not None:
            self.configs.append(_Config(setting, name, value, from_app=False, guard=guard))

    def module_item_assignment(
        self, target: cst.BaseExpression, value: cst.BaseExpression, guard: Guard | None = None
    ) -> None:
        """`CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] = 7200` in a
        settings module: one transport option set after the dict."""
        if not isinstance(target, cst.Subscript) or not isinstance(target.value, cst.Name):
            return
        key = _item_key(target)
        if key is not None:
            self._option_set(target.value.value, key, value, from_app=False, guard=guard)

    def _option_set(
        self,
        spelling: str,
        key: str,
        value: cst.BaseExpression,
        *,
        from_app: bool,
        guard: Guard | None = None,
    ) -> None:
        """One entry of the transport options set alone (an item assigned, a
        keyword of their `update(...)`), read as the options holding it."""
        if kb.SPELLING_TO_SETTING.get(spelling) != kb.TRANSPORT_OPTIONS:
            return
        options = cst.Dict([cst.DictElement(cst.SimpleString(repr(key)), value)])
        self.configs.append(
            _Config(kb.TRANSPORT_OPTIONS, spelling, options, from_app, guard=guard, at=value)
        )

    # --- `app.conf.task_time_limit = 600` -----------------------------------------

    def assignment(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript):
            self._item_assignment(target, value)
            return
        if not isinstance(target, cst.Attribute):
            return
        owner = dotted_text(target.value) or ""
        if owner.rpartition(".")[2] not in kb.CONFIG_ATTRIBUTES:
            return
        setting = kb.SPELLING_TO_SETTING.get(target.attr.value)
        if setting is not None:
            self.configs.append(_Config(setting, target.attr.value, value, from_app=True))

    def _item_assignment(self, target: cst.Subscript, value: cst.BaseExpression) -> None:
        """`app.conf["task_time_limit"] = 600`, and one transport option set
        on the app's: `app.conf.broker_transport_options["visibility_timeout"] = 600`."""
        key = _item_key(target)
        if key is None:
            return
        if _is_config(target.value):
            setting = kb.SPELLING_TO_SETTING.get(key)
            if setting is not None:
                self.configs.append(_Config(setting, key, value, from_app=True))
        elif isinstance(target.value, cst.Attribute) and _is_config(target.value.value):
            self._option_set(target.value.attr.value, key, value, from_app=True)

    def _options_update(self, node: cst.Call, options: cst.BaseExpression) -> None:
        """`app.conf.broker_transport_options.update({...})` or
        `.update(visibility_timeout=600)` (also on a settings module's dict)."""
        if isinstance(options, cst.Attribute) and _is_config(options.value):
            spelling, from_app = options.attr.value, True
        elif isinstance(options, cst.Name):
            spelling, from_app = options.value, False
        else:
            return
        if kb.SPELLING_TO_SETTING.get(spelling) != kb.TRANSPORT_OPTIONS:
            return
        for arg in node.args:
            if arg.keyword is not None:
                self._option_set(spelling, arg.keyword.value, arg.value, from_app=from_app)
            elif not arg.star and isinstance(arg.value, cst.Dict):
                self.configs.append(
                    _Config(kb.TRANSPORT_OPTIONS, spelling, arg.value, from_app=from_app)
                )

    # --- calls ----------------------------------------------------------------------

    def call(self, node: cst.Call) -> None:
        qualname = self.resolver.qualified_name(node.func) or ""
        app = kb.APP_CLASSES.get(qualname)
        if app is not None:
            self._keywords(node, kb.APP_KEYWORDS[app.library])
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in kb.CONFIG_SOURCE_KEYWORDS:
                    self._source(arg.value, "")
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
        elif method in kb.UPDATE_METHODS:
            self._options_update(node, func.value)
        elif method in kb.LOADER_METHODS:
            self._config_source(node)
        if method in kb.DELAY_METHODS or method in kb.OPTION_METHODS:
            self._options(node, f"{dotted_text(func) or method}()")

    def _options(self, node: cst.Call, call: str) -> None:
        """Execution options passed to an enqueue: `countdown=`, `eta=` and
        `time_limit=` as keywords, in `**options` and in `options={...}`."""
        for arg in node.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword in kb.DELAY_KEYWORDS and keyword is not None:
                self.delays.append(_Delay(keyword, arg, arg.value, call))
            elif keyword in kb.TIME_LIMIT_OPTIONS and keyword is not None:
                self.time_limits.append(_TimeLimit("", arg.value, via=call))
            elif arg.star == "**" or keyword in kb.OPTIONS_KEYWORDS:
                self._option_dict(arg, call)

    def _option_dict(self, arg: cst.Arg, call: str) -> None:
        for key in sorted(kb.DELAY_KEYWORDS):
            entry = self._entry(arg.value, key)
            if entry is not None:
                self.delays.append(_Delay(key, entry, entry, call))
            elif not self._literal(arg.value):
                self.delays.append(_Delay(key, arg, arg.value, call, from_options=True))
        for key in sorted(kb.TIME_LIMIT_OPTIONS):
            entry = self._entry(arg.value, key)
            if entry is not None:
                self.time_limits.append(_TimeLimit("", entry, via=call))
            elif not self._literal(arg.value):
                self.time_limits.append(_TimeLimit("", arg.value, option=key, via=call))

    def _dict_of(self, value: cst.BaseExpression) -> cst.Dict | None:
        """The dict literal `value` is, or that the name `value` was bound to here."""
        if isinstance(value, cst.Dict):
            return value
        if isinstance(value, cst.Name):
            binding = self.resolver.lookup(value.value)
            bound = binding.expr if binding is not None else None
            if isinstance(bound, cst.Dict) and binding is not None and not binding.iterated:
                return bound
        return None

    def _literal(self, value: cst.BaseExpression) -> bool:
        return self._dict_of(value) is not None

    def _entry(self, value: cst.BaseExpression, key: str) -> cst.BaseExpression | None:
        found = self._dict_of(value)
        if found is None:
            return None
        for element in found.elements:
            if (
                isinstance(element, cst.DictElement)
                and isinstance(element.key, cst.SimpleString)
                and element.key.evaluated_value == key
            ):
                return element.value
        return None

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
        namespace = ""
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "namespace":
                value = arg.value
                if isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
                    namespace = value.evaluated_value
        self._source(positional[0].value, namespace)

    def _source(self, target: cst.BaseExpression, namespace: str) -> None:
        """A config source: a module path (`"proj.celeryconfig"`), a module's
        attribute (`"proj.config:Prod"`), or the object itself (`Prod`, a module)."""
        if isinstance(target, cst.SimpleString) and isinstance(target.evaluated_value, str):
            name = target.evaluated_value
        else:
            name = self.resolver.qualified_name(target) or ""
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
        elif len(values) == 2 and values[0] in kb.SETTINGS_CLASS_VARIABLES:
            self.settings_classes.append(values[1])

    # --- task time limits ---------------------------------------------------------------

    def task_decorator(self, task: str, decorator: cst.Decorator) -> None:
        call = decorator.decorator
        if not isinstance(call, cst.Call):
            return
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in kb.TIME_LIMIT_OPTIONS:
                self.time_limits.append(_TimeLimit(task, arg.value))
            elif arg.star == "**":  # `@app.task(**TASK_DEFAULTS)`
                for key in sorted(kb.TIME_LIMIT_OPTIONS):
                    entry = self._entry(arg.value, key)
                    if entry is not None:
                        self.time_limits.append(_TimeLimit(task, entry))
                    elif not self._literal(arg.value):
                        self.time_limits.append(_TimeLimit(task, arg.value, option=key))

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

    def _guard(self, guard: Guard | None) -> Expr | None:
        """A test the deployment files may decide (None: none, or none that can be read)."""
        if guard is None:
            return None
        test = to_expr(guard[0], self.resolver)
        if test is None:
            return None
        return ("not", test) if guard[1] else test

    def unplaced(self) -> BrokerFacts:
        """The facts that need no position (a file with nothing to place)."""
        return BrokerFacts(
            config_sources=tuple(self.sources),
            settings_modules=tuple(self.settings_modules),
            settings_classes=tuple(self.settings_classes),
            star_imports=tuple(self.star_imports),
        )

    def finish(self, path: str, span_of: SpanOf) -> BrokerFacts:
        def place(node: cst.CSTNode) -> Place:
            return Place(path, span_of(node))

        def expr(node: cst.BaseExpression, option: str = "") -> Expr | None:
            if isinstance(node, cst.Name) and node.value in _BOOLEANS:
                return ("num", _BOOLEANS[node.value])
            found = to_expr(node, self.resolver)
            if option and found is not None:
                return ("item", option, found)
            return found

        return BrokerFacts(
            config=tuple(
                ConfigValue(
                    c.setting,
                    c.spelling,
                    expr(c.value),
                    place(c.at or c.value),
                    c.from_app,
                    _visibility_place(c.value, place),
                    c.owner,
                    self._guard(c.guard),
                )
                for c in self.configs
            ),
            config_sources=tuple(self.sources),
            settings_modules=tuple(self.settings_modules),
            settings_classes=tuple(self.settings_classes),
            time_limits=tuple(
                TimeLimit(t.task, expr(t.value, t.option), place(t.value), t.via)
                for t in self.time_limits
            ),
            delays=tuple(
                Delay(
                    d.keyword,
                    d.call,
                    expr(d.value, d.keyword if d.from_options else ""),
                    place(d.node),
                )
                for d in self.delays
            ),
            star_imports=tuple(self.star_imports),
        )


_BOOLEANS = {"True": 1.0, "False": 0.0}


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


def _item_key(target: cst.Subscript) -> str | None:
    """The string key of `x["key"]`; None for any other subscript."""
    if len(target.slice) != 1:
        return None
    index = target.slice[0].slice
    if not isinstance(index, cst.Index) or not isinstance(index.value, cst.SimpleString):
        return None
    key = index.value.evaluated_value
    return key if isinstance(key, str) else None


def _is_config(node: cst.BaseExpression) -> bool:
    """`app.conf` (the app's configuration attribute)."""
    return isinstance(node, cst.Attribute) and node.attr.value in kb.CONFIG_ATTRIBUTES

"""What a call's qualified name means: the functions the loaded modules'
index summarises (`joblint.index`), and the classes, instances and
re-exports they define, merged across modules. A call's qualified name
means a summarised function when it names one, or names one through a
re-export, a method of a module-level instance (or of what a service
locator or a helper returns), or a method a class inherits from its bases.

The first question every other question of the project model asks
(`joblint.pipeline.project.call_graph`); it also tells what a file's calls
are, as its index records them, and which classes derive from which.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from joblint.index import returns
from joblint.knowledge import jobs, requests
from joblint.models import (
    FileResult,
    FunctionSummary,
    ModuleIndex,
    ProjectCall,
    ServiceRegistration,
    TaskDecorator,
)
from joblint.pipeline.project.hops import MAX_HOPS

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

# How many names a call's qualified name may be followed through (re-exports,
# instances, bases) before it is taken to mean no summarised function.
MAX_RESOLVE_STEPS = 24
# Helpers returning another helper's result, followed to the class of what they return.
_RETURN_HOPS = MAX_HOPS
# How deep the bases of a class are followed to tell what it derives from.
_MAX_BASE_DEPTH = 8


@dataclass(slots=True)
class Calls:
    """The loaded modules' functions and classes, and what names mean."""

    index: ProjectIndex
    functions: dict[str, tuple[FunctionSummary, str]] = field(default_factory=dict)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    instances: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    # Each loaded module's index, by the path of its file.
    by_path: dict[str, ModuleIndex] = field(default_factory=dict)
    task_decorators: dict[str, TaskDecorator] = field(default_factory=dict)
    # The services the loaded modules register with a service locator.
    services: list[ServiceRegistration] = field(default_factory=list)
    _modules: set[str] = field(default_factory=set)
    # What each name resolves to, and every name it was looked up as (the
    # graph doesn't change once built; a project step resolves each call many times).
    # By qualified name and the return hops left (`_resolve_within`).
    _resolved: dict[tuple[str, int], tuple[str | None, frozenset[str]]] = field(
        default_factory=dict
    )
    # Each file's calls by (line, text), made on the first question about it:
    # a rule asks about every call it reports, and a module may hold thousands.
    _at: dict[str, tuple[ModuleIndex, dict[tuple[int, str], set[ProjectCall]]]] = field(
        default_factory=dict
    )

    @classmethod
    def build(cls, results: Iterable[FileResult], index: ProjectIndex) -> Calls:
        """The loaded modules' index of `results`, merged."""
        calls = cls(index)
        for result in results:
            module = result.index
            # A file's own result comes first: a re-linted file's new index wins
            # over the one the run read before.
            if module is None or result.path in calls.by_path:
                continue
            calls.by_path[result.path] = module
            for summary in module.functions:
                calls.functions[summary.qualname] = (summary, result.path)
            calls.classes.update(module.classes)
            calls.instances.update(module.instances)
            calls.aliases.update(module.aliases)
            calls.task_decorators.update((d.qualname, d) for d in module.task_decorators)
            calls.services.extend(module.services)
        return calls

    def resolve(self, qualname: str, tried: set[str] | None = None) -> str | None:
        """The summarised function a call's qualified name means, if any
        (`tried`: gets every name it was looked up as)."""
        found, seen = self._resolve_within(qualname, _RETURN_HOPS)
        if tried is not None:
            tried |= seen
        return found

    def _resolve_within(self, qualname: str, hops: int) -> tuple[str | None, frozenset[str]]:
        """`resolve` following helpers' returns at most `hops` deep. Every
        nested look-up has fewer hops left, so a helper that returns a call
        of itself (`return f.apply(...)` in `f`) or a cycle of them ends."""
        key = (qualname, hops)
        known = self._resolved.get(key)
        if known is None:
            seen: set[str] = set()
            known = self._resolved[key] = (self._resolve(qualname, seen, hops), frozenset(seen))
        return known

    def _resolve(self, qualname: str, seen: set[str], hops: int) -> str | None:
        todo = [qualname]
        while todo and len(seen) < MAX_RESOLVE_STEPS:
            name = todo.pop(0)
            if name in seen:
                continue
            seen.add(name)
            if name in self.functions:
                return name
            alias = self.aliases.get(name)
            if alias is not None:
                todo.append(alias)
                continue
            owner, _, attribute = name.rpartition(".")
            if not owner:
                continue
            owner = self.aliases.get(owner, owner)
            service = self._service_class(owner, hops, seen)  # `request.find_service(...).send()`
            if service is not None:
                todo.append(f"{service}.{attribute}")
                continue
            made_by = self.instances.get(owner)  # `mailer.send()` on `mailer = Mailer()`
            if made_by is not None:
                todo.append(f"{made_by}.{attribute}")
            returned = self.returned_class(owner, hops)  # `load(pk).cancel()`
            if returned is None and hops > 0 and owner not in self.functions:
                # What a method returns (`kind = registry.add_kind(...)`, then
                # `kind.commit()`): the method found first, then its return.
                method = self._resolve_within(owner, hops - 1)[0]
                if method is not None and method != owner:
                    returned = self.returned_class(method, hops - 1)
            if returned is not None:
                todo.append(f"{returned}.{attribute}")
            if owner != name.rpartition(".")[0]:
                # The class an alias names defines the method before its bases do.
                todo.append(f"{owner}.{attribute}")
            todo.extend(f"{base}.{attribute}" for base in self.classes.get(owner, ()))
        return None

    def returns_known(self, function: str) -> bool:
        """Whether every `return` of the summarised `function` gives a value
        of a kind the project model knows: a library's fetch of rows (a
        queryset, a row), an instance of a class, what a library's call
        makes. A method called on it that no summary tells is then the
        library's (`build().exclude()`, `search().aggs.metric()`)."""
        summary = self.functions.get(function)
        if summary is None or not summary[0].returns:
            return False
        return all(
            fact.how in (returns.ROW, returns.ROWS)
            or (
                fact.how == returns.CALL
                and (self.class_of(fact.name) or not self.index.in_project(fact.name))
            )
            for fact in summary[0].returns
            if not fact.key
        )

    def returned_class(self, function: str, hops: int) -> str | None:
        """The class every return of a summarised function gives an instance
        of (a manager's row, a constructor, another such function's result,
        followed `hops` deep); None when they disagree or any is something else."""
        summary = self.functions.get(function)
        if summary is None or hops == 0:
            return None
        found: set[str | None] = set()
        for fact in summary[0].returns:
            if fact.key:
                continue
            if fact.how == returns.ROW or (fact.how == returns.CALL and self.class_of(fact.name)):
                found.add(fact.name)  # a manager's row, a new instance, a library's queue
            elif fact.how == returns.CALL:
                target = self._resolve_within(fact.name, hops - 1)[0]
                found.add(self.returned_class(target, hops - 1) if target else None)
            else:
                found.add(None)
        only = next(iter(found)) if len(found) == 1 else None
        return only

    def _service_class(self, owner: str, hops: int, seen: set[str]) -> str | None:
        """The class of the service a find keyed `owner` returns (a
        `requests.service_key`), when the registrations it may find agree on
        one; `seen` gets the names looked up on the way (a factory no loaded
        module defines: its module is read)."""
        key = requests.service_of(owner)
        if key is None or hops == 0:
            return None
        found = {self._service_made(r, hops, seen) for r in self._registrations(*key)}
        return next(iter(found)) if len(found) == 1 else None

    def _registrations(self, interface: str, name: str) -> list[ServiceRegistration]:
        """The registrations a find keyed (`interface`, `name`) may return:
        the same name, and the same interface unless the find names none."""
        wanted = self.index.canonical(interface) if interface else ""
        return [
            r
            for r in self.services
            if r.name == name
            and (not wanted or self.index.canonical(r.interface) == wanted)
            and (wanted or not r.interface or requests.SERVICE_ANY_INTERFACE)
        ]

    def _service_made(
        self, registration: ServiceRegistration, hops: int, seen: set[str]
    ) -> str | None:
        """The class of what a registration gives a find: the registered
        instance's, the factory class itself, or the class every return of
        the factory function makes."""
        made = self.index.canonical(self.aliases.get(registration.made, registration.made))
        if registration.instance:
            made = self.instances.get(made) or self.index.instances.get(made) or made
        if made in self.classes:
            return made
        target, tried = self._resolve_within(made, hops - 1)
        seen |= tried
        return self.returned_class(target, hops - 1) if target is not None else None

    def class_of(self, made: str) -> bool:
        """Whether calling `made` makes an instance of it: a project class,
        or a library's queue object (`rq.Queue`, `django_rq.get_queue`)."""
        return made in self.classes or jobs.queue_constructor_library(made) is not None

    def made_queue_library(self, name: str) -> str | None:
        """The library of the queue object a project function makes, when
        `name` is bound to its call (`queue = make_queue("mail")`)."""
        found = self.queue_maker(name)
        return jobs.queue_constructor_library(found[1]) if found is not None else None

    def queue_maker(self, owner: str) -> tuple[str, str] | None:
        """The project function that makes the library queue object `owner`
        is, and the queue's constructor: `owner` is such a function
        (`make_queue`), or a module-level name bound to its call (`queue =
        make_queue("mail")`)."""
        maker = self.instances.get(owner) or self.index.instances.get(owner)
        for candidate in (owner, maker):
            target = self.resolve(candidate) if candidate else None
            made = self.returned_class(target, _RETURN_HOPS) if target else None
            if target and made and jobs.queue_constructor_library(made) is not None:
                return target, made
        return None

    def is_class(self, name: str) -> bool:
        """Whether `name` (a re-export, too) is a class the project knows."""
        name = self._through_imports(name)
        return (
            name in self.classes
            or name in self.index.classes
            or bool(self.index.class_kinds.of(name))
        )

    def of_a_class(self, callee: str) -> bool:
        """A call of or on a class the project knows, not an unknown function:
        `Vat.objects.get` (a model of another table), `NotFound(...)` (an
        exception it raises), `View.form.validate` (an object a class holds
        in an attribute, of a type no summary tells)."""
        parts = callee.split(".")
        return any(self.is_class(".".join(parts[:end])) for end in range(2, len(parts) + 1))

    def _through_imports(self, name: str) -> str:
        """The name a re-export stands for, through the imports of the
        modules read with facts and of those only indexed."""
        seen = {name}
        while len(seen) < MAX_RESOLVE_STEPS:
            target = self.index.canonical(self.aliases.get(name, name))
            if target in seen:
                return target
            seen.add(target)
            name = target
        return name

    def defined(self, name: str) -> bool:
        """A function, class or other module-level name of a loaded module:
        not an app's task method."""
        if self.resolve(name) is not None or name in self.classes:
            return True
        if not self._modules:
            self._modules.update(module.module for module in self.by_path.values())
        return name.rpartition(".")[0] in self._modules

    def callees_at(self, path: str, line: int, text: str) -> list[str]:
        """What the call written `text` at `line` of the file at `path` calls,
        as the file's index qualifies it (through imports, locals' types, `self.`)."""
        return sorted({call.callee for call in self.calls_at(path, line, text)})

    def calls_at(self, path: str, line: int, text: str) -> list[ProjectCall]:
        """The calls written `text` at `line` of the file at `path`, as its index records them."""
        module = self.by_path.get(path)
        if module is None:
            return []
        known = self._at.get(path)
        if known is None or known[0] is not module:
            by_place: dict[tuple[int, str], set[ProjectCall]] = {}
            for summary in module.functions:
                for call in summary.calls:
                    by_place.setdefault((call.line, call.text), set()).add(call)
            known = self._at[path] = (module, by_place)
        return sorted(known[1].get((line, text), ()), key=lambda call: call.callee)

    def callees(self, path: str) -> set[str]:
        """Everything the file at `path` calls that may be the project's code."""
        module = self.by_path.get(path)
        if module is None:
            return set()
        return {call.callee for summary in module.functions for call in summary.calls}

    def derives(
        self,
        qualname: str,
        prefixes: tuple[str, ...],
        matches: Callable[[str], bool] | None = None,
    ) -> bool:
        """Whether the class derives, through the bases the project shows,
        from a class whose qualified name starts with one of `prefixes` (or
        that `matches`)."""
        todo, seen = [qualname], {qualname}
        for _ in range(_MAX_BASE_DEPTH):
            following: list[str] = []
            for name in todo:
                name = self.index.canonical(name)
                facts = self.index.classes.get(name)
                bases = self.classes.get(name) or (facts.bases if facts else ())
                for base in bases:
                    if (prefixes and base.startswith(prefixes)) or (matches and matches(base)):
                        return True
                    if base not in seen:
                        seen.add(base)
                        following.append(base)
            todo = following
        return False

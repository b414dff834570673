"""What a call runs that it doesn't name, and so who calls whom through
it: a signal's send runs the receivers the loaded modules connect to it
(`joblint.index.signals`; a factory's result, the functions the factory
defines), `call_command("x")` runs the `x` command's handler, a manager's
`create` runs the model's `save()`, a library's saving method runs the
project class's overrides (DRF's `serializer.save()`). The callers of each
function through all of these, inside a transaction or not, are what a
request handler's reach is searched up (`joblint.pipeline.project.entries`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from joblint.knowledge import requests
from joblint.libraries import django
from joblint.models import ProjectCall
from joblint.pipeline.project.calls import Calls
from joblint.pipeline.project.transactions import Transactions

if TYPE_CHECKING:
    from joblint.pipeline.project import ProjectIndex

# What `joblint.index.signals` calls the function a factory returns.
RETURNED_BY_FACTORY = "<returned>"
# A caller: its name, its file, the call, whether the call is made inside a
# transaction, and whether it is a signal's send (to the receiver it calls).
Caller = tuple[str, str, ProjectCall, bool, bool]


@dataclass(slots=True)
class IndirectCalls:
    """The functions calls run without naming them, and the callers that makes."""

    calls: Calls
    transactions: Transactions
    index: ProjectIndex
    # Signal -> the names connected to it (built when first asked).
    _receivers: dict[str, list[str]] | None = None
    # Command name -> the loaded modules defining it (built when first asked).
    _commands: dict[str, list[str]] | None = None
    _callers: dict[str, list[Caller]] | None = None

    def signal_receivers(self, call: ProjectCall) -> list[str]:
        """The functions a call of a signal's send method runs, as the loaded
        modules connect them (`joblint.index.signals`); [] for any other call."""
        owner, _, method = call.callee.rpartition(".")
        if method not in requests.SEND_METHODS or not owner:
            return []
        if self._receivers is None:
            self._receivers = self._connected()
        handlers = self._receivers.get(self.index.canonical(owner), ())
        found: list[str] = []
        for handler in handlers:
            found.extend(self.connected_functions(handler))
        return sorted(set(found))

    def command_handlers(self, call: ProjectCall) -> list[str]:
        """The handlers a command runner's call runs (`call_command("x")`: the
        `Command.handle` of each loaded `<app>.management.commands.x`; one,
        unless apps share the name, when Django runs the first app's); [] for
        any other call."""
        if not call.command:
            return []
        if self._commands is None:
            self._commands = {}
            for module in sorted(m.module for m in self.calls.by_path.values()):
                name = requests.command_name(module)
                if name:
                    self._commands.setdefault(name, []).append(module)
        modules = self._commands.get(call.command, ())
        return [f for m in modules if (f := self.calls.resolve(requests.command_handler(m)))]

    def _connected(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for module in self.calls.by_path.values():
            for signal, handler, _ in module.connections:
                found.setdefault(self.index.canonical(signal), []).append(handler)
        return found

    def connected_functions(self, handler: str) -> list[str]:
        """What a connected name is: a summarised function, or for a
        factory's result the functions the factory defines."""
        factory, _, tail = handler.rpartition(".")
        if tail == RETURNED_BY_FACTORY:
            start = self.calls.resolve(factory)
            if start is None:
                return []
            nested = f"{start}.<locals>."
            return [
                name
                for name in self.calls.functions
                if name.startswith(nested) and "." not in name[len(nested) :]
            ]
        resolved = self.calls.resolve(handler)
        return [resolved] if resolved is not None else []

    def callers(self) -> dict[str, list[Caller]]:
        """Who calls each function, and who sends a signal each receiver is
        connected to; inside a transaction or not."""
        if self._callers is None:
            found: dict[str, list[Caller]] = {}
            functions = self.calls.functions
            inside_transaction = self.transactions.inside_transaction
            for name in sorted(functions):
                summary, where = functions[name]
                for call in summary.calls:
                    inside = inside_transaction(call)
                    for receiver in self.signal_receivers(call):
                        found.setdefault(receiver, []).append((name, where, call, inside, True))
                    for callee in self.runs(call):
                        if callee != name:
                            found.setdefault(callee, []).append((name, where, call, inside, False))
            for callers in found.values():
                callers.sort(key=lambda c: (not c[3], c[1], c[2].line))
            self._callers = found
        return self._callers

    def runs(self, call: ProjectCall) -> list[str]:
        """What a call runs of the project's: the function it resolves to, or
        where it names a library method calling overridable ones (DRF's
        `serializer.save()`), the project class's overrides, or for a
        command runner's (`call_command("x")`), the command's handler."""
        resolve = self.calls.resolve
        if call.command:
            return self.command_handlers(call)
        resolved = resolve(call.callee)
        if resolved is not None:
            return [resolved]
        owner, _, method = call.callee.rpartition(".")
        found: list[str] = []
        model, _, manager = owner.rpartition(".")
        if manager in requests.MODEL_MANAGERS and model:
            # `Order.objects.create(...)` runs the model's own `save()`.
            for name in requests.MANAGER_CALLS_INSTANCE.get(method, ()):
                resolved = resolve(f"{model}.{name}")
                if resolved is not None:
                    found.append(resolved)
        for prefix, calls in django.CALLS_OVERRIDES.items():
            overrides = calls.get(method, ())
            if overrides and self.calls.derives(owner, (prefix,)):
                found.extend(f for m in overrides if (f := resolve(f"{owner}.{m}")))
        return found

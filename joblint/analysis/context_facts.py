"""What the project step learns from a file, gathered during its traversal.

The collectors of `joblint.analysis.file_facts` are fed as the traversal goes
(settings, tasks, calls, definitions); with the signal receivers the module
connects, they make the file's `FileFacts`.
"""

from __future__ import annotations

from typing import Any

from joblint.analysis.broker_facts import SpanOf
from joblint.analysis.context_state import ContextState
from joblint.analysis.file_facts import SettingsCollector
from joblint.models import FileFacts


class CollectedFacts(ContextState):
    """The file's facts for the project step."""

    @property
    def run_python_functions(self) -> frozenset[str]:
        """Qualified names of the functions this file's `RunPython(...)` runs."""
        settings = (c for c in self.collectors if isinstance(c, SettingsCollector))
        return frozenset(name for c in settings for name in c.run_python)

    @property
    def needs_positions(self) -> bool:
        """Whether the facts hold places that need positions."""
        return bool(self.connected) or any(c.needs_positions for c in self.collectors)

    def facts(self, path: str = "", span_of: SpanOf | None = None) -> FileFacts:
        fields: dict[str, Any] = {}
        for collector in self.collectors:
            fields.update(collector.contribute(path, span_of))
        receivers = tuple(
            receiving.fact(handler, span_of(call).line if span_of is not None else 0)
            for handler, receiving, call in self.connected
        )
        return FileFacts(module=self.resolver.module, receivers=receivers, **fields)

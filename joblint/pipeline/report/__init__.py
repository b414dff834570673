"""Reporters: turn findings (plain models, never CST) into output.

Each format is a module with a `render(findings, out: Output) -> None` function.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from joblint.models import Finding
from joblint.pipeline.report.output import Output as Output
from joblint.pipeline.report.output import console_for as console_for
from joblint.pipeline.report.output import rich_console as rich_console
from joblint.pipeline.report.output import styled as styled

Renderer = Callable[[list[Finding], Output], None]


def renderer(name: str) -> Renderer:
    """The `render` of the format `name` (one of FORMATS): only its module is imported."""
    if name not in FORMATS:
        raise KeyError(name)
    module = importlib.import_module(f"joblint.pipeline.report.{name}")
    render: Renderer = module.render
    return render


def renderers() -> dict[str, Renderer]:
    return {name: renderer(name) for name in FORMATS}


FORMATS = ("full", "concise", "json", "sarif", "github", "gitlab", "junit")

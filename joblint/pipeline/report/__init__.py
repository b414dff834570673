"""Reporters: turn findings (plain models, never CST) into output.

Each format is a module with a `render(findings, out: Output) -> None` function.
"""

from __future__ import annotations

from collections.abc import Callable

from joblint.models import Finding
from joblint.pipeline.report.output import Output as Output
from joblint.pipeline.report.output import console_for as console_for
from joblint.pipeline.report.output import rich_console as rich_console
from joblint.pipeline.report.output import styled as styled

Renderer = Callable[[list[Finding], Output], None]


def renderers() -> dict[str, Renderer]:
    from joblint.pipeline.report import concise, full, github, gitlab, json, junit, sarif

    return {
        "full": full.render,
        "concise": concise.render,
        "json": json.render,
        "sarif": sarif.render,
        "github": github.render,
        "gitlab": gitlab.render,
        "junit": junit.render,
    }


FORMATS = ("full", "concise", "json", "sarif", "github", "gitlab", "junit")

"""Reporters: turn findings (plain models, never CST) into output.

Each format is a module with a `render(findings, out: Output) -> None` function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console

from joblint.models import Finding

SourceLines = Callable[[str], list[str] | None]


@dataclass(slots=True)
class Output:
    stream: TextIO
    console: Console  # for rich formats, writing to `stream`
    source_lines: SourceLines


Renderer = Callable[[list[Finding], Output], None]


def renderers() -> dict[str, Renderer]:
    from joblint.report import concise, full, github, gitlab, json, junit, sarif

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

"""The project index: one cheap pass per module, with Python's own `ast`.

For the project model (`joblint.pipeline.project.call_graph`) every module
the project step needs gives a `ModuleIndex`: its imports, classes and
module-level instances, and for every function and method a summary of the
calls it makes that may be the project's own code, and of how it opens a
transaction for its caller. Which calls enqueue a job is decided in the
project step, from the tasks and queue objects the project defines.

`ast` and not LibCST, by measurement (docs/architecture.md): on a 4,300-file
Django application `ast.parse` costs 1.3 ms a file where LibCST's parse and
fact traversal cost 29 ms, and the index is read for files no rule reports
on. A file is parsed with LibCST only when a rule may report on it.

One module per question. The driver and what every reader shares:
- `summaries`: reads a module's index, asking each reader its question.
- `scope`: what a name means where the module uses it; the summaries drafted.
- `nodes`: which nodes of a function are its own, and in what order (the
  screen's `ast` checks walk with it too).
- `bindings`: what each name a function binds holds; a class's attributes.
What a function does (one field or a few of its `FunctionSummary`):
- `calls`: what it calls, in which transaction, what it defers to COMMIT.
- `openings`: which transaction it opens for its callers, and runs in.
- `commits`: where it commits, the settings gating that, when a middleware
  hands the request on.
- `returns` (with `growth`): what it returns; whether that grows with a
  parameter.
- `writes`: the rows it writes, blindly or by owner; fields it sets.
- `claims`: whether it claims its work before doing it.
- `flags`: the flag parameters its calls need and pass.
- `handed`: the parameters it retries as a task, and the delays handed on.
- `model_uses`: the parameters it uses as a model instance.
- `row_uses`: what it does with the rows its calls hand back.
- `row_fields`: the fields of a row it loads by a key it is handed.
What a module defines or registers:
- `classes`: its classes, their bases, a view's model, plain classes.
- `task_decorators`: the task decorators it builds, and the ones used.
- `entries`: the request handlers it defines.
- `registering`: its decorator factories registering request handlers.
- `hooks`: what it registers around request handlers.
- `signals`: the receivers it connects to signals.
- `services`: the services it registers, and what a find returns.
- `plain`: its plain functions and classes, told from its text.
`reading` holds `index_source`, the package's entry, imported when first
used: the screen's `ast` checks import the light modules here (`ast_walk`,
`nodes`) and must not build the library tables the readers use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from joblint.index.reading import index_source

__all__ = ["index_source"]


def __getattr__(name: str) -> Any:
    if name != "index_source":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from joblint.index.reading import index_source

    return index_source

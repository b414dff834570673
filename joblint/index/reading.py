"""`index_source`: a module's index, read with Python's `ast` (the
package's entry: `joblint.index` says what each reader asks)."""

from __future__ import annotations

import ast
import warnings

from joblint.index.plain import plain_classes, plain_functions
from joblint.index.summaries import ModuleReader
from joblint.knowledge import requests, work
from joblint.models import ModuleIndex
from joblint.settings import ModuleInfo, Options


def index_source(
    text: str | bytes, module: ModuleInfo, options: Options, tells_plain: bool = True
) -> ModuleIndex | None:
    """The module's index; None when Python can't parse it (JL001 says why
    wherever the file is linted). `tells_plain`: with its plain functions."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes: the linted file reports
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    decoded = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    lowered = decoded.lower()
    try:
        reader = ModuleReader(
            module,
            options,
            may_claim=work.may_claim(lowered),
            may_name_guard=work.may_name_guard(lowered, module.name),
            may_connect=requests.may_connect(lowered),
            may_attach=requests.may_attach(lowered),
            may_hook=requests.may_hook(decoded),
        )
        if not tells_plain:
            return reader.read(tree)
        return reader.read(tree, plain_functions(tree, text), plain_classes(tree, text))
    except RecursionError:
        return None

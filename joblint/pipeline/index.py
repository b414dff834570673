"""One file's part of the project model, without LibCST (`joblint.index`):
for files no rule reports on, read only so the project step can follow
calls into them."""

from __future__ import annotations

from joblint.index import index_source
from joblint.models import FileResult
from joblint.settings import LintSettings, ModuleInfo


def index_file(
    path: str, data: bytes, settings: LintSettings, module: ModuleInfo, tells_plain: bool = True
) -> FileResult:
    """Never raises: a file Python can't parse has no index (where it is
    linted, JL001 says why)."""
    index = index_source(data, module, settings.options, tells_plain)
    return FileResult(path, parsed=index is not None, index=index)

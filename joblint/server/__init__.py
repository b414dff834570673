"""joblint's language server (`joblint server`), for editors: diagnostics,
fixes and suppressions as code actions, over the Language Server Protocol.

It needs the `server` extra (`pip install 'joblint[server]'`: pygls and
lsprotocol); `joblint.server.app` is the server (its session's parts:
`client`, `workspace`, `buffers`, `actions`), `linting` what it asks of
joblint's API, and `diagnostics`, `edits`, `positions` and `settings` the
translations between the two. Importing this package imports neither.
"""

from __future__ import annotations

import importlib.util

# The distributions the server needs, by the module each provides.
REQUIRED = {"pygls": "pygls", "lsprotocol": "lsprotocol"}


def missing() -> list[str]:
    """The server's dependencies that are not installed."""
    return [name for module, name in REQUIRED.items() if importlib.util.find_spec(module) is None]

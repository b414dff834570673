"""Pyramid with `pyramid_tm`: every view runs inside the request's
transaction manager, committed after the view returns (pyramid_tm 2.5,
`pyramid_tm/__init__.py`: `tm_tween`), and `transaction.get().
addAfterCommitHook(...)` is its on-commit hook (transaction 4.0,
`transaction/_transaction.py`)."""

from __future__ import annotations

from joblint.libraries.base import Library, RequestHandlers

# Set where the app includes `pyramid_tm` (`config.include("pyramid_tm")`, or
# `pyramid.includes` in its ini file).
FRAMEWORK = "pyramid"
TM_FLAG = "pyramid.tm"
TM_PACKAGE = "pyramid_tm"
INCLUDE_METHOD = "include"
INI_INCLUDES = "pyramid.includes"

# Transaction managers a `with` block opens and commits: pyramid_tm's
# per-request one (`with request.tm:`) and the transaction package's
# thread-local one (`with transaction.manager:`).
REQUEST_MANAGER_ATTRIBUTES = ("tm",)
REQUEST_NAME = "request"
TRANSACTION_MANAGERS = ("transaction.manager",)

REQUEST_HANDLERS = (
    RequestHandlers(
        FRAMEWORK,
        "a Pyramid view",
        decorators=("pyramid.view.view_config",),
    ),
)

LIBRARIES = (
    Library(
        "transaction",
        "transaction",
        modules=("transaction", "pyramid_tm"),
        # `transaction.get().addAfterCommitHook(hook)`: it runs after COMMIT.
        on_commit_methods=("addAfterCommitHook",),
    ),
)

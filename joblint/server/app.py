"""`joblint server`: joblint as a language server, on pygls over stdio.

- Open, changed (after `debounce-ms` without typing) and saved buffers are
  linted from their text, and their findings published as diagnostics for
  that version only: work for a version the buffer has moved past is
  dropped, and a result never replaces a newer one.
- The workspace's index (a whole run over the workspace, cached in
  `.joblint_cache` as `joblint check` caches it) is built in the background
  on start-up and again when files change on disk. Until it is ready a
  buffer is linted alone (its findings that need no other file); then
  within it, so that pending findings settle against the rest of the
  project and whole-project rules (JL5) see the buffer's text.
- Code actions: a finding's fix (unsafe ones labelled so), a suppression
  comment for its line, and "Fix all joblint findings" (`source.fixAll.joblint`).
- Configuration: the workspace's configuration files, found as the CLI
  finds them, with the editor's settings (`joblint.server.settings`) over
  them.
- Nothing the server is sent ends the session: a buffer that doesn't parse
  gets its JL001 diagnostic, and an internal error is logged
  (`window/logMessage`) with an empty result for that buffer.

All the state lives on the event loop's thread; linting runs on one worker
thread (`joblint.server.linting`), the index on another, with worker
processes of its own. The session is its parts: `client` (what is said to
the editor and asked of it), `workspace` (configuration and index),
`buffers` (the open documents and their diagnostics) and `actions` (code
actions); this module wires them to the protocol and runs the process.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Awaitable, Callable
from typing import BinaryIO

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from joblint import __version__
from joblint.server.actions import FIX_ALL, code_actions
from joblint.server.buffers import Buffers
from joblint.server.client import Client
from joblint.server.workspace import Workspace


class Session:
    """One client's session: its workspace (configuration, index) and its
    open buffers, and what is said to the client about them."""

    def __init__(self, server: LanguageServer) -> None:
        self.client = Client(server)
        # Whenever the configuration or the index changes, every buffer is linted again.
        self.workspace = Workspace(self.client, relint_all=lambda: self.buffers.relint_all())
        self.buffers = Buffers(self.client, self.workspace)
        self.shut_down = False

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        return await code_actions(self.buffers, params)

    def shutdown(self) -> None:
        self.shut_down = True
        self.buffers.shutdown()
        self.workspace.shutdown()


def create_server() -> LanguageServer:
    """The server, its handlers registered. A handler that fails logs the
    error (`Client.internal_error`) and the session goes on."""
    server = LanguageServer("joblint", __version__)
    session = Session(server)

    def guarded(doing: str, work: Callable[[], None]) -> None:
        try:
            work()
        except Exception as exc:
            session.client.internal_error(doing, exc)

    async def guarded_async(doing: str, work: Callable[[], Awaitable[None]]) -> None:
        try:
            await work()
        except Exception as exc:
            session.client.internal_error(doing, exc)

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        guarded("starting", lambda: session.workspace.initialize(params))

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        await guarded_async("starting", session.workspace.initialized)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        guarded("opening a buffer", lambda: session.buffers.opened(params))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        guarded("after a change", lambda: session.buffers.changed(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        guarded("after a save", lambda: session.buffers.saved(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        guarded("closing a buffer", lambda: session.buffers.closed(params.text_document.uri))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        await guarded_async(
            "reading settings", lambda: session.workspace.configuration_changed(params)
        )

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        guarded("after files changed", lambda: session.workspace.files_changed(params))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        try:
            return await session.code_actions(params)
        except Exception as exc:
            session.client.internal_error("making code actions", exc)
            return []

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        session.shutdown()

    @server.feature(types.EXIT)
    def exit_(params: None) -> None:
        _exit(0 if session.shut_down else 1)

    return server


def _protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """The process's standard input and output, for the protocol alone:
    anything else printed (a warning, a worker process's output) goes to
    standard error, and nothing else reads the input (a worker process
    closing `sys.stdin` as it starts would wait for the protocol's reader
    thread, which holds it)."""
    stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, sys.stdin.fileno())
    os.close(nothing)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the process's, never closed
    sys.stdout = sys.stderr
    return stdin, stdout


def _start_workers_cleanly() -> None:
    """Worker processes (the index's) are forked from a server process that
    has loaded the worker code, not from this one: this one has threads
    (the protocol's reader, the linting and indexing threads), whose locks a
    forked child would inherit held."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        multiprocessing.set_start_method("forkserver", force=True)
        multiprocessing.set_forkserver_preload(
            ["joblint.pipeline.schedule.workers", "joblint.pipeline.lint"]
        )


def _exit(status: int) -> None:
    """End the process now: the index may be mid-run, and neither its thread
    nor its worker processes are waited for."""
    for child in multiprocessing.active_children():
        child.terminate()
    sys.stderr.flush()
    os._exit(status)


def serve() -> None:
    """Serve one client over standard input and output, until it exits."""
    stdin, stdout = _protocol_streams()
    _start_workers_cleanly()
    server = create_server()
    try:
        server.start_io(stdin, stdout)
    finally:
        _exit(1)

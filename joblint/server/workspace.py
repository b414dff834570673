"""The workspace a session lints in (`Workspace`): its root, the editor's
settings, the configuration read from them and the workspace's files, and
the index (the last whole run over the workspace, built in the background
on start-up and again when files change on disk). Whenever the
configuration or the index changes, every open buffer is linted again.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from joblint.api import RunResult
from joblint.config import CONFIG_NAMES, Config, ConfigError
from joblint.server import linting
from joblint.server.client import Client, in_thread
from joblint.server.settings import SECTION, ClientSettings, read_settings, workspace_config

CONFIG_FILES = frozenset({"pyproject.toml", *CONFIG_NAMES})
# Files saved together (a branch checked out, a formatter run) are indexed once.
INDEX_DELAY = 0.5  # seconds


class Workspace:
    """The workspace's configuration and index. `relint_all` lints every
    open buffer again (the configuration or the index changed)."""

    def __init__(self, client: Client, relint_all: Callable[[], None]) -> None:
        self.client = client
        self.relint_all = relint_all
        self.root = Path.cwd()  # resolved: the directory the server works in
        self.client_root = self.root  # as the editor names it
        self.settings = ClientSettings()
        self.config = Config(root=self.root)
        self.config_error = ""
        # The last whole run over the workspace (None: not built yet, or
        # built for a configuration since changed).
        self.index: RunResult | None = None
        # Bumped whenever the configuration or the index changes: a result
        # computed before is older than one computed after, for one version.
        self.generation = 0
        self.configured = 0  # bumped whenever the configuration changes
        self.index_pool = ThreadPoolExecutor(1, thread_name_prefix="joblint-index")
        self.index_task: asyncio.Task[None] | None = None
        self.index_wanted = False
        self.index_problems: frozenset[str] = frozenset()

    # --- start-up and configuration ---

    def initialize(self, params: types.InitializeParams) -> None:
        self.client_root = _root(params)
        self.root = self.client_root.resolve()
        if self.root.is_dir():
            # `joblint check` run from the root: paths shown, configured and
            # cached as the CLI's are.
            os.chdir(self.root)
        self.settings = read_settings(params.initialization_options)
        self._log_problems(self.settings)
        self.config = self._load_config(self.config)

    async def initialized(self) -> None:
        if self.client.supports("workspace.configuration"):
            pulled = await self.client.pull_settings(self.root)
            if pulled is not None:
                self.reconfigure(pulled)
        await self.client.register_watchers()
        self.request_index()

    def _load_config(self, previous: Config) -> Config:
        """The workspace's configuration; on an error (a config file being
        edited), the previous one, and the error said once."""
        try:
            config = workspace_config(self.root, self.settings)
        except ConfigError as exc:
            if str(exc) != self.config_error:
                self.config_error = str(exc)
                self.client.show_problem(
                    f"joblint: {exc} (the previous configuration stays in use)"
                )
            return previous
        self.config_error = ""
        return config

    def _log_problems(self, settings: ClientSettings) -> None:
        for problem in settings.problems:
            self.client.log(f"joblint: {problem}", types.MessageType.Warning)

    def reconfigure(self, settings: ClientSettings) -> None:
        """New editor settings, or a configuration file changed on disk."""
        self._log_problems(settings)
        self.settings = settings
        config = self._load_config(self.config)
        if config == self.config:
            return
        self.config = config
        self.configured += 1
        self.generation += 1
        self.index = None  # built for the selection before
        self.relint_all()
        self.request_index()

    async def configuration_changed(self, params: types.DidChangeConfigurationParams) -> None:
        sent = params.settings
        if isinstance(sent, dict) and SECTION in sent:
            self.reconfigure(read_settings(sent))
        elif self.client.supports("workspace.configuration"):
            pulled = await self.client.pull_settings(self.root)
            self.reconfigure(pulled if pulled is not None else self.settings)
        elif sent:
            self.reconfigure(read_settings(sent))

    def files_changed(self, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [to_fs_path(change.uri) for change in params.changes]
        if any(path is not None and Path(path).name in CONFIG_FILES for path in paths):
            self.reconfigure(self.settings)
        self.request_index(INDEX_DELAY)

    # --- the workspace index ---

    def request_index(self, delay: float = 0.0) -> None:
        """Build the index again, once what is building now is done."""
        self.index_wanted = True
        if self.index_task is None or self.index_task.done():
            self.index_task = asyncio.ensure_future(self._build_index(delay))

    async def _build_index(self, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        while self.index_wanted:
            self.index_wanted = False
            configured = self.configured
            token = await self.client.begin_progress()
            started = time.perf_counter()
            build = partial(_build_index, self.config, self.root)
            try:
                index = await in_thread(self.index_pool, build)
            except Exception as exc:
                self.client.end_progress(token, "failed")
                self.client.internal_error("indexing the workspace", exc)
                continue
            elapsed = time.perf_counter() - started
            self.client.end_progress(token, f"{index.files_checked} files")
            if configured != self.configured:
                continue  # reconfigured meanwhile: built again with the new one
            self.index = index
            self.generation += 1
            seconds = f"{elapsed:.1f} s"
            self.client.log(f"joblint: workspace indexed: {index.files_checked} files in {seconds}")
            self._log_index_problems(index)
            self.relint_all()

    def _log_index_problems(self, index: RunResult) -> None:
        """Its errors (an unreadable file, a rule that failed on one) the
        previous index didn't have: each is said once, not after every save."""
        problems = frozenset([*index.errors, *index.internal_errors])
        for problem in sorted(problems - self.index_problems):
            self.client.log(f"joblint: {problem}", types.MessageType.Warning)
        self.index_problems = problems

    def shutdown(self) -> None:
        if self.index_task is not None:
            self.index_task.cancel()


def _root(params: types.InitializeParams) -> Path:
    """The workspace's root: its first folder, else the root the client names,
    else the directory the server was started in (as named, links unresolved)."""
    for uri in [
        *(folder.uri for folder in params.workspace_folders or ()),
        *([params.root_uri] if params.root_uri else []),
    ]:
        path = to_fs_path(uri)
        if path is not None:
            return Path(path).absolute()
    if params.root_path:
        return Path(params.root_path).absolute()
    return Path.cwd()


def _build_index(config: Config, root: Path) -> RunResult:
    """The workspace's index, kept out of the cyclic garbage collector's
    walks: it lives until the next one, and walking its objects made a pause
    of a few hundred milliseconds every few changes (`gc.freeze`; frozen
    objects are still freed once nothing refers to them, and what the last
    index left in cycles is collected here, once per index)."""
    index = linting.build_index(config, root)
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return index

"""Where a run's project and its cache are: the project root (the config
file's directory, else the enclosing git root, else the current directory)
and the result cache's directory below it, unless configured elsewhere."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from joblint.config import Config
from joblint.pipeline.cache import CACHE_DIR_NAME

if TYPE_CHECKING:
    from joblint.pipeline.schedule.options import RunOptions


def cache_directory(config: Config) -> Path:
    if config.cache_dir is not None:
        return config.cache_dir
    return project_root(config) / CACHE_DIR_NAME


def project_root(config: Config) -> Path:
    """The config file's directory, else the enclosing git root, else the cwd."""
    if config.source is not None:
        return config.source.resolve().parent
    here = Path.cwd().resolve()
    for directory in (here, *here.parents):
        # `os.path.exists`: a directory above that the user may not search
        # holds no repository as far as the run can tell (`Path.exists`
        # raises there).
        if os.path.exists(directory / ".git"):
            return directory
    return here


def cache_dir(config: Config, options: RunOptions) -> Path | None:
    """The cache directory of a run that uses the cache (None: it doesn't)."""
    return cache_directory(config) if options.cache else None

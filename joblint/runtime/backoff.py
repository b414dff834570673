"""The old import path of :mod:`joblint_runtime.backoff`, kept for code written against it.

New code imports ``joblint_runtime.backoff``: that name is the ``joblint-runtime``
distribution alone, which production code installs without the linter.
"""

from joblint_runtime.backoff import *  # noqa: F403
from joblint_runtime.backoff import __all__ as __all__

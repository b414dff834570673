"""The old import path of :mod:`joblint_runtime.lock`, kept for code written against it.

New code imports ``joblint_runtime.lock``: that name is the ``joblint-runtime``
distribution alone, which production code installs without the linter.
"""

from joblint_runtime.lock import *  # noqa: F403
from joblint_runtime.lock import __all__ as __all__

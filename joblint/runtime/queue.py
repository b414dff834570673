"""The old import path of :mod:`joblint_runtime.queue`, kept for code written against it.

New code imports ``joblint_runtime.queue``: that name is the ``joblint-runtime``
distribution alone, which production code installs without the linter.
"""

from joblint_runtime.queue import *  # noqa: F403
from joblint_runtime.queue import __all__ as __all__

"""The old import path of :mod:`joblint_runtime.chunked`, kept for code written against it.

New code imports ``joblint_runtime.chunked``: that name is the ``joblint-runtime``
distribution alone, which production code installs without the linter.
"""

from joblint_runtime.chunked import *  # noqa: F403
from joblint_runtime.chunked import __all__ as __all__

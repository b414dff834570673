"""The old import path of :mod:`joblint_runtime.outbox`, kept for code written against it.

New code imports ``joblint_runtime.outbox``: that name is the ``joblint-runtime``
distribution alone, which production code installs without the linter.
"""

from joblint_runtime.outbox import *  # noqa: F403
from joblint_runtime.outbox import __all__ as __all__

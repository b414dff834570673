"""The old import path of :mod:`joblint_runtime.idempotency`, kept for code written against it.

New code imports ``joblint_runtime.idempotency``: that name is the ``joblint-runtime``
distribution alone, which production code installs without the linter.
"""

from joblint_runtime.idempotency import *  # noqa: F403
from joblint_runtime.idempotency import __all__ as __all__

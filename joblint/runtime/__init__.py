"""The old import path of :mod:`joblint_runtime`, kept for code written against it.

The runtime helpers ship as their own distribution, ``joblint-runtime``, whose
import name is ``joblint_runtime``: production code and worker images install
it without the linter. Each ``joblint.runtime.<module>`` re-exports the same
objects as ``joblint_runtime.<module>``, so existing imports keep working; new
code, and every fix joblint writes, imports ``joblint_runtime``.
"""

from joblint_runtime import __all__ as __all__

"""joblint's own runtime helpers, as the code that uses them sees them."""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily

LIBRARIES = (
    Library(
        "joblint_runtime",
        "joblint.runtime",
        modules=("joblint.runtime",),
        transaction_functions=(("joblint.runtime.transaction.atomic", TxFamily.GENERIC),),
        on_commit_functions=("joblint.runtime.transaction.on_commit",),
        on_commit_methods=("on_commit",),
    ),
)

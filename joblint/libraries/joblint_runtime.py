"""joblint's own runtime helpers, as the code that uses them sees them."""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily
from joblint.libraries.job_work import Claims
from joblint.libraries.retry_api import RetryVocabulary

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

# --- retries: the helpers that return jittered delays ----------

FULL_JITTER = "joblint.runtime.backoff.full_jitter"
RETRY_VOCABULARY = (
    RetryVocabulary(
        jitter_helpers=(
            FULL_JITTER,
            "joblint.runtime.backoff.decorrelated_jitter",
            "joblint.runtime.backoff.delays",
            "joblint.runtime.backoff.jittered_intervals",
        ),
    ),
)


# --- idempotency: the guard and its decorator -------------------------------------

CLAIMS = (Claims(guard_modules=("joblint.runtime.idempotency",)),)

"""NumPy, as delay code uses it: random draws and powers."""

from __future__ import annotations

from joblint.libraries.retry_api import RetryVocabulary

RETRY_VOCABULARY = (
    RetryVocabulary(
        random_modules=("numpy.random",),
        power_functions=("numpy.power", "numpy.exp"),
    ),
)

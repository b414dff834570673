"""AnyIO, as retry loops use it: its sleep."""

from __future__ import annotations

from joblint.libraries.retry_api import RetryVocabulary

RETRY_VOCABULARY = (RetryVocabulary(sleeps=(("anyio.sleep", "delay"),)),)

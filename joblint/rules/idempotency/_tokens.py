"""The idempotency family's prefilter vocabulary: the options that run a task again.

A task body's side effect matters where the task may run more than once: a file
giving one of the options that redeliver or retry a task (`acks_late=True`,
`max_retries=`) may make one of its functions such a task.
"""

from __future__ import annotations

from joblint.knowledge import work
from joblint.knowledge.tokens import keyword_given
from joblint.knowledge.trigger import Trigger

# A file giving one of the options that run a task again (`acks_late=True`):
# perhaps to a call making a task of a function it defines
# (`make_task(sync, acks_late=True)`), for the rules about task bodies.
_RERUN_KEYWORDS = sorted({o.keyword.lower() for r in work.RERUNS.values() for o in r.options})
GIVES_RERUN_OPTIONS = Trigger(tuple(_RERUN_KEYWORDS), (keyword_given(*_RERUN_KEYWORDS),))

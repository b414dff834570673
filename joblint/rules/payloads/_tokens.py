"""The payloads family's prefilter vocabulary: an enqueue whose payload may hold an object.

The payload rules read the arguments of every enqueue the shared vocabulary finds
(`joblint.knowledge.tokens.ENQUEUE_TRIGGERS`); each of those triggers asks the
family's AST step (`_screen/payload_check.py`) to confirm it.
"""

from __future__ import annotations

from dataclasses import replace

from joblint.knowledge.tokens import ENQUEUE_TRIGGERS
from joblint.knowledge.trigger import Trigger

# The payload rules read the arguments of an enqueue: a file whose enqueues
# pass only keys and literals is not theirs (confirmed on the AST). A gated
# trigger counts only where the file is linted anyway.
PAYLOAD_TRIGGERS: tuple[Trigger, ...] = tuple(
    t if t.gated else replace(t, confirm="payload-may-hold-object") for t in ENQUEUE_TRIGGERS
)

"""The full example suite of `joblint.rules.transactions.enqueue_option_passed_to_task`
(its class keeps the teaching examples the docs open with)."""

from __future__ import annotations

from joblint.rule import Valid, invalid

VALID = (
    Valid(
        """
import rq
queue = rq.Queue()

def render(doc_id):
    ...

def go(doc):
    queue.enqueue(render, doc.pk, job_timeout=600)
""",
        id="rq-job-timeout",
    ),
)

INVALID = (
    invalid(
        """
import rq
queue = rq.Queue()

def render(doc_id):
    ...

def go(doc):
    queue.enqueue(render, doc.pk, timeout=600)
""",
        (9, 35, "RQ's option is job_timeout="),
        id="rq-timeout",
    ),
)

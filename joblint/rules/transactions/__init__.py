"""Transactions (JL101-JL106): jobs enqueued where the database hasn't committed what they read.

A job enqueued inside a transaction can run before COMMIT, or for a row that is rolled
back. The rules here find an enqueue inside a transaction someone opened (`atomic`, a
session, a request a framework wraps in one, Django's own machinery), before a commit
(JL102), an execution option a call forwards to the task as an argument (JL103), an
on-commit callback in a loop that reads the loop variable late (JL104), an async enqueue
never awaited (JL105) and an enqueue made before the write its job reads (JL106).

What the rules read of a file (transaction scopes, receivers, views) is shared with the
project model and stays in `joblint.analysis`; the payload reading JL106 uses is
`joblint.analysis.payloads`.
"""

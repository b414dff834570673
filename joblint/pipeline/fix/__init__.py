"""Fixes: from a rule's CST replacement to bytes on disk.

`edits` turns a rule's fix into positioned text edits while the tree is at
hand (so fixes cross processes and caches as plain data); `apply` applies
edits, runs the fix loop on a file until it is stable, and writes atomically
(a temporary file given the file's mode bits, renamed over it); `run` is
`joblint check --fix/--diff` over a run's files.
"""

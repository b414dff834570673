"""Fixes: from a rule's CST replacement to bytes on disk.

`edits` turns a rule's fix into positioned text edits while the tree is at
hand (so fixes cross processes and caches as plain data); `apply` applies
edits and runs the fix loop on a file until it is stable; `write` writes a
file only where the user may (judged by its mode bits, never by trying), and
atomically (a temporary file given the file's mode and owner, renamed over
it); `run` is `joblint check --fix/--diff` over a run's files.
"""

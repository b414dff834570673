"""Screening: which rules can fire on a file, decided before LibCST parses it.

The prefilter (`prefilter`) looks for each rule's triggers in the file's
lower-cased bytes; a trigger made of ordinary words asks an AST check to
confirm it (`ast_checks`, and the payload and key checks beside it), which
parses the file with Python's own `ast`. A screening never drops a file a
selected rule could report on (the suite checks this on every rule's
examples), and its verdict is remembered by content hash (`verdicts`).
"""

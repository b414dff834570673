"""Screening: which rules can fire on a file, decided before LibCST parses it.

The prefilter (`prefilter`) looks for each rule's triggers in the file's
lower-cased bytes; a trigger made of ordinary words names an AST step to
confirm it, which parses the file with Python's own `ast` (`ast_checks` runs
the steps the rule families register in their `_screen/` packages, and
`project_check`'s, which any family may name). A screening never drops a file a
selected rule could report on (the suite checks this on every rule's
examples), and its verdict is remembered by content hash (`verdicts`).
"""

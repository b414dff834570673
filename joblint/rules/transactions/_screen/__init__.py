"""The transactions family's AST confirm steps: a file goes to LibCST for JL104 only
when Python's own `ast` shows an on-commit registration in a loop, for JL106 only when
it shows an enqueue followed by a write of a row."""

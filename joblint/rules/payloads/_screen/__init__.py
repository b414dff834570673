"""The payloads family's AST confirm step: a file goes to LibCST for JL201 only when an
enqueue's payload may hold an object, as Python's own `ast` shows."""

"""The retries family's AST confirm steps: a file goes to LibCST for JL301/JL302's
hand-written retry loops only when Python's own `ast` shows a sleep in a loop that
catches an exception."""

"""The locks family's AST confirm steps: a file goes to LibCST for JL401, for JL402/JL404's
cache locks and for JL405 only when Python's own `ast` shows the shape the rule reads."""

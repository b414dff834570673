"""One module per rule, named after the pattern it finds. Discovered by walking
this package (see `joblint.registry`): adding a rule means adding a module,
then `make docs` (its page and `_catalog.py`, the rule metadata that selection
reads without importing the rules)."""

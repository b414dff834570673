"""One module per rule, named after the pattern it finds. Discovered by walking
this package (see `joblint.registry`): adding a rule means adding a module."""

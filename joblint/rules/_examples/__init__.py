"""Each rule's full example suite (one module per rule, named like it): the
rule class keeps its two or three teaching examples, the suites hold the rest."""

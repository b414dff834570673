"""The full example suites of the transactions rules (one module per rule, named like it):
each rule class keeps the two or three teaching examples its docs open with."""

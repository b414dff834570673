"""The rules, one folder per family of bugs, one module per rule.

- `transactions/` JL101-JL106, `payloads/` JL201-JL202, `retries/` JL301-JL303,
  `locks/` JL401-JL405, `visibility/` JL501-JL502, `idempotency/` JL601-JL602,
  `suppressions/` JL002.
- In a family folder, each module whose name has no leading underscore is one rule
  (its class, docs and teaching examples); `_examples/` holds each rule's full example
  suite; `_facts/` what only this family's rules read; `_screen/` its AST confirm steps,
  registered where they are defined (`joblint.knowledge.confirm.confirm_step`).
- A family never imports another family's modules (an import-linter contract): what two
  families share lives in `joblint.analysis`.

`joblint.registry` discovers the rules by walking the family folders: adding a rule
means adding its module (and its `_examples` module) to a folder, then `make docs` (its
page and `_catalog.py`, the rule metadata that selection reads without importing the
rules). CONTRIBUTING.md, "Adding a rule", walks through it.
"""

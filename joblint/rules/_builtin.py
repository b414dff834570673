"""The documentation of JL001, a code the engine reports itself.

JL001 is not a traversal rule: reading and parsing a file is the pipeline's
own work (`joblint.pipeline.source`), and `joblint.registry.BUILTIN_CODES`
makes the code selectable. This class only gives it what every rule has for
readers: a docstring in the rule sections, a summary and examples, for
`joblint rules`, `joblint explain JL001` and docs/rules/JL001.md. Its module
is not a rule module (the leading underscore): no traversal runs it, the
catalogue doesn't list it and the prefilter has no triggers for it.
"""

from __future__ import annotations

from joblint.rule import Rule, Valid, invalid


class UnparseableFile(Rule):
    """
    ## What it does
    Reports a file joblint can't read or parse: a syntax error, bytes that
    don't decode in the file's encoding, an unknown or malformed coding
    declaration, NUL bytes, or code nested too deeply to analyse.

    ## Why is this bad?
    joblint can't check a file it can't parse, so its enqueues, retries and
    locks go unchecked; the finding says so instead of passing the file over
    in silence. The run goes on with the other files.

    ## Example
    ```python
    def checkout(order:
        send_receipt.delay(order.pk)
    ```

    ## Use instead
    ```python
    def checkout(order):
        send_receipt.delay(order.pk)
    ```

    ## Fix safety
    No fix: only the author knows what the code should have said.

    ## Known limits
    - One finding per file, at the first problem Python's parser reports.
    - Reported in test code and migrations too (like every JL0 code).
    - Files excluded from the run (`exclude`, `.gitignore`) are never read.
    """

    CODE = "JL001"
    SUMMARY = "A file that can't be read or parsed (reported, the run goes on)"
    VALID = (
        Valid(
            """
def checkout(order):
    send_receipt.delay(order.pk)
""",
            id="parses",
        ),
    )
    INVALID = (
        invalid(
            """
def checkout(order:
    send_receipt.delay(order.pk)
""",
            (2, 13, "syntax error"),
            id="syntax-error",
        ),
    )


BUILTIN_RULES: tuple[type[Rule], ...] = (UnparseableFile,)

"""JL002: a suppression comment code that suppressed nothing or isn't a code.

Not a traversal rule: it `JUDGES_SUPPRESSIONS`, so the engine calls its
`judge_suppressions` once every finding of the file has been checked against
the file's suppression comments.
"""

from __future__ import annotations

from typing import ClassVar

from joblint.knowledge.trigger import Trigger
from joblint.models import Finding, Span
from joblint.rule import Codes, Rule, Valid, invalid
from joblint.suppressions import CodeMention, Suppressions

CODE = "JL002"


class UnusedSuppression(Rule):
    """
    ## What it does
    Finds codes in `# joblint: ignore[...]`, `# joblint: ignore-file[...]` and
    `# noqa: JL...` comments that suppressed no finding in this run, and codes
    that name no joblint rule (`JL999`, a typo such as `JL10l`, `ALL`).

    ## Why is this bad?
    A suppression outlives the code it was written for: once the enqueue
    moves out of the transaction, the comment stays and silently hides the
    next real finding on that line. A misspelt code never suppressed anything
    and makes readers believe the line was reviewed.

    ## Example
    ```python
    def checkout(order):
        order.save()
        send_receipt.delay(order.pk)  # joblint: ignore[JL101]
    ```

    ## Use instead
    ```python
    def checkout(order):
        order.save()
        send_receipt.delay(order.pk)
    ```

    ## Fix safety
    No automatic fix: `--fix` leaves suppression comments alone. Removing the
    code from the comment (and the comment once it has no codes left) keeps
    the code's behaviour, so it is safe to do by hand.

    ## Known limits
    - A code is reported as unused only when a rule it covers ran on the file:
      a code for a rule that isn't selected (or is turned off for the file by
      `per-file-ignores`) can't be judged and is left alone.
    - Codes covering whole-project rules (JL5) are never reported unused: those
      findings are settled after the per-file pass. Codes covering JL002 itself
      are never reported either.
    - A suppression used by a finding that depends on other files (a task
      defined elsewhere) counts as used even when the whole-project step later
      drops that finding: so does a JL101 suppression on any enqueue in a
      function, which a request handler or a signal may reach from another
      file.
    - In `# noqa: ...` only codes starting with `JL` are checked: the others
      belong to other tools. A blanket `# noqa` is never reported.
    """

    CODE = CODE
    TRIGGERS = (Trigger(("joblint", "noqa")),)  # suppression comments
    SUMMARY = "Suppression comment code that suppressed nothing, or names no rule"
    PREVIEW = True
    JUDGES_SUPPRESSIONS = True
    HELP = "remove the code from the comment (and the comment if nothing is left)"
    # The examples need the rules whose findings the comments suppress.
    EXAMPLE_CODES: ClassVar[frozenset[str]] = frozenset({"JL101"})

    VALID = (
        Valid(
            """
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.delay(order.pk)  # joblint: ignore[JL101]
""",
            id="used",
        ),
        Valid(
            """
from .tasks import send_receipt

def checkout(order):
    send_receipt.delay(order.pk)  # noqa: E501, JL4
""",
            id="other-tools-and-rules-not-run",
        ),
    )
    INVALID = (
        invalid(
            """
from .tasks import send_receipt

for pk in (1, 2, 3):  # a one-off script: no transaction around it
    send_receipt.delay(pk)  # joblint: ignore[JL101]
""",
            (5, 47, "'JL101' suppressed nothing"),
            id="unused",
        ),
        invalid(
            """
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        send_receipt.delay(order.pk)  # noqa: JL101, JL999
""",
            (7, 54, "unknown code 'JL999'"),
            id="unknown-code",
        ),
    )

    @classmethod
    def judge_suppressions(cls, path: str, comments: Suppressions, codes: Codes) -> list[Finding]:
        """The codes of `comments` that suppressed nothing, or name no rule."""
        found = []
        for mention in comments.mentions:
            if mention.kind == "noqa" and not mention.code.startswith("JL"):
                continue
            message = _problem(mention, comments, codes)
            if message is None:
                continue
            span = Span(mention.line, mention.start + 1, mention.line, mention.end + 1)
            if comments.suppresses(CODE, (mention.line,), (mention.line - 1,)):
                continue
            found.append(Finding(CODE, cls.name(), message, path, span, cls.HELP))
        return found


def _problem(
    mention: CodeMention,
    sups: Suppressions,
    codes: Codes,
) -> str | None:
    code = mention.code
    covered = [c for c in codes.known if c.startswith(code)]
    if not code.startswith("JL") or not covered:
        return f"unknown code '{code}' in a suppression comment: no joblint rule has it"
    if mention.key in sups.used or CODE in covered:
        return None
    running = [c for c in covered if c in codes.ran]
    if not running or any(c in codes.project for c in running):
        return None
    return f"suppression code '{code}' suppressed nothing here: remove it"

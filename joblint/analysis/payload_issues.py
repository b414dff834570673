"""What a payload problem is: the live object an enqueue's argument carries.

A `PayloadIssue` names the argument (or the container holding the value) where
the finding is reported, the kind of object, and what the project step must
confirm; `PayloadSite` gathers an enqueue's. The arguments are rendered as a
message shows them (once per node: the rules reach the same one many times).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import libcst as cst

from joblint.analysis.names import dotted_text
from joblint.requirements import Requirement

SELF = "self"
REQUEST = "request"
# A value of unknown type passed where the task uses its parameter as a model
# instance (`UsedAsModel` settles it).
MODEL_PARAMETER = "model-parameter"

_RENDER_LIMIT = 40
_EMPTY_MODULE = cst.Module(body=[])


@dataclass(frozen=True, slots=True)
class PayloadIssue:
    node: cst.BaseExpression  # the offending argument, where the finding is reported
    text: str  # how the argument reads: "order", "Color.RED"
    kind: str  # a kind of knowledge.payloads.OBJECT_KINDS, or SELF, REQUEST
    class_name: str = ""  # "Order"
    requires: tuple[Requirement, ...] = ()
    # The argument itself can be replaced by its key (not a dict holding the
    # value, nor the argument of a helper building the payload).
    fixable: bool = True
    # How the container holding the value reads ("params"), when the argument
    # is a dict or list holding it; `text` is then the value's ("" for a value
    # of a helper's dict).
    holder: str = ""


@dataclass(frozen=True, slots=True)
class PayloadSite:
    call_text: str  # "send_receipt.delay()"
    issues: tuple[PayloadIssue, ...]


# Nodes compare by identity, and a file's classification reaches the same
# argument many times (a name's value from each use, each rule): rendered once.
@functools.lru_cache(maxsize=1024)
def render(node: cst.BaseExpression) -> str:
    text = dotted_text(node) or _EMPTY_MODULE.code_for_node(node)
    text = " ".join(text.split())
    return text if len(text) <= _RENDER_LIMIT else text[: _RENDER_LIMIT - 1] + "…"


def issue_at(issue: PayloadIssue, node: cst.BaseExpression) -> PayloadIssue:
    """The issue reported at `node`, named as `node` reads."""
    if issue.holder:
        return replace(issue, node=node, holder=render(node))
    return replace(issue, node=node, text=render(node))


def held_in(issue: PayloadIssue, node: cst.BaseExpression) -> PayloadIssue:
    """An issue of a value the container `node` holds, reported at `node`."""
    return replace(issue, node=node, holder=render(node), fixable=False)

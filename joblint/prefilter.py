"""A conservative byte-level prefilter: skip files no selected rule can fire on.

LibCST parsing is the dominant cost, and most files of a project contain no
job code at all. Each rule's tokens come from `joblint.knowledge.tokens`
(derived from the library tables); user-configured function names are added.
A rule without tokens disables the prefilter. Facts other files look up by
name (tasks, classes, constants) are loaded on demand later, so skipping a
file never loses a fact a finding depends on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from joblint.knowledge.tokens import PROJECT_FACT_ANCHORS, RULE_ANCHORS, RULE_TOKENS


class Prefilter:
    def __init__(self, codes: Iterable[str], extra_names: Iterable[str], project_facts: bool):
        # (lower-case anchors, precise pattern): a file passes when an anchor is
        # in its lower-cased bytes and the pattern matches.
        self.checks: list[tuple[tuple[bytes, ...], re.Pattern[bytes] | None]] = []
        self.disabled = False
        for code in sorted(codes):
            if code == "JL001":
                continue  # reported for files that can't be read or parsed, whatever else
            if code not in RULE_ANCHORS:
                self.disabled = True  # a rule that declares no tokens: parse everything
                continue
            self._add(RULE_ANCHORS[code], RULE_TOKENS.get(code))
        names = sorted({name.rsplit(".", 1)[-1] for name in extra_names if name})
        if names:
            self._add(tuple(names), None)
        if project_facts:
            self._add(PROJECT_FACT_ANCHORS, None)

    def _add(self, anchors: tuple[str, ...], pattern: str | None) -> None:
        encoded = tuple(a.lower().encode() for a in anchors)
        compiled = re.compile(pattern.encode()) if pattern is not None else None
        if (encoded, compiled) not in self.checks:  # rules sharing tokens: check once
            self.checks.append((encoded, compiled))

    def wants(self, data: bytes) -> bool:
        if self.disabled:
            return True
        lowered = data.lower()
        for anchors, pattern in self.checks:
            if any(anchor in lowered for anchor in anchors) and (
                pattern is None or pattern.search(lowered) is not None
            ):
                return True
        return False

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

from joblint.knowledge.tokens import PROJECT_FACT_TOKENS, RULE_TOKENS


class Prefilter:
    def __init__(self, codes: Iterable[str], extra_names: Iterable[str], project_facts: bool):
        patterns: list[str] = []
        self.disabled = False
        for code in sorted(codes):
            if code == "JL001":
                continue  # reported for files that can't be read or parsed, whatever else
            pattern = RULE_TOKENS.get(code)
            if pattern is None:
                self.disabled = True  # a rule that declares no tokens: parse everything
            else:
                patterns.append(_scoped(pattern))
        names = sorted({name.rsplit(".", 1)[-1] for name in extra_names if name})
        patterns.extend(re.escape(name) for name in names)
        if project_facts:
            patterns.append(_scoped(PROJECT_FACT_TOKENS))
        self.pattern = re.compile("|".join(patterns).encode()) if patterns else None

    def wants(self, data: bytes) -> bool:
        if self.disabled:
            return True
        return self.pattern is not None and self.pattern.search(data) is not None


def _scoped(pattern: str) -> str:
    """Keep a pattern's inline flags local when it joins an alternation."""
    if pattern.startswith("(?i)"):
        return f"(?i:{pattern[4:]})"
    return f"(?:{pattern})"

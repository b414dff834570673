"""What a job does that matters when it runs twice or for hours (JL6),
merged from the library modules' `RERUNS`, `SIDE_EFFECTS`, `CLAIMS` and
`TABLE_READS` (the kinds of `joblint.libraries.job_work`). The index, the
analysis and the rules read these lookups; none spells a library's names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from joblint.libraries import collect
from joblint.libraries.job_work import Claims, RerunOption, Reruns, SideEffect, TableReads

_RERUNS: tuple[Reruns, ...] = collect("RERUNS")
_EFFECTS: tuple[SideEffect, ...] = collect("SIDE_EFFECTS")
_CLAIMS: tuple[Claims, ...] = collect("CLAIMS")
TABLE_READS: tuple[TableReads, ...] = collect("TABLE_READS")

RERUNS: dict[str, Reruns] = {r.library: r for r in _RERUNS}
# Every settings name that redelivers a library's tasks -> the flag it sets.
RERUN_SETTINGS: dict[str, str] = {
    name: r.settings_flag for r in _RERUNS if r.settings_flag for name in r.settings
}

# A side effect by the qualified name of what is called.
EFFECTS: dict[str, SideEffect] = {call: effect for effect in _EFFECTS for call in effect.calls}
# The makers whose `with maker(...) as x:` gives the receiver itself.
ENTERED_MAKERS: frozenset[str] = frozenset(m for e in _EFFECTS for m in e.entered)
# Every keyword some provider drops a repeat by (for the index, which
# records whether a call passes one before it knows the call's provider).
IDEMPOTENCY_KEYWORDS: frozenset[str] = frozenset(
    k for e in _EFFECTS for k in e.idempotency_keywords
)

GUARD_MODULES: tuple[str, ...] = tuple(m for c in _CLAIMS for m in c.guard_modules)
UNIQUE_CREATES: frozenset[str] = frozenset(m for c in _CLAIMS for m in c.unique_creates)
SET_IF_ABSENT: dict[str, str] = {m: k for c in _CLAIMS for m, k in c.set_if_absent}
SQL_CLAIMS: tuple[tuple[str, ...], ...] = tuple(w for c in _CLAIMS for w in c.sql_claims)
KEY_HEADERS: frozenset[str] = frozenset(h for c in _CLAIMS for h in c.headers)


# Words (lower case) a module's text holds wherever one of its functions may
# claim its work: reading claims is skipped in the modules holding none.
CLAIM_WORDS: tuple[str, ...] = tuple(
    sorted(
        {
            *(m.split(".")[0] for m in GUARD_MODULES),
            *UNIQUE_CREATES,
            # `.add(`, or the keyword making a call one (`nx`).
            *(keyword or f".{method}(" for method, keyword in SET_IF_ABSENT.items()),
            # Whatever the whitespace: "on\n conflict".
            *(words[0].split()[-1] for words in SQL_CLAIMS),
            *KEY_HEADERS,
        }
    )
)


def may_claim(lowered: str) -> bool:
    return any(word in lowered for word in CLAIM_WORDS)


# The packages of the guard modules: a module names a guard only where its
# text holds one of them (an import) or where it is part of one.
_GUARD_PACKAGES: frozenset[str] = frozenset(m.split(".")[0] for m in GUARD_MODULES)


def may_name_guard(lowered: str, module: str) -> bool:
    """Whether a name read in the module `module` (its text lower-cased:
    `lowered`) may be a guard's (`is_guard_name`)."""
    return module.split(".")[0] in _GUARD_PACKAGES or any(p in lowered for p in _GUARD_PACKAGES)


def effect_of(qualname: str) -> SideEffect | None:
    return EFFECTS.get(qualname)


def claims_in_text(text: str) -> bool:
    """Whether a string literal's text claims work (`INSERT ... ON CONFLICT
    DO NOTHING`) or names an idempotency header."""
    lowered = " ".join(text.lower().split())
    if lowered in KEY_HEADERS:
        return True
    return any(all(word in lowered for word in words) for words in SQL_CLAIMS)


def is_guard_name(qualname: str) -> bool:
    """A name of the runtime's idempotency guard (or another guard module)."""
    return any(qualname == m or qualname.startswith(f"{m}.") for m in GUARD_MODULES)


def switched_on(option: RerunOption, value: str | None) -> bool:
    """Whether a rerun option set to `value` (its literal text; None when it
    is an expression) makes the task run again."""
    if option.counts:
        return value is not None and value.isdigit() and int(value) > 0
    return value not in option.off


def rerun_options(library: str, options: Mapping[str, str | None]) -> list[str]:
    """The options (as `key=value` text) that make a task of `library` run
    again, from a decorator's keywords (literal text, or None)."""
    reruns = RERUNS.get(library)
    if reruns is None:
        return []
    found = []
    for option in reruns.options:
        if option.keyword in options and switched_on(option, options[option.keyword]):
            value = options[option.keyword]
            found.append(f"{option.keyword}={value}" if value is not None else option.keyword)
    return found


def retries_by_default(library: str, options: Mapping[str, str | None]) -> str:
    """How a message says the library reruns a task its options don't stop; ""."""
    reruns = RERUNS.get(library)
    if reruns is None or not reruns.by_default:
        return ""
    if any(option.keyword in options for option in reruns.default_off):
        return ""  # set: turned off, or said by the option itself
    return reruns.by_default


def reruns_by_options(library: str, options: Mapping[str, str]) -> str:
    """How a message says a task decorator's fixed options (literal text, ""
    for an expression: `DecoratorUse.options`) make its library run a task
    again; "" when they don't."""
    readable = {key: (value or None) for key, value in options.items()}
    found = rerun_options(library, readable)
    return ", ".join(found) or retries_by_default(library, readable)


def reads_only(effect: SideEffect, url_words: Iterable[str], keys: Iterable[str]) -> bool:
    """Whether a call with the effect only reads, by the words its URL is
    built from (lower case) and the keys of the dicts it passes."""
    if any(word in found for found in url_words for word in effect.read_words):
        return True
    return bool(set(keys) & set(effect.read_keys))

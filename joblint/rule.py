"""The rule base class and the VALID/INVALID example types.

A rule is a class in its own module under `joblint.rules`. It declares its
metadata as class attributes, its documentation as the class docstring (fixed
sections, Ruff style), and examples the test suite runs and the docs show.
During the traversal the engine calls its `visit_<Node>`/`leave_<Node>`
methods; it reports CST nodes, and the engine turns them into positioned
findings only for files that have any.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from joblint.knowledge.trigger import Trigger
from joblint.models import UNSAFE, Finding, Place
from joblint.requirements import Requirement

if TYPE_CHECKING:  # annotations only: whole-project rules load without LibCST
    import libcst as cst

    from joblint.analysis.broker_view import BrokerView
    from joblint.analysis.context import FileContext
    from joblint.suppressions import Suppressions

# Sections a rule's docstring must have, in order.
DOC_SECTIONS = (
    "What it does",
    "Why is this bad?",
    "Example",
    "Use instead",
    "Fix safety",
    "Known limits",
)

LineOf = Callable[["cst.CSTNode"], int]


@dataclass(frozen=True, slots=True)
class Codes:
    """The rule codes a file was linted with, every rule code there is, and
    those of the whole-project rules (whose findings come later)."""

    ran: frozenset[str]
    known: tuple[str, ...]
    project: frozenset[str]


Message = str | Callable[[LineOf], str]


@dataclass(frozen=True, slots=True)
class Valid:
    """Code the rule must not report, also when linted with `project`: other
    files of its project (module name with `_` for `.` -> source), for examples
    whose verdict depends on facts another module holds (a model's keys)."""

    code: str
    id: str = ""
    project: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Expected:
    line: int
    column: int
    message: str  # a fragment the message must contain
    # Another file of the example's project ("proj/settings.py"); "" = the example.
    path: str = ""


@dataclass(frozen=True, slots=True)
class Invalid:
    """Code the rule must report, exactly at the expected places."""

    code: str
    expected: tuple[Expected, ...]
    id: str = ""
    # Extra files linted together with `code` (module name -> source), for
    # examples that need the project's task index.
    project: dict[str, str] = field(default_factory=dict)
    # The example after `joblint check --fix --unsafe-fixes` (None: not fixed).
    fixed: str | None = None
    # The example's configuration, as `[tool.joblint]` keys ({} = none).
    config: dict[str, object] = field(default_factory=dict)


def invalid(
    code: str,
    *expected: tuple[int, int, str] | tuple[str, int, int, str],
    id: str = "",
    fixed: str | None = None,
    config: dict[str, object] | None = None,
    **project: str,
) -> Invalid:
    """`expected` items are (line, column, message) in the example, or
    (path, line, column, message) in one of the `project` files; `fixed` is
    the example's code once every fix is applied, with `config` (`[tool.joblint]`
    keys) as the configuration."""
    expectations = tuple(_expected(e) for e in expected)
    return Invalid(code, expectations, id, dict(project), fixed, dict(config or {}))


def _expected(item: tuple[int, int, str] | tuple[str, int, int, str]) -> Expected:
    if len(item) == 4:
        path, line, column, message = item
        return Expected(line, column, message, path)
    line, column, message = item
    return Expected(line, column, message)


@dataclass(frozen=True, slots=True)
class FixSpec:
    """A fix as a rule gives it: CST nodes to replace, each with a new
    node or its code, and `from module import name` imports the result needs.
    The engine turns it into a positioned `joblint.models.Fix`."""

    safety: str  # joblint.models.SAFE or UNSAFE
    message: str
    replacements: tuple[tuple[cst.CSTNode, cst.CSTNode | str], ...]
    imports: tuple[tuple[str, str], ...] = ()
    # Imports the replacements may leave unused: (module, name, alias or "").
    releases: tuple[tuple[str, str, str], ...] = ()


def fix(
    node: cst.CSTNode,
    replacement: cst.CSTNode | str,
    message: str,
    *,
    safety: str = UNSAFE,
    imports: tuple[tuple[str, str], ...] = (),
    releases: tuple[tuple[str, str, str], ...] = (),
) -> FixSpec:
    """Replace `node` by `replacement`, adding `imports` ((module, name), ...);
    `releases`: imports it may leave unused ((module, name, alias or ""), ...)."""
    return FixSpec(safety, message, ((node, replacement),), imports, releases)


@dataclass(slots=True)
class Report:
    node: cst.CSTNode
    message: Message
    statement: cst.CSTNode | None
    requires: tuple[Requirement, ...] = ()
    fix: FixSpec | None = None
    # Other places of the same file the finding involves, and what happens
    # there ("the row is written here"): `Finding.related`.
    related: tuple[tuple[cst.CSTNode, str], ...] = ()


def kebab_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


class Rule:
    CODE: ClassVar[str]
    SUMMARY: ClassVar[str]
    PREVIEW: ClassVar[bool] = False
    # The one-line fix shown under each finding in the full output.
    HELP: ClassVar[str] = ""
    VALID: ClassVar[tuple[Valid, ...]] = ()
    INVALID: ClassVar[tuple[Invalid, ...]] = ()
    # Other codes enabled when the examples run (only this rule's findings count).
    EXAMPLE_CODES: ClassVar[frozenset[str]] = frozenset()
    # What a file must contain for the rule to fire there (any one of them):
    # the prefilter skips the rule, and LibCST the file, where none is. Every
    # rule has some; the generated catalogue carries them to the prefilter.
    TRIGGERS: ClassVar[tuple[Trigger, ...]] = ()
    # The rule judges a file's suppression comments once every other finding
    # has gone through them (`judge_suppressions`); it needs every selected
    # rule to run beside it wherever its triggers are.
    JUDGES_SUPPRESSIONS: ClassVar[bool] = False
    # Known limits several rules share (one bullet each, Markdown "- ..."),
    # written once where the analysis they describe lives.
    SHARED_LIMITS: ClassVar[tuple[str, ...]] = ()
    # Paragraphs several rules share, written once where the analysis they
    # describe lives: a docstring line `<<name>>` stands for the text of `name`.
    SHARED_DOCS: ClassVar[Mapping[str, str]] = {}
    # The project's settings decide some of its findings (a flag, a cache
    # backend, the broker): with it selected, settings files are read for facts.
    READS_SETTINGS: ClassVar[bool] = False
    # Its findings follow calls into the project's other modules (the project
    # model): it also runs on files its triggers miss when the project model
    # says one of their calls inside a transaction leads to an enqueue.
    FOLLOWS_CALLS: ClassVar[bool] = False
    # Codes whose finding at the same place stands instead of this rule's:
    # one finding per call (an enqueue inside a transaction is JL101's, not
    # JL106's, whichever step finds the transaction).
    YIELDS_TO: ClassVar[tuple[str, ...]] = ()
    # Its findings follow the arguments a call passes a project function that
    # hands them on to an enqueue (reported at the caller): it also runs on the
    # files calling such a function that its triggers miss.
    FOLLOWS_ARGUMENTS: ClassVar[bool] = False

    def __init__(self, context: FileContext) -> None:
        self.context = context
        self.reports: list[Report] = []

    @classmethod
    def name(cls) -> str:
        return kebab_case(cls.__name__)

    @classmethod
    def docs(cls) -> str:
        """The docstring's sections, its `<<name>>` lines replaced by the
        `SHARED_DOCS` text of that name, with the `SHARED_LIMITS` bullets at
        the end of its Known limits (its last section)."""
        own = _dedent(cls.__doc__ or "")
        if cls.SHARED_DOCS:
            own = "\n".join(_shared_line(line, cls.SHARED_DOCS) for line in own.split("\n"))
        return "\n".join([own, *cls.SHARED_LIMITS]) if cls.SHARED_LIMITS else own

    @classmethod
    def judge_suppressions(cls, path: str, comments: Suppressions, codes: Codes) -> list[Finding]:
        """Findings about the file's suppression `comments`, for a rule that
        `JUDGES_SUPPRESSIONS`, once every other finding went through them."""
        return []

    def report(
        self,
        node: cst.CSTNode,
        message: Message,
        *,
        requires: tuple[Requirement, ...] = (),
        statement: cst.CSTNode | None = None,
        fix: FixSpec | None = None,
        related: tuple[tuple[cst.CSTNode, str], ...] = (),
    ) -> None:
        where = statement or self.context.statement
        self.reports.append(Report(node, message, where, requires, fix, related))


@dataclass(frozen=True, slots=True)
class ProjectView:
    """What whole-project rules see: merged, evaluated facts (never CST)."""

    brokers: BrokerView
    margin: float


# A whole-project finding and the paths of every place it involves (a run that
# names only some files reports it when one of those paths is named).
ProjectFinding = tuple[Finding, frozenset[str]]


class ProjectRule(Rule):
    """A rule decided from every file's facts at once (JL5): no traversal."""

    @classmethod
    def check(cls, project: ProjectView) -> Iterable[ProjectFinding]:
        raise NotImplementedError

    @classmethod
    def finding(cls, place: Place, message: str, *involved: Place) -> ProjectFinding:
        paths = frozenset({place.path, *(p.path for p in involved)})
        return Finding(cls.CODE, cls.name(), message, place.path, place.span, cls.HELP), paths


def where(place: Place) -> str:
    return f"{place.path}:{place.span.line}"


def _shared_line(line: str, shared: Mapping[str, str]) -> str:
    name = line.strip()
    if name.startswith("<<") and name.endswith(">>"):
        return shared[name[2:-2]]
    return line


def _dedent(text: str) -> str:
    import inspect

    return inspect.cleandoc(text)

"""The stacks a file's traversal keeps, shared by what the file context answers.

One `Frame` per function body (or the module's) holds what is open in it:
transactions, loops, on-commit callbacks, what the function receives or may be
reached by. `ContextState` holds the frames and the per-class stacks beside
the name resolver; the parts of `joblint.analysis.context.FileContext` (names,
transactions, definitions, facts) build on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from joblint.analysis.assignments import Assignments
from joblint.analysis.file_facts import COLLECTORS
from joblint.analysis.names import Resolver
from joblint.analysis.receivers import Receiving
from joblint.analysis.tasks import Enqueue
from joblint.analysis.transactions import ClassHooks, TxScope
from joblint.knowledge.jobs import TxFamily
from joblint.settings import Options


@dataclass(slots=True)
class Frame:
    """One function body (or the module body)."""

    node: cst.FunctionDef | cst.Module
    # Key for module-local indirection: "f", "Class.method", "f.<locals>.g".
    key: str
    transactions: list[TxScope] = field(default_factory=list)
    # Enclosing `for`/`while` statements in this function, outermost first.
    loops: list[cst.CSTNode] = field(default_factory=list)
    on_commit_depth: int = 0
    # The project functions the lambdas we are in are handed to, each with
    # the (position, keyword) it is passed at: one may defer it to COMMIT.
    handed: list[tuple[str, str, str]] = field(default_factory=list)
    class_name: str = ""
    # A function or method whose body runs inside a request's transaction if
    # the project step finds a request handler reaching it (`Reached`).
    reached: TxScope | None = None
    # What a model signal receiver is connected to (None: not a receiver
    # the module connects).
    receiving: Receiving | None = None

    @property
    def loop_depth(self) -> int:
        return len(self.loops)


class ContextState:
    """The traversal's stacks and the file's resolver, as the parts of the file
    context read and update them."""

    def __init__(
        self,
        module: cst.Module,
        module_name: str,
        is_package: bool,
        options: Options,
        may_hold_walrus: bool = True,
        may_connect: bool = True,
    ):
        self.options = options
        # False when the source has no `:=`: no statement needs searching for one.
        self.may_hold_walrus = may_hold_walrus
        # False when the source has no `.connect(`: no signal receiver is connected by a call.
        self.may_connect = may_connect
        # The module's functions a call connects to a model signal, by key,
        # and other modules' functions it connects (for the project step).
        self.receivers: dict[str, Receiving] = {}
        self.connected: list[tuple[str, Receiving, cst.Call]] = []
        self.resolver = Resolver(module_name, is_package)
        self.frames: list[Frame] = [Frame(module, "")]
        self.classes: list[tuple[str, dict[str, tuple[TxFamily, str]]]] = []
        # Per enclosing class, the framework hooks its methods may be.
        self.class_hooks: list[tuple[ClassHooks, ...]] = []
        # Per enclosing class, whether it derives from Django's or DRF's views.
        self.view_classes: list[bool] = []
        # Per enclosing class, whether `method_decorator` makes its views non-atomic.
        self.non_atomic_classes: list[bool] = []
        # The methods each enclosing class defines (innermost last).
        self.class_methods: list[frozenset[str]] = []
        self.blocks: list[int] = [id(module)]
        self.statements: list[cst.CSTNode] = []
        self.order = 0
        self._on_commit_callbacks: set[int] = set()
        self._handed_lambdas: dict[int, tuple[str, str, str]] = {}
        self._assignments: Assignments | None = None
        self._enqueue_cache: dict[int, Enqueue | None] = {}
        # What the project step learns from this file (joblint.analysis.file_facts).
        self.collectors = tuple(make(self.resolver) for make in COLLECTORS)
        self._memo: dict[tuple[str, int], object] = {}

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def _in_function_or_class(self) -> bool:
        return bool(self.frames[-1].key) or len(self.resolver.scopes) > 1

    def _directly_in_class(self) -> bool:
        return bool(self.classes) and self.resolver.scopes[-1].is_class

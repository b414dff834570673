"""What a library module declares about its retry APIs, as data.

Beside `LIBRARIES`, a library module may bind these tuples; each kind is
gathered from every module by `joblint.libraries.collect` and merged by
`joblint.knowledge.retries`:

- `RETRY_CALLS` (`RetryCall`): calls whose arguments set a retry policy
  (`tenacity.retry(...)`, `backoff.on_exception(...)`, `urllib3.Retry(...)`);
- `TASK_RETRIES` (`TaskRetries`): a job library's retry options on its tasks
  (decorator keywords, `Task` class attributes) and a running task's own retry
  method (`self.retry(countdown=...)`);
- `RETRY_SETTINGS` (`RetrySetting`): project settings that set a policy
  (`Q_CLUSTER = {"max_attempts": 0}`);
- `RETRY_VOCABULARY` (`RetryVocabulary`): the functions delays and retry loops
  are written with (sleeps, clocks, random sources, plain arithmetic).

A declaration says *where* each part of a policy is set (which parameter) and
*how* its value reads (a switch, a factor, a schedule, a composition of
strategy objects...). `joblint.rules.retries._facts.retry_policies` interprets the readings
and turns calls into neutral facts; it never spells a library. The words a
finding uses about a library's API (`Says`) are that library's data too,
written with its own names.

Nothing here imports LibCST: the prefilter derives triggers from these tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

# --- the facts' vocabulary ----------


class Growth(Enum):
    """How the wait between attempts changes with the attempt."""

    CONSTANT = "constant"
    # `start + step * attempt`, `delay += 5`.
    ADDITIVE = "additive"
    # Multiplied as the attempts go on: `2 ** n`, `delay *= 2`; a product with
    # the attempt count (`60 * attempt`) is taken the same way.
    EXPONENTIAL = "exponential"
    # A value joblint can't read, or whatever a callback returns.
    UNKNOWN = "unknown"


class Jitter(Enum):
    """Whether the wait has a random part."""

    PRESENT = "present"
    ABSENT = "absent"
    # The random part the library adds by default, switched off.
    OFF = "off"
    # A call joblint can't see into: maybe random.
    UNKNOWN = "unknown"

    @property
    def may_be_random(self) -> bool:
        return self in (Jitter.PRESENT, Jitter.UNKNOWN)


class Bound(Enum):
    """What limits the attempts."""

    ATTEMPTS = "attempts"
    DEADLINE = "deadline"
    # Nothing: the retries go on forever.
    NONE = "none"
    # Something joblint can't read may limit them (`**options`, a stop condition).
    UNKNOWN = "unknown"


class Caught(Enum):
    """Which failures are retried."""

    # A bare `except:`: every exception, named or not.
    EVERYTHING = "everything"
    # `Exception` or `BaseException` among the types.
    BROAD = "broad"
    SPECIFIC = "specific"


class Value(Enum):
    """A literal a parameter's reading looks for."""

    NONE = "None"
    TRUE = "True"
    # A literal that is false: `False`, `None`, `0`.
    FALSY = "falsy"
    # A number literal equal to 0.
    ZERO = "0"


# --- parameters and words ----------


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter: its keyword, its position when it may be passed
    positionally, and for a key inside a dict option, that option's name
    (`retry_kwargs={"max_retries": None}`)."""

    keyword: str
    position: int | None = None
    within: str = ""


@dataclass(frozen=True, slots=True)
class Says:
    """What a finding says about a library's API: the cause in the library's
    terms, and the remedy. `{name}` stands for the name the code calls (a wait
    strategy, a predicate), `{task}` for the task as the code names it."""

    cause: str
    remedy: str


# Every bound joblint proposes, in its messages and its fixes: this many
# attempts in total (the first run included), then the job fails to the
# dead-letter queue. Library modules phrase their advice with it.
REFERENCE_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class AttemptBound:
    """A library's parameter that bounds the attempts, and what it counts."""

    parameter: str
    # True: it counts every run, the first included; False: the retries after the first.
    counts_first_run: bool

    @property
    def reference(self) -> int:
        """The value that gives the reference number of attempts in total."""
        return REFERENCE_ATTEMPTS if self.counts_first_run else REFERENCE_ATTEMPTS - 1

    def advice(self) -> str:
        """`max_retries=4 (5 attempts in total: max_retries counts the retries after the first)`."""
        counts = "every attempt" if self.counts_first_run else "the retries after the first"
        return (
            f"{self.parameter}={self.reference} ({REFERENCE_ATTEMPTS} attempts in total: "
            f"{self.parameter} counts {counts})"
        )


# --- delays: growth and jitter ----------


class Reads(Enum):
    """How a growth parameter's value says whether the wait grows."""

    # A true literal turns exponential growth on (`retry_backoff=True`).
    SWITCH = "switch"
    # A positive number is the factor of an exponential wait (`backoff_factor=0.5`),
    # also through a name assigned once.
    FACTOR = "factor"
    # A list of waits, one per retry (`interval=[10, 30, 60]`, or a comprehension).
    SCHEDULE = "schedule"
    # A wait generator: exponential when it is one of `growing`.
    GENERATOR = "generator"


@dataclass(frozen=True, slots=True)
class GrowthParam:
    param: Param
    reads: Reads
    growing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class JitterParam:
    """The parameter that says whether the library adds a random part."""

    param: Param
    # The value that means no random part.
    off: Value
    # PRESENT: the library jitters unless switched off (then OFF); ABSENT: only
    # when asked (then the off value is its default spelled out).
    default: Jitter


@dataclass(frozen=True, slots=True)
class WaitShape:
    """One wait strategy: how it grows and whether it draws at random."""

    growth: Growth
    jitter: Jitter = Jitter.ABSENT
    # Its random part, switched off by 0 (`wait_exponential_jitter(jitter=0)`).
    switch: Param | None = None


@dataclass(frozen=True, slots=True)
class RandomTwin:
    """A random strategy built from the same arguments as a plain one: the fix
    swaps the name (`wait_exponential` -> `wait_random_exponential`)."""

    name: str
    module: str
    message: str
    # A parameter the twin honours only in later versions, and the message then.
    floor: Param | None = None
    message_with_floor: str = ""


@dataclass(frozen=True, slots=True)
class WaitStrategies:
    """A wait given as strategy objects, summed (`a + b`) or grouped
    (`wait_chain(a, b)`), also through names assigned once."""

    param: Param
    # Calls outside this module are no strategy joblint knows: nothing is read.
    namespace: str
    shapes: Mapping[str, WaitShape]
    # Strategies made of the strategies they are given.
    groups: frozenset[str] = frozenset()
    twins: Mapping[str, RandomTwin] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DelayParams:
    """Where a policy's wait is set and how it reads."""

    growth: GrowthParam | WaitStrategies
    # A growing wait without a random part (where the library jitters by
    # default, that is its jitter switched off).
    says: Says
    # None: the library adds no random part (a strategy may have its own).
    jitter: JitterParam | None = None
    # When a strategy's own random part is switched off, if worded otherwise.
    says_off: Says | None = None
    # The message of the fix that sets a switched-off jitter back to True.
    switch_on: str = ""


# --- bounds ----------


class Positional(Enum):
    """What positional arguments mean for reading the bound."""

    # Other parameters: the bound's are read as declared.
    READ = "read"
    # A sole positional argument is the function wrapped with the defaults;
    # any other positional use is not read.
    WRAPS = "wraps"
    # They may set the bound: nothing is read.
    OPAQUE = "opaque"


@dataclass(frozen=True, slots=True)
class BoundFix:
    """How a fix gives a missing bound: the reference number itself, or a call
    of `call` (imported from `module`) with it as the value of `keyword`
    (added when the call lacks it)."""

    message: str
    call: str = ""
    module: str = ""
    keyword: str = ""


@dataclass(frozen=True, slots=True)
class BoundParams:
    """Where a policy's attempts are bounded and how the values read."""

    # Each parameter and what it bounds by.
    params: tuple[tuple[Param, Bound], ...]
    attempts: AttemptBound
    # No bound (worded for the way it can happen: left out when the default is
    # none, else a value that means none).
    says: Says
    # What leaving every parameter out means.
    default: Bound = Bound.NONE
    # Values that are the same as leaving the parameter out.
    unset: frozenset[Value] = frozenset()
    # Values, and callees, that mean no bound at all.
    unbounded: frozenset[Value] = frozenset()
    never: frozenset[str] = frozenset()
    # A value that means no bound, when worded otherwise than `says`.
    says_set: Says | None = None
    positional: Positional = Positional.READ
    fix: BoundFix | None = None


# --- what is retried ----------


@dataclass(frozen=True, slots=True)
class CatchParam:
    """The exception types the retries are for, given as one argument."""

    param: Param
    # How a finding names the setting (`backoff.on_exception(...)`).
    where: str


@dataclass(frozen=True, slots=True)
class RetryPredicates:
    """Retry conditions given as predicate objects, alternatives joined by `|`."""

    param: Param
    # Predicates that retry on exception types -> their types parameter.
    types: Mapping[str, Param]
    # Predicates that retry when any of their arguments does.
    any_of: frozenset[str] = frozenset()
    where: str = ""


# --- the declarations ----------


@dataclass(frozen=True, slots=True)
class RetryCall:
    """A call whose arguments set a retry policy."""

    callees: tuple[str, ...]
    delay: DelayParams | None = None
    bound: BoundParams | None = None
    catches: CatchParam | RetryPredicates | None = None
    # Callees also used as a bare decorator (`@retry`): the library's defaults.
    bare: tuple[str, ...] = ()
    # With `**kwargs` in the call its explicit arguments are still read (else
    # nothing of the call is; its bound never is).
    reads_past_kwargs: bool = False


class Unresolved(Enum):
    """An `@<x>.<method>(...)` task decorator whose `<x>` joblint can't resolve."""

    # The option names are the library's own: read as its options.
    TRUSTED = "trusted"
    # Read, and the project must confirm `<x>` is the library's (a requirement).
    CONFIRMED = "confirmed"


@dataclass(frozen=True, slots=True)
class RetryMethod:
    """A running task's own retry method (`self.retry(countdown=...)`)."""

    name: str
    # The attributes that reach the retry count from the task (`request.retries`).
    attempt_count: tuple[str, ...]
    # Keywords whose value is the delay, computed by the code.
    delay_keywords: tuple[str, ...]
    # `cause` names the delay ("Retry delay"); `{task}` in the remedy.
    says: Says
    # The delay keyword a fix rewrites into a jittered call (seconds, not a datetime).
    rewritten: str = ""
    # `bind=True` on the decorator: the task is the function's first parameter.
    bind_keyword: str = ""
    bound: BoundParams | None = None
    # How a finding names the call (`{task}.retry(...)`).
    where: str = ""


@dataclass(frozen=True, slots=True)
class TaskRetries:
    """A job library's retries set on its tasks."""

    # Its key in LIBRARIES: task decorators and app objects resolve to it.
    library: str
    # A receiver imported from these is the library's (Unresolved.CONFIRMED).
    modules: tuple[str, ...]
    # Decorator methods whose keywords are the options (`@app.task(...)`).
    decorator_methods: tuple[str, ...]
    unresolved: Unresolved
    # Every task decorator of the library takes the options, not only `decorator_methods`.
    every_decorator: bool = True
    # Task classes whose subclasses set the options as class attributes.
    task_bases: tuple[str, ...] = ()
    # `class SyncTask(app.Task)` on an app object of the library.
    app_task_attribute: str = ""
    delay: DelayParams | None = None
    bounds: tuple[BoundParams, ...] = ()
    catches: CatchParam | None = None
    method: RetryMethod | None = None


@dataclass(frozen=True, slots=True)
class RetrySetting:
    """A module-level dict of project settings that sets a retry policy."""

    setting: str
    bound: BoundParams


@dataclass(frozen=True, slots=True)
class GrowthFunction:
    """A function computing a delay that grows with its arguments, and the
    parameter that switches its randomness on."""

    qualname: str
    jitter: Param
    jitter_default: bool = False


@dataclass(frozen=True, slots=True)
class RetryVocabulary:
    """The functions delays and retry loops are written with, by qualified name."""

    # Calls into these modules draw random numbers.
    random_modules: tuple[str, ...] = ()
    # Helpers that return a jittered delay (or a generator/list of them).
    jitter_helpers: tuple[str, ...] = ()
    growth_functions: tuple[GrowthFunction, ...] = ()
    # Power-like functions: growth when the attempt reaches any argument.
    power_functions: tuple[str, ...] = ()
    # Deterministic helpers a value passes through (`min(cap, 2 ** n)` still grows).
    pure_functions: tuple[str, ...] = ()
    pure_modules: tuple[str, ...] = ()
    # Calls that sleep for their first argument or the keyword given.
    sleeps: tuple[tuple[str, str], ...] = ()
    # Wall-clock readings: compared with a limit, they make a deadline.
    clocks: tuple[str, ...] = ()
    # `for attempt in range(5)`: iterables whose loop variable counts.
    counting_iterables: tuple[str, ...] = ()
    # `for attempt, item in enumerate(...)`: the first target counts.
    enumerating_iterables: tuple[str, ...] = ()
    # Catching or retrying these catches programming errors too.
    broad_exceptions: tuple[str, ...] = ()
    # Calls in an `except Exception:` that show the handler filters what it retries.
    exception_filters: tuple[str, ...] = ()
    # Calls into these modules draw a fresh value (besides the random modules).
    fresh_value_modules: tuple[str, ...] = ()

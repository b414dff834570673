"""What a pending finding asks of the whole project: one small frozen
dataclass per need.

The per-file pass can't see other files (another module's decorator, the
project's settings, the functions a call leads to), so a finding that
depends on them is reported pending, with the requirements that must all
hold for it to stand. The project step (`joblint.pipeline.project`) decides
each by its type: a judge registered for that type, and where the message
names what the project model found (a chain of calls, a helper, a write), a
namer for its placeholder.

Plain data, picklable and JSON-encodable (`joblint.pipeline.cache`), with no
dependency on the rest of joblint: analysis and rules build these, the
project step reads them. Names are what a finding's message may say:
qualified names as the file's imports resolve them, calls as written.
"""

from __future__ import annotations

from dataclasses import dataclass


class Requirement:
    """A fact about the whole project that must hold for a pending finding
    to stand (the base of every requirement type below)."""

    __slots__ = ()


# --- what the project's merged facts tell ---------------------------------------------


@dataclass(frozen=True, slots=True)
class IsTask(Requirement):
    """`task` must be a task known to the project whose library is in
    `libraries` (the per-file pass can't see other files' decorators)."""

    task: str
    libraries: frozenset[str]


@dataclass(frozen=True, slots=True)
class MayBeLibraryObject(Requirement):
    """`name` may be an object of one of `libraries` (a task, or with
    `queue` a queue/broker object): it is not a plain function, a class or
    an instance of a class defined in the project, nor an object of another
    library (any library's, with no `libraries`); and when the project
    doesn't tell its library, that library must be in reach of `module`
    (one of the module prefixes `in_reach` imported there or by a project
    module it imports), unless `in_reach` is empty."""

    name: str
    libraries: frozenset[str] = frozenset()
    module: str = ""
    in_reach: tuple[str, ...] = ()
    queue: bool = False


@dataclass(frozen=True, slots=True)
class ReachesLibrary(Requirement):
    """One of the module `prefixes` is imported by `module` or by a project
    module it imports (a library-specific name needs the library)."""

    module: str
    prefixes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WritableDatabase(Requirement):
    """The Django database `alias` is not one the project's settings or
    routers (those that apply to the finding's file) make read-only: a
    transaction on a replica races no write."""

    alias: str


@dataclass(frozen=True, slots=True)
class FlagOff(Requirement):
    """The project-wide `flag` must not be set (the django-q ORM broker,
    which makes `async_task` transactional)."""

    flag: str


@dataclass(frozen=True, slots=True)
class FlagOn(Requirement):
    """The project-wide `flag` must be set, by settings that apply to the
    finding's file (Django's `ATOMIC_REQUESTS`)."""

    flag: str


@dataclass(frozen=True, slots=True)
class RegisteredView(Requirement):
    """The function or class `view` must be a view some URLconf of the
    project registers (`path("x/", checkout)`, `path("y/", Checkout.as_view())`)."""

    view: str


@dataclass(frozen=True, slots=True)
class IsQueue(Requirement):
    """`name` must be a module-level queue object of one of `libraries`."""

    name: str
    libraries: frozenset[str]


@dataclass(frozen=True, slots=True)
class ClassOfKind(Requirement):
    """The class `name` must have one of `kinds` (`django_model`, `enum`, ...
    from the project's class index)."""

    name: str
    kinds: frozenset[str]


@dataclass(frozen=True, slots=True)
class TaskLacksParameter(Requirement):
    """The task `task`, if the project defines it, must declare none of
    `parameters`."""

    task: str
    parameters: frozenset[str]


@dataclass(frozen=True, slots=True)
class LacksUniqueKey(Requirement):
    """No unique column set of the model class `model` (its own or inherited
    from its bases) may lie within the columns `pinned` (those a query pins
    by equality: then it pins one row)."""

    model: str
    pinned: frozenset[str]


@dataclass(frozen=True, slots=True)
class CacheLockApi(Requirement):
    """The lock API of the Django cache `alias`, as the project's `CACHES`
    setting gives its backend, must be one of `apis` ("" stands for "not
    known")."""

    alias: str
    apis: frozenset[str]


@dataclass(frozen=True, slots=True)
class LockKey(Requirement):
    """The module constant `constant`, a Redis SET NX key, must not be a
    string that names no lock (see `joblint.knowledge.locks`)."""

    constant: str


# --- what the project model (the call graph) tells -------------------------------------


@dataclass(frozen=True, slots=True)
class LeadsToEnqueue(Requirement):
    """The call the finding is at, written `call_text` ("notify.send_receipt"),
    must lead to an enqueue through the project's functions; the message
    names the chain where it says `CHAIN`. With `uncommitted` (JL102), an
    enqueue a function on the way makes after a commit of its own doesn't
    count (its caller's writes are committed by then)."""

    call_text: str
    uncommitted: bool = False


@dataclass(frozen=True, slots=True)
class OpensTransaction(Requirement):
    """The project callable `opener` must open a transaction when called
    (`with it():`, `@it`)."""

    opener: str


@dataclass(frozen=True, slots=True)
class RegistersTask(Requirement):
    """The project name `decorator`, used as a decorator, must register a
    task of one of `libraries` ("" among them: also one whose library the
    project doesn't tell); `called`: it is called with options of its own
    (`@decorator(...)`)."""

    decorator: str
    libraries: frozenset[str]
    called: bool = False


@dataclass(frozen=True, slots=True)
class DecoratorSets(Requirement):
    """The project's task decorator `decorator` must set each of `options`
    (`key=literal`: `bind=True`), itself or through what it is built from."""

    decorator: str
    options: frozenset[str]


@dataclass(frozen=True, slots=True)
class DecoratorReruns(Requirement):
    """The project's task decorator `decorator` (`@decorator(...)` when
    `called`) must fix options that make its library run a task again
    (`autoretry_for=`, `acks_late=True`; Dramatiq's default retries)."""

    decorator: str
    called: bool = False


@dataclass(frozen=True, slots=True)
class PassedATask(Requirement):
    """Some bound task of one of `libraries` must pass itself (its first
    parameter) to the function `helper` at the parameter at `position` (a
    digit string) or named `parameter`; the message names that task where
    it says `CALLER`."""

    helper: str
    libraries: frozenset[str]
    position: str
    parameter: str


@dataclass(frozen=True, slots=True)
class ClaimedByCaller(Requirement):
    """Some caller of the project function `function` must claim the row(s)
    it returns: write them (`ProjectCall.result_use` is `RESULT_WRITTEN`)
    or, with `set_claims` (an ORM flushing what its session holds), set a
    field of them; the message names that caller where it says `CLAIMER`."""

    function: str
    set_claims: bool = False


@dataclass(frozen=True, slots=True)
class RunByJob(Requirement):
    """A task of the project (a function a job library's decorator or the
    project's task decorator registers, or a method of a task class) must
    call the project function `function`, itself or through project
    functions, at most `MAX_HOPS` calls up; the message names the task and
    the calls where it says `JOB_RUNNER`."""

    function: str


@dataclass(frozen=True, slots=True)
class EnqueuesNow(Requirement):
    """`enqueue` is a task's enqueue method (`shop.tasks.send.delay`); it must
    not be deferred to COMMIT by the project's task class the task is built
    on (a `base=` class whose `apply_async` registers it on commit), where
    the project says so."""

    enqueue: str


@dataclass(frozen=True, slots=True)
class RunsNow(Requirement):
    """A callable handed to the project function `function` (at `position`, a
    digit string, or as `keyword`) runs now: the function doesn't defer it
    to COMMIT."""

    function: str
    position: str
    keyword: str


@dataclass(frozen=True, slots=True)
class ReturnsObject(Requirement):
    """The call written `call_text` in the project function `function` (as
    its module's index names it) must call a project function returning a
    value of one of `kinds` (`django_model`, `enum`, ...; `in_dict`: a dict
    holding one), through at most `MAX_HOPS` helpers returning what another
    returns. The message names the helper and where it returns the value
    where it says `RETURNED`."""

    function: str
    call_text: str
    kinds: frozenset[str]
    in_dict: bool = False


@dataclass(frozen=True, slots=True)
class ReturnsArgument(Requirement):
    """The call written `call_text` in the project function `function` must
    call a project function returning a dict that holds its parameter at
    `position` (a digit string, or "") or named `keyword`. The message names
    the helper and where it puts it in the dict where it says `RETURNED`."""

    function: str
    call_text: str
    position: str
    keyword: str


@dataclass(frozen=True, slots=True)
class ReturnsGrowth(Requirement):
    """The call written `call_text` in the project function `function` (as
    its module's index names it) must call a project function every return
    of which grows with its parameter at `position` (or named `keyword`)
    and has no random part (`return 2 ** attempt`): the caller passes the
    attempt count there. With neither, a project function returning a list
    of waits growing with their position (`SCHEDULE` return facts, followed
    through the functions whose result it returns). The message names the
    function and where it returns the delay where it says `RETURNED`."""

    function: str
    call_text: str
    position: str
    keyword: str

    @property
    def schedule(self) -> bool:
        """A list of waits, not a delay growing with an argument."""
        return not self.position and not self.keyword


@dataclass(frozen=True, slots=True)
class RetriesHandedTask(Requirement):
    """The call written `call_text` in the project function `function` (as
    its module's index names it) must call a project function that retries
    the task handed at `task_position` (`FunctionSummary.retries_handed`)."""

    function: str
    call_text: str
    task_position: str


@dataclass(frozen=True, slots=True)
class RetriesWithHandedDelay(Requirement):
    """The call written `call_text` in the project function `function` must
    call a project function that retries the task handed at `task_position`
    with the delay handed at `delay_position` (or as `delay_keyword`), as a
    delay keyword itself or through the dict a project function it hands
    the delay to returns (`FunctionSummary.retry_delays`); the message names
    the helper and its retry where it says `RETURNED`."""

    function: str
    call_text: str
    task_position: str
    delay_position: str
    delay_keyword: str


@dataclass(frozen=True, slots=True)
class HandsToPayload(Requirement):
    """The project function `function` must hand the argument at `position`
    (or as `keyword`) on to the payload of an enqueue, itself or through the
    project functions it passes it to (`ProjectCall.flags`,
    `ProjectCall.held`), at most `MAX_HOPS` deep; the message names the
    enqueue where it says `HANDED`."""

    function: str
    position: str
    keyword: str


@dataclass(frozen=True, slots=True)
class UsedAsModel(Requirement):
    """The task `task` must use the argument an enqueue passes it at
    `position` (or as `keyword`) as a model instance
    (`FunctionSummary.model_uses`); the message names the use where it says
    `USED`."""

    task: str
    position: str
    keyword: str


@dataclass(frozen=True, slots=True)
class WrittenInTransaction(Requirement):
    """The project must write the model class `model` inside a transaction
    somewhere, in one of `ways` (`SAVE`, `DELETE`, `M2M` with the
    many-to-many field `m2m_field`, `CREATE`): a call inside a library's
    transaction (or a framework hook the framework runs in one), or a
    registration with a framework that writes it inside its own transaction
    (Django's admin). The message names one such write where it says
    `WRITTEN`."""

    model: str
    ways: frozenset[str]
    m2m_field: str = ""


@dataclass(frozen=True, slots=True)
class Receives(Requirement):
    """The function `handler` must be connected, by a module other than its
    own, to a model signal the framework sends inside a transaction (always,
    or because the project writes the model in one: as
    `WrittenInTransaction`; `on_create_only`: only a transactional create
    counts for a `post_save`, the enqueue running only when the save created
    the row); the message says which where it says `RECEIVED`."""

    handler: str
    on_create_only: bool = False


@dataclass(frozen=True, slots=True)
class LeadsToEffect(Requirement):
    """The call the finding is at, written `call_text`, must be a side effect
    outside the database (an email, an HTTP POST, a charge:
    `joblint.knowledge.work`) or lead to one through the project's
    functions, none of which claims its work first
    (`FunctionSummary.claims`); the message names the effect and the chain
    where it says `CHAIN`."""

    call_text: str


@dataclass(frozen=True, slots=True)
class Reached(Requirement):
    """The function `function` must be reached, through calls none of which
    is deferred to COMMIT or made inside a transaction the caller's own
    finding covers, from a request handler a framework runs inside the
    request's transaction (`Entry`: Django's `ATOMIC_REQUESTS`, Pyramid's
    `pyramid_tm`), and the job of the project task `task` ("": one whose
    body isn't the project's to read) must be able to depend on what the
    request writes. `is_async`: an async function, reached only from an
    async handler. The message names the handler and the chain where it
    says `REACHED_FROM`."""

    function: str
    task: str = ""
    is_async: bool = False


@dataclass(frozen=True, slots=True)
class JobTouches(Requirement):
    """The task `task`'s body, through the project's calls, must read or
    write one of `models` (those the transaction writes), or not be known:
    a job touching nothing the transaction writes can't see its uncommitted
    rows."""

    task: str
    models: frozenset[str]


@dataclass(frozen=True, slots=True)
class RequestDepends(Requirement):
    """The job of the project task `task` ("": one whose body isn't the
    project's to read), enqueued by the request handler `handler` itself,
    must be able to depend on what the request writes (as `JobTouches`, with
    the classes the handler and everything it calls write; unknown writes or
    an unknown task body keep the finding)."""

    handler: str
    task: str = ""


@dataclass(frozen=True, slots=True)
class RowDepends(Requirement):
    """The job of the task `task`, handed the key of a row at `position` (or
    as `keyword`), must depend on the write that follows the enqueue: the
    write sets `fields` (`ANY_FIELD`: any) and, with `whole_row`, saves the
    whole row. It does unless the task (defined in the project) loads the
    row by that key itself, hands it on nowhere, reads none of those fields
    and writes none the write saves (but fields every save sets itself),
    nor saves the whole row back (`RowUse`)."""

    task: str
    position: str
    keyword: str
    fields: frozenset[str]
    whole_row: bool = False


# The requirements the project model (the call graph over the modules'
# index) settles: a file with a pending finding asking one is indexed too.
MODEL_REQUIREMENTS = (
    LeadsToEnqueue,
    OpensTransaction,
    RegistersTask,
    DecoratorSets,
    PassedATask,
    ClaimedByCaller,
    RunByJob,
    EnqueuesNow,
    RunsNow,
    ReturnsObject,
    ReturnsArgument,
    ReturnsGrowth,
    RetriesHandedTask,
    LeadsToEffect,
    DecoratorReruns,
    JobTouches,
    HandsToPayload,
    UsedAsModel,
    RowDepends,
)

"""What a library module declares about its locks, as data.

The kinds a module may define (each a module-level tuple, gathered from every
library module by `joblint.libraries.collect`; `joblint.knowledge.locks`
merges them into the lookups the lock analysis reads):

- `REDIS_CLIENTS` (`RedisClients`): how code gets a Redis client, and the
  modules whose import puts Redis's commands in reach.
- `CACHE_FRAMEWORKS` (`CacheFramework`): a framework's cache objects and the
  setting that names each cache's backend.
- `CACHE_BACKENDS` (`CacheBackend`): a cache backend class with a `lock()`.
- `KEY_LOCK_COMMANDS` (`KeyLockCommand`): commands that set a key only when it
  is absent (the acquire of a lock on that key).
- `KEY_COMMANDS` (`KeyCommands`): the other commands on a lock's key (its
  release, its read, its expiry, scripts).
- `RESPONSE_CACHES` (`ResponseCache`): a shared cache whose read of a key
  answers with a response object, not the value (the check of a
  check-then-set is then an attribute of the response).
- `LOCK_APIS` (`LockApi`): calls that make a lock object.
- `NON_BLOCKING_ACQUIRES` (`NonBlockingAcquire`): lock methods that return
  instead of waiting when told so.
- `TRY_LOCK_CONTEXTS` (`TryLockContext`): context managers that take a lock
  and, told not to wait, yield whether they got it.
- `TRY_LOCK_SQL_FUNCTIONS` (`str`): SQL functions whose boolean result says
  whether a lock was taken.
- `ERROR_TEST_FUNCTIONS` (`str`, qualified names) and `ERROR_TEST_METHODS`
  (`str`, methods on `self`/`cls`): what tests that an error is raised (a lock
  made there is not taken around work).

Qualified names have `joblint.libraries.base`'s meaning. Nothing here imports
LibCST: the prefilter derives triggers from these tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class LockReceiver(Enum):
    """What the receiver of a lock method must be for the call to be the library's."""

    # The method name is distinctive on any receiver.
    ANY = "any"
    # A Redis client, or a pipeline of one.
    CLIENT = "client"
    # A framework cache object (`cache`, `caches["alias"]`, a name annotated
    # with a cache class).
    CACHE = "cache"


@dataclass(frozen=True, slots=True)
class RedisClients:
    """How code gets a Redis client."""

    # Calls that return a client (sync or asyncio).
    constructors: tuple[str, ...] = ()
    # Classes that, as a parameter or attribute annotation, make the name a client.
    classes: tuple[str, ...] = ()
    # Methods of a client that return a pipeline (a client too, for our
    # purposes, but its command results come from `execute()`).
    pipeline_methods: tuple[str, ...] = ()
    # Module prefixes: a Redis command shape (`set(..., nx=True)`) is Redis's
    # only where one of them is imported by the module or a project module it
    # imports.
    modules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CacheFramework:
    """A framework's cache objects, and how its settings name each cache's backend
    (`CACHES = {"default": {"BACKEND": "..."}}`)."""

    # The cache objects by qualified name; a subscript of one (`caches["x"]`) is
    # the cache of that alias, the object itself the default alias's.
    objects: tuple[str, ...]
    # Classes that, as an annotation, make a name a cache of unknown backend.
    classes: tuple[str, ...]
    settings_name: str
    backend_key: str
    default_alias: str
    # Module prefixes that put its caches' Redis commands in reach.
    modules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LockApi:
    """A call that makes a lock object, and where its expiry goes."""

    # How messages write the call ("redis.lock.Lock(...)", ".lock(...)").
    display: str
    # A function or class, by qualified name ...
    qualname: str = ""
    # ... or a method, on the receiver it needs.
    method: str = ""
    receiver: LockReceiver = LockReceiver.ANY
    expiry_keyword: str = ""
    # Position of the expiry among the positional arguments (None: keyword-only).
    expiry_position: int | None = None
    # The API has no expiry at all: what to do instead, for the message.
    no_expiry_advice: str = ""
    # Its signature is the backend's of the cache it is called on (CACHE_BACKENDS).
    backend_defined: bool = False
    # Who makes the lock, for messages where the call alone doesn't say (a
    # cache's `lock()` is its backend's).
    library: str = ""

    @property
    def has_expiry(self) -> bool:
        return not self.no_expiry_advice


@dataclass(frozen=True, slots=True)
class CacheBackend:
    """A cache backend class a settings module names, and its cache's `lock()`."""

    backend: str
    # The backend's name as a requirement spells it ("django-redis").
    name: str
    lock: LockApi


@dataclass(frozen=True, slots=True)
class KeyLockCommand:
    """A command that sets a key only when it is absent: the acquire of a lock
    on that key (`set(key, token, nx=True)`, `setnx(key, token)`)."""

    method: str
    # The keyword that makes the command conditional when true (`nx=True`);
    # "" when the method alone is conditional.
    flag_keyword: str = ""
    receiver: LockReceiver = LockReceiver.ANY
    # How messages write the receiver ("cache." for `cache.set(...)`).
    receiver_text: str = ""
    # The keywords that give the key an expiry, and the expiry's position.
    expiry_keywords: tuple[str, ...] = ()
    expiry_position: int | None = None
    # Given no expiry, the key takes the store's default timeout.
    default_expires: bool = False
    # The positionals every call gives (the key and the value).
    arguments: int = 2
    # The names of those parameters, in order: a call may pass any of them
    # by keyword (`set(name=key, value=token, nx=True)`).
    parameters: tuple[str, ...] = ()
    # The acquire with an expiry, for messages.
    fix: str = ""
    # The leading positionals that name the key together (a hash's name and
    # field: 2); the first is the key the lock evidence follows, a lock word in
    # any of them names a lock.
    key_arguments: int = 1
    # A key that is no string literal is evidence of a lock. Not for a cache's
    # add(): keeping an existing entry (`cache.add(key, computed)`) is a cache
    # fill as often as a lock.
    any_key_is_evidence: bool = True
    # Its lock can be released with a token check (a script on the same
    # store): a plain delete of it is then unsafe (JL403). A cache has none.
    compare_and_delete: bool = True

    @property
    def takes_expiry(self) -> bool:
        return bool(self.expiry_keywords) or self.expiry_position is not None

    @property
    def display(self) -> str:
        """How messages write the command: `set(..., nx=True)`, `setnx()`."""
        if self.flag_keyword:
            return f"{self.method}(..., {self.flag_keyword}=True)"
        return f"{self.method}()"


@dataclass(frozen=True, slots=True)
class KeyCommands:
    """The commands on a lock's key besides its acquire."""

    # Deleting the key (the release).
    delete_methods: tuple[str, ...] = ()
    # Reading its value (the read-then-compare release).
    get_methods: tuple[str, ...] = ()
    # Expiring it after the acquire (the acquire-then-expire of a lock).
    expire_methods: tuple[str, ...] = ()
    # Running a script on keys among the arguments (a Lua release), or
    # deleting on a condition.
    script_methods: tuple[str, ...] = ()
    # Deleting a field of the hash named by the first argument (`hdel(name, field)`).
    field_delete_methods: tuple[str, ...] = ()
    # Whether the key is present (`exists(key)`), the check of a check-then-set.
    exists_methods: tuple[str, ...] = ()
    # Setting its value whatever it holds (`set(key, value)`): the set of a
    # check-then-set; those taking the expiry before the value (`setex(key,
    # ttl, value)`).
    set_methods: tuple[str, ...] = ()
    timed_set_methods: tuple[str, ...] = ()
    # Counting on its value (`incr(key)`): a key set if absent and then
    # counted is a counter's seed, not a lock.
    count_methods: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResponseCache:
    """A cache shared by the workers whose read of a key answers with a
    response object rather than the value: the key is present when the
    response's `found_attribute` is true (`cache.lookup(key).found`). Its
    other commands on the key (set, delete) are `KeyCommands`."""

    # The class or object the methods are called on, by qualified name.
    stores: tuple[str, ...]
    # Reads of one key (its first argument) that answer with a response.
    lookup_methods: tuple[str, ...]
    found_attribute: str
    # The store has no set-if-absent of its own: whose one-step acquire
    # takes a lock on the same keys (the cache it fronts).
    atomic_receiver: LockReceiver = LockReceiver.ANY


@dataclass(frozen=True, slots=True)
class NonBlockingAcquire:
    """`acquire(blocking=False)`: returns False instead of waiting for the lock."""

    method: str
    keyword: str


@dataclass(frozen=True, slots=True)
class TryLockContext:
    """A context manager that takes a lock and yields whether it got it
    (`with advisory_lock(key, wait=False) as acquired:`): told not to wait (a
    literal false `keyword`, or at `position`), its block runs either way."""

    qualname: str
    keyword: str
    position: int | None = None

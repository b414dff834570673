"""JL402 lock-without-expiry.

Redis lock without an expiry: a crashed worker holds it forever.

The rule, its documentation (the class docstring, which `make docs` and
`joblint explain JL402` show) and its teaching examples."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.rewrite import with_keyword
from joblint.knowledge import locks
from joblint.knowledge.tokens import CACHES_SETTING, Trigger, tails, tops
from joblint.requirements import Requirement
from joblint.rule import FixSpec, Rule, Valid, fix, invalid
from joblint.rules.locks._facts.lock_calls import KeyLock, MadeLock, key_lock, made_locks
from joblint.rules.locks._facts.lock_evidence import expects_error, lock_evidence
from joblint.rules.locks._facts.redis_clients import positional
from joblint.rules.locks._tokens import CACHE_MODULES, NX, REDIS_CLIENTS, modules_of

# Lock methods that need a Redis client or a cache receiver, and those whose
# name is distinctive on any receiver.
_RECEIVER_METHODS = sorted(
    method
    for method, apis in locks.LOCK_METHODS.items()
    if all(api.receiver is not locks.LockReceiver.ANY for api in apis)
)
_OWN_METHODS = sorted(set(locks.LOCK_METHODS) - set(_RECEIVER_METHODS))

_TRIGGERS: tuple[Trigger, ...] = (
    Trigger(("nx",), (NX,)),
    Trigger(tuple(sorted(locks.SETNX_METHODS))),
    # A cache's `add(...)`: a file naming a cache's module, where the AST
    # shows an `add(` on what may be a cache object (not a set's).
    Trigger(
        tuple(f".{m}(" for m in sorted(locks.RECEIVER_SETNX_METHODS)),
        (CACHE_MODULES,),
        confirm="cache-add-call",
        also=(("cache",),),  # every cache module's name holds the word
    ),
    # `.lock(name)`: on a Redis client or a cache.
    Trigger(tuple(f".{m}(" for m in _RECEIVER_METHODS), (REDIS_CLIENTS,)),
    Trigger(tuple(f".{m}(" for m in _OWN_METHODS)),
    # Lock constructors and functions: the module they come from, and their name.
    Trigger(
        tuple(sorted(tops(locks.LOCK_CONSTRUCTORS))),
        (modules_of(locks.LOCK_CONSTRUCTORS),),
        also=(tuple(sorted(tails(locks.LOCK_CONSTRUCTORS))),),
    ),
    CACHES_SETTING,
)


class LockWithoutExpiry(Rule):
    """
    ## What it does
    Finds Redis locks that never expire: `set(key, value, nx=True)` with none
    of `ex`, `px`, `exat`, `pxat`; `setnx(...)` and `hsetnx(...)`; redis-py
    `r.lock(name)` and `redis.lock.Lock(client, name)` without `timeout=`;
    a Django cache used as a lock, `cache.add(key, value, timeout=None)`
    (and `aadd`); a Django cache's `cache.lock(name)` without its backend's
    expiry (`timeout=` for django-redis, `expire=` for python-redis-lock's
    `redis_lock.django_cache.RedisCache`); python-redis-lock
    `redis_lock.Lock(conn, name)` without `expire=`; Huey `lock_task(...)`,
    which has no expiry at all. The asyncio clients (`redis.asyncio`,
    aioredis 2: `await r.set(...)`, `r.lock(...)`, `aioredis.lock.Lock`)
    are read exactly as redis-py. The key and the value may be given by
    keyword, in any order (`set(name=key, value=token, nx=True)`,
    `cache.add(key=key, value=token, timeout=None)`).

    A `set(..., nx=True)`, `setnx(...)`, `hsetnx(...)` or `cache.add(...)`
    counts as a lock only with evidence of one: its key is not a string
    literal, or names a lock (`lock`, `mutex`, `singleton`, `running`,
    `leader`...), or the same key is deleted or expired later in the
    function, or the result gates the work (`if r.set(...)`, `if not
    r.set(...): return`, assigned and then tested, or returned). A
    literal-key `SET NX` without any of these is a plain Redis command: a
    counter seeded once, a marker a test sets up.

    ## Why is this bad?
    A worker that dies while holding the lock (OOM kill, deploy, lost
    connection) never releases it. Every later run of the job sees the lock
    taken and skips or waits forever: the scheduled job silently stops until
    someone deletes the key by hand. `SETNX` followed by `EXPIRE` has the same
    hole between the two commands.

    ## Example
    ```python
    def nightly_report(r):
        if not r.set("lock:nightly-report", token, nx=True):
            return
        build_report()
    ```

    ## Use instead
    ```python
    def nightly_report(r):
        if not r.set("lock:nightly-report", token, nx=True, ex=15 * 60):
            return
        build_report()
    ```
    or `joblint_runtime.lock.RedisLock(r, "nightly-report", ttl=15 * 60)`,
    which also releases with a token check. Each library names the expiry
    its own way: `ex=`/`px=` for redis-py `set`, `timeout=` for redis-py
    `lock()`/`redis.lock.Lock` and django-redis `cache.lock`, `expire=` for
    python-redis-lock `redis_lock.Lock` and its Django cache backend (with
    `auto_renewal=True` for long jobs). Huey's `lock_task` can't expire: pair
    it with a task `timeout=` and start the consumer with `flush_locks`.

    ## Options
    `default-lock-timeout` (seconds, a positive integer; unset by default):
    the expiry JL402's fix adds.
    ```toml
    [tool.joblint.rules.JL402]
    default-lock-timeout = 60   # seconds; unset: no fix
    ```

    ## Fix safety
    No automatic fix by default: the expiry must exceed the longest run of
    the protected work (or be renewed), otherwise two workers run it at once,
    and only a human knows that number.

    With the option `default-lock-timeout` set (seconds, see Options), an unsafe
    fix (`--fix --unsafe-fixes`) gives a lock object made without an expiry
    that one: redis-py `.lock(name)` and `redis.lock.Lock(client, name)` get
    `timeout=<n>` (replacing `timeout=None`), python-redis-lock
    `redis_lock.Lock(conn, name)` gets `expire=<n>`, and a Django cache's
    `cache.lock(name)` gets its backend's keyword: `timeout=<n>` with
    django-redis, `expire=<n>` with python-redis-lock's backend. The wrong
    keyword raises `TypeError`, so a cache lock whose backend the project's
    settings don't name gets no fix. A lock whose expiry slot holds a
    positional `None` gets no fix, and neither do `set(..., nx=True)`,
    `setnx()` and Huey's `lock_task`. Unsafe because the lock now expires:
    work running longer than `<n>` seconds loses it to another worker.

    ## Known limits
    - A call of a class or function the module itself defines is never taken
      for the library's: a library's own module constructing its own API
      class (`return RetryStrategy()` beside `class RetryStrategy`) is its
      internals, not a use of its API.
    - `.set(..., nx=True)` and `.setnx(...)` are Redis's only where a Redis
      client is in reach: the receiver is a known client, or the module (or a
      project module it imports, up to three imports away) imports `redis`,
      `django_redis`, `django.core.cache` or another Redis client library. A
      project's own store with a `set(..., nx=...)` method is not reported.
      On a Django cache (django-redis) `set(..., nx=True)` uses the cache's
      default timeout, so only an explicit `timeout=None` is reported.
    - Lock evidence is read from the source: keys are compared by their text
      (`key`, `self.key`), lock words are matched on the words of the key's
      text (split at punctuation and camelCase, so `blocklist` is no lock),
      and a module constant used as the key is read from the module that
      defines it, in this project. A result that is only asserted
      (`assert r.set(...)`, `self.assertTrue(...)`) is a test of SET NX
      itself: a literal key that names no lock is then no lock even when a
      delete follows (the test's clean-up). A result passed on to another
      function (`allowed = r.set(...); scan(allowed)`) gates nothing here.
    - Calls in a `with pytest.raises(...)` / `with self.assertRaises(...)`
      block, or in the arguments of such a call, test an error: not reported.
    - `.lock(name)` is only reported on a receiver known to be a Redis client
      (a name or `self.X` assigned once from `redis.Redis(...)`,
      `Redis.from_url(...)`, `redis.asyncio.from_url(...)`,
      `get_redis_connection()`, a `.pipeline()` of one, or a parameter
      annotated with a client class) or a Django cache (`cache`,
      `caches["alias"]`, or a name annotated with a cache backend class).
    - A Django cache's backend is the `BACKEND` of its alias in a module-level
      `CACHES = {...}` dict of the project; settings in test packages don't
      count, and when the settings disagree (or can't be read) the backend is
      unknown: the message names each backend's keyword, and with an
      argument in the expiry slot of one of them (`cache.lock(name, 30)`:
      python-redis-lock's `expire`) nothing is reported.
    - `**kwargs` (or `*args`) that may carry the expiry makes the call unknown:
      not reported. `ex=None` is no expiry.
    - `cache.add(key, value)` without a timeout keeps the cache's default
      expiry: not reported; only `timeout=None` (or a positional `None`) is.
      A key that is no literal is not evidence enough for a cache's `add`
      (keeping an existing entry is a cache fill as often as a lock): it
      needs a lock word, a delete of the key later, or a result that gates.
    - `hsetnx(name, field, value)`: the hash's name is the key the evidence
      follows (a delete of it, or `hdel(name, ...)`, releases it); a lock word
      in the field counts too. aioredis 1's `set(..., exist=...)` is not read.
    """

    CODE = "JL402"
    TRIGGERS = _TRIGGERS
    READS_SETTINGS = True  # the Django cache's backend (CACHES)
    SUMMARY = "Redis lock without an expiry: a crashed worker holds it forever"
    HELP = (
        "Give the lock a TTL with the keyword of its API (ex=/px= for set(), timeout= for "
        "redis-py and django-redis locks and a Django cache's add(), expire= for "
        "python-redis-lock) or use joblint_runtime.lock.RedisLock"
    )

    VALID = (
        Valid(
            """
import redis

r = redis.Redis()

def run(token):
    if r.set("lock:report", token, nx=True, ex=900):
        pass
    if r.set("lock:report", token, 900, nx=True):
        pass
    if r.set("lock:report", token, nx=True, px=900_000):
        pass
""",
            id="set-nx-with-expiry",
        ),
        Valid(
            """
import redis

r = redis.Redis.from_url("redis://localhost")

def run(token, options):
    if r.set("lock:report", token, nx=True, **options):
        pass
    with r.lock("report", timeout=60):
        pass
    with r.lock("report", 60):
        pass
    with r.lock("report", **options):
        pass
""",
            id="kwargs-unknown-and-lock-timeout",
        ),
    )

    INVALID = (
        invalid(
            """
import redis

r = redis.Redis()

def run(token):
    if not r.set("lock:report", token, nx=True):
        return
    if not r.set("lock:other", token, nx=True, ex=None):
        return
""",
            (7, 12, "never expires"),
            (9, 12, "set(key, token, nx=True, ex=...)"),
            id="set-nx-without-expiry",
        ),
        invalid(
            """
from redis import Redis

def run(r: Redis):
    if r.setnx("lock:report", 1):
        r.expire("lock:report", 60)
""",
            (5, 8, "setnx"),
            id="setnx",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        acquire = key_lock(node, self.context)
        if acquire is not None:
            self._check_key_lock(acquire)
            return
        for made in made_locks(node, self.context):
            self._check_made_lock(made)

    def _check_key_lock(self, acquire: KeyLock) -> None:
        """A key lock that never expires, if the key is a lock's."""
        if not acquire.never_expires:
            return
        evidence = lock_evidence(
            acquire.call, self.context, result_read=True, command=acquire.command
        )
        if evidence.is_lock:
            self._report_lock(acquire.call, _key_lock_message(acquire), requires=evidence.requires)

    def _check_made_lock(self, made: MadeLock) -> None:
        api = made.api
        if not api.has_expiry:
            self._report_lock(
                made.call,
                f"{api.display} has no expiry: a killed worker leaves the lock behind. "
                f"{api.no_expiry_advice}, or use {locks.RUNTIME_LOCK}",
            )
            return
        if not made.never_expires:
            return
        if api.backend_defined:
            # The keyword is the backend's, which the settings don't say: no fix
            # (the wrong keyword raises TypeError).
            self._report_lock(made.call, _backend_unknown_message(api), requires=made.requires)
            return
        self._report_lock(
            made.call,
            _made_lock_message(api),
            requires=made.requires,
            fix=self._expiry_fix(made.call, api),
        )

    def _report_lock(
        self,
        node: cst.Call,
        message: str,
        *,
        requires: tuple[Requirement, ...] = (),
        fix: FixSpec | None = None,
    ) -> None:
        """Report a lock, unless the call is a test that an error is raised."""
        if not expects_error(node, self.context):
            self.report(node, message, requires=requires, fix=fix)

    def _expiry_fix(self, node: cst.Call, api: locks.LockApi) -> FixSpec | None:
        """`<the API's expiry keyword>=<default-lock-timeout>`, only when the
        option is set: the number must come from a human."""
        seconds = self.context.options.rule_option(self.CODE, locks.DEFAULT_TIMEOUT_OPTION)
        if not isinstance(seconds, int) or isinstance(seconds, bool):
            return None
        position = api.expiry_position
        if position is not None and len(positional(node)) > position:
            return None  # a positional `None` holds the slot: a keyword would clash
        name = api.expiry_keyword
        new = with_keyword(node, name, cst.Integer(str(seconds)))
        message = (
            f"Add {name}={seconds} (default-lock-timeout): the lock expires after {seconds} s "
            "even if the work still runs"
        )
        return fix(node, new, message)


def _key_lock_message(acquire: KeyLock) -> str:
    command = acquire.command
    instead = f"use {command.receiver_text}{command.fix} or {locks.RUNTIME_LOCK}"
    if not command.takes_expiry:
        return (
            f"{command.display} sets a lock key that never expires (a later expire() isn't "
            f"atomic with it): a crashed worker holds the lock forever; {instead}"
        )
    keywords = "/".join(command.expiry_keywords)
    if command.default_expires:
        # Only an explicit None never expires: name it in the call.
        flag = f", {command.flag_keyword}=True" if command.flag_keyword else ""
        call = f"{command.method}(..., {keywords}=None{flag})"
        return (
            f"{command.receiver_text}{call} never expires: a crashed worker holds the lock "
            f"forever; {instead}"
        )
    return (
        f"{command.receiver_text}{command.display} without {keywords}: the lock key never "
        f"expires and a crashed worker holds it forever; {instead}"
    )


def _made_lock_message(api: locks.LockApi) -> str:
    keyword = api.expiry_keyword
    # Where the call alone doesn't say whose lock it is (a cache's), the message does.
    whose = f" ({api.library} takes {keyword}=)" if api.library else ""
    return (
        f"{api.display} without {keyword}= never expires{whose}: a crashed worker holds the "
        f"lock forever; pass {keyword}= or use {locks.RUNTIME_LOCK}"
    )


def _backend_unknown_message(api: locks.LockApi) -> str:
    """A cache's lock whose backend the settings don't name: each backend's keyword."""
    keywords = ", ".join(
        f"{lock.expiry_keyword}= for {lock.library}" for lock in locks.CACHE_LOCK_APIS.values()
    )
    setting = f"the {locks.CACHE_BACKEND_KEY} in {locks.CACHES_SETTING}"
    return (
        f"{api.display} without an expiry never expires: a crashed worker holds the lock "
        f"forever. The keyword is the cache backend's ({setting}): {keywords}; or use "
        f"{locks.RUNTIME_LOCK}"
    )

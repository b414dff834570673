"""What a job does that matters when it runs more than once or for hours,
as data the library modules declare (JL6):

- `Reruns` (`RERUNS`): when a job library runs a task again, by its options,
  its defaults, a retry its body asks for, or a project-wide setting;
- `SideEffect` (`SIDE_EFFECTS`): calls whose effect outside the database a
  ROLLBACK or a retry doesn't undo (an email, an HTTP POST or PUT, a charge), and
  the arguments that make the provider drop a repeat;
- `Claims` (`CLAIMS`): what claims the work before doing it, so a repeat
  delivery does nothing (an idempotency guard);
- `TableReads` (`TABLE_READS`): an ORM's reads of every row of a table, and
  what bounds them.

Qualified names have the meaning `joblint.libraries.base` gives them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RerunOption:
    """A task option that makes the library run the task again: set to
    anything but one of `off` (literal values as written: "False", "0")."""

    keyword: str
    off: frozenset[str] = frozenset({"None", "False", "0", "()", "[]"})
    # The value must be a positive literal number (Huey `retries=2`): a name
    # or an expression says nothing.
    counts: bool = False


@dataclass(frozen=True, slots=True)
class Reruns:
    """When a job library runs one of its tasks more than once."""

    library: str
    options: tuple[RerunOption, ...] = ()
    # It retries every task unless `default_off` turns it off (Dramatiq
    # retries a failed actor 20 times by default; `max_retries=0` stops it).
    by_default: str = ""  # how a message says so; "" = it doesn't
    default_off: tuple[RerunOption, ...] = ()
    # A bound task asking to run again (`self.retry(...)`): the method, and
    # the option binding the task to its first parameter (`bind=True`).
    retry_method: str = ""
    bind_keyword: str = ""
    # Project settings that, set to True, redeliver every task of the project
    # (Celery `task_acks_late`: a task whose worker dies is delivered again),
    # and the flag the project step knows them by.
    settings: tuple[str, ...] = ()
    settings_flag: str = ""


@dataclass(frozen=True, slots=True)
class SideEffect:
    """Calls with an effect outside the database that a repeat does again.

    `calls` are qualified names of what is called: functions
    (`django.core.mail.send_mail`), or `<maker>.<method>` where `<maker>`
    makes the receiver (a class, or a factory like `boto3.client`):
    `django.core.mail.EmailMessage.send`, `boto3.client.send_email`."""

    what: str  # "sends an email"
    calls: tuple[str, ...]
    # Keywords with which the provider drops a repeated call (Stripe's
    # `idempotency_key`, SNS FIFO `MessageDeduplicationId`).
    idempotency_keywords: tuple[str, ...] = ()
    # The makers whose `with maker(...) as x:` binds `x` to the receiver
    # (their `__enter__` returns the object itself).
    entered: tuple[str, ...] = ()
    # Where the fix points: the provider's own parameter, said in a message.
    remedy: str = ""
    # Words (lower case) in the call's first argument (its URL: the names
    # and strings it is built from) or in the keys of a dict argument that
    # make the call a read: an OAuth token request, a search endpoint.
    read_words: tuple[str, ...] = ()
    read_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Claims:
    """What claims a job's work before it is done (an idempotency guard)."""

    # Any use of these modules' names (`joblint_runtime.idempotency`).
    guard_modules: tuple[str, ...] = ()
    # Methods whose `(row, created)` result, unpacked, claims a unique row
    # (`Order.objects.get_or_create(...)`).
    unique_creates: tuple[str, ...] = ()
    # Set-if-absent calls of a cache or store: (method, the keyword that makes
    # it one, or "" when the method is one itself: Django cache `add`).
    set_if_absent: tuple[tuple[str, str], ...] = ()
    # Lower-cased words a string literal holds together to claim in SQL
    # (`INSERT ... ON CONFLICT DO NOTHING`) or to carry a key (a header).
    sql_claims: tuple[tuple[str, ...], ...] = ()
    headers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TableReads:
    """An ORM's (or a database API's) reads of every row of a table, for JL602.

    A read keeps every row when it starts at a model's default manager or a
    query of a model and goes on only through `keep_rows` methods (a filter,
    a slice, a `limit`, a `get`, any method not named here bounds it)."""

    library: str
    # `Model.<manager>`: the attributes holding a model's default manager
    # (Django `objects`) or query (Flask-SQLAlchemy `query`).
    managers: tuple[str, ...] = ()
    # Queryset or query methods that keep every row (`all`, `order_by`, `iterator`).
    keep_rows: tuple[str, ...] = ()
    # Session methods starting a query of a model (`session.query(User)`).
    query_methods: tuple[str, ...] = ()
    # Functions building a statement over a model (qualified: `sqlalchemy.select`).
    statement_functions: tuple[str, ...] = ()
    # Session methods running a statement (`session.scalars(stmt)`).
    execute_methods: tuple[str, ...] = ()
    # Result methods fetching every row (`all`, `scalars`, `fetchall`).
    fetch_all: tuple[str, ...] = ()
    # The class kind a model's class has in the project's class index.
    model_kind: str = ""
    # Import prefixes: the session shapes are the library's only where it is in reach.
    modules: tuple[str, ...] = ()
    # Functions returning a model class (qualified: `get_user_model`).
    model_functions: tuple[str, ...] = ()
    # (earlier, later): `later` after `earlier` in one chain groups the rows
    # (`values("country").annotate(n=Count("id"))`: a row per country).
    groupings: tuple[tuple[str, str], ...] = ()
    # Methods running SQL text whose rows are read afterwards from the
    # receiver (`cursor.execute("SELECT ...")`, then `fetch_all` or iteration).
    sql_methods: tuple[str, ...] = ()
    # Lower-cased prefixes of the tables a database keeps about itself
    # (`pg_`, `information_schema`): small catalogues, not a table of the project.
    system_tables: tuple[str, ...] = ()


# --- HTTP, whatever the client library ----------------------------------------------

# A POST creates; PUT and PATCH write too. HTTP calls a PUT idempotent (RFC
# 9110, 9.2.2), but that is a promise of the service, and many services break
# it: a PUT appending to a list, a PATCH with a JSON Patch `add` (RFC 6902)
# or one incrementing a counter. DELETE and GET are not counted.
HTTP_CREATES = ("post",)
HTTP_UPDATES = ("put", "patch")


def http_writes(modules: tuple[str, ...], clients: tuple[str, ...]) -> tuple[SideEffect, ...]:
    """An HTTP client library's writes: its module functions (`requests.post`,
    `httpx.patch`) and its clients' methods (`requests.Session().put`, also
    `with ... as`)."""
    return (
        SideEffect(
            "sends an HTTP POST",
            calls=_http_calls(modules, clients, HTTP_CREATES),
            entered=clients,
            remedy=_HTTP_REMEDY,
            # POSTs that only read: an OAuth token request (its URL, or a
            # `grant_type` in its body), a login, a search.
            read_words=("token", "oauth", "login", "search"),
            read_keys=("grant_type",),
        ),
        *(
            SideEffect(
                f"sends an HTTP {verb.upper()} the service may not treat as idempotent",
                calls=_http_calls(modules, clients, (verb,)),
                entered=clients,
                remedy=_HTTP_REMEDY,
            )
            for verb in HTTP_UPDATES
        ),
    )


_HTTP_REMEDY = "send an Idempotency-Key header the service honours"


def _http_calls(
    modules: tuple[str, ...], clients: tuple[str, ...], verbs: tuple[str, ...]
) -> tuple[str, ...]:
    return tuple(f"{owner}.{verb}" for owner in (*modules, *clients) for verb in verbs)


# The header that asks the service to drop a repeat (the IETF draft "The
# Idempotency-Key HTTP Header Field"; Stripe and Adyen send it too).
HTTP_CLAIMS = Claims(headers=("idempotency-key",))

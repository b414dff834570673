"""The world the Python blocks of docs/runtime.md run in.

A block runs in a module of its own: first ``PREAMBLE`` (the reader's app as the
page takes it for granted: a Celery app on the test redis-server, a redis
client, two SQLAlchemy models and a session), then the block itself, compiled
with docs/runtime.md's file name and line numbers so that a traceback points
into the page. Before each part runs, the module is given the names the part
reads and does not define (``GIVEN`` says how each is made): real connections
opened the way the page's "Connections" blocks open them, real servers, and
recording stand-ins only for the reader's own calls to the outside world
(``crm``, ``mailer``, ``build_report`` ...).

Nothing consumes the Celery broker: a test reads what a block published
(``Run.published``) and, where a block's point is what a task does, runs it
with Celery's own ``Task.apply`` (``Run.deliver`` for what is published).
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import json
import logging
import pickle
import sqlite3
import symtable
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg
import redis
from celery import _state as celery_state
from celery.signals import before_task_publish, task_retry
from joblint_runtime.lock import advisory_key

from .services import Postgres, RedisServer
from .workers import DOCS, DocBlock, doc_blocks

# Redis databases of their own: the worker tests use 1 to 6, the others flush 0.
BROKER_DB = 7
CLIENT_DB = 8

PREAMBLE = '''\
"""The reader's app, as the blocks of docs/runtime.md take it for granted."""
import redis
from celery import Celery
from sqlalchemy import create_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

app = Celery("shop", broker=BROKER_URL)
app.conf.update(CELERY_CONF)
celery_app = app
r = redis.Redis.from_url(REDIS_URL)


class Base(DeclarativeBase):
    pass


class Order(Base):
    __tablename__ = "orders"

    id: Mapped[int] = mapped_column(primary_key=True)
    total: Mapped[int]


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str]


Session = sessionmaker(create_engine(DATABASE_URL))
session = Session()


@app.task(name="shop.tasks.send_receipt")
def send_receipt(order_id):
    mailer.send_receipt(order_id)
'''

# The reader's own tables, which the blocks write to and the page does not create.
TABLES = (
    "CREATE TABLE orders (id integer PRIMARY KEY, total integer NOT NULL)",
    "CREATE TABLE charges (order_id integer NOT NULL)",
    "CREATE TABLE users (id integer PRIMARY KEY, email text NOT NULL)",
)

ORDER_ID = 7
TOTAL = 1250


def free_names(source: str) -> set[str]:
    """The names ``source`` reads at module level (or as globals of its functions)
    without binding them itself: what running it needs to be given."""
    top = symtable.symtable(source, "<block>", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    return _globals_read(top) - bound - set(dir(builtins))


def _globals_read(table: symtable.SymbolTable) -> set[str]:
    module = table.get_type() == "module"
    names = {
        s.get_name() for s in table.get_symbols() if s.is_referenced() and (module or s.is_global())
    }
    for child in table.get_children():
        names |= _globals_read(child)
    return names


PREAMBLE_NEEDS = free_names(PREAMBLE)
PREAMBLE_DEFINES = {
    s.get_name()
    for s in symtable.symtable(PREAMBLE, "<preamble>", "exec").get_symbols()
    if s.is_assigned() or s.is_imported()
}


def doc_block(name: str) -> DocBlock:
    found = [block for block in doc_blocks() if block.name == name]
    if len(found) != 1:
        raise KeyError(f"docs/runtime.md has {len(found)} blocks marked <!-- test: {name} ... -->")
    return found[0]


# --- the reader's outside world ----------------------------------------------------


class CRM:
    """A CRM that raises the errors scripted for a customer, one per push, then accepts."""

    def __init__(self) -> None:
        self.script: dict[str, list[BaseException]] = {}
        self.pushes: list[str] = []

    def fail(self, customer_id: str, *errors: BaseException) -> None:
        self.script[customer_id] = list(errors)

    def push(self, customer_id: str) -> None:
        self.pushes.append(customer_id)
        errors = self.script.get(customer_id)
        if errors:
            raise errors.pop(0)

    def attempts(self, customer_id: str) -> int:
        return self.pushes.count(customer_id)


class Mailer:
    def __init__(self) -> None:
        self.receipts: list[int] = []

    def send_receipt(self, order_id: int) -> None:
        self.receipts.append(order_id)


@dataclass
class Payments:
    """A real HTTP server on loopback standing in for a payment provider."""

    server: ThreadingHTTPServer
    calls: list[tuple[dict[str, Any], str | None]] = field(default_factory=list)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/charges"


@contextlib.contextmanager
def payments_server() -> Iterator[Payments]:
    calls: list[tuple[dict[str, Any], str | None]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            calls.append((json.loads(self.rfile.read(length)), self.headers.get("Idempotency-Key")))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Payments(server, calls)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class Outside:
    """The reader's calls to the outside world, recorded."""

    def __init__(self, client: redis.Redis, probe: Callable[[], Any] | None) -> None:
        self.client = client
        self.probe = probe
        self.crm = CRM()
        self.mailer = Mailer()
        self.report_ttls_ms: list[int] = []
        self.digests = 0
        self.reindex_held: list[bool] = []
        self.updated: list[int] = []
        self.pages: list[list[int]] = []
        self.exports = 0

    def build_report(self) -> None:
        self.report_ttls_ms.append(int(self.client.pttl("lock:report")))

    def send_digest(self) -> None:
        self.digests += 1

    def reindex(self) -> None:
        """Whether another session can take the "reindex" advisory lock now."""
        assert self.probe is not None
        conn = self.probe()
        key = advisory_key("reindex")
        taken = bool(conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0])
        if taken:
            conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        self.reindex_held.append(not taken)

    def update(self, user: Any) -> None:
        self.updated.append(int(user.id))

    def update_many(self, rows: Any) -> None:
        self.pages.append([int(row[0]) for row in rows])

    def export(self) -> None:
        self.exports += 1


# --- databases -----------------------------------------------------------------------


@dataclass
class Database:
    """One backend's database for one run: a temp SQLite file or a PostgreSQL schema."""

    backend: str  # "sqlite", "postgres" or "none"
    url: str  # for SQLAlchemy
    dsn: str = ""  # psycopg's, with the run's search_path
    path: Path | None = None  # SQLite's file
    _admin: Any = None

    @property
    def placeholder(self) -> str:
        return "?" if self.backend == "sqlite" else "%s"

    def admin(self) -> Any:
        """An autocommit connection of the test's own, to set up and inspect."""
        if self._admin is None:
            if self.backend == "sqlite":
                self._admin = sqlite3.connect(self.path or "", timeout=30, isolation_level=None)
            else:
                self._admin = psycopg.connect(self.dsn, autocommit=True)
        return self._admin

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self.admin().execute(query).fetchall()]

    def value(self, query: str) -> Any:
        return self.rows(query)[0][0]

    def insert_many(self, table: str, columns: str, rows: list[tuple[Any, ...]]) -> None:
        marks = ", ".join([self.placeholder] * len(rows[0]))
        self.admin().cursor().executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)

    def close(self) -> None:
        if self._admin is not None:
            self._admin.close()
            self._admin = None


def connect_as_documented(database: Database) -> Any:
    """A connection opened by the page's own "connect-<backend>" block."""
    namespace: dict[str, Any] = {"DSN": database.dsn}
    block = doc_block(f"connect-{database.backend}")
    exec(_compiled(block), namespace)
    return namespace["conn"]


@contextlib.contextmanager
def database(backend: str, postgres: Postgres | None, directory: Path) -> Iterator[Database]:
    """The backend's database with the reader's tables; ``directory`` is the working
    directory, where the SQLite blocks' "shop.db" lands."""
    if backend == "none":
        yield Database("none", "sqlite://")
        return
    if backend == "sqlite":
        path = directory / "shop.db"
        db = Database("sqlite", f"sqlite:///{path}", path=path)
        _create_tables(db)
        try:
            yield db
        finally:
            db.close()
        return
    assert postgres is not None
    schema = f"doc_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    db = Database(
        "postgres",
        f"postgresql+psycopg://postgres@127.0.0.1:{postgres.port}/postgres"
        f"?options=-csearch_path%3D{schema}",
        f"{postgres.dsn} options='-c search_path={schema}'",
    )
    _create_tables(db)
    try:
        yield db
    finally:
        db.close()
        with psycopg.connect(postgres.dsn, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _create_tables(db: Database) -> None:
    for statement in TABLES:
        db.admin().execute(statement)


# --- the broker ----------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    task: str
    id: str
    args: list[Any]
    kwargs: dict[str, Any]
    eta: datetime | None
    # How many orders another connection saw committed when the message was published.
    orders_committed: int | None


def _decode(item: bytes) -> tuple[str, str, list[Any], dict[str, Any], datetime | None]:
    envelope = json.loads(item)
    raw = base64.b64decode(envelope["body"])
    if envelope["content-type"] == "application/x-python-serialize":
        args, kwargs, _embed = pickle.loads(raw)  # our own broker, our own messages
    else:
        args, kwargs, _embed = json.loads(raw)
    headers = envelope["headers"]
    eta = datetime.fromisoformat(headers["eta"]) if headers.get("eta") else None
    return headers["task"], headers["id"], list(args), dict(kwargs), eta


# --- one run of one block ------------------------------------------------------------


@dataclass
class Run:
    """A block run on one backend: its module's names, what it did, what it raised."""

    block: DocBlock
    db: Database
    namespace: dict[str, Any]
    outside: Outside
    broker: redis.Redis
    payments: Payments | None
    retries: list[tuple[str, int, float]]
    error: BaseException | None = None
    _committed_at_publish: dict[str, int | None] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.namespace[name]

    def published(self) -> list[Message]:
        """Every message on the Celery queue, oldest first (they stay there)."""
        found = []
        for item in reversed(self.broker.lrange("celery", 0, -1)):
            task, task_id, args, kwargs, eta = _decode(item)
            committed = self._committed_at_publish.get(task_id)
            found.append(Message(task, task_id, args, kwargs, eta, committed))
        return found

    def deliver(self) -> list[Message]:
        """Run every published message with ``Task.apply``, as a worker would, oldest
        first, including those the runs publish, until the queue is empty."""
        delivered = []
        while (item := self.broker.rpop("celery")) is not None:
            task, task_id, args, kwargs, eta = _decode(item)
            self["app"].tasks[task].apply(args=args, kwargs=kwargs, task_id=task_id)
            delivered.append(Message(task, task_id, args, kwargs, eta, None))
        return delivered

    def retry_countdowns(self, task: str) -> list[float]:
        return [when for name, _retries, when in self.retries if name.endswith(f".{task}")]


Given = Callable[[Run], Any]


def _cursor(run: Run) -> Any:
    """A cursor on a connection that is not in autocommit: its transaction stays open."""
    conn = psycopg.connect(run.db.dsn)
    run.namespace.setdefault("__closers__", []).append(conn.close)
    return conn.cursor()


def _conn(run: Run) -> Any:
    conn = connect_as_documented(run.db)
    run.namespace.setdefault("__closers__", []).append(conn.close)
    return conn


def _new_order(run: Run) -> Any:
    return run["Order"](id=ORDER_ID, total=TOTAL)


def _orders(run: Run) -> list[Any]:
    return [run["Order"](id=i, total=100 * i) for i in (1, 2, 3)]


def _payments_url(run: Run) -> str:
    assert run.payments is not None
    return run.payments.url


# How each name a block may be given is made. A name in a block's "given" that is
# missing here fails the run; so does a name the block reads that nobody gives.
GIVEN: dict[str, Given] = {
    "conn": _conn,
    "cur": _cursor,
    "DSN": lambda run: run.db.dsn,
    "order_id": lambda run: ORDER_ID,
    "total": lambda run: TOTAL,
    "order": _new_order,
    "orders": _orders,
    "customer_id": lambda run: "flaky-1",
    "PAYMENTS_URL": _payments_url,
    "crm": lambda run: run.outside.crm,
    "mailer": lambda run: run.outside.mailer,
    "build_report": lambda run: run.outside.build_report,
    "send_digest": lambda run: run.outside.send_digest,
    "reindex": lambda run: run.outside.reindex,
    "update": lambda run: run.outside.update,
    "update_many": lambda run: run.outside.update_many,
    "export": lambda run: run.outside.export,
}


def _compiled(block: DocBlock) -> Any:
    # Padded so that tracebacks give the block's own lines of docs/runtime.md.
    return compile("\n" * (block.line - 1) + block.source, str(DOCS), "exec")


@contextlib.contextmanager
def run_block(
    block: DocBlock,
    db: Database,
    redis_server: RedisServer,
    given: tuple[str, ...],
    *,
    celery_conf: dict[str, Any] | None = None,
    setup: Callable[[Database], None] | None = None,
) -> Iterator[Run]:
    """Run the preamble and ``block`` in a fresh module; yield the run for checking.

    An exception from the block is kept in ``run.error`` (a "before" block may
    demonstrate one); the caller asserts on it.
    """
    base = redis_server.url.rsplit("/", 1)[0]
    broker = redis.Redis.from_url(f"{base}/{BROKER_DB}")
    client = redis.Redis.from_url(f"{base}/{CLIENT_DB}")
    broker.flushdb()
    client.flushdb()
    if setup is not None:
        setup(db)
    probe = None if db.backend == "none" else db.admin
    module = ModuleType(f"docblock_{block.name.replace('-', '_')}")
    namespace = module.__dict__
    namespace.update(
        BROKER_URL=f"{base}/{BROKER_DB}",
        REDIS_URL=f"{base}/{CLIENT_DB}",
        DATABASE_URL=db.url,
        CELERY_CONF=dict(celery_conf or {}),
    )
    with contextlib.ExitStack() as stack:
        payments = stack.enter_context(payments_server()) if "PAYMENTS_URL" in given else None
        run = Run(block, db, namespace, Outside(client, probe), broker, payments, [])
        namespace["mailer"] = run.outside.mailer
        sys.modules[module.__name__] = module
        stack.callback(sys.modules.pop, module.__name__, None)
        stack.callback(_close_module, namespace)
        stack.enter_context(_recording(run))
        stack.enter_context(_celery_tasks_stay_in_their_app())
        exec(compile(PREAMBLE, f"<preamble of {block.name}>", "exec"), namespace)
        for name in given:
            namespace[name] = GIVEN[name](run)
        try:
            exec(_compiled(block), namespace)
        except Exception as exc:  # kept for the check: a "before" block may raise
            run.error = exc
        stack.callback(broker.close)
        stack.callback(client.close)
        yield run
        broker.flushdb()
        client.flushdb()


@contextlib.contextmanager
def _recording(run: Run) -> Iterator[None]:
    """Record Celery's retries, and what another connection sees committed at each publish."""

    def published(headers: dict[str, Any] | None = None, **_: Any) -> None:
        if headers is None:
            return
        committed = None
        if run.db.backend != "none":
            committed = int(run.db.value("SELECT count(*) FROM orders"))
        run._committed_at_publish[str(headers["id"])] = committed

    def retried(sender: Any = None, request: Any = None, reason: Any = None, **_: Any) -> None:
        run.retries.append((sender.name, int(request.retries), float(reason.when)))

    before_task_publish.connect(published, weak=False)
    task_retry.connect(retried, weak=False)
    try:
        yield
    finally:
        before_task_publish.disconnect(published)
        task_retry.disconnect(retried)


@contextlib.contextmanager
def _celery_tasks_stay_in_their_app() -> Iterator[None]:
    """``@app.task`` also queues the task for every Celery app created later (it is
    "shared"); the next block's app must not inherit this block's tasks."""
    pending = set(celery_state._on_app_finalizers)
    try:
        yield
    finally:
        celery_state._on_app_finalizers.intersection_update(pending)


def _close_module(namespace: dict[str, Any]) -> None:
    for close in reversed(namespace.get("__closers__", [])):
        with contextlib.suppress(Exception):
            close()
    if "session" in namespace:
        namespace["session"].close()
        namespace["Session"].kw["bind"].dispose()
    if "app" in namespace:
        namespace["app"].close()
    if "r" in namespace:
        namespace["r"].close()


@contextlib.contextmanager
def metrics_log() -> Iterator[list[str]]:
    """The messages the logging sink writes, at its INFO level."""
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    logger = logging.getLogger("joblint_runtime.metrics")
    handler, level = Collect(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)

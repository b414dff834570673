"""Throwaway PostgreSQL and Redis servers for the runtime tests and benchmarks.

Both listen on a free loopback port and live in a temp directory that is
removed on stop. Anything that prevents a server from starting raises
``ServiceError`` with the server's log: the runtime tests must never be
skipped for want of a service.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path


class ServiceError(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pg_bindir() -> Path:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    def version(initdb: str) -> int:
        name = Path(initdb).parent.parent.name
        return int(name) if name.isdigit() else 0

    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version)
    if not candidates:
        raise ServiceError("PostgreSQL initdb not found; run scripts/install-test-deps.sh")
    return Path(candidates[-1]).parent


def _run(cmd: list[str], what: str, log: Path | None = None) -> None:
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        extra = log.read_text(errors="replace") if log and log.exists() else ""
        raise ServiceError(
            f"{what} failed ({result.returncode}): {' '.join(cmd)}\n"
            f"{result.stdout}\n{result.stderr}\n{extra}"
        )


@dataclass
class Postgres:
    port: int
    root: Path
    bindir: Path
    prefix: list[str] = field(default_factory=list)

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    @property
    def data(self) -> Path:
        return self.root / "data"

    def stop(self) -> None:
        subprocess.run(
            [*self.prefix, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
             "-w", "stop"],
            capture_output=True, timeout=60, check=False,
        )
        shutil.rmtree(self.root, ignore_errors=True)


def start_postgres() -> Postgres:
    """initdb + pg_ctl start on a free port; as root, through ``runuser -u postgres``."""
    bindir = _pg_bindir()
    root = Path(tempfile.mkdtemp(prefix="joblint-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        # PostgreSQL refuses to run as root.
        if not shutil.which("runuser"):
            raise ServiceError("running as root but runuser is missing")
        shutil.chown(root, "postgres", "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    server = Postgres(port=free_port(), root=root, bindir=bindir, prefix=prefix)
    log = root / "postgres.log"
    try:
        _run([*prefix, str(bindir / "initdb"), "-D", str(server.data), "-U", "postgres",
              "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"], "initdb")
        # Durability is irrelevant for a throwaway cluster; these make it fast.
        options = (
            f"-p {server.port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=120"
        )
        _run([*prefix, str(bindir / "pg_ctl"), "-D", str(server.data), "-l", str(log),
              "-o", options, "-w", "-t", "60", "start"], "pg_ctl start", log)
    except BaseException:
        server.stop()
        raise
    return server


@dataclass
class RedisServer:
    port: int
    root: Path
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def start_redis() -> RedisServer:
    """``redis-server`` on loopback with persistence off; waits until it answers PING."""
    binary = shutil.which("redis-server")
    if not binary:
        raise ServiceError("redis-server not found; run scripts/install-test-deps.sh")
    root = Path(tempfile.mkdtemp(prefix="joblint-redis-"))
    port = free_port()
    log = root / "redis.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(root)],
            stdout=out, stderr=subprocess.STDOUT,
        )
    server = RedisServer(port=port, root=root, process=process)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return server
        except OSError:
            time.sleep(0.05)
    text = log.read_text(errors="replace")
    server.stop()
    raise ServiceError(f"redis-server did not start on port {port}:\n{text}")

"""Throwaway PostgreSQL and Redis on this machine (`shengji cluster-demo`, benchmarks).

`local_services()` starts a PostgreSQL cluster (initdb + pg_ctl in a temporary folder; as
the `postgres` user when run as root) and a `redis-server` without persistence, both on
loopback ports, and removes them afterwards.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

PG_BIN = "/usr/lib/postgresql/15/bin"


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServiceError(RuntimeError):
    """PostgreSQL or Redis is not installed or did not start (the message says which)."""



def stop_processes(procs: list[subprocess.Popen[bytes]]) -> None:
    """Ask each process still running to stop (SIGTERM); kill one that has not
    stopped 10 s later."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def local_postgres(max_connections: int = 300) -> Iterator[str]:
    """A throwaway PostgreSQL; yields its postgresql+asyncpg:// URL."""
    initdb = shutil.which("initdb") or f"{PG_BIN}/initdb"
    pg_ctl = shutil.which("pg_ctl") or f"{PG_BIN}/pg_ctl"
    if not (os.path.exists(initdb) and os.path.exists(pg_ctl)):
        raise ServiceError("PostgreSQL is not installed (initdb, pg_ctl)")
    prefix: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        runuser = shutil.which("runuser")
        if runuser is None:
            raise ServiceError("running as root without runuser")
        prefix = [runuser, "-u", "postgres", "--"]
    folder = tempfile.mkdtemp(prefix="shengji-pg-")
    if prefix:
        shutil.chown(folder, "postgres")
    data, port = os.path.join(folder, "data"), free_port()
    try:
        subprocess.run([*prefix, initdb, "-D", data, "-U", "shengji", "--auth=trust",
                        "-E", "UTF8"], check=True, capture_output=True)
        subprocess.run([*prefix, pg_ctl, "-D", data, "-w", "-l", os.path.join(folder, "log"),
                        "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -F "
                        f"-c max_connections={max_connections}", "start"],
                       check=True, capture_output=True)
    except (subprocess.CalledProcessError, OSError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise ServiceError(f"could not start PostgreSQL: {exc}") from exc
    try:
        yield f"postgresql+asyncpg://shengji@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", data, "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def local_redis() -> Iterator[str]:
    """A throwaway redis-server (no persistence); yields its redis:// URL."""
    exe = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not os.path.exists(exe):
        raise ServiceError("redis-server is not installed")
    port = free_port()
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise ServiceError("could not start redis-server") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.kill()
        proc.wait(10)


@contextlib.contextmanager
def local_services() -> Iterator[tuple[str, str]]:
    """Both: yields (database URL, Redis URL)."""
    with local_postgres() as db, local_redis() as redis:
        yield db, redis

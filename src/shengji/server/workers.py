"""`shengji serve --workers N`: N worker processes on one port (SO_REUSEPORT), supervised.

The kernel spreads new connections over the workers; a worker that dies is started again
(its tables are taken over by the others meanwhile, see `cluster/`). Several hosts: run
`shengji serve --redis ... --db postgresql+asyncpg://...` on each, behind any load
balancer (deploy/).
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import time
from typing import Any

from .config import ServerConfig

log = logging.getLogger(__name__)


def reuseport_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket that other processes may bind to the same address too."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def worker_main(config: ServerConfig) -> None:
    """One worker: its own socket on the shared port, its own app and event loop."""
    import uvicorn

    from .app import create_app, uvicorn_config

    sock = reuseport_socket(config.host, config.port)
    # tune_gc: a process of its own (see gcpolicy)
    app = create_app(config, tune_gc=True)
    uv = uvicorn_config(app, config.host, config.port, log_level=config.log_level,
                        ws_per_message_deflate=config.ws_compression)
    uvicorn.Server(uv).run(sockets=[sock])


def serve_workers(config: ServerConfig, *, restart: bool = True) -> None:
    """Run `config.workers` workers until SIGINT/SIGTERM; start again any that dies
    (blocking)."""
    n = config.workers
    ctx = multiprocessing.get_context("spawn")
    procs: list[Any] = [None] * n
    stopping = False

    def stop(_sig: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def start(i: int) -> None:
        p = ctx.Process(target=worker_main, args=(config,),
                        name=f"shengji-worker-{i}")
        p.start()
        procs[i] = p

    for i in range(n):
        start(i)
    while not stopping:
        time.sleep(0.5)
        for i, p in enumerate(procs):
            if p is not None and not p.is_alive() and not stopping:
                log.warning("worker %d (pid %s) exited with %s", i, p.pid, p.exitcode)
                if restart:
                    start(i)
    for p in procs:
        if p is not None and p.is_alive():
            p.terminate()
    for p in procs:
        if p is not None:
            p.join(10)
            if p.is_alive():
                p.kill()

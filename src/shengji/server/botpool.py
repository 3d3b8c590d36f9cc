"""Where bots think: one interface over the local process pool and a Ray cluster (issue 35).

A decision travels as a function and its arguments (a seat's view and the agent, RULES
§11: nothing else), and comes back as the function's result. `--bots` names the pool:

- `local` (the default): a process pool on this machine, `bot_workers` processes;
- `ray:local`: a private Ray instance on this machine (one server process);
- `ray:auto`: the Ray cluster this machine is a node of (`ray start --head` here, or
  `ray start --address HEAD:6379` to join one); every server worker (`--workers N`) and
  every machine's servers share it, and `ray start --address ...` on another machine
  adds its CPUs to the pool while the servers run;
- `ray:HOST:PORT` (a cluster's GCS address) or `ray://HOST:10001` (Ray Client, needs
  `ray[client]`).

A task that loses its worker (a killed process, a lost node) is retried by Ray
(`RAY_RETRIES`); a decision that still fails, or takes longer than the manager's bound,
is answered by the heuristic on this machine and counted (`BotPool.status`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, Protocol

log = logging.getLogger(__name__)

#: how often Ray reruns a decision whose worker died (system failures only)
RAY_RETRIES = 2


class BotPool(Protocol):
    """Runs a bot's function off the event loop, wherever the pool's CPUs are."""

    kind: str

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in a pool worker."""
        ...

    def cpus(self) -> float | None:
        """The CPUs the pool can use now (None: unknown)."""
        ...

    def close(self) -> None:
        """Stop the pool's workers (the server is stopping)."""
        ...


def pool_spec_error(spec: str) -> str | None:
    """Why `spec` names no pool (None: it does)."""
    if spec == "local" or spec in ("ray:local", "ray:auto") or spec.startswith("ray://"):
        return None
    if spec.startswith("ray:"):
        host, _, port = spec[4:].rpartition(":")
        if host and port.isdigit():
            return None
    return (f"--bots {spec!r}: expected local, ray:local, ray:auto, ray:HOST:PORT or "
            "ray://HOST:PORT")


class LocalPool:
    """A process pool on this machine (started on first use)."""

    kind = "local"

    def __init__(self, workers: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        self.workers = workers
        self._init = (initializer, initargs)
        self.executor: Executor | None = None

    def _executor(self) -> Executor:
        if self.executor is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            ctx = multiprocessing.get_context("forkserver")
            init, args = self._init
            self.executor = ProcessPoolExecutor(
                self.workers, mp_context=ctx, initializer=init, initargs=args)
        return self.executor

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in one of the processes."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor(), fn, *args)

    def cpus(self) -> float | None:
        """The pool's processes."""
        return float(self.workers)

    def close(self) -> None:
        """Shut the processes down without waiting for running decisions."""
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None


def _call(fn: Callable[..., Any], *args: Any) -> Any:
    """The Ray task: run `fn(*args)` in a Ray worker."""
    return fn(*args)


class RayPool:
    """Bots on a Ray cluster: each decision is one task of one CPU."""

    kind = "ray"

    def __init__(self, spec: str) -> None:
        import ray

        self.spec = spec
        self._ray: Any = ray
        if not ray.is_initialized():
            address: str | None
            if spec == "ray:local":
                address = None
            elif spec == "ray:auto":
                address = "auto"
            elif spec.startswith("ray://"):
                address = spec
            else:
                address = spec[4:]
            # the workers import this package as the server does (PYTHONPATH included)
            env = {k: os.environ[k] for k in ("PYTHONPATH", "SHENGJI_PURE") if k in os.environ}
            # ray.init installs SIGTERM/SIGINT handlers that exit the process at once
            # (sys.exit inside the event loop): the server's own graceful shutdown (its
            # writes flushed, its sockets closed with a code) must stay theirs
            kept = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     namespace="shengji", ignore_reinit_error=True,
                     runtime_env={"env_vars": env} if env else None,
                     num_cpus=(os.cpu_count() or 1) if address is None else None)
            if threading.current_thread() is threading.main_thread():
                for sig, handler in kept.items():
                    if handler is not None:
                        signal.signal(sig, handler)
        self._task = ray.remote(num_cpus=1, max_retries=RAY_RETRIES)(_call)

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` as a Ray task (retried if its worker dies)."""
        return await self._task.remote(fn, *args)

    def cpus(self) -> float | None:
        """The cluster's CPUs now (nodes that joined since count)."""
        try:
            return float(self._ray.cluster_resources().get("CPU", 0.0))
        except Exception:  # the cluster is unreachable: unknown, not an error page
            return None

    def close(self) -> None:
        """Leave the cluster (a private `ray:local` instance stops with it)."""
        try:
            self._ray.shutdown()
        except Exception:
            log.exception("stopping the Ray pool")


def make_pool(spec: str, workers: int, initializer: Callable[..., None] | None = None,
              initargs: tuple[Any, ...] = ()) -> BotPool:
    """The pool `spec` names (`pool_spec_error` says what is wrong with a bad one)."""
    err = pool_spec_error(spec)
    if err is not None:
        raise ValueError(err)
    if spec == "local":
        return LocalPool(workers, initializer, initargs)
    return RayPool(spec)

"""Ray helpers (extra `[cluster]`): connect to a cluster and map a function over tasks.

`address`: "local" starts a private local Ray instance, "auto" joins the cluster
this machine belongs to, anything else is a cluster address (HOST:PORT or ray://...).
Before connecting, `check_cluster` finds out in seconds whether a cluster answers
there: without one, `ray.init` waits 30 s or more and ends in a traceback.
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

PROBE_TIMEOUT_S = 3.0
"""How long `check_cluster` waits for a cluster's port to answer."""

_WHAT_TO_DO = (
    "Start one with `ray start --head` (then --ray auto finds it), or use --ray local "
    "to run Ray on this machine alone (see docs/ENV.md)."
)


class ClusterError(RuntimeError):
    """`--ray` cannot be used: Ray is not installed, or no cluster answers at the address.
    The message says what to do."""


def _split_host_port(address: str, default_port: int) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep:
        return address, default_port
    try:
        return host.strip("[]") or "127.0.0.1", int(port)
    except ValueError:
        raise ClusterError(f"--ray {address!r}: not HOST:PORT. {_WHAT_TO_DO}") from None


def _auto_address() -> str | None:
    """Where `ray.init(address="auto")` would connect: $RAY_ADDRESS, else the cluster
    `ray start` last recorded (Ray's own lookup when its private API allows, which also
    finds a head started by hand); None when there is none."""
    env = os.environ.get("RAY_ADDRESS", "")
    if env and env != "auto":
        return env
    try:
        from ray._private.services import canonicalize_bootstrap_address

        found: str | None = canonicalize_bootstrap_address("auto")
        return found
    except ConnectionError:
        return None
    except Exception:  # Ray not installed, or its private API moved: read the file
        temp = Path("/tmp" if os.name == "posix" else tempfile.gettempdir())
        path = temp / "ray" / "ray_current_cluster"
        text = path.read_text().strip() if path.is_file() else ""
        return text or None


def check_cluster(address: str, timeout: float = PROBE_TIMEOUT_S) -> str | None:
    """Raise `ClusterError` (a message saying what to do) unless a Ray cluster answers
    at `address` ("auto", HOST:PORT or ray://HOST:PORT) within `timeout` seconds; the
    address checked (None for "local", which needs no cluster)."""
    if address == "local":
        return None
    target = _auto_address() if address == "auto" else address
    if target == "local":  # RAY_ADDRESS=local
        return None
    if target is None:
        raise ClusterError(f"--ray auto: no running Ray cluster was found. {_WHAT_TO_DO}")
    client = target.startswith("ray://")
    host, port = _split_host_port(target.removeprefix("ray://"), 10001 if client else 6379)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as e:
        why = "no answer" if isinstance(e, TimeoutError) else (e.strerror or str(e))
        where = f"{address} → {target}" if address != target else target
        raise ClusterError(
            f"--ray {where}: no Ray cluster answers there ({why}). {_WHAT_TO_DO}"
        ) from None
    return target


def ray_init(address: str, workers: int = 1) -> Any:
    """Import Ray and connect (once per process); returns the `ray` module. Raises
    `ClusterError` quickly when Ray is missing or no cluster answers (`check_cluster`)."""
    try:
        import ray
    except ImportError:
        raise ClusterError(
            "--ray needs Ray: pip install 'shengji[cluster]'"
        ) from None
    if not ray.is_initialized():
        check_cluster(address)
        if address == "local":
            ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    return ray


def ray_map(
    fn: Callable[[T], R], items: Sequence[T], address: str, workers: int = 1
) -> Iterator[R]:
    """`fn` over `items` as Ray tasks (one CPU each); results in completion order."""
    ray = ray_init(address, workers)
    remote = ray.remote(num_cpus=1)(fn)
    pending = [remote.remote(x) for x in items]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])


__all__ = ["ClusterError", "check_cluster", "ray_init", "ray_map"]

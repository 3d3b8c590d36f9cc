"""Ray helpers (extra `[cluster]`): connect to a cluster and map a function over tasks.

`address`: "local" starts a private local Ray instance, "auto" joins the cluster
this machine belongs to, anything else is a cluster address (HOST:PORT or ray://...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def ray_init(address: str, workers: int = 1) -> Any:
    """Import Ray and connect (once per process); returns the `ray` module."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "--ray needs Ray: pip install 'shengji[cluster]'"
        ) from None
    if not ray.is_initialized():
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


__all__ = ["ray_init", "ray_map"]

"""A server stopped while its bot pool is still starting (issue 35): joining Ray runs in
a thread, which cannot be cancelled, and cancelling the task that awaited it left the
pool that thread then built unclosed (a leaked local Ray instance, which the next pool of
the process reused). `Manager.stop` now waits for the start and closes what it built."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from server_harness import serve

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class FakePool:
    kind = "ray"

    def __init__(self) -> None:
        self.closed = threading.Event()

    async def run(self, fn: Any, *args: Any) -> Any:
        return fn(*args)

    def cpus(self) -> float | None:
        return 1.0

    def close(self) -> None:
        self.closed.set()


def _wait(pred: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_a_pool_still_starting_when_the_server_stops_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shengji.server import manager as manager_module

    building, release, built = threading.Event(), threading.Event(), threading.Event()
    pools: list[FakePool] = []

    def slow_make_pool(*args: Any) -> FakePool:  # ray.init taking its time
        building.set()
        release.wait(60)
        pools.append(FakePool())
        built.set()
        return pools[-1]

    monkeypatch.setattr(manager_module, "make_pool", slow_make_pool)
    with serve(tmp_path / "db.sqlite", bots="ray:local") as client:
        manager: Any = client.app.state.manager  # type: ignore[attr-defined]
        assert building.wait(30), "the pool's start never began"
        stopper = threading.Thread(target=client.portal.call, args=(manager.stop,))
        stopper.start()
        _wait(lambda: manager._sweeper.done(), "stop to begin")  # its first step
        release.set()  # the start ends after stop began
        assert built.wait(30)
        stopper.join(60)
        assert not stopper.is_alive()
        assert pools[0].closed.wait(10), "the pool built during stop was never closed"
        assert manager.pool is None
        # and nothing starts a pool once the server is stopping
        with pytest.raises(RuntimeError, match="stopping"):
            client.portal.call(manager._pool)

"""A table's driver stops even when a cancellation is lost (`BotDriver.stop`): Python
3.11's `asyncio.wait_for` returns an inner wait's result that arrived in the same turn of
the loop as the cancellation and drops the cancellation, and a server's shutdown once hung
for good on a driver that then slept on (CI, `test_an_idle_pool_sheds_nothing`)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from shengji.server.botdriver import BotDriver


def test_a_driver_that_loses_its_cancellation_is_cancelled_again() -> None:
    lost = []

    async def drive() -> None:
        gate = asyncio.Event()  # never set: only a cancellation ends each wait
        try:
            await gate.wait()
        except asyncio.CancelledError:
            lost.append(1)  # dropped, as wait_for drops it
        await gate.wait()  # and sleeps on, as the driver did

    async def main() -> bool:
        driver = BotDriver(SimpleNamespace(seed=1))  # type: ignore[arg-type]
        task = asyncio.create_task(drive())
        driver.task = task
        await asyncio.sleep(0)  # the driver is asleep
        stopping = asyncio.create_task(driver.stop())
        # a hang detector, not a timing: stop ends within a few of its retries
        done, _ = await asyncio.wait({stopping}, timeout=30)
        if not done:  # it hung: end both so that the test fails rather than hangs
            task.cancel()
            stopping.cancel()
            await asyncio.gather(stopping, return_exceptions=True)
        return bool(done) and task.cancelled()

    assert asyncio.run(main())
    assert lost == [1]

"""The connection's outbound queue (server/connection.py `Client`, issue 13): messages go
out in order through a writer that runs only while there is something to write; a
client that stops reading is cut off; `close()` ends the pump after what is queued."""

from __future__ import annotations

import asyncio

import pytest

from shengji.server.connection import Client


def _client(max_queue: int = 2048) -> Client:
    return Client(rate=100.0, burst=100.0, max_queue=max_queue)


def test_messages_go_out_in_order_and_close_ends_the_pump() -> None:
    async def main() -> list[str]:
        c = _client()
        sent: list[str] = []

        async def send(text: str) -> None:
            await asyncio.sleep(0)  # a write that yields, as a socket's may
            sent.append(text)

        c.push("before")  # queued before the pump starts: still sent first
        pump = asyncio.create_task(c.pump(send))
        for i in range(50):
            c.push(str(i))
            if i % 7 == 0:
                await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        assert c._writer is None, "an idle connection keeps no writer"
        c.push("last")
        c.close(1012)
        c.push("after close")  # never sent: the pump ended at the close
        await asyncio.wait_for(pump, 1)
        assert c.close_code == 1012
        return sent

    sent = asyncio.run(main())
    assert sent == ["before", *[str(i) for i in range(50)], "last"]


def test_a_client_that_stops_reading_is_cut_off() -> None:
    async def main() -> tuple[bool, list[str]]:
        c = _client(max_queue=5)
        sent: list[str] = []
        gate = asyncio.Event()

        async def send(text: str) -> None:
            await gate.wait()  # the socket does not drain
            sent.append(text)

        pump = asyncio.create_task(c.pump(send))
        for i in range(20):
            c.push(str(i))
            await asyncio.sleep(0)
        gate.set()
        await asyncio.wait_for(pump, 1)
        return c.too_slow, sent

    too_slow, sent = asyncio.run(main())
    assert too_slow
    assert len(sent) <= 1  # at most the one message already being written


def test_a_failed_write_ends_the_pump_with_its_error_and_cancel_stops_it() -> None:
    async def main() -> None:
        c = _client()

        async def broken(text: str) -> None:
            raise ConnectionResetError("gone")

        c.push("x")
        with pytest.raises(ConnectionResetError):
            await asyncio.wait_for(c.pump(broken), 1)

        d = _client()
        sent: list[str] = []

        async def slow(text: str) -> None:
            await asyncio.sleep(10)
            sent.append(text)

        pump = asyncio.create_task(d.pump(slow))
        d.push("y")
        await asyncio.sleep(0.01)
        pump.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pump
        await asyncio.sleep(0)
        assert d._writer is None or d._writer.cancelled()
        d.push("z")  # after the pump: queued, never written
        await asyncio.sleep(0.01)
        assert sent == []

    asyncio.run(main())

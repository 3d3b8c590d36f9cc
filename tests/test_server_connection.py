"""The connection's outbound queue (server/connection.py `Client`, issue 13): messages go
out in order through a writer that runs only while there is something to write; a
client that stops reading is cut off; `close()` ends the pump after what is queued."""

from __future__ import annotations

import asyncio

import pytest

from shengji.server.connection import SEND_NOW, Client


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


@pytest.mark.parametrize("direct", [False, True], ids=["queued", "send_now"])
def test_a_client_that_stops_reading_is_cut_off(direct: bool) -> None:
    """Also with `send_now` (server/wsfast.py): its transport stays paused, so `send_now`
    refuses and the async send never returns; the queue fills and the client is cut off."""

    async def main() -> tuple[bool, list[str]]:
        c = _client(max_queue=5)
        sent: list[str] = []
        gate = asyncio.Event()

        async def send(text: str) -> None:
            await gate.wait()  # the socket does not drain
            sent.append(text)

        pump = asyncio.create_task(c.pump(send, (lambda text: False) if direct else None))
        await asyncio.sleep(0)
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


def test_push_writes_at_once_where_it_can_and_queues_behind_what_waits() -> None:
    """`send_now` (server/wsfast.py): a message goes out at once while nothing waits before
    it; once the socket cannot take one (False), it and every later message take the
    queue, in order, until the queue is drained; then writes are direct again."""

    async def main() -> tuple[list[tuple[str, str]], Client]:
        c = _client()
        out: list[tuple[str, str]] = []  # (how, text)
        writable = True
        gate = asyncio.Event()

        def now(text: str) -> bool:
            if not writable:
                return False
            out.append(("now", text))
            return True

        async def send(text: str) -> None:
            await gate.wait()  # the socket drains once the gate opens
            out.append(("queued", text))

        pump = asyncio.create_task(c.pump(send, now))
        await asyncio.sleep(0)
        c.push("a")
        c.push("b")
        assert c._writer is None and not c.queue, "written at once: no task, no queue"
        writable = False
        c.push("c")  # cannot be written now: queued, a writer waits
        writable = True
        c.push("d")  # writable again, but "c" waits: "d" goes behind it
        assert [t for _, t in out] == ["a", "b"]
        gate.set()
        await asyncio.sleep(0.01)
        c.push("e")  # the queue is drained: direct again
        c.close()
        await asyncio.wait_for(pump, 1)
        return out, c

    out, c = asyncio.run(main())
    assert out == [("now", "a"), ("now", "b"), ("queued", "c"), ("queued", "d"), ("now", "e")]
    assert not c.too_slow


def test_a_failed_direct_write_ends_the_pump_with_its_error() -> None:
    async def main() -> None:
        c = _client()

        def broken(text: str) -> bool:
            raise ConnectionResetError("gone")

        async def send(text: str) -> None:
            raise AssertionError("not reached")

        pump = asyncio.create_task(c.pump(send, broken))
        await asyncio.sleep(0)
        c.push("x")
        with pytest.raises(ConnectionResetError):
            await asyncio.wait_for(pump, 1)

    asyncio.run(main())


def test_the_server_protocol_offers_send_now_and_it_writes_frames_in_order() -> None:
    """Real uvicorn with the server's config (`uvicorn_config`): the WebSocket scope
    offers `SEND_NOW`; messages it writes arrive whole and in order with those sent
    through ASGI; after the close it refuses (False), writing nothing."""
    import threading
    import time

    import uvicorn
    from websockets.sync.client import connect

    from shengji.server.app import uvicorn_config
    from shengji.server.localcluster import free_port

    seen: dict[str, object] = {}

    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        assert scope["type"] == "websocket"
        await receive()  # type: ignore[operator]  # websocket.connect
        await send({"type": "websocket.accept"})  # type: ignore[operator]
        now = scope["extensions"].get(SEND_NOW)  # type: ignore[attr-defined]
        seen["offered"] = now is not None
        assert now is not None
        results = [now("one"), now("two")]
        await send({"type": "websocket.send", "text": "three"})  # type: ignore[operator]
        results.append(now("four"))
        await send({"type": "websocket.close", "code": 1000})  # type: ignore[operator]
        results.append(now("after close"))
        seen["results"] = results

    port = free_port()
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline
            time.sleep(0.02)
        got: list[str] = []
        with connect(f"ws://127.0.0.1:{port}/") as ws:
            for msg in ws:
                got.append(str(msg))
    finally:
        server.should_exit = True
        thread.join(10)
    assert seen["offered"] is True
    assert got == ["one", "two", "three", "four"]
    assert seen["results"] == [True, True, True, False]

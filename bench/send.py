"""CPU a server spends per WebSocket message it sends: written at once, or through ASGI.

    PYTHONPATH=src python bench/send.py [--messages 20000] [--repeats 5] [--size 2000]

Serves one WebSocket with the server's uvicorn config (`uvicorn_config`, whose protocol
offers `SEND_NOW`: server/wsfast.py) in a thread of this process; a reader process
connects and reads everything. For each repeat the server pushes `--messages` messages
of `--size` characters through a `Client` (server/connection.py), four at a time as a
broadcast does, twice: with `send_now` ("direct": each message written in `push`) and
without ("queued": a writer task awaits the ASGI `send` for each). Prints the server
thread's CPU time per message (`time.thread_time`, the kernel's write included), each
repeat and the median, and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

import uvicorn

from shengji.server.app import uvicorn_config
from shengji.server.connection import SEND_NOW, Client
from shengji.server.localcluster import free_port

READER = """
import sys
from websockets.sync.client import connect
with connect(sys.argv[1], max_size=None) as ws:
    for _ in ws:
        pass
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--messages", type=int, default=20_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--size", type=int, default=2000, help="characters per message")
    args = p.parse_args()
    n, text = args.messages, "x" * args.size
    results: dict[str, list[float]] = {"queued": [], "direct": []}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        mode = scope["path"].strip("/")
        now = scope["extensions"].get(SEND_NOW) if mode == "direct" else None
        if mode == "direct" and now is None:
            raise SystemExit("this uvicorn offers no synchronous send (server/wsfast.py)")
        c = Client(rate=1e9, burst=1e9, max_queue=10**7)

        async def asend(t: str) -> None:
            await send({"type": "websocket.send", "text": t})

        pump = asyncio.create_task(c.pump(asend, now))
        await asyncio.sleep(0.05)
        t0 = time.thread_time()
        for i in range(n):
            c.push(text)
            if i % 4 == 3:
                await asyncio.sleep(0)  # one broadcast (4 seats), then the loop runs
        while c.queue or c._writer is not None:
            await asyncio.sleep(0)
        results[mode].append((time.thread_time() - t0) / n * 1e6)
        c.close()
        await pump
        await send({"type": "websocket.close", "code": 1000})

    port = free_port()
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        for _ in range(args.repeats):  # the two take turns: a slow minute falls on both
            for mode in ("queued", "direct"):
                subprocess.run([sys.executable, "-c", READER, f"ws://127.0.0.1:{port}/{mode}"],
                               check=True)
    finally:
        server.should_exit = True
        thread.join(10)
    print(f"{n} messages of {args.size} characters x {args.repeats} repeats, server thread"
          " CPU per message (µs):")
    med = {}
    for mode, xs in results.items():
        med[mode] = statistics.median(xs)
        print(f"  {mode:7s} {' '.join(f'{x:6.1f}' for x in xs)}   median {med[mode]:6.1f}")
    print(f"direct / queued: {med['direct'] / med['queued']:.2f}")


if __name__ == "__main__":
    main()

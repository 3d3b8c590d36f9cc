"""The relay (Redis pub/sub): a WebSocket held by one worker, its table driven by another.

The holding worker checks each frame's size and rate, then publishes it to the owner's
inbox channel; the owner keeps a `RemoteClient` among the table's clients and publishes
what it sends to the holding worker's channel. One task publishes, in order; one
listens, and heals after Redis comes back (`Relay._listen`)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import logging
from typing import TYPE_CHECKING, Any

from ..connection import Client, frame_refusal
from .keys import (
    CLOSE_RESTART,
    RELAY_MAX_UNPUBLISHED,
    in_channel,
    out_channel,
)
from .store import ClusterStore

if TYPE_CHECKING:
    from fastapi import WebSocket

    from ..manager import Manager

log = logging.getLogger(__name__)


class RemoteClient(Client):
    """A connection held by another worker: what the table sends it is published there."""

    def __init__(self, cluster: Relay, conn: str, host: str, *, addr: str) -> None:
        super().__init__(rate=cluster.manager.rate, burst=cluster.manager.burst, addr=addr)
        self.cluster = cluster
        self.conn = conn
        self.host = host
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False

    # the holding worker counted each frame against the rate before publishing it
    # (`Cluster._relay_refusal`): counting it again here, after Redis may have bunched
    # frames together, would refuse frames a direct connection would have had applied
    rate_checked_here = False

    def push(self, text: str) -> None:
        """Publish one message to the worker holding the connection."""
        if not self.closed:
            self.cluster.publish(out_channel(self.host), {"c": self.conn, "x": text})

    def close(self, code: int | None = None) -> None:
        """Ask the hosting worker to close the WebSocket."""
        if not self.closed:
            self.closed = True
            self.cluster.publish(out_channel(self.host),
                                 {"c": self.conn, "k": "close", "code": code})


class Relay:
    """The relay's part of a `Cluster` (both sides: holding and owning); its state is
    set up by `_init_relay`."""

    manager: Manager
    store: ClusterStore
    redis: Any
    id: str
    hello_timeout_s: float

    def _init_relay(self) -> None:
        self._outq: asyncio.Queue[tuple[str, str, str | None]] = asyncio.Queue()
        # relayed connection -> its frames queued here and not yet published (`relay`)
        self._unpublished: collections.Counter[str] = collections.Counter()
        self._remote: dict[str, RemoteClient] = {}  # owner side: conn -> its client
        self._relayed: dict[str, tuple[Client, str, str]] = {}  # conn -> client, owner, table
        self._ids = itertools.count()
        self._pubsub: Any = None
        # the relay's listener is subscribed (`_listen`); while it is not, this worker
        # does not advertise itself (no alive key) and holds no relayed connection
        self.listening = False
        self.resubscribed = 0  # times the listener came back after losing Redis

    async def _reannounce(self) -> None:
        """After Redis came back: say again who this worker is (presence, `Cluster`)."""
        raise NotImplementedError

    # -- publishing (one connection, one order) ------------------------------------------
    def publish(self, channel: str, payload: dict[str, Any], conn: str | None = None) -> None:
        """Queue a message; one task publishes them in order. `conn`: the relayed
        connection it comes from (its unpublished frames are counted, `relay`)."""
        if conn is not None:
            self._unpublished[conn] += 1
        self._outq.put_nowait((channel, json.dumps(payload, separators=(",", ":")), conn))

    def _published(self, batch: list[tuple[str, str, str | None]]) -> None:
        """A batch left this worker (or was lost): its connections' frames are no longer
        waiting."""
        for _, _, conn in batch:
            if conn is not None:
                left = self._unpublished[conn] - 1
                if left > 0:
                    self._unpublished[conn] = left
                else:
                    self._unpublished.pop(conn, None)

    async def _flush_out(self) -> None:
        batch: list[tuple[str, str, str | None]] = []
        while not self._outq.empty():
            batch.append(self._outq.get_nowait())
        if batch:
            pipe = self.redis.pipeline(transaction=False)
            for ch, data, _ in batch:
                pipe.publish(ch, data)
            await pipe.execute()

    async def _publisher(self) -> None:
        while True:
            first = await self._outq.get()
            batch = [first]
            while not self._outq.empty() and len(batch) < 500:
                batch.append(self._outq.get_nowait())
            pipe = self.redis.pipeline(transaction=False)
            for ch, data, _ in batch:
                pipe.publish(ch, data)
            try:
                await pipe.execute()
            except Exception:  # Redis away: these frames are lost, clients will resync
                log.exception("cluster: could not publish %d frames", len(batch))
            finally:
                self._published(batch)

    async def _subscribe(self) -> None:
        """Subscribe (again) to this worker's two channels on a fresh pub/sub connection."""
        old, self._pubsub = self._pubsub, None
        if old is not None:
            with contextlib.suppress(Exception):
                await old.aclose()
        pubsub = self.redis.pubsub()
        try:
            await pubsub.subscribe(in_channel(self.id), out_channel(self.id))
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise
        self._pubsub = pubsub
        self.listening = True


    def _relay_down(self) -> None:
        """The listener lost Redis: frames to and from this worker no longer arrive, so
        every relayed connection is closed with 1012 (the clients reconnect, to a worker
        that can serve them) and the owner-side clients of other workers' relays are
        dropped. Until it has resubscribed the worker does not advertise itself."""
        self.listening = False
        for conn, (client, _, _) in list(self._relayed.items()):
            client.close(CLOSE_RESTART)
            self._relayed.pop(conn, None)
        for conn in list(self._remote):
            rc = self._remote.pop(conn)
            rc.close(CLOSE_RESTART)  # (published if Redis is back; its holder heals too)
            rc.inbox.put_nowait(None)  # `_serve_remote` detaches it from its table

    async def _listen(self) -> None:
        """Read the relay's frames; if Redis goes away, close the relays and resubscribe
        with a growing pause (0.1 s to 2 s), logging the loss and the return once each."""
        pause = 0.1
        while True:
            try:
                if self._pubsub is None:
                    await self._subscribe()
                    await self._reannounce()
                    self.resubscribed += 1
                    log.warning("cluster: relay listener resubscribed to Redis")
                    pause = 0.1
                msg = await self._pubsub.get_message(ignore_subscribe_messages=True,
                                                     timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: heal, never end the task
                if self.listening or self._pubsub is not None:
                    log.warning("cluster: relay listener lost Redis (%s); relayed "
                                "connections closed, resubscribing", exc)
                    self._relay_down()
                    old, self._pubsub = self._pubsub, None
                    if old is not None:
                        with contextlib.suppress(Exception):
                            await old.aclose()
                await asyncio.sleep(pause)
                pause = min(2.0, pause * 2)
                continue
            if msg is None:
                continue
            try:
                data = json.loads(msg["data"])
                if msg["channel"] == in_channel(self.id):
                    self._inbound(data)
                else:
                    self._outbound(data)
            except Exception:  # noqa: BLE001 - one bad frame must not stop the relay
                log.exception("cluster: bad relay frame")


    async def relay(self, ws: WebSocket, owner: str, table_id: str, addr: str) -> None:
        """Serve an (accepted) WebSocket whose table another worker owns."""
        from starlette.websockets import WebSocketState

        if not self.listening:  # no relay until resubscribed: reconnect (maybe elsewhere)
            with contextlib.suppress(Exception):
                await ws.close(code=CLOSE_RESTART)
            return

        conn = f"{self.id}:{next(self._ids)}"
        client = self.manager.new_client(addr)
        self._relayed[conn] = (client, owner, table_id)
        inbox = in_channel(owner)
        self.publish(inbox, {"k": "open", "c": conn, "w": self.id, "t": table_id, "a": addr})

        async def pump() -> None:
            with contextlib.suppress(Exception):
                await client.pump(ws.send_text)
                if ws.application_state == WebSocketState.CONNECTED:
                    code = 1013 if client.too_slow else (client.close_code or 1000)
                    await ws.close(code=code)

        writer = asyncio.create_task(pump())
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                text = msg.get("text")
                if text is None:
                    try:
                        text = (msg.get("bytes") or b"").decode("utf-8")
                    except UnicodeDecodeError:
                        client.error("malformed message: not UTF-8 text")
                        continue
                if not self._relay_frame(client, conn, inbox, text):
                    with contextlib.suppress(Exception):
                        await ws.close(code=1013, reason="too slow")
                    break
        except Exception:  # noqa: BLE001 - a dropped socket
            pass
        finally:
            self._relayed.pop(conn, None)
            self.publish(inbox, {"k": "close", "c": conn})
            client.close()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    def _relay_refusal(self, client: Client, text: str) -> str | None:
        """Why a frame from a relayed socket is not published (None: it is): the limits
        a directly connected client's frames meet (`connection.frame_refusal`), checked
        here so an oversized or too-fast frame never reaches Redis."""
        return frame_refusal(client, text)

    def _relay_frame(self, client: Client, conn: str, inbox: str, text: str) -> bool:
        """Publish one frame of a relayed socket to its table's owner, or refuse it to its
        sender as a direct connection would be refused. False: the connection is cut off
        (close 1013) because `RELAY_MAX_UNPUBLISHED` of its frames still wait here for
        Redis: a relay that cannot keep up is closed rather than queued without bound."""
        refused = self._relay_refusal(client, text)
        if refused is not None:
            client.error(refused)
            return True
        if self._unpublished[conn] >= RELAY_MAX_UNPUBLISHED:
            log.warning("cluster: relayed connection %s cut off: %d frames unpublished",
                        conn, self._unpublished[conn])
            return False
        self.publish(inbox, {"k": "msg", "c": conn, "x": text}, conn)
        return True

    def _outbound(self, data: dict[str, Any]) -> None:
        """A frame from an owner for a connection this worker holds."""
        entry = self._relayed.get(data.get("c", ""))
        if entry is None:
            return
        client = entry[0]
        if data.get("k") == "close":
            client.close(data.get("code") or 1000)
            self._relayed.pop(data["c"], None)
        else:
            client.push(data["x"])

    # -- the owner's side of the relay ---------------------------------------------------
    def _inbound(self, data: dict[str, Any]) -> None:
        kind, conn = data.get("k"), data.get("c", "")
        if kind == "open":
            rc = RemoteClient(self, conn, str(data.get("w")), addr=str(data.get("a", "")))
            self._remote[conn] = rc
            asyncio.create_task(self._serve_remote(rc, str(data.get("t"))))
            return
        rc_ = self._remote.get(conn)
        if rc_ is None:
            return
        if kind == "msg":
            if rc_.inbox.qsize() >= RELAY_MAX_UNPUBLISHED:  # the table cannot keep up with it
                log.warning("cluster: remote connection %s cut off: %d frames unread",
                            conn, rc_.inbox.qsize())
                rc_.close(1013)
                rc_.inbox.put_nowait(None)
                return
            rc_.inbox.put_nowait(str(data.get("x", "")))
        elif kind == "close":
            rc_.inbox.put_nowait(None)

    async def _serve_remote(self, rc: RemoteClient, table_id: str) -> None:
        table = self.manager.tables.get(table_id)
        if table is None or not self.store.owns(table_id):
            table = await self.manager.get(table_id) if await self.store.own_table(
                table_id) else None
        if table is None:
            self._remote.pop(rc.conn, None)
            rc.close(CLOSE_RESTART)  # not (or no longer) ours: reconnect and be routed
            return
        table.attach(rc)
        loop = asyncio.get_running_loop()
        hello_by = loop.time() + self.hello_timeout_s
        try:
            while True:
                if rc.greeted:
                    text = await rc.inbox.get()
                else:
                    try:
                        text = await asyncio.wait_for(
                            rc.inbox.get(), max(0.0, hello_by - loop.time()))
                    except TimeoutError:
                        rc.close(4408)
                        break
                if text is None or rc.closed:
                    break
                await table.handle(rc, text)
        finally:
            self._remote.pop(rc.conn, None)
            table.detach(rc)


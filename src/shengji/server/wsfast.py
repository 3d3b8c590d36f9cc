"""uvicorn's WebSocket protocol with a synchronous send for the server's own messages.

Through ASGI, every message a table sends goes: `Client.push` queues it, a writer task
is created and scheduled, awaits Starlette's `WebSocket.send_text`, which awaits
uvicorn's `send`, which encodes the frame and writes it to the transport without ever
waiting (unless the transport's buffer is full). At 1,000 tables a worker sends ~3,500
messages a second, so that task and its awaits cost a share of the worker's CPU for
nothing (issue 13).

`SyncSendWSProtocol` puts one more entry in the connection's ASGI scope extensions,
`SEND_NOW`: a plain function that writes a text message at once and returns True, or
changes nothing and returns False when it cannot (the transport paused for a full
buffer, the connection closing or closed, the handshake not done). `Client.push` uses
it when nothing is queued before the message, and queues it for the usual async path
otherwise, so order and the cut-off of a client that stops reading (its queue grows
while the transport is paused) are as before. Under another ASGI server the extension
is absent and every message takes the async path.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .connection import SEND_NOW

#: what `send_now` reads of uvicorn's protocol (its `send` reads the same)
_STATE = ("writable", "disconnected", "close_sent", "handshake_complete", "initial_response",
          "conn", "transport")


class SyncSendWSProtocol(WebSocketsSansIOProtocol):
    """WebSocketsSansIOProtocol whose scope offers `send_now` (see the module)."""

    def handle_connect(self, event: Any) -> None:
        """Accept the upgrade as uvicorn does, then offer `send_now` in the scope (only
        where this uvicorn's protocol has the state `send_now` reads)."""
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # (absent when the upgrade was refused)
        if scope is not None and all(hasattr(self, a) for a in _STATE):
            scope["extensions"][SEND_NOW] = self.send_now

    def send_now(self, text: str) -> bool:
        """Write one text message now, as `send` would ({"type": "websocket.send"});
        False (nothing written) where `send` would wait or refuse."""
        if (
            not self.writable.is_set()
            or self.disconnected
            or self.close_sent
            or not self.handshake_complete
            or self.initial_response is not None
            or self.transport.is_closing()
        ):
            return False
        self.conn.send_text(text.encode())
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True


__all__ = ["SEND_NOW", "SyncSendWSProtocol"]

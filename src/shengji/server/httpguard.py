"""uvicorn's h11 protocol with a header timeout: a client that opens a connection (or
starts a new request on a kept-alive one) must send its request headers within
`HEADER_TIMEOUT_S`, or the connection is closed (slowloris)."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0


class GuardedH11Protocol(H11Protocol):
    """H11Protocol that closes connections whose request headers are late."""

    header_timeout_s = HEADER_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._armed_cycle: Any = None

    def _arm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._armed_cycle = self.cycle
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.cycle is self._armed_cycle and not self.transport.is_closing():
            self.transport.close()  # no new request began since the timer was armed

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the connection's first header timer."""
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        """A request is done: the next one on this connection gets its own header timer."""
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def handle_websocket_upgrade(self, event: Any) -> None:
        """The connection becomes a WebSocket (which has its own hello timeout)."""
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the header timer."""
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)

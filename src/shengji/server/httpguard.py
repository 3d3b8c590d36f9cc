"""uvicorn's h11 protocol with the slow-client defenses of a public server:

- a header timeout: a client that opens a connection (or starts a new request on a
  kept-alive one) must send its request headers within `HEADER_TIMEOUT_S`, or the
  connection is closed (slowloris);
- a body timeout: a request's whole body must arrive within `BODY_TIMEOUT_S` of its
  headers, or the server answers 408 and closes the connection (a body trickled a byte at
  a time would hold a descriptor for ever);
- a cap on concurrent HTTP connections per client address (`MAX_CONNS_PER_ADDR`): the
  next one is answered 429 and closed at once, so one address cannot use up the
  process's descriptors. The peer address is the socket's: a trusted proxy (uvicorn's
  `forwarded_allow_ips`, when `proxy_headers` is on) is not capped, as every visitor
  comes through it; the proxy must cap its clients itself (nginx `limit_conn`). An
  upgraded WebSocket leaves this count (WebSockets have their own per-address cap);
- a cap on the request head (`MAX_HEAD`, 16 KiB): a head above it is answered 431 and the
  connection closed, whether it arrives in one segment (h11 would parse it) or trickles
  in (h11's own limit would answer a bare 400).
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections import Counter
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 10.0
MAX_CONNS_PER_ADDR = 64
MAX_HEAD = 16 * 1024  # request line and headers, bytes (README: 16 KiB)

log = logging.getLogger(__name__)

# Open HTTP connections per client address, one Counter per uvicorn server.
_OPEN: weakref.WeakKeyDictionary[Any, Counter[str]] = weakref.WeakKeyDictionary()


def _refusal(status: int, reason: bytes, detail: str, code: str) -> bytes:
    body = json.dumps({"detail": detail, "code": code, "field": None}).encode()
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n" % (status, reason, len(body))) + body


def _trusted(config: Any, host: str) -> bool:
    """Whether `host` is a proxy whose X-Forwarded-For uvicorn trusts."""
    if not getattr(config, "proxy_headers", False):
        return False
    try:
        from uvicorn.middleware.proxy_headers import _TrustedHosts
    except ImportError:  # another uvicorn: a plain comparison of the listed addresses
        allowed = config.forwarded_allow_ips
        items = allowed.split(",") if isinstance(allowed, str) else list(allowed)
        return any(i.strip() in ("*", host) for i in items)
    return host in _TrustedHosts(config.forwarded_allow_ips)


class GuardedH11Protocol(H11Protocol):
    """H11Protocol that closes connections whose request headers are late."""

    header_timeout_s = HEADER_TIMEOUT_S
    body_timeout_s = BODY_TIMEOUT_S
    max_conns_per_addr = MAX_CONNS_PER_ADDR
    max_head = MAX_HEAD

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._armed_cycle: Any = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._counted: str | None = None  # the address this connection is counted under
        self._open = _OPEN.setdefault(self.server_state, Counter())

    def _arm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._armed_cycle = self.cycle
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.cycle is self._armed_cycle and not self.transport.is_closing():
            self.transport.close()  # no new request began since the timer was armed

    def _uncount(self) -> None:
        if self._counted is not None:
            self._open[self._counted] -= 1
            if self._open[self._counted] <= 0:
                del self._open[self._counted]
            self._counted = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Count the connection under its address (refusing one too many with 429), and
        start its first header timer."""
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        if host is not None and not _trusted(self.config, host):
            if self._open[host] >= self.max_conns_per_addr:
                log.warning("refused an HTTP connection from %s: %d open (the limit)",
                            host, self._open[host])
                transport.write(_refusal(
                    429, b"Too Many Requests",
                    f"too many connections from your address (limit {self.max_conns_per_addr})",
                    "rate_limited"))
                transport.close()
                return
            self._open[host] += 1
            self._counted = host
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Refuse a request head above `max_head` bytes with 431 before h11 parses it."""
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            head = self.conn.trailing_data[0] + data  # the next request's head so far
            ends = [i for i in (head.find(b"\n\r\n"), head.find(b"\n\n")) if i >= 0]
            size = len(head) if not ends else min(ends) + 1
            if size > self.max_head:
                log.info("refused a request from %s: its head is over %d bytes",
                         self.client[0] if self.client else "?", self.max_head)
                self.transport.write(_refusal(
                    431, b"Request Header Fields Too Large",
                    f"request head too large (limit {self.max_head} bytes)", "too_large"))
                self.transport.close()
                return
        super().data_received(data)

    def handle_events(self) -> None:
        """uvicorn's events; a request whose body is still to come gets a body timer."""
        before = self.cycle
        super().handle_events()
        cycle = self.cycle
        if cycle is not None and cycle is not before and cycle.more_body \
                and not self.transport.is_closing():
            if self._body_timer is not None:
                self._body_timer.cancel()
            self._body_timer = self.loop.call_later(
                self.body_timeout_s, self._body_late, cycle)

    def _body_late(self, cycle: Any) -> None:
        self._body_timer = None
        if cycle is not self.cycle or not cycle.more_body or self.transport.is_closing():
            return  # the body arrived (or the connection went) in time
        log.info("closed a request from %s: its body did not arrive within %.0f s",
                 self.client[0] if self.client else "?", self.body_timeout_s)
        if not cycle.response_started:
            body = json.dumps({
                "detail": f"the request body did not arrive within {self.body_timeout_s:g} s",
                "code": "timeout", "field": None}).encode()
            try:
                out = self.conn.send(h11.Response(status_code=408, reason=b"Request Timeout",
                    headers=[(b"content-type", b"application/json"),
                             (b"content-length", str(len(body)).encode()),
                             (b"connection", b"close")]))
                out = (out or b"") + (self.conn.send(h11.Data(data=body)) or b"")
                out += self.conn.send(h11.EndOfMessage()) or b""
            except h11.LocalProtocolError:
                out = b""
            cycle.response_started = True  # the application's own answer is not sent
            self.transport.write(out)
        self.transport.close()

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
        self._uncount()
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the timers; the connection leaves its address's count."""
        for timer in (self._header_timer, self._body_timer):
            if timer is not None:
                timer.cancel()
        self._header_timer = self._body_timer = None
        self._uncount()
        super().connection_lost(exc)

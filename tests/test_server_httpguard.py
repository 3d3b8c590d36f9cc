"""Issue 28, item 4: slow request bodies time out (408), HTTP connections are capped per
client address (429), and an aborted body logs one line, not a traceback (a live uvicorn
server over real sockets)."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from server_harness import live_server

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]

HEAD = (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n")


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def _read_all(s: socket.socket) -> bytes:
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    return out


class _Records(logging.Handler):
    """Every record of the loggers it is attached to; `wait` for one whose message holds
    a string."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.cond = threading.Condition()

    def detach(self) -> None:
        """Leave the loggers (set by `_attach`)."""

    def emit(self, record: logging.LogRecord) -> None:
        with self.cond:
            self.records.append(record)
            self.cond.notify_all()

    def wait(self, text: str, timeout: float = 20.0) -> logging.LogRecord | None:
        with self.cond:
            found: list[logging.LogRecord] = []

            def seen() -> bool:
                found[:] = [r for r in self.records if text in r.getMessage()]
                return bool(found)

            self.cond.wait_for(seen, timeout)
            return found[0] if found else None


@pytest.fixture
def records() -> Iterator[_Records]:
    handler = _Records()
    yield handler
    handler.detach()


def _attach(handler: _Records) -> None:
    """Attach after the server started (uvicorn's logging config drops earlier handlers)."""
    loggers = [logging.getLogger(n) for n in ("uvicorn.error", "shengji")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.INFO)

    def detach() -> None:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(handler)
            lg.setLevel(level)

    handler.detach = detach  # type: ignore[method-assign]


def test_a_trickled_body_is_answered_408_and_closed(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite", guard={"body_timeout_s": 0.3}) as base:
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=20) as s:
            s.sendall(HEAD + b'{"na')  # 4 of the 100 bytes announced, then nothing
            reply = _read_all(s)  # the server answers and closes (a timeout would raise)
        assert reply.startswith(b"HTTP/1.1 408 "), reply
        assert b'"code":"timeout"' in reply.replace(b" ", b"")
        # A body sent in time is served as before.
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=20) as s:
            body = b'{"name": "on time"}'
            s.sendall(HEAD.replace(b"100", str(len(body)).encode()).replace(
                b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n") + body)
            assert _read_all(s).startswith(b"HTTP/1.1 200 ")


def test_http_connections_per_address_are_capped(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite", guard={"max_conns_per_addr": 3},
                     uvicorn_options={"proxy_headers": False}) as base:
        addr = ("127.0.0.1", _port(base))
        held = [socket.create_connection(addr, timeout=20) for _ in range(3)]
        try:
            with socket.create_connection(addr, timeout=20) as s:  # the 4th: refused
                reply = _read_all(s)
            assert reply.startswith(b"HTTP/1.1 429 "), reply
            assert b"too many connections from your address (limit 3)" in reply
            # One held connection finishes a request and is closed by the server (its
            # EOF comes after the server let go of it): a new connection is served.
            held[0].sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            b"Connection: close\r\n\r\n")
            assert _read_all(held[0]).startswith(b"HTTP/1.1 200 ")
            with socket.create_connection(addr, timeout=20) as s:
                s.sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          b"Connection: close\r\n\r\n")
                assert _read_all(s).startswith(b"HTTP/1.1 200 ")
        finally:
            for s in held:
                s.close()


def test_a_trusted_proxy_is_not_capped(tmp_path: Path) -> None:
    # uvicorn trusts X-Forwarded-For from 127.0.0.1 by default: every visitor comes
    # through that address, so it is not the one to cap.
    with live_server(tmp_path / "db.sqlite", guard={"max_conns_per_addr": 1}) as base:
        addr = ("127.0.0.1", _port(base))
        with socket.create_connection(addr, timeout=20) as first:
            with socket.create_connection(addr, timeout=20) as s:
                s.sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          b"Connection: close\r\n\r\n")
                assert _read_all(s).startswith(b"HTTP/1.1 200 ")
            first.sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          b"Connection: close\r\n\r\n")
            assert _read_all(first).startswith(b"HTTP/1.1 200 ")


def test_an_aborted_body_logs_one_line(tmp_path: Path, records: _Records) -> None:
    with live_server(tmp_path / "db.sqlite") as base:
        _attach(records)
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=20) as s:
            s.sendall(HEAD + b'{"na')  # then the client goes
        line = records.wait("disconnected before its request body arrived")
        assert line is not None, [r.getMessage() for r in records.records]
        assert line.exc_info is None
    # The server has stopped: nothing else was logged with a traceback.
    assert [r.getMessage() for r in records.records if r.exc_info] == []


def test_a_chunked_body_over_16_kib_is_answered_413(tmp_path: Path) -> None:
    # Issue 28 (Low): a chunked body has no Content-Length to check; it answered 500.
    with live_server(tmp_path / "db.sqlite") as base:
        head = (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b'{"name": "' + b"x" * 4000
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=20) as s:
            s.sendall(head)
            for _ in range(5):  # 20 KB in five chunks
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            s.sendall(b"0\r\n\r\n")
            reply = _read_all(s)
        assert reply.startswith(b"HTTP/1.1 413 "), reply[:200]
        assert b'"code":"too_large"' in reply.replace(b" ", b"")
        # A small chunked body is still served.
        body = b'{"name": "chunked"}'
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=20) as s:
            s.sendall(head.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")
                      + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
            reply = _read_all(s)
        assert reply.startswith(b"HTTP/1.1 200 "), reply[:300]
        assert b"host_token" in reply


@pytest.mark.parametrize("segments", [1, 3])
def test_a_request_head_over_16_kib_is_answered_431(tmp_path: Path, segments: int) -> None:
    # Issue 28 (Low): a 20 KB head sent in one segment was accepted (h11 parses a
    # complete head of any size; its own limit covers incomplete ones, with a bare 400).
    head = (b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 20_000
            + b"\r\nConnection: close\r\n\r\n")
    with live_server(tmp_path / "db.sqlite") as base:
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=20) as s:
            step = -(-len(head) // segments)
            for i in range(0, len(head), step):
                with contextlib.suppress(OSError):  # the server may close mid-send
                    s.sendall(head[i:i + step])
            reply = _read_all(s)
        assert reply.startswith(b"HTTP/1.1 431 "), reply[:200]
        assert b"request head too large (limit 16384 bytes)" in reply
        # A head of 15 KB is served.
        ok = head.replace(b"a" * 20_000, b"a" * 15_000)
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=20) as s:
            s.sendall(ok)
            assert _read_all(s).startswith(b"HTTP/1.1 200 ")

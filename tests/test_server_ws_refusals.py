"""Issue 28 (Low): a refused WebSocket (a foreign Origin, one connection too many from an
address) is accepted and then closed with its documented code (4403, 4429), so a client
can tell them apart; refused at the handshake, both were a bare HTTP 403. Over real
WebSockets to a live uvicorn server."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server_harness import live_server, next_state

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


def _refusal_code(url: str, **kwargs: object) -> int:
    """The close code of a WebSocket that the server refuses (it is opened, then closed)."""
    with connect(url, open_timeout=20, **kwargs) as ws, \
            pytest.raises(ConnectionClosed) as info:  # type: ignore[arg-type]
        ws.send(json.dumps({"type": "hello", "token": None}))
        ws.recv(timeout=20)
    assert info.value.rcvd is not None
    return int(info.value.rcvd.code)


def test_a_foreign_origin_and_a_connection_too_many_close_with_their_codes(
    tmp_path: Path,
) -> None:
    with live_server(tmp_path / "db.sqlite", conns_per_addr=2,
                     uvicorn_options={"proxy_headers": False}) as base:
        tid = httpx.post(f"{base}/api/tables", json={"name": "t"}).json()["id"]
        url = base.replace("http://", "ws://") + f"/ws/{tid}"
        assert _refusal_code(url, origin="https://evil.example") == 4403  # type: ignore[arg-type]
        with ExitStack() as stack:
            for _ in range(2):
                ws = stack.enter_context(connect(url, open_timeout=20))
                ws.send(json.dumps({"type": "hello", "token": None}))
                assert next_state(ws)["you"] is None
            assert _refusal_code(url) == 4429

"""Issue 7 findings on a public server: one writer per database, integrity check, limits,
timeouts, security headers and the Origin check (real HTTP, real WebSockets, real files)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from server_harness import WSPlayer, live_server, new_table, on_loop, serve
from shengji.server.doctor import check_database
from shengji.server.storage import DatabaseDamaged, DatabaseLocked

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


def _url(db: Path) -> str:
    return f"sqlite+aiosqlite:///{db}"


# -- finding 4: one writer per SQLite file -----------------------------------------------------
def test_a_second_server_on_the_same_sqlite_file_refuses_to_start(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db):
        with pytest.raises(DatabaseLocked, match=str(db)), serve(db):
            pass
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
        out = subprocess.run(
            [sys.executable, "-m", "shengji.server", "--port", "0", "--db", _url(db),
             "--log-level", "warning"],
            capture_output=True, text=True, timeout=30, env=env,
        )
        assert out.returncode == 2, out.stderr
        assert "another shengji server is already using the database" in out.stderr
    with serve(db):  # the lock goes with the server
        pass


# -- finding 6: a damaged file stops the server ------------------------------------------
def test_a_damaged_database_file_stops_the_server_and_doctor_reports_it(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db) as client:
        for _ in range(3):
            new_table(client)
    ok, lines = check_database(_url(db))
    assert ok and any("integrity: ok" in x for x in lines), lines
    size = db.stat().st_size
    assert size >= 3 * 4096
    with db.open("r+b") as f:  # 4 KiB of garbage over the second page
        f.seek(4096)
        f.write(os.urandom(4096))
    with pytest.raises(DatabaseDamaged, match=str(db)), serve(db):
        pass
    ok, lines = check_database(_url(db))
    assert not ok and any("DAMAGED" in x for x in lines), lines
    from shengji.cli import app

    result = CliRunner().invoke(app, ["doctor", "--db", _url(db)])
    assert result.exit_code == 1 and "DAMAGED" in result.output, result.output


# -- finding 5: limits ---------------------------------------------------------------------------
def test_table_creation_is_limited_per_address(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", create_per_min=3) as client:
        for _ in range(3):
            new_table(client)
        r = client.post("/api/tables", json={"name": "flood"})
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    with serve(tmp_path / "db2.sqlite", open_per_addr=2) as client:
        for _ in range(2):
            new_table(client)
        r = client.post("/api/tables", json={"name": "flood"})
        assert r.status_code == 429 and r.json()["code"] == "too_many_tables"
        assert len(client.get("/api/tables").json()) == 2


def test_request_bodies_are_capped(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        big = {"name": "t", "options": {}, "pad": "x" * 20_000}
        r = client.post("/api/tables", json=big)
        assert r.status_code == 413 and r.json()["code"] == "too_large"
    with live_server(tmp_path / "db2.sqlite") as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            # A 10 MB body announced: refused at once, before a byte of it is read.
            s.sendall(b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n")
            reply = s.recv(4096)
        assert reply.startswith(b"HTTP/1.1 413"), reply


def test_a_websocket_without_hello_is_closed(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", hello_timeout_s=0.3) as client:
        tid, _ = new_table(client)
        p = WSPlayer(client, tid)
        with pytest.raises(ConnectionError, match="4408"):
            p.recv(timeout=10)
        p.close()
        q = WSPlayer(client, tid)  # one that says hello stays
        q.hello()
        q.sync()
        q.close()


def test_a_half_sent_http_request_is_closed(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite", header_timeout_s=0.3) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
            assert s.recv(4096) == b""  # closed by the server (a timeout would raise)
        # A whole request on a kept-alive connection still works.
        with httpx.Client(base_url=base) as http:
            assert http.get("/api/tables").status_code == 200
            assert http.get("/api/tables").status_code == 200


def test_websocket_connections_per_address_are_capped(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", conns_per_addr=2) as client:
        tid, _ = new_table(client)
        a, b = WSPlayer(client, tid), WSPlayer(client, tid)
        a.hello()
        b.hello()
        refused = WSPlayer(client, tid)  # accepted, then closed with the code
        with pytest.raises(ConnectionError, match="4429"):
            refused.recv()
        refused.close()
        b.close()
        d = WSPlayer(client, tid)  # a slot is free again
        d.hello()
        d.close()
        a.close()


def test_tables_nobody_watches_leave_memory_and_load_on_demand(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", abandon_after_s=0.0, evict_after_s=0.0) as client:
        tid, host = new_table(client)
        watched, _ = new_table(client)
        w = WSPlayer(client, watched)
        w.hello()
        manager: Any = client.app.state.manager  # type: ignore[attr-defined]

        async def evict() -> list[str]:
            out: list[str] = await manager.evict_idle()
            return out

        evicted = client.portal.call(evict)  # type: ignore[union-attr]
        assert evicted == [tid]
        assert on_loop(client, lambda: sorted(manager.tables)) == [watched]
        assert client.get(f"/api/tables/{tid}").json()["id"] == tid  # loaded again
        assert tid in on_loop(client, lambda: list(manager.tables))
        p = WSPlayer(client, tid)
        assert p.hello(host)["is_host"] is True
        p.close()
        w.close()


# -- security headers, Origin, no CORS, no public OpenAPI ----------------------------------
def test_security_headers_and_no_public_openapi(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        for path in ("/", "/api/tables", "/static/i18n/en.json"):
            h = client.get(path).headers
            assert "frame-ancestors 'none'" in h["content-security-policy"], path
            assert "default-src 'self'" in h["content-security-policy"]
            assert h["x-content-type-options"] == "nosniff"
            assert h["referrer-policy"] == "no-referrer"
        assert client.get("/openapi.json").status_code == 404
        assert client.get("/docs").status_code == 404
        r = client.options("/api/tables", headers={
            "origin": "http://evil.example", "access-control-request-method": "POST"})
        assert "access-control-allow-origin" not in r.headers
    with serve(tmp_path / "db2.sqlite", debug=True) as client:
        assert client.get("/openapi.json").status_code == 200


def test_foreign_origins_are_refused(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", allow_origins=("https://friends.example",)) as client:
        evil = {"origin": "http://evil.example"}
        r = client.post("/api/tables", json={"name": "t"}, headers=evil)
        assert r.status_code == 403 and r.json()["code"] == "bad_origin"
        assert client.get("/api/tables").json() == []
        same = client.post("/api/tables", json={"name": "t"},
                           headers={"origin": "http://testserver"})
        assert same.status_code == 200
        ok = client.post("/api/tables", json={"name": "t"},
                         headers={"origin": "https://friends.example"})
        assert ok.status_code == 200
        tid = same.json()["id"]
        with pytest.raises(WebSocketDisconnect) as info, \
                client.websocket_connect(f"/ws/{tid}", headers=evil) as ws:
            ws.receive_json()  # accepted, then closed with the code
        assert info.value.code == 4403
        with client.websocket_connect(f"/ws/{tid}", headers={"origin": "http://testserver"}) \
                as ws:
            ws.send_json({"type": "hello", "token": None})
            assert ws.receive_json()["type"] == "state"


def test_table_websockets_skip_the_framework_stack_and_others_do_not(tmp_path: Path) -> None:
    """`/ws/{table_id}` goes from the Guard straight to its endpoint (fewer long-lived
    objects per connection); its replies are the same, and a path FastAPI would not
    match (two segments, none) is still refused by FastAPI's router."""
    from shengji.server.app import Guard

    with serve(tmp_path / "db.sqlite") as client:
        guard = client.app
        assert isinstance(guard, Guard)
        ws = {"type": "websocket", "root_path": ""}
        assert guard._table_ws({**ws, "path": "/ws/abc"}) == "abc"
        assert guard._table_ws({**ws, "path": "/app/ws/abc", "root_path": "/app"}) == "abc"
        for path in ("/ws/", "/ws/a/b", "/wsx/abc", "/api/ws/abc"):
            assert guard._table_ws({**ws, "path": path}) is None
        tid, _ = new_table(client)
        with client.websocket_connect(f"/ws/{tid}") as conn:
            conn.send_json({"type": "hello", "token": None})
            assert conn.receive_json()["type"] == "state"
        with client.websocket_connect("/ws/nope") as conn:
            assert conn.receive_json() == {"type": "error", "message": "no such table"}
        with pytest.raises(WebSocketDisconnect), client.websocket_connect(f"/ws/{tid}/x") as c:
            c.receive_json()

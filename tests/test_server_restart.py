"""Crash recovery: a real server process is killed with SIGKILL mid-trick and restarted on
the same database; the table resumes with the same view and the bots go on."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from server_harness import StoreMirror, end_process, sit_with_bots
from server_harness import next_state as state

pytestmark = pytest.mark.timeout(120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`python -m shengji.server` as a subprocess."""

    def __init__(self, db: Path, port: int, log: Path) -> None:
        self.db, self.port, self.log = db, port, log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        cmd = [
            sys.executable, "-m", "shengji.server", "--port", str(self.port),
            "--db", f"sqlite+aiosqlite:///{self.db}", "--deal-ms", "0", "--window-ms", "100",
            "--fast-timings", "--bot-workers", "1",
            "--bot-delay-ms", "0", "--round-pause-ms", "0", "--rate", "1000", "--burst", "1000",
            "--log-level", "warning",
        ]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                if httpx.get(self.base + "/api/tables", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise AssertionError("server did not start:\n" + self.log.read_text())

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()  # SIGKILL: no shutdown code runs
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            end_process(self.proc)


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "x.db", free_port(), tmp_path / "server.log")
    s.start()
    try:
        yield s
    finally:
        s.stop()


class Mirror(StoreMirror):
    """The game as the test reads it from the database (to pick legal moves for seat 0)."""

    def __init__(self, db: Path, table_id: str) -> None:
        self.db, self.table_id = db, table_id
        with sqlite3.connect(db) as con:
            seed, options = con.execute(
                "select seed, options from tables where id = ?", (table_id,)
            ).fetchone()
        super().__init__(seed, json.loads(options))

    def stored(self, start: int, stop: int) -> list[Any]:
        """The stored actions `start` to `stop`, from SQLite."""
        with sqlite3.connect(self.db) as con:
            rows = con.execute(
                "select seq, action from actions where table_id = ? and seq >= ? and seq < ?"
                " order by seq", (self.table_id, start, stop),
            ).fetchall()
        return [json.loads(a) for _, a in rows]


def test_kill_9_mid_trick_then_restart_resumes_the_same_table(server: Server) -> None:
    r = httpx.post(server.base + "/api/tables", json={"name": "crash", "bot_delay_ms": 150})
    tid, host = r.json()["id"], r.json()["host_token"]
    url = f"ws://127.0.0.1:{server.port}/ws/{tid}"
    with connect(url) as ws:
        token = sit_with_bots(ws, host)
        mirror = Mirror(server.db, tid)
        acted = -1
        while True:  # play seat 0 until it must follow in the middle of a trick
            m = state(ws)
            v = m["view"]
            if v["phase"] == "play" and v["to_act"] == 0 and v["current_trick"] \
                    and v["current_trick"]["plays"]:
                break
            move = mirror.move(m)
            if move is not None and m["seq"] != acted:
                acted = m["seq"]
                ws.send(json.dumps({"type": "action", "action": move}))
        before = (m["seq"], m["view"])
        server.kill9()

    server.start()
    with connect(url) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        m = state(ws)
        assert m["you"] == 0 and m["is_host"]
        assert (m["seq"], m["view"]) == before  # the exact same state, seen by the same seat
        # Play, wait until that play is committed (it is broadcast only then), and crash
        # again while the bots (150 ms delay) are still to move.
        move = mirror.move(m)
        assert move is not None
        ws.send(json.dumps({"type": "action", "action": move}))
        while m["seq"] == before[0]:
            m = state(ws)
        assert m["seq"] == before[0] + 1
        after = m["view"]
        server.kill9()

    server.start()
    with connect(url) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        m = state(ws)
        if m["seq"] == before[0] + 1:
            assert m["view"] == after
        # The game goes on: the bots resume on their own, we play when it is our turn.
        acted = -1
        while m["seq"] < before[0] + 6:
            move = mirror.move(m)
            if move is not None and m["seq"] != acted:
                acted = m["seq"]
                ws.send(json.dumps({"type": "action", "action": move}))
            m = state(ws)
        assert m["table"]["status"] == "playing"
    with sqlite3.connect(server.db) as con:
        (n,) = con.execute("select count(*) from actions where table_id = ?", (tid,)).fetchone()
    assert n >= before[0] + 6

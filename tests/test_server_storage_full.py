"""Issue 28 (Low): a full disk. A store whose writes fail ("database or disk is full")
is told to everyone at the table (an `error` with code "storage", the table `paused`),
the table's driver retries now and then instead of 16 times a second, creating a table
answers 503 with a JSON reason, and the log gets one traceback and then rate-limited
lines. Over real WebSockets, with the store's writes made to fail."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

import shengji.server.tables as tables_module
from server_harness import host_table, on_loop, serve

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


class FullDisk:
    """Makes a store's commits fail while `on`, counting the failures."""

    def __init__(self, store: Any, error: Exception) -> None:
        self.on = False
        self.error = error
        self.failures = 0
        self.cond = threading.Condition()
        real = store._run

        async def run(ops: list[Any]) -> None:
            if self.on:
                with self.cond:
                    self.failures += 1
                    self.cond.notify_all()
                raise self.error
            await real(ops)

        store._run = run

    def wait(self, n: int, timeout: float = 20.0) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.failures >= n, timeout)


ERRORS = [
    sa.exc.OperationalError("INSERT INTO actions", {}, sqlite3.OperationalError(
        "database or disk is full")),
    OSError(28, "No space left on device"),
]


@pytest.mark.parametrize("error", ERRORS, ids=["sqlite-full", "oserror"])
def test_a_full_disk_pauses_the_table_tells_the_players_and_logs_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
    error: Exception,
) -> None:
    monkeypatch.setattr(tables_module, "STORAGE_RETRY_S", 0.2)
    caplog.set_level(logging.INFO, logger="shengji")
    with serve(tmp_path / "db.sqlite", deal_ms=20) as client:
        store = client.app.state.store
        disk = FullDisk(store, error)
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
        p.call(lambda: setattr(disk, "on", True))
        err = p.until(lambda m: m["type"] == "error" and m.get("code") == "storage")
        assert "storage is failing" in err["message"]
        paused = p.until(lambda m: m["type"] == "state" and m["table"]["paused"] == "storage")
        seq = paused["seq"]
        # The driver tries again every STORAGE_RETRY_S, not as fast as it can.
        start = time.monotonic()
        assert disk.wait(5)
        assert time.monotonic() - start >= 3 * 0.2 * 0.9
        # A player's chat is refused with the same reason; nothing was applied.
        p.send({"type": "chat", "text": "anyone?"})
        chat_err = p.until(lambda m: m["type"] == "error" and "could not be saved" in m["message"])
        assert chat_err.get("code") == "storage"
        assert p.call(lambda: table.seq) == seq
        # One traceback, then nothing more within the store's rate-limit window.
        storage = [r for r in caplog.records if r.name.startswith("shengji")
                   and r.levelno >= logging.WARNING]
        assert [r for r in storage if r.exc_info], [r.getMessage() for r in storage]
        assert len([r for r in storage if r.exc_info]) == 1, [r.getMessage() for r in storage]
        assert len(storage) <= 2, [r.getMessage() for r in storage]
        # Space again: the table goes on by itself and says so.
        p.call(lambda: setattr(disk, "on", False))
        p.until(lambda m: m["type"] == "state" and m["table"]["paused"] is None
                and m["seq"] > seq)
        assert any("writes succeed again" in r.getMessage() for r in caplog.records)
        assert on_loop(client, lambda: store.trouble.failing) is False


def test_creating_a_table_on_a_full_disk_answers_503(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        disk = FullDisk(client.app.state.store, ERRORS[0])
        disk.on = True
        r = client.post("/api/tables", json={"name": "t"})
        assert r.status_code == 503, r.text
        assert r.json()["code"] == "unavailable"
        assert "storage is failing" in r.json()["detail"]
        assert int(r.headers["retry-after"]) > 0
        disk.on = False
        assert client.post("/api/tables", json={"name": "t"}).status_code == 200


def test_write_failures_log_one_traceback_then_one_line_per_window(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from shengji.server.storage import WriteTrouble

    caplog.set_level(logging.INFO, logger="shengji.server.storage")
    trouble = WriteTrouble(every_s=3600.0)
    for _ in range(1000):
        trouble.failed("actions", ERRORS[0])
    assert [(r.levelname, bool(r.exc_info)) for r in caplog.records] == [("ERROR", True)]
    assert "database or disk is full" in caplog.records[0].getMessage()
    caplog.clear()
    trouble.every_s = 0.0  # every further failure is past the window: one line each
    trouble.failed("chat", ERRORS[1])
    assert [bool(r.exc_info) for r in caplog.records] == [False]
    assert "1001 in all" in caplog.records[0].getMessage()
    trouble.succeeded()
    assert "writes succeed again (1001 failed meanwhile)" in caplog.records[-1].getMessage()

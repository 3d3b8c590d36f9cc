"""Table chat over real WebSockets: cleaned, capped, rate limited, kept, nothing private."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server_harness import WSPlayer, host_table, new_table, seated_host, serve
from shengji.server.chat import KEEP_CHAT, MAX_CHAT, ChatError, clean_chat

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]

Msg = dict[str, Any]


def is_chat(m: Msg) -> bool:
    return bool(m["type"] == "chat")


def test_clean_chat_strips_controls_and_caps_length() -> None:
    assert clean_chat("  hi\n\tthere  ") == "hi there"
    assert clean_chat("a\x00b\x1b[31mc\u202ed\u200be") == "ab[31mcde"  # controls, bidi, ZW
    assert clean_chat("\U0001f468\u200d\U0001f469") == "\U0001f468\u200d\U0001f469"  # ZWJ kept
    assert clean_chat("<script>alert(1)</script>") == "<script>alert(1)</script>"  # text
    assert len(clean_chat("x" * MAX_CHAT)) == MAX_CHAT
    for bad in ("", "   \n", "\x00\x01", "x" * (MAX_CHAT + 1), 5, None, ["hi"]):
        with pytest.raises(ChatError):
            clean_chat(bad)


def test_seats_and_spectators_chat_and_get_the_history_on_reconnect(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db, rate_per_s=1000.0) as client:
        tid, host = new_table(client, spectator_chat=True)
        ann = WSPlayer(client, tid)
        ann.hello(host)
        ann.sit(0, "Ann")
        watcher = WSPlayer(client, tid)
        watcher.hello()
        ann.send({"type": "chat", "text": "hello\x07 <b>all</b>"})
        m = watcher.until(is_chat)
        assert m["messages"][0]["seat"] == 0 and m["messages"][0]["name"] == "Ann"
        assert m["messages"][0]["text"] == "hello <b>all</b>"
        assert set(m["messages"][0]) == {"n", "at", "seat", "name", "text"}  # nothing else
        watcher.send({"type": "chat", "text": "hi from the rail"})
        assert ann.until(is_chat)["messages"][0]["n"] == 0  # its own, echoed to it too
        m = ann.until(is_chat)
        assert (m["messages"][0]["seat"], m["messages"][0]["n"]) == (None, 1)
        # Refusals go to the sender only.
        assert "empty" in ann.error({"type": "chat", "text": " \n "})
        assert "at most" in ann.error({"type": "chat", "text": "y" * (MAX_CHAT + 1)})
        # A new connection gets the last messages first.
        late = WSPlayer(client, tid)
        late.hello()
        hist = late.until(is_chat)
        assert hist["history"] is True
        assert [x["text"] for x in hist["messages"]] == ["hello <b>all</b>", "hi from the rail"]
        for p in (ann, watcher, late):
            p.close()
    with serve(db) as client:  # kept in the database: a restart loses nothing
        p = WSPlayer(client, tid)
        p.hello()
        hist = p.until(is_chat)
        assert [x["n"] for x in hist["messages"]] == [0, 1]
        p.send({"type": "chat", "text": "after the restart"})
        assert p.until(is_chat)["messages"][0]["n"] == 2
        p.close()


def test_chat_is_rate_limited_per_connection_and_keeps_the_last_messages(
    tmp_path: Path,
) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        tid, _ = new_table(client, spectator_chat=True)
        a, b = WSPlayer(client, tid), WSPlayer(client, tid)
        a.hello()
        b.hello()
        for i in range(8):  # a burst of 5, then refused
            a.send({"type": "chat", "text": f"m{i}"})
        a.sync()
        errors = [m for m in a.log if m["type"] == "error"]
        sent = [m for m in a.log if is_chat(m)]
        assert len(sent) == 5 and len(errors) == 3
        assert all("too many chat" in e["message"] for e in errors)
        for i in range(KEEP_CHAT):  # another connection has its own allowance (the
            # address's, shared by both, is refilled too: see test_server_chat_limits.py)
            b.call(lambda: refill(client, tid))
            b.send({"type": "chat", "text": f"b{i}"})
        b.sync()
        late = WSPlayer(client, tid)
        late.hello()
        hist = late.until(is_chat)
        assert len(hist["messages"]) == KEEP_CHAT
        assert hist["messages"][-1]["text"] == f"b{KEEP_CHAT - 1}"
        for p in (a, b, late):
            p.close()


def refill(client: Any, tid: str) -> None:
    """Refill the chat allowance of the table's second connection and the table's
    per-seat and per-address allowances (tests)."""
    table = client.app.state.manager.tables[tid]
    table.clients[1].chat_bucket.tokens = 5.0
    for bucket in table.chat.limiter.buckets.values():
        bucket.tokens = bucket.burst


def test_chat_never_carries_a_view_or_a_token(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
        p.send({"type": "chat", "text": "gl hf"})
        m = p.until(is_chat)
        raw = json.dumps(m)
        assert "view" not in m and "token" not in raw and p.token not in raw
        assert m["messages"][0]["name"] == "Host"
        p.close()


def test_the_replay_shows_the_tables_chat(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
        p.send({"type": "chat", "text": "good game"})
        p.until(is_chat)
        rep = client.get(f"/api/tables/{table.id}/replay").json()
        assert [(m["seat"], m["text"]) for m in rep["chat"]] == [(0, "good game")]
        p.close()


def test_quick_reactions_are_a_fixed_set(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        tid, _ = new_table(client, spectator_chat=True)
        p = WSPlayer(client, tid)
        p.hello()
        p.send({"type": "chat", "reaction": "gg"})
        m = p.until(is_chat)["messages"][0]
        assert (m["reaction"], m["text"], m["seat"]) == ("gg", ":gg:", None)
        assert "reaction must be one of" in p.error({"type": "chat", "reaction": "<script>"})
        assert "reaction must be one of" in p.error({"type": "chat", "reaction": 5})
        p.send({"type": "chat", "text": "just text"})
        assert "reaction" not in p.until(is_chat)["messages"][0]
        p.close()


def test_spectators_read_the_chat_but_write_only_where_the_host_allows_it(tmp_path: Path) -> None:
    """Issue 11: spectators are read-only in the chat by default; the table setting
    `spectator_chat` lets them write."""
    with serve(tmp_path / "db.sqlite", rate_per_s=1000.0) as client:
        tid, host, ann = seated_host(client, 0, "Ann")
        watcher = WSPlayer(client, tid)
        watcher.hello()
        assert "spectators read" in watcher.error({"type": "chat", "text": "hi"})
        assert "spectators read" in watcher.error({"type": "chat", "reaction": "gg"})
        ann.send({"type": "chat", "text": "players only"})
        assert watcher.until(is_chat)["messages"][0]["text"] == "players only"  # it reads
        open_tid, _ = new_table(client, spectator_chat=True)
        assert client.get(f"/api/tables/{open_tid}").json()["settings"]["spectator_chat"] is True
        rail = WSPlayer(client, open_tid)
        rail.hello()
        rail.send({"type": "chat", "text": "hello from the rail"})
        assert rail.until(is_chat)["messages"][0]["seat"] is None
        for bad in (1, "yes", None):
            r = client.post("/api/tables", json={"name": "x", "spectator_chat": bad})
            assert r.status_code == 422 and r.json()["field"] == "spectator_chat"

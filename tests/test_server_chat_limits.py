"""Issue 28 (Low), over real WebSockets: chat's rate limit holds per seat and per client
address, not only per connection; blank-looking or mark-stacked names and messages and
reserved names are refused; a typed ":wow:" is text, never a reaction."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from server_harness import WSPlayer, new_table, seated_host, serve, stored_chat
from shengji.server.chat import (
    ADDR_SHARE,
    CHAT_BURST,
    CHAT_RATE,
    MAX_MARKS,
    ChatError,
    clean_chat,
)
from shengji.server.connection import ClientError, clean_name

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]

Msg = dict[str, Any]
BLANK = ["\u3164", "\u3164\u3164 \u3164", "\u2800\u2800", "\u200b\u200b", "\u115f\u1160",
         "\uffa0", "\u034f", "\u0301\u0301", "\u2062"]


def is_chat(m: Msg) -> bool:
    return bool(m["type"] == "chat")


def test_one_seat_with_ten_connections_shares_one_allowance(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db) as client:
        tid, host, ann = seated_host(client, 0, "Ann")
        conns = [ann] + [WSPlayer(client, tid) for _ in range(9)]
        for c in conns[1:]:
            assert c.hello(ann.token)["you"] == 0  # the same seat, ten times
        start = time.monotonic()
        for c in conns:
            for i in range(5):  # each connection's own burst
                c.send({"type": "chat", "text": f"spam {i}"})
        for c in conns:
            c.sync()
        refill = (time.monotonic() - start) * CHAT_RATE  # what the seat regained meanwhile
        accepted = [m for m in ann.log if is_chat(m) and not m.get("history")]
        refused = [m for c in conns for m in c.log
                   if m["type"] == "error" and "too many chat" in m["message"]]
        # one seat's burst, not 10 × 5 = 50
        assert CHAT_BURST <= len(accepted) <= CHAT_BURST + refill
        assert len(refused) == 50 - len(accepted)
        assert stored_chat(db, tid) == len(accepted)


def test_spectators_of_one_address_share_its_allowance(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db) as client:
        tid, _ = new_table(client, spectator_chat=True)
        conns = [WSPlayer(client, tid) for _ in range(10)]
        for c in conns:
            c.hello()
        start = time.monotonic()
        for c in conns:
            for i in range(5):
                c.send({"type": "chat", "text": f"rail {i}"})
        for c in conns:
            c.sync()
        refill = (time.monotonic() - start) * CHAT_RATE * ADDR_SHARE
        # The address's allowance is twice a connection's (a NAT's spectators share it).
        assert ADDR_SHARE * CHAT_BURST <= stored_chat(db, tid) <= ADDR_SHARE * CHAT_BURST + refill


@pytest.mark.parametrize("text", BLANK)
def test_blank_looking_text_is_refused(text: str) -> None:
    with pytest.raises(ChatError, match="empty"):
        clean_chat(text)
    with pytest.raises(ClientError, match="no visible character"):
        clean_name(text)


def test_stacked_combining_marks_are_refused_but_ordinary_accents_are_kept() -> None:
    with pytest.raises(ChatError, match=f"more than {MAX_MARKS} combining marks"):
        clean_chat("Z" + "\u0301" * 199)
    with pytest.raises(ClientError, match=f"more than {MAX_MARKS} combining marks"):
        clean_name("a" + "\u0300" * (MAX_MARKS + 2))  # NFC takes one
    assert clean_chat("e\u0301") == "\u00e9"  # NFC
    assert clean_name("Nguy\u1ec5n") == "Nguy\u1ec5n"
    assert clean_name("\u0e01\u0e34\u0e48") == "\u0e01\u0e34\u0e48"  # Thai: a base, two marks
    assert clean_chat("hi \u3164 there") == "hi there"  # an invisible filler is a space


def test_names_and_messages_over_websockets(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        tid, host = new_table(client, spectator_chat=True)
        p = WSPlayer(client, tid)
        p.hello(host)
        for name in ["\u3164", "\u2800", "a" + "\u0301" * 199, "Spectator", "spectator",
                     " SPECTATOR ", "\u89c2\u4f17", "\uad00\uc804\uc790", "Table"]:
            p.send({"type": "sit", "seat": 0, "name": name})
            err = p.until(lambda m: m["type"] in ("error", "seated"))
            assert err["type"] == "error", name
            assert "name" in err["message"], err
        assert "reserved" in p.error({"type": "sit", "seat": 0, "name": "Spectator"})
        # Nothing changed: the seat is still free.
        assert p.call(lambda: client.app.state.manager.tables[tid].seats[0]) is None
        p.sit(0, "Ann")
        assert "empty" in p.error({"type": "chat", "text": "\u3164\u2800"})
        assert "combining" in p.error({"type": "chat", "text": "x" + "\u0489" * 50})
        # A typed ":wow:" stays text; the reaction button's message is a reaction.
        watcher = WSPlayer(client, tid)
        watcher.hello()
        p.send({"type": "chat", "text": ":wow:"})
        typed = watcher.until(is_chat)["messages"][0]
        assert typed["text"] == ":wow:" and "reaction" not in typed
        p.send({"type": "chat", "reaction": "wow"})
        reaction = watcher.until(is_chat)["messages"][0]
        assert reaction["reaction"] == "wow" and reaction["text"] == ":wow:"
        # The history a new connection gets tells them apart the same way.
        late = WSPlayer(client, tid)
        late.hello()
        hist = late.until(is_chat)["messages"]
        assert [m.get("reaction") for m in hist] == [None, "wow"]

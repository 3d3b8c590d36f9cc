"""Seats mid-game over real WebSockets: a claim with a seat link never rests on the
host's word alone (issue #28 item 3; docs/WEB_PROTOCOL.md, "Seats mid-game")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_harness import WSPlayer, bots_table, seated_host, serve


def is_state(m: dict[str, Any]) -> bool:
    return bool(m["type"] == "state")


def playing(m: dict[str, Any]) -> bool:
    return is_state(m) and m["table"]["status"] == "playing"


def system_lines(p: WSPlayer) -> list[str]:
    """The table's own chat lines this connection got (seat changes)."""
    return [x["text"] for m in p.log if m["type"] == "chat"
            for x in m["messages"] if x.get("system")]


def test_the_host_cannot_read_a_kicked_partners_hand_without_an_opponents_yes(
    tmp_path: Path,
) -> None:
    with serve(tmp_path / "db.sqlite", deal_ms=20, window_ms=60_000) as client:
        tid, host, h = seated_host(client, 0, "Host")
        g, p, o = WSPlayer(client, tid), WSPlayer(client, tid), WSPlayer(client, tid)
        for pl, seat, name in ((g, 1, "Guest"), (p, 2, "Partner"), (o, 3, "Opp")):
            pl.hello()
            pl.sit(seat, name)
        h.send({"type": "start"})
        h.until(playing)
        h.send({"type": "kick", "seat": 2})
        h.until(lambda m: is_state(m) and (m["table"]["seats"][2] or {}).get("vacant"))
        h.send({"type": "seat_link", "seat": 2})
        code = h.until(lambda m: m["type"] == "seat_link")["code"]
        # The host's second tab, with no token, asks for its partner's seat: it waits.
        tab = WSPlayer(client, tid)
        tab.hello()
        tab.send({"type": "claim", "code": code, "name": "Sock"})
        assert tab.until(lambda m: m["type"] == "claim_pending") == {
            "type": "claim_pending", "seat": 2, "waiting_for": "acceptance"}
        st = g.until(lambda m: is_state(m) and m["table"]["claims"])
        assert st["table"]["claims"] == [{"seat": 2, "name": "Sock", "team": 1}]
        # Only the other team (seats 1 and 3) may answer; the host's own team may not.
        assert "does not sit on" in h.error({"type": "accept_claim", "seat": 2, "accept": True})
        assert "already have a claim" in tab.error({"type": "claim", "code": code,
                                                    "name": "Sock"})
        g.send({"type": "accept_claim", "seat": 2, "accept": False})
        assert "refused" in tab.until(lambda m: m["type"] == "error")["message"]
        assert "not valid" in tab.error({"type": "claim", "code": code, "name": "Sock"})
        tab.sync()
        assert all(m["view"]["hand"] == [] for m in tab.log if is_state(m))
        assert all(m["you"] is None for m in tab.log if is_state(m))
        # A new link, a new claim, and this time an opponent accepts.
        h.send({"type": "seat_link", "seat": 2})
        code = h.until(lambda m: m["type"] == "seat_link")["code"]
        tab.send({"type": "claim", "code": code, "name": "Sock"})
        tab.until(lambda m: m["type"] == "claim_pending")
        o.send({"type": "accept_claim", "seat": 2, "accept": True})
        assert tab.until(lambda m: m["type"] == "seated")["seat"] == 2
        st = tab.until(lambda m: is_state(m) and m["you"] == 2)
        assert st["view"]["seat"] == 2 and st["table"]["claims"] == []
        # Every change was announced to the table, naming who made it.
        g.sync()
        lines = system_lines(g)
        assert any("Host (seat 0) kicked Partner from seat 2" in x for x in lines), lines
        assert any("Guest (seat 1) refused Sock's claim of seat 2" in x for x in lines)
        assert any("Sock took seat 2 (accepted by Opp (seat 3))" in x for x in lines)
        # A typed line is never taken for the table's own (a player named like it).
        g.send({"type": "chat", "text": "Sock took seat 1"})
        msg = o.until(lambda m: m["type"] == "chat" and not m.get("history")
                      and m["messages"][0]["text"] == "Sock took seat 1")
        assert "system" not in msg["messages"][0]
        for c in (h, g, p, o, tab):
            c.close()


def test_a_bot_seat_claimed_with_no_opponent_to_ask_waits_for_the_round_end(
    tmp_path: Path,
) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        tid, host, h = bots_table(client)  # the host watches with its token; four bots play
        h.send({"type": "start"})
        h.until(playing)
        h.send({"type": "seat_link", "seat": 2})
        code = h.until(lambda m: m["type"] == "seat_link")["code"]
        tab = WSPlayer(client, tid)
        tab.hello()
        tab.send({"type": "claim", "code": code, "name": "Sock"})
        pending = tab.until(lambda m: m["type"] == "claim_pending")
        assert pending["waiting_for"] == "round_end"
        seated = tab.until(lambda m: m["type"] == "seated", timeout=60)
        assert seated["seat"] == 2
        before = tab.log[: tab.log.index(seated)]
        states = [m for m in before if is_state(m)]
        assert states and all(m["you"] is None and m["view"]["hand"] == [] for m in states)
        # seated only once the round it claimed in was over (the last state it watched
        # shows the next round; on a busy machine the bots may be past round 0 already)
        first = states[0]["view"]["round_no"]
        assert states[-1]["view"]["round_no"] == first + 1
        st = tab.until(lambda m: is_state(m) and m["you"] == 2)
        assert st["table"]["seats"][2] == {"name": "Sock", "kind": "human",
                                           "connected": True}
        h.sync()
        assert any("Sock took seat 2 (the round ended" in x for x in system_lines(h))
        h.close()
        tab.close()

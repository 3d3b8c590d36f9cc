"""The Hint at the web table over a real WebSocket (issue 32): only the asker gets it, the
`hints` setting is honoured (null resolved at start), refusals are clear, and the hint
carries nothing of another seat's hand (RULES §11)."""

from __future__ import annotations

import re
from typing import Any

from server_harness import WSPlayer, freeze, host_table, seated_host, serve
from shengji import parse_cards
from shengji.actions import Bury, Play

CARD = re.compile(r"\b(?:10|[2-9JQKA])[SHDC]\b|\b[BS]J\b")
BOTS = {1: "heuristic", 2: "heuristic", 3: "heuristic"}


def my_turn(m: dict[str, Any]) -> bool:
    """A state in which seat 0 buries (RULES §4) or plays (§6)."""
    v = m.get("view") if m["type"] == "state" else None
    return bool(v) and v["phase"] in ("kitty", "play") and v["to_act"] == 0


def to_my_turn(p: WSPlayer) -> dict[str, Any]:
    """Let the bots play until seat 0 must bury or play (seat 0 passes its windows)."""
    def stop(m: dict[str, Any]) -> bool:
        v = m.get("view") if m["type"] == "state" else None
        if v and v["phase"] == "declare" and v["to_act"] == 0:
            p.send({"type": "action", "action": ["pass", 0]})
        return my_turn(m)

    return p.until(stop, 60)


def test_a_hint_reaches_only_its_asker_and_is_legal_and_private(tmp_path: Any) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        p, table = host_table(client, BOTS)
        assert p.call(lambda: table.settings.hints) is True  # null -> on: all others bots
        watcher = WSPlayer(client, table.id)
        watcher.hello()
        st = to_my_turn(p)
        freeze(p, table)
        hand = st["view"]["hand"]
        p.send({"type": "hint"})
        h = p.until(lambda m: m["type"] in ("hint", "error"), 30)
        assert h["type"] == "hint", h
        assert h["seq"] == st["seq"] and h["kind"] in ("bury", "play")
        # the suggestion is legal for the seat now (RULES §4, §6)
        cards = tuple(parse_cards(" ".join(h["cards"])))
        act = (Bury if h["kind"] == "bury" else Play)(0, cards)
        p.call(lambda: table.game.check(act))
        # hidden information: no card of the reason is outside the asker's own hand
        r = h["reason"]
        assert set(r) == {"key", "figures", "text"} and r["key"].startswith("hint.reason.")
        assert all(isinstance(x, int | float) for x in r["figures"].values())
        assert set(CARD.findall(r["text"])) <= set(hand)
        assert all(c in hand for c in h["cards"])
        # only the asker: the spectator got no hint
        watcher.sync()
        assert not [m for m in watcher.log if m["type"] == "hint"]
        # asking again at the same position answers the same (kept), at no cost
        p.send({"type": "hint"})
        again = p.until(lambda m: m["type"] in ("hint", "error"))
        assert again == h
        # one hint in flight per seat (the kept answer forgotten, one marked in flight)
        p.call(lambda: (table.hint_cache.clear(), table.hints_in_flight.add(0)))
        p.send({"type": "hint"})
        busy = p.until(lambda m: m["type"] in ("hint", "error"))
        assert busy["type"] == "error" and busy["code"] == "hint_busy"
        p.call(lambda: table.hints_in_flight.discard(0))
        # once seat 0 has played, it is a bot's turn (the driver is stopped): refused
        p.send({"type": "action", "action": [h["kind"], 0, " ".join(h["cards"])]})
        p.until(lambda m: m["type"] == "state" and m["seq"] > st["seq"])
        p.send({"type": "hint"})
        no = p.until(lambda m: m["type"] in ("hint", "error"))
        assert no["type"] == "error" and no["code"] == "hint_not_your_turn", no
        watcher.send({"type": "hint"})
        spect = watcher.until(lambda m: m["type"] in ("hint", "error"))
        assert spect["type"] == "error" and "spectators" in spect["message"]


def test_hints_off_is_refused_and_the_default_follows_the_seats(tmp_path: Any) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        p, table = host_table(client, BOTS, hints=False)
        assert p.state is not None and p.state["table"]["settings"]["hints"] is False
        to_my_turn(p)
        p.send({"type": "hint"})
        off = p.until(lambda m: m["type"] in ("hint", "error"))
        assert off["type"] == "error" and off["code"] == "hints_off"
        assert "hints are off" in off["message"]
        # null (the default) with a second human at the table: resolved off at start
        tid, host, a = seated_host(client, 0, "Ann")
        b = WSPlayer(client, tid)
        b.hello()
        b.sit(2, "Bob")
        for seat in (1, 3):
            a.send({"type": "bot", "seat": seat, "kind": "heuristic"})
            a.until(lambda m: m["type"] == "state")
        a.send({"type": "start"})
        st = a.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
        assert st["table"]["settings"]["hints"] is False
        # explicitly on at that same kind of table: the host's choice wins
        p2, t2 = host_table(client, {1: "heuristic", 3: "heuristic"}, start=False,
                            hints=True)
        assert p2.call(lambda: t2.settings.hints) is True


def test_the_hint_is_worked_out_in_the_bots_pool_off_the_event_loop(tmp_path: Any) -> None:
    with serve(tmp_path / "db.sqlite", bot_workers=1) as client:
        p, table = host_table(client, BOTS)
        to_my_turn(p)
        freeze(p, table)
        p.send({"type": "hint"})
        p.send({"type": "ping"})  # answered while the pool works: the loop is free
        p.until(lambda m: m["type"] == "hint", 60)
        kinds = [m["type"] for m in p.log if m["type"] in ("pong", "hint")]
        assert kinds[-2:] == ["pong", "hint"]

"""Web tables of RULES §12 over the wire: 4-10 seats, teams or finding friends.

A six-player friends table with five random bots and one WebSocket player plays to the
round's end; the call phase (§12.4) goes over the wire; no message to a seat holds another
seat's cards, the kitty, or who holds a called card before it is played (RULES §11, the
check of tests/test_server_hidden.py run at 6 and 8 seats). Table creation refuses bad
§12 options, naming the rule, and changes nothing.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from server_harness import Human, WSPlayer, freeze, host_table, new_table, serve
from shengji import Game, action_from_json
from test_server_hidden import check_messages

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning")]

FRIEND_KEYS = ("calls", "friends", "sides")


def states(raw: list[str]) -> list[dict[str, Any]]:
    """The `state` messages of a connection's raw log, in order."""
    return [m for t in raw if (m := json.loads(t))["type"] == "state"]


def check_friends_public(seed: int, options: Any, actions: list[Any], raw: list[str]) -> int:
    """Every state's calls, friends and sides are the public view's at its seq (RULES
    §12.4, §11: whoever holds a called card is not named before it is played, not even to
    its holder's own connection). Returns how many states had a call not yet played."""
    by_seq: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for msg in states(raw):
        by_seq[msg["seq"]].append(msg)
    g = Game(seed, options)
    n = g.options.n_players
    pending = 0
    for k in range(len(actions) + 1):
        if k > 0:
            g.apply(action_from_json(actions[k - 1], players=n))
        public = g.view(None).to_json()
        for msg in by_seq.pop(k, []):
            view = msg["view"]
            for key in FRIEND_KEYS:
                assert view[key] == public[key], f"seq {k}: {key} {view[key]} != {public[key]}"
            assert len(view["sides"]) == n and len(view["hand_sizes"]) == n
            calls = view["calls"]
            if calls and any(c["played_by"] is None and not c["spent"] for c in calls):
                pending += 1
                unknown = [s for s in range(n) if view["sides"][s] is None]
                assert unknown, f"seq {k}: every side is known while a call is open"
    assert not by_seq
    return pending


def play_round(tmp_path: Path, seed: int, players: int, mode: str,
               bots: str = "random") -> dict[str, Any]:
    """A table of `players` seats in `mode`: the host at seat 0 (played through the
    WebSocket), `bots` bots elsewhere, a spectator; one round played. Returns what the
    checks need."""
    options = {"players": players, "mode": mode}
    with serve(tmp_path / "db.sqlite", seed_source=lambda: seed, window_ms=300) as client:
        p, table = host_table(client, {s: bots for s in range(1, players)},
                              options=options)
        p.raw.clear()  # from here on, every message to seat 0 is checked
        watcher = WSPlayer(client, table.id)
        watcher.hello()
        human = Human(p, table, seed=seed, declare=True)
        last = human.play_until(
            lambda m: m["type"] == "state" and m["view"]["round_no"] == 1, timeout=60
        )
        freeze(p, table)
        actions = p.call(lambda: [a.to_json() for a in table.game.actions])
        for conn in (p, watcher):
            conn.sync()
        results = p.call(lambda: list(table.game.results))
        return {"p": p, "watcher": watcher, "human": human, "last": last,
                "actions": actions, "options": table.options, "results": results}


@pytest.mark.timeout(90)
def test_six_player_friends_table_plays_a_round_with_the_call_over_the_wire(
    tmp_path: Path,
) -> None:
    # seed 3: seat 0 declares first, leads the round (RULES §12.4) and calls 2 friends
    seed = 3
    run = play_round(tmp_path, seed, 6, "friends")
    p, watcher, human, last = run["p"], run["watcher"], run["human"], run["last"]
    assert run["results"][0].starter == 0
    assert human.calls_sent == 1, "the leader's call went over the wire"
    sent_calls = [a for a in run["actions"] if a[0] == "call"]
    assert len(sent_calls) == 1 and sent_calls[0][1] == 0 and len(sent_calls[0][2]) == 2
    for conn in (p, watcher):
        seen = states(conn.raw)
        asked = [m for m in seen if m["view"]["phase"] == "call"]
        assert asked and all(m["view"]["to_act"] == 0 for m in asked)
        assert all(m["view"]["calls"] == [] for m in asked)  # not made yet
        after = [m for m in seen if m["view"]["phase"] == "play"]
        called = [(c["card"], c["ordinal"]) for c in after[0]["view"]["calls"]]
        assert called == [(card, j) for card, j in sent_calls[0][2]]
    # the round's end: per-player levels and the sides (RULES §12.4)
    v = last["view"]
    assert len(v["levels"]) == 6 and len(v["hand_sizes"]) == 6
    res = v["last_result"]
    assert res["leader"] == 0 and len(res["sides"]) == 6 and len(res["level_gains"]) == 6
    assert res["sides"][0] == "leader"
    assert set(res["friends"]) == {s for s in range(6) if res["sides"][s] == "friend"}
    # hidden information (RULES §11) for the seat and for a spectator
    assert check_messages(seed, run["options"], run["actions"], 0, p.raw) > 50
    assert check_messages(seed, run["options"], run["actions"], None, watcher.raw) > 50
    assert check_friends_public(seed, run["options"], run["actions"], p.raw) > 10
    assert check_friends_public(seed, run["options"], run["actions"], watcher.raw) > 10


@pytest.mark.timeout(90)
@pytest.mark.parametrize(("players", "mode", "seed"), [(8, "teams", 25), (8, "friends", 7)])
def test_no_hidden_card_reaches_a_seat_at_eight_seats(
    tmp_path: Path, players: int, mode: str, seed: int,
) -> None:
    run = play_round(tmp_path, seed, players, mode)
    assert len(run["last"]["view"]["hand_sizes"]) == players
    assert check_messages(seed, run["options"], run["actions"], 0, run["p"].raw) > 50
    assert check_messages(seed, run["options"], run["actions"], None,
                          run["watcher"].raw) > 50
    if mode == "friends":
        assert check_friends_public(seed, run["options"], run["actions"], run["p"].raw) > 10


@pytest.mark.timeout(120)
def test_heuristic_bots_play_an_eight_seat_friends_round_and_call_their_friends(
    tmp_path: Path,
) -> None:
    run = play_round(tmp_path, 7, 8, "friends", bots="heuristic")
    res = run["results"][0]
    calls = [a for a in run["actions"] if a[0] == "call"]
    assert len(calls) == 1 and calls[0][1] == res.starter  # the leader called (RULES §12.4)
    assert len(calls[0][2]) == 3  # 8 seats: three friends
    assert check_messages(7, run["options"], run["actions"], 0, run["p"].raw) > 50


@pytest.mark.parametrize(("options", "field", "rule"), [
    ({"players": 7, "mode": "teams"}, "mode", "RULES §12.1"),
    ({"players": 7}, "mode", "RULES §12.1"),
    ({"players": 11}, "players", "RULES §12"),
    ({"players": 3}, "players", "RULES §12"),
    ({"players": "6"}, "players", "RULES §12"),
    ({"players": True}, "players", "RULES §12"),
    ({"players": 6.0}, "players", "RULES §12"),
    ({"decks": 1}, "decks", "RULES §12"),
    ({"decks": 6}, "decks", "RULES §12"),
    ({"mode": "partners"}, "mode", "RULES §12"),
    ({"mode": 1}, "mode", "RULES §12"),
    ({"players": 6, "kitty_size": 7}, "kitty_size", "RULES §12.1"),
])
def test_table_creation_refuses_bad_table_options(
    tmp_path: Path, options: dict[str, Any], field: str, rule: str,
) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        before = client.get("/api/tables").json()
        r = client.post("/api/tables", json={"name": "t", "options": options})
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["code"] == "bad_option" and body["field"] == field
        assert rule in body["detail"]
        assert client.get("/api/tables").json() == before  # nothing was made


def test_table_options_are_offered_and_stored(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        offer = client.get("/api/options").json()
        assert offer["table"]["players"] == list(range(4, 11))
        assert offer["table"]["modes"] == ["teams", "friends"]
        assert "players" not in offer["defaults"]  # the §10 house rules as before
        tid, host = new_table(client, options={"players": 10, "mode": "friends", "decks": 5})
        p = WSPlayer(client, tid)
        st = p.hello(host)
        opts = st["table"]["options"]
        assert (opts["players"], opts["mode"], opts["decks"]) == (10, "friends", 5)
        assert len(st["table"]["seats"]) == 10
        p.sit(9, "Host")
        assert "seat 0-9" in p.error({"type": "bot", "seat": 10, "kind": "random"})
        # every bot kind a web table offers plays §12 tables (issue 33: the expert's too)
        err = p.error({"type": "bot", "seat": 3, "kind": "dmc:checkpoint.pt"})
        assert err == "bot kind must be one of: random, heuristic, fast, expert, master"
        p.send({"type": "bot", "seat": 3, "kind": "heuristic"})
        st = p.until(lambda m: m["type"] == "state" and m["table"]["seats"][3] is not None)
        assert st["table"]["seats"][3]["kind"] == "heuristic"
        p.send({"type": "bot", "seat": 4, "kind": "expert"})
        st = p.until(lambda m: m["type"] == "state" and m["table"]["seats"][4] is not None)
        assert st["table"]["seats"][4]["kind"] == "expert"
        # a four-player table is as before: its options JSON has no §12 field
        tid4, host4 = new_table(client)
        p4 = WSPlayer(client, tid4)
        st4 = p4.hello(host4)
        assert not {"players", "decks", "mode", "kitty_size"} & set(st4["table"]["options"])
        assert len(st4["table"]["seats"]) == 4


@pytest.mark.timeout(60)
def test_a_bad_call_is_refused_naming_the_rule_and_changes_nothing(tmp_path: Path) -> None:
    seed = 3  # seat 0 leads (see above)
    with serve(tmp_path / "db.sqlite", seed_source=lambda: seed, window_ms=300) as client:
        p, table = host_table(client, {s: "random" for s in range(1, 6)},
                              options={"players": 6, "mode": "friends"})
        human = Human(p, table, seed=seed, declare=True)
        human.play_until(lambda m: m["type"] == "state" and m["view"]["phase"] == "call"
                         and m["view"]["to_act"] == 0, timeout=30)
        seq = p.call(lambda: len(table.game.actions))
        for bad, rule in (
            (["call", 0, [["AS", 1]]], "RULES §12.4"),  # one friend, not 2
            (["call", 0, [["BJ", 1], ["AS", 1]]], "RULES §12.4"),  # a joker
            (["call", 0, [["AS", 4], ["KH", 1]]], "RULES §12.4"),  # ordinal past d = 3
        ):
            assert p.error({"type": "action", "action": bad}).startswith(rule)
        assert "seat must be 0-5" in p.error({"type": "action", "action": ["call", 6, [["AS", 1]]]})
        assert p.call(lambda: len(table.game.actions)) == seq  # nothing changed
        assert p.call(lambda: table.game.decision().phase) == "call"


@pytest.mark.timeout(60)
def test_the_card_counter_counts_d_decks_and_a_hint_is_given_at_six_seats(
    tmp_path: Path,
) -> None:
    seed = 3  # seat 0 leads (see above)
    with serve(tmp_path / "db.sqlite", seed_source=lambda: seed, window_ms=300) as client:
        p, table = host_table(client, {s: "random" for s in range(1, 6)},
                              options={"players": 6, "mode": "friends"}, card_counter=True,
                              hints=True)
        human = Human(p, table, seed=seed, declare=True)
        m = human.play_until(lambda m: m["type"] == "state" and m["view"]["phase"] == "play"
                             and m["view"]["to_act"] == 0, timeout=30)
        counter = m["view"]["counter"]
        # three decks (RULES §12: players // 2): 162 cards, 300 points in all
        assert sum(s["total"] for s in counter["suits"].values()) == 162
        mine = sum({"5": 5, "10": 10, "K": 10}.get(c[:-1], 0) for c in m["view"]["hand"])
        assert counter["points_out"] + mine == 300  # nothing is played yet
        # the search behind hints plays every table (issue 33): a lead from the hand
        p.send({"type": "hint"})
        h = p.until(lambda m: m["type"] in ("hint", "error"), 30)
        assert h["type"] == "hint" and h["kind"] == "play", h
        hand = list(m["view"]["hand"])
        for c in h["cards"]:
            hand.remove(c)  # every suggested card is in the seat's hand


@pytest.mark.timeout(180)
def test_the_replay_and_the_review_of_a_six_seat_round(
    tmp_path: Path,
) -> None:
    seed = 3
    with serve(tmp_path / "db.sqlite", seed_source=lambda: seed, window_ms=300) as client:
        p, table = host_table(client, {s: "random" for s in range(1, 6)},
                              options={"players": 6, "mode": "friends"})
        human = Human(p, table, seed=seed, declare=True)
        human.play_until(lambda m: m["type"] == "state" and m["view"]["round_no"] == 1,
                         timeout=60)
        r = client.get(f"/api/tables/{table.id}/replay")
        assert r.status_code == 200, r.text
        first = r.json()["steps"][0]
        assert len(first["levels"]) == 6 and len(first["sides"]) == 6
        assert len(first["calls"]) == 2 and "hands" not in first  # still playing (§11)
        token = next(m["token"] for t in p.raw if (m := json.loads(t))["type"] == "seated")
        r = client.get(f"/api/tables/{table.id}/review?seat=0&round=1",
                       headers={"authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text  # the review's search plays six seats too
        body = r.json()
        assert body["seat"] == 0 and body["decisions"] and body["accuracy"] is not None
        assert client.get(f"/api/tables/{table.id}/review?seat=6&round=1").status_code == 422

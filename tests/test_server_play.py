"""The web game over real WebSockets: tables, seats, bots, a full round, reconnects."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from server_harness import (
    HUMAN_WINDOW_MS,
    Human,
    WSPlayer,
    bots_table,
    host_table,
    new_table,
    serve,
    table_of,
)

if TYPE_CHECKING:
    from starlette.testclient import TestClient

    from shengji.server.tables import Table

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


def is_state(m: dict) -> bool:  # type: ignore[type-arg]
    return bool(m["type"] == "state")


def first_turn_in_play(client: TestClient, seed: int = 0) -> tuple[WSPlayer, Table, Human]:
    """The host at seat 0 with three random bots, played by `Human` (of `seed`) up to
    seat 0's first turn in the play phase: (its connection, the table, the human)."""
    p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
    human = Human(p, table, seed=seed)
    human.play_until(lambda m: is_state(m) and m["view"]["phase"] == "play"
                     and m["view"]["to_act"] == 0)
    return p, table, human


def test_create_sit_fill_bots_and_play_a_full_round(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", window_ms=HUMAN_WINDOW_MS) as client:
        tid, host = new_table(client, name="Friday")
        lobby = client.get("/api/tables").json()
        assert [t["id"] for t in lobby] == [tid] and lobby[0]["status"] == "waiting"

        p = WSPlayer(client, tid)
        st = p.hello(host)
        assert st["is_host"] and st["you"] is None and st["table"]["name"] == "Friday"
        st = p.sit(0, "Ann")
        assert p.seat == 0 and p.token and st["you"] == 0 and st["table"]["host_seat"] == 0
        assert st["table"]["seats"][0] == {"name": "Ann", "kind": "human", "connected": True}
        for seat, kind in ((1, "random"), (2, "heuristic"), (3, "random")):
            p.send({"type": "bot", "seat": seat, "kind": kind})
            st = p.until(is_state)
        assert [s["kind"] for s in st["table"]["seats"]] == [
            "human", "random", "heuristic", "random",
        ]
        watcher = WSPlayer(client, tid)
        assert watcher.hello()["you"] is None

        p.send({"type": "start"})
        human = Human(p, table_of(client, tid), seed=3)
        end = human.play_until(lambda m: is_state(m) and m["view"]["round_no"] == 1)
        assert human.errors == []
        result = end["view"]["last_result"]
        assert result is not None and len(result["kitty"]) == 8
        assert end["table"]["status"] == "playing"

        # The spectator saw the same round through public views only.
        seen = watcher.drain()
        states = [m for m in seen if is_state(m)]
        assert states and all(m["view"]["hand"] == [] for m in states)
        assert any(m["view"]["phase"] == "play" for m in states)

        replay = client.get(f"/api/tables/{tid}/replay").json()
        assert replay["record"] is None  # the game is not over: public steps only
        first = replay["steps"][0]
        assert sum(len(c) for t in first["tricks"] for _, c in t["plays"]) == 100
        assert first["result"] == result
        assert "hands" not in first
        p.close()
        watcher.close()


def test_reconnect_with_the_token_restores_the_seat_and_full_view(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", window_ms=HUMAN_WINDOW_MS) as client:
        p, table, human = first_turn_in_play(client, seed=1)
        token, tid = p.token, table.id
        # the seat's state: its view and its own play help (`forced`, server.broadcast)
        before = p.call(lambda: (table.seq, {**table.game.view(0).to_json(),
                                             **table.game.view(0).play_help_json()}))
        p.close()

        watcher = WSPlayer(client, tid)
        st = watcher.hello()
        assert st["table"]["seats"][0]["connected"] is False

        back = WSPlayer(client, tid)
        st = back.hello(token)
        assert st["you"] == 0 and st["is_host"]
        assert (st["seq"], st["view"]) == before
        assert len(st["view"]["hand"]) > 0
        assert watcher.until(is_state)["table"]["seats"][0]["connected"] is True
        # ... and the seat can go on playing.
        human = Human(back, table, seed=2)
        human.react(st)
        back.until(lambda m: is_state(m) and m["seq"] > before[0])
        back.close()
        watcher.close()


def test_host_commands(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        tid, host = new_table(client)
        h = WSPlayer(client, tid)
        h.hello(host)
        guest = WSPlayer(client, tid)
        guest.hello()
        guest.sit(1, "Bob")
        assert guest.state is not None and not guest.state["is_host"]
        for msg in ({"type": "bot", "seat": 2, "kind": "random"}, {"type": "kick", "seat": 1},
                    {"type": "swap", "a": 0, "b": 1}, {"type": "start"}):
            assert "host" in guest.error(msg)
        assert "seats" in h.error({"type": "start"})  # not all seats filled
        assert "taken" in h.error({"type": "sit", "seat": 1, "name": "X"})
        assert "kind" in h.error({"type": "bot", "seat": 2, "kind": "genius"})
        assert "kick" in h.error({"type": "bot", "seat": 1, "kind": "random"})

        h.sit(0, "Host")
        h.send({"type": "swap", "a": 0, "b": 3})
        st = h.until(lambda m: is_state(m) and m["you"] == 3)
        assert st["table"]["host_seat"] == 3 and st["table"]["seats"][0] is None
        h.send({"type": "kick", "seat": 1})
        st = guest.until(lambda m: is_state(m) and m["you"] is None)
        assert st["table"]["seats"][1] is None
        # The kicked token no longer gives the seat.
        again = WSPlayer(client, tid)
        again.send({"type": "hello", "token": guest.token, "lang": "en"})
        assert "invalid token" in again.until(lambda m: m["type"] == "error")["message"]
        assert again.until(is_state)["you"] is None
        assert "own seat" in h.error({"type": "kick", "seat": 3})

        for seat in (0, 1, 2):
            h.send({"type": "bot", "seat": seat, "kind": "random"})
            h.until(is_state)
        h.send({"type": "bot", "seat": 2, "kind": "heuristic"})  # a bot can be replaced
        st = h.until(is_state)
        assert st["table"]["seats"][2]["kind"] == "heuristic"
        h.send({"type": "start"})
        h.until(lambda m: is_state(m) and m["table"]["status"] == "playing")
        assert "before" in h.error({"type": "swap", "a": 0, "b": 1})
        assert "already" in h.error({"type": "start"})
        for p in (h, guest, again):
            p.close()


def test_absent_players_turn_goes_to_a_bot_after_the_timeout(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"},
                              bot_timeout_s=0.05)
        tid = table.id
        p.close()  # the host walks away before the deal even starts
        watcher = WSPlayer(client, tid)
        watcher.hello()
        st = watcher.until(lambda m: is_state(m) and m["view"]["round_no"] == 1, timeout=30)
        assert st["table"]["seats"][0]["connected"] is False
        watcher.close()


def test_without_a_timeout_the_game_waits_for_an_absent_player(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", window_ms=HUMAN_WINDOW_MS) as client:
        p, table, human = first_turn_in_play(client)
        p.close()
        seq = p.call(lambda: table.seq)
        # The event: the driver sleeps with no timer (no stand-in is due), and the absent
        # player's turn has not moved.
        deadline = time.monotonic() + 30
        while not p.call(lambda: table.bots.parked and not table.connected(0)):
            assert time.monotonic() < deadline, "the driver still has something to do"
            time.sleep(0.01)
        assert p.call(lambda: table.seq) == seq


def test_declarations_in_real_time_and_the_window_timeout(tmp_path: Path) -> None:
    # The human declares as soon as it can during the deal, and never passes in the final
    # window: the server closes the window after window_ms.
    # Seed 7: seat 0's first card is a 2, so it may declare from the start.
    with serve(tmp_path / "db.sqlite", deal_ms=10, window_ms=150, seed_source=lambda: 7) as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
        human = Human(p, table, declare=True)
        original = human.react

        def react_but_never_pass(msg: dict) -> None:  # type: ignore[type-arg]
            if is_state(msg) and msg["view"]["phase"] == "declare" \
                    and not msg["view"]["legal_declarations"]:
                return
            original(msg)

        human.react = react_but_never_pass  # type: ignore[method-assign]
        st = human.play_until(lambda m: is_state(m) and m["view"]["phase"] in ("kitty", "play"))
        # Declared, unless a bot got in first with an equal or stronger declaration.
        declared = any(s == 0 for s, _ in st["view"]["declarations"])
        assert declared or human.errors
        assert all(e.startswith("RULES §3.3") for e in human.errors), human.errors
        actions = p.call(lambda: [a.to_json() for a in table.game.actions])
        assert ["close"] in actions
        assert actions.index(["close"]) > 100  # the window, after every card was drawn


def test_bots_only_table_plays_a_whole_game_and_the_replay_shows_all_hands(
    tmp_path: Path,
) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        tid, host, h = bots_table(client)
        assert "not started" in client.get(f"/api/tables/{tid}/replay").text
        h.send({"type": "start"})
        st = h.until(lambda m: is_state(m) and m["table"]["status"] == "finished", timeout=60)
        assert st["view"]["game_over"] and st["view"]["winner"] in (0, 1)
        assert client.get("/api/tables").json() == []  # finished tables leave the lobby
        rep = client.get(f"/api/tables/{tid}/replay").json()
        assert rep["status"] == "finished" and rep["record"]["format"] == "shengji-record/1"
        n = len(rep["record"]["actions"])
        assert n == st["seq"]
        for step in rep["steps"]:
            assert [len(h) for h in step["hands"]] == [25, 25, 25, 25]
            assert len(step["kitty_taken"]) == 8
            played = sum(len(cards) for t in step["tricks"] for _, cards in t["plays"])
            assert played == 100
        assert "spectators" in h.error({"type": "action", "action": ["pass", 0]})
        h.close()
        # The lobby's finished list: the game, its result (winner, levels, rounds), newest first.
        result = {"winner": st["view"]["winner"], "levels": st["view"]["levels"],
                  "rounds": st["view"]["round_no"] + 1}
        assert st["table"]["result"] == result
        games = client.get("/api/games").json()
        assert [g["id"] for g in games] == [tid]
        assert games[0]["result"] == result and games[0]["finished"]
    with serve(tmp_path / "db.sqlite") as client:  # after a restart: from the database
        games = client.get("/api/games").json()
        assert [(g["id"], g["result"]) for g in games] == [(tid, result)]
        assert games[0]["seats"][0] == {"name": "Random bot", "kind": "random"}


def test_check_answers_for_the_seat_to_act(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", window_ms=HUMAN_WINDOW_MS) as client:
        p, table, human = first_turn_in_play(client, seed=4)
        cards = p.call(lambda: " ".join(map(str, table.game.view(0).random_play(human.rng))))
        p.send({"type": "check", "cards": cards})
        chk = p.until(lambda m: m["type"] == "check")
        assert chk == {"type": "check", "cards": cards, "legal": True, "reason": None, "rule": None,
                       "code": None, "facts": {}}
        spectator = WSPlayer(client, table.id)
        spectator.hello()
        spectator.send({"type": "check", "cards": cards})
        assert spectator.until(lambda m: m["type"] == "check")["legal"] is False


def test_the_server_pauses_between_rounds(tmp_path: Path) -> None:
    # Read the server's own state rather than timing messages: the client may lag
    # behind the server by more than a short pause on a loaded machine.
    with serve(tmp_path / "db.sqlite", round_pause_ms=60_000) as client:
        tid, host, h = bots_table(client)
        h.send({"type": "start"})
        st = h.until(lambda m: is_state(m) and m["view"]["round_no"] == 1)
        assert st["view"]["last_result"] is not None and st["view"]["cards_left"] == 100
        table = table_of(client, tid)
        # The event: the driver is asleep until the pause ends (without the pause it
        # would draw at once), and nothing was drawn.
        deadline = time.monotonic() + 30

        def asleep() -> float | None:
            return table.bots.asleep_until

        while (until := h.call(asleep)) is None:
            assert time.monotonic() < deadline, "the driver never slept"
            time.sleep(0.01)
        round_no, drawn, pause_until = h.call(
            lambda: (table.game.round_no, table.game.round.drawn, table.clock.pause_until)
        )
        assert (round_no, drawn) == (1, 0)
        assert until >= pause_until - 0.001 and pause_until > time.monotonic() + 50  # 60 s


def test_a_draw_is_sent_to_its_drawer_and_spectators_the_deal_end_to_everyone(
    tmp_path: Path,
) -> None:
    """During the deal only the drawer's view changes beyond the public counts (its new
    card, what it may declare: RULES §3.1, §3.3), so a draw's state goes to the drawer and
    the spectators; each seat learns the deal's progress with its own next card, and
    everyone is sent the state that ends the deal (the final window opens)."""
    with serve(tmp_path / "db.sqlite", deal_ms=1, window_ms=HUMAN_WINDOW_MS,
               seed_source=lambda: 3) as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"}, start=False)
        watcher = WSPlayer(client, table.id)  # a spectator from before the first card
        watcher.hello()
        p.send({"type": "start"})
        mine: list[dict[str, Any]] = []
        while True:  # the host's states until the deal has ended
            m = p.until(lambda m: m["type"] == "state", timeout=30)
            mine.append(m)
            if m["view"]["phase"] != "deal":
                break
        seen: list[dict[str, Any]] = []
        while not seen or seen[-1]["view"]["phase"] == "deal":
            seen.append(watcher.until(lambda m: m["type"] == "state", timeout=30))
        deal = [m for m in mine if m["view"]["phase"] == "deal"]
        # each deal state the host got follows its own draw or a declaration (an action of
        # anyone that is not a draw); never another seat's draw alone
        for m in deal:
            kinds = {e["type"] for e in m["events"]}
            drew = [e for e in m["events"] if e["type"] == "drew"]
            assert kinds != {"drew"} or [e["seat"] for e in drew] == [0], m["events"]
        assert 20 <= len(deal) <= 60  # ~25 own draws (+ declarations), not ~100
        assert len(mine[-1]["view"]["hand"]) == 25  # the deal's end reached the host
        spectator_draws = [m for m in seen if any(e["type"] == "drew" for e in m["events"])]
        assert len(spectator_draws) >= 99  # the spectator saw (nearly) every card drawn
        assert seen[-1]["seq"] == mine[-1]["seq"]  # both got the state that ended the deal
        p.close()
        watcher.close()

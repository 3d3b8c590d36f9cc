"""Issue 7 findings on tables: options of the wrong type, engine errors, unwatched tables,
seats taken mid-game, bots in worker processes (real WebSockets, real SQLite file)."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from server_harness import (
    WSPlayer,
    bots_table,
    new_table,
    on_loop,
    seated_host,
    serve,
    stored_actions,
    table_of,
)
from shengji.server.schema import dumps_strict

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


def is_state(m: dict[str, Any]) -> bool:
    return m["type"] == "state"


def playing(m: dict[str, Any]) -> bool:
    return is_state(m) and m["table"]["status"] == "playing"


def bots_and_start(host: WSPlayer, seats: tuple[int, ...]) -> None:
    """As the host: a random bot in each of `seats`, then start, until the game is on."""
    for seat in seats:
        host.send({"type": "bot", "seat": seat, "kind": "random"})
        host.until(is_state)
    host.send({"type": "start"})
    host.until(playing)


# -- finding 2: options of the wrong type, NaN ----------------------------------------------
def test_options_of_the_wrong_type_or_not_finite_are_refused_naming_the_field(
    tmp_path: Path,
) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        bodies: list[tuple[bytes, str]] = [
            (b'{"options": {"first_drawer": 1.0}}', "first_drawer"),
            (b'{"options": {"first_drawer": true}}', "first_drawer"),
            (b'{"options": {"throw_penalty_per_card": NaN}}', ""),
            (b'{"options": {"throw_penalty_per_card": 1e999}}', "throw_penalty_per_card"),
            (b'{"options": {"throw_penalty_per_card": "x"}}', "throw_penalty_per_card"),
            (b'{"options": {"self_reinforce": 1}}', "self_reinforce"),
            (b'{"options": {"nope": 1}}', "nope"),
            (b'{"deal_ms": 1.5}', "deal_ms"),
            (b'{"deal_ms": true}', "deal_ms"),
            (b'{"bot_timeout_s": Infinity}', ""),
            (b'{"bot_timeout_s": 1e999}', "bot_timeout_s"),
            (b'{"colour": "red"}', "colour"),
        ]
        for body, field in bodies:
            r = client.post("/api/tables", content=body,
                            headers={"content-type": "application/json"})
            assert r.status_code == 422, (body, r.text)
            err = r.json()
            assert err["code"] in ("bad_option", "bad_setting", "bad_request"), err
            assert field in err["detail"], (body, err)
            assert "TypeError" not in err["detail"] and "Traceback" not in r.text
            if field:
                assert err["field"] == field, (body, err)
        assert client.get("/api/tables").json() == []  # nothing was stored
        con = sqlite3.connect(tmp_path / "db.sqlite")
        assert con.execute("SELECT count(*) FROM tables").fetchone()[0] == 0
        con.close()
        # A WebSocket message with NaN is not JSON either.
        tid, host = new_table(client)
        p = WSPlayer(client, tid)
        p.hello(host)
        assert "not JSON" in p.error('{"type": "sit", "seat": NaN, "name": "x"}')
        p.close()


def test_json_sent_by_the_server_is_strict() -> None:
    assert dumps_strict({"a": 1.5}) == '{"a":1.5}'
    for bad in (float("nan"), float("inf"), [float("-inf")]):
        with pytest.raises(ValueError):
            dumps_strict({"x": bad})


# -- never store an action the engine would not apply ------------------------------------
def test_an_engine_error_after_storing_puts_the_table_in_a_visible_error_state(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "db.sqlite"
    caplog.set_level(logging.ERROR, logger="shengji.server.tables")
    with serve(db) as client:
        tid, host_token = new_table(client)
        p = WSPlayer(client, tid)
        p.hello(host_token)
        p.sit(0, "Host")
        bots_and_start(p, (1, 2, 3))
        table = table_of(client, tid)

        def plant_a_bug() -> None:
            orig, at = table.game.apply, table.seq + 3

            def apply(action: Any) -> Any:
                if table.seq >= at:
                    raise RuntimeError("planted engine bug")
                return orig(action)

            table.game.apply = apply  # type: ignore[method-assign]

        p.call(plant_a_bug)
        st = p.until(lambda m: is_state(m) and m["table"]["status"] == "error")
        assert st["table"]["error"] == "this table hit an internal error"
        seq = p.call(lambda: table.seq)
        assert stored_actions(db, table.id) == seq  # the stored log is the table's log
        assert "planted engine bug" in caplog.text and "Traceback" in caplog.text
        # The table is not frozen silently: it is listed in its state, and stays still.
        lobby = client.get("/api/tables").json()
        assert [(t["id"], t["status"]) for t in lobby] == [(table.id, "error")]
        # ... its driver has ended (nothing can move it any more), and its log is as it was.
        deadline = time.monotonic() + 30
        while not p.call(lambda: table.bots.task is None or table.bots.task.done()):
            assert time.monotonic() < deadline, "the failed table's driver still runs"
            time.sleep(0.02)
        assert stored_actions(db, table.id) == seq == p.call(lambda: table.seq)
        assert "not being played" in p.error({"type": "action", "action": ["pass", 0]})
        # Its host can export its record; nobody else can.
        assert client.get(f"/api/tables/{tid}/export").status_code == 403
        r = client.get(f"/api/tables/{tid}/export",
                       headers={"authorization": f"Bearer {host_token}"})
        assert r.status_code == 200, r.text
        rec = r.json()
        assert len(rec["actions"]) == seq and rec["status"] == "error" and "seed" in rec
        p.close()
    # After a restart the log replays (the bug is gone): the table is back, not dropped.
    with serve(db) as client:
        assert client.get(f"/api/tables/{tid}").json()["status"] == "playing"


def test_a_table_whose_log_does_not_replay_is_listed_as_damaged_never_dropped(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.sqlite"
    ids: list[str] = []
    hosts: list[str] = []
    with serve(db) as client:
        for _ in range(3):
            tid, host, h = bots_table(client)
            h.send({"type": "start"})
            h.until(lambda m: is_state(m) and m["seq"] >= 5)
            h.close()
            ids.append(tid)
            hosts.append(host)
    # As a server without strict options stored it (finding 2) / a log that is wrong.
    con = sqlite3.connect(db)
    con.execute("UPDATE tables SET options = ? WHERE id = ?",
                (json.dumps({"first_drawer": 1.0}), ids[0]))
    con.execute("UPDATE actions SET action = ? WHERE table_id = ? AND seq = 1",
                (json.dumps(["play", 0, "AS"]), ids[1]))
    con.commit()
    con.close()
    with serve(db) as client:
        lobby = {t["id"]: t["status"] for t in client.get("/api/tables").json()}
        assert lobby == {ids[0]: "error", ids[1]: "error", ids[2]: "playing"}
        for tid, host in zip(ids[:2], hosts[:2], strict=True):
            assert client.get(f"/api/tables/{tid}").json()["status"] == "error"
            p = WSPlayer(client, tid)
            st = p.hello(host)
            assert st["table"]["status"] == "error" and st["table"]["error"]
            r = client.get(f"/api/tables/{tid}/export",
                           headers={"authorization": f"Bearer {host}"})
            assert r.status_code == 200 and len(r.json()["actions"]) >= 5
            p.close()


# -- finding 1: tables nobody watches pause -----------------------------------------------
def test_a_table_nobody_watches_pauses_and_resumes_when_someone_connects(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db) as client:
        tid, host = new_table(client, deal_ms=0, window_ms=0)
        players = [WSPlayer(client, tid) for _ in range(4)]
        players[0].hello(host)
        players[0].sit(0, "Host")
        for i in (1, 2, 3):
            players[i].hello()
            players[i].sit(i, f"P{i}")
        players[0].send({"type": "start"})
        players[0].until(playing)
        for p in players:
            p.close()
        table = table_of(client, tid)
        # The event: the driver is parked (asleep with no timer: only a connection can
        # wake it) with nobody connected, and the log holds every action the table made
        # (a draw on its way to the log when the last client left lands first). A table
        # still dealing at deal_ms=0 never parks and its log never catches up.
        deadline = time.monotonic() + 30

        def parked() -> bool:
            return not table.clients and table.bots.parked and table.clock.paused_at is not None

        while not (on_loop(client, parked)
                   and stored_actions(db, tid) == on_loop(client, lambda: table.seq)):
            assert time.monotonic() < deadline, "the unwatched table did not pause"
            time.sleep(0.02)
        n = stored_actions(db, tid)
        assert on_loop(client, parked) and on_loop(client, lambda: table.seq) == n
        watcher = WSPlayer(client, tid)
        watcher.hello()
        watcher.until(lambda m: is_state(m) and m["seq"] > n)  # it resumes
        watcher.close()


def test_a_public_server_refuses_timings_below_its_minima(tmp_path: Path) -> None:
    public = {"fast_timings": False, "deal_ms": 150, "window_ms": 10_000,
              "bot_delay_ms": 700, "round_pause_ms": 6_000}
    with serve(tmp_path / "db.sqlite", **public) as client:
        for bad in ({"deal_ms": 0}, {"window_ms": 0}, {"round_pause_ms": 10},
                    {"bot_timeout_s": 0}):
            r = client.post("/api/tables", json={"name": "t", **bad})
            assert r.status_code == 422 and r.json()["field"] == next(iter(bad)), r.text
        tid, _ = new_table(client, deal_ms=50)
        info = client.get(f"/api/tables/{tid}").json()
        assert info["settings"]["bot_timeout_s"] == 120  # a default: no game waits for ever
    with pytest.raises(ValueError, match="deal_ms"):
        from shengji.server import ServerConfig, create_app

        create_app(ServerConfig(db=f"sqlite:///{tmp_path / 'x.db'}", deal_ms=0))


# -- finding 3: seats mid-game -------------------------------------------------------------
def test_a_vacated_seat_is_taken_only_with_a_one_time_link_by_someone_new(
    tmp_path: Path,
) -> None:
    with serve(tmp_path / "db.sqlite", deal_ms=20, window_ms=60_000) as client:
        tid, host, h = seated_host(client, 0, "Host")
        guest, other = WSPlayer(client, tid), WSPlayer(client, tid)
        guest.hello()
        guest.sit(1, "Guest")
        other.hello()
        other.sit(2, "Other")
        opp = WSPlayer(client, tid)
        opp.hello()
        opp.sit(3, "Opp")
        h.send({"type": "start"})
        h.until(playing)
        h.send({"type": "kick", "seat": 1})
        st = h.until(lambda m: is_state(m) and (m["table"]["seats"][1] or {}).get("vacant"))
        assert st["table"]["seats"][1]["kind"] == "human"  # in the game, without a player
        # A plain sit, from a stranger or the host's second connection, is refused.
        spy = WSPlayer(client, tid)
        spy.hello()
        assert "seat link" in spy.error({"type": "sit", "seat": 1, "name": "Spy"})
        host2 = WSPlayer(client, tid)
        host2.hello(host)
        assert "seat link" in host2.error({"type": "sit", "seat": 1, "name": "Spy"})
        # The host makes a one-time link; only someone who held no other seat may use it.
        assert "host" in spy.error({"type": "seat_link", "seat": 1})
        assert "kick" in h.error({"type": "seat_link", "seat": 2})
        h.send({"type": "seat_link", "seat": 1})
        code = h.until(lambda m: m["type"] == "seat_link")["code"]
        assert "already have a seat" in host2.error({"type": "claim", "code": code, "name": "X"})
        assert "already have a seat" in other.error({"type": "claim", "code": code,
                                                      "name": "X"})
        # Once kicked from seat 2, neither that connection nor its token may take seat 1.
        other_token = other.token
        h.send({"type": "kick", "seat": 2})
        other.until(lambda m: is_state(m) and m["you"] is None)
        assert "held seat 2" in other.error({"type": "claim", "code": code, "name": "X"})
        again = WSPlayer(client, tid)  # a new connection with seat 2's former token
        again.send({"type": "hello", "token": other_token, "lang": "en"})
        assert "invalid token" in again.until(lambda m: m["type"] == "error")["message"]
        assert "seat 2" in again.error({"type": "claim", "code": code, "name": "X"})
        # The kicked player's token is gone and cannot be used for another seat either.
        kicked = WSPlayer(client, tid)
        kicked.send({"type": "hello", "token": guest.token, "lang": "en"})
        assert "invalid token" in kicked.until(lambda m: m["type"] == "error")["message"]
        newcomer = WSPlayer(client, tid)
        newcomer.hello()
        newcomer.send({"type": "claim", "code": code, "name": "Newcomer"})
        pending = newcomer.until(lambda m: m["type"] == "claim_pending")
        assert pending == {"type": "claim_pending", "seat": 1, "waiting_for": "acceptance"}
        opp.send({"type": "accept_claim", "seat": 1, "accept": True})
        seated = newcomer.until(lambda m: m["type"] == "seated")
        assert seated["seat"] == 1 and seated["token"]
        st = newcomer.until(lambda m: is_state(m) and m["you"] == 1)
        assert st["view"]["seat"] == 1 and st["table"]["seats"][1]["name"] == "Newcomer"
        assert "not valid" in spy.error({"type": "claim", "code": code, "name": "Spy"})
        # The one seat the spy watches has no hand in its view.
        assert spy.until(is_state)["view"]["hand"] == []
        for c in (h, guest, other, opp, spy, host2, again, kicked, newcomer):
            c.close()


def test_a_kicked_seat_goes_to_a_stand_in_so_the_game_never_stalls(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        tid, host = new_table(client, bot_timeout_s=0.05)
        h = WSPlayer(client, tid)
        h.hello(host)
        guest = WSPlayer(client, tid)
        guest.hello()
        guest.sit(1, "Guest")
        bots_and_start(h, (0, 2, 3))
        h.send({"type": "kick", "seat": 1})
        st = h.until(lambda m: is_state(m) and m["view"]["round_no"] == 1, timeout=45)
        assert st["table"]["seats"][1]["vacant"] is True
        h.close()
        guest.close()


# -- bots think off the event loop ------------------------------------------------------------
def test_bots_think_in_worker_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHENGJI_SLOW_BOT_S", "0.01")
    with serve(tmp_path / "db.sqlite") as client:  # no test bots: "slow" is not offered
        tid, host = new_table(client)
        h = WSPlayer(client, tid)
        h.hello(host)
        assert "kind" in h.error({"type": "bot", "seat": 0, "kind": "slow"})
        h.close()
    with serve(tmp_path / "db2.sqlite", bot_workers=1, test_bots=True) as client:
        tid, host, h = bots_table(client, "slow")
        h.send({"type": "start"})
        # bots are asked once they can declare (RULES §3.3) and at the latest for the kitty
        h.until(lambda m: is_state(m) and m["view"]["phase"] in ("kitty", "play"), timeout=60)
        table = table_of(client, tid)
        pids = h.call(lambda: [pid for a in table.bots.agents.values() for pid in a.pids])  # type: ignore[attr-defined]
        assert pids and os.getpid() not in pids
        h.close()


def test_views_hold_no_float_so_the_fast_view_encoder_is_as_strict_as_json() -> None:
    """`dumps_view` and `dumps_events` (orjson) may only encode what holds no float: walk
    every seat's and the spectator's view and every event over whole random games (house
    rules too) and compare the text with the strict encoder's."""
    import json
    import random

    from shengji import Game, RuleOptions
    from shengji.server.schema import dumps_events, dumps_view

    def floats(x: object) -> int:
        if isinstance(x, float):
            return 1
        if isinstance(x, dict):
            return sum(floats(v) for v in x.values())
        if isinstance(x, (list, tuple)):
            return sum(floats(v) for v in x)
        return 0

    checked = events = 0
    for seed, opts in ((1, RuleOptions()), (2, RuleOptions.preset("common_online"))):
        g = Game(seed, opts)
        rng = random.Random(seed)
        for step in range(1500):
            if g.is_over:
                break
            evs = [e.to_json() for e in g.apply(g.random_action(rng))]
            # the events sent after each action (`dumps_events`, orjson) hold no float either
            assert floats(evs) == 0
            assert json.loads(dumps_events(evs)) == json.loads(dumps_strict(evs))
            events += len(evs)
            if step % 7 == 0:
                for seat in (0, 1, 2, 3, None):
                    data = g.view(seat).to_json()
                    assert floats(data) == 0
                    assert json.loads(dumps_view(data)) == json.loads(dumps_strict(data))
                    checked += 1
    assert checked > 500 and events > 1500


def test_the_fast_table_info_encoder_matches_the_strict_one_on_live_tables(
    tmp_path: Path,
) -> None:
    """`dumps_info` (orjson, every state) gives the strict encoder's JSON for a table's
    info while waiting, dealing, declaring and playing (clock, seats, options)."""
    import json

    from server_harness import HUMAN_WINDOW_MS, Human, host_table, serve
    from shengji.server.schema import dumps_info

    with serve(tmp_path / "db.sqlite", window_ms=HUMAN_WINDOW_MS,
               seed_source=lambda: 5) as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "heuristic"}, turn_s=30)
        human = Human(p, table, seed=5)
        clocks = 0
        phase = ""
        while phase != "play":
            m = human.play_until(lambda m: m["type"] == "state", timeout=20)
            phase = m["view"]["phase"]
            info = p.call(table.table_info)
            clocks += info["clock"] is not None
            assert json.loads(dumps_info(info)) == json.loads(dumps_strict(info))
        assert info["status"] == "playing" and clocks > 0
        p.close()

"""The table's clocks (issue 11 "Time"): the turn timer, the declaration window's
countdown, stand-ins marked as such, clocks that stop while nobody watches."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from server_harness import WSPlayer, host_table, on_loop, serve

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]

Msg = dict[str, Any]
BOTS = {1: "random", 2: "random", 3: "random"}


def is_state(m: Msg) -> bool:
    return bool(m["type"] == "state")


def my_play_turn(m: Msg) -> bool:
    return is_state(m) and m["view"]["phase"] == "play" and m["view"]["to_act"] == 0


def test_turn_timer_lets_a_marked_stand_in_play_for_a_connected_player(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db, seed_source=lambda: 3) as client:
        p, table = host_table(client, BOTS, turn_s=0.4)
        # Seat 0 is connected but never acts: every one of its turns runs out.
        st = p.until(my_play_turn, timeout=30)
        clock = st["table"]["clock"]
        assert clock["kind"] == "turn" and clock["seat"] == 0
        assert clock["total_ms"] == 400 and 0 <= clock["remaining_ms"] <= 400
        played = p.until(lambda m: is_state(m) and any(
            e["type"] == "played" and e["seat"] == 0 for e in m["events"]), timeout=10)
        ev = next(e for e in played["events"] if e["type"] == "played")
        assert ev["by"] == "standin"
        marks = played["table"]["standins"]
        assert {"seat": 0, "trick": ev["trick"]}.items() <= marks[-1].items()
        assert marks[-1]["round"] == played["view"]["round_no"]
        # The bots' plays are not marked.
        assert all(m["seat"] == 0 for m in marks)
        seq = marks[-1]["seq"]
        p.close()
    con = sqlite3.connect(db)
    try:
        by = dict(con.execute("SELECT seq, by FROM actions WHERE by IS NOT NULL").fetchall())
    finally:
        con.close()
    assert by.get(seq) == "standin"  # the log says the seat's player did not make it


def test_the_stand_in_marks_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db, seed_source=lambda: 3) as client:
        p, table = host_table(client, BOTS, turn_s=0.3)
        st = p.until(lambda m: is_state(m) and m["table"]["standins"], timeout=30)
        marks = st["table"]["standins"]
        p.close()
    with serve(db, seed_source=lambda: 3) as client:
        # Restored from the log (nobody connected yet, so nothing new was played).
        restored = on_loop(client, lambda: client.app.state.manager.tables[table.id])
        seqs = [m["seq"] for m in marks]
        assert set(seqs) <= set(on_loop(client, lambda: dict(restored.marks)))
        if on_loop(client, lambda: restored.game.round_no) == marks[-1]["round"]:
            again = on_loop(client, lambda: list(restored.standins))
            assert [m["seq"] for m in again][: len(seqs)] == seqs


def test_without_a_turn_timer_a_connected_player_has_no_clock(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", seed_source=lambda: 3) as client:
        p, table = host_table(client, BOTS)  # turn_s defaults to 0: a friends' table
        st = p.until(my_play_turn, timeout=30)
        assert st["table"]["settings"]["turn_s"] == 0
        assert st["table"]["clock"] is None
        p.close()


def test_the_declaration_window_has_a_server_countdown(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", window_ms=1500, seed_source=lambda: 3) as client:
        p, table = host_table(client, BOTS)
        st = p.until(lambda m: is_state(m) and m["view"]["phase"] == "declare", timeout=30)
        clock = st["table"]["clock"]
        assert clock["kind"] == "window" and clock["seat"] is None
        assert clock["total_ms"] == 1500 and 0 < clock["remaining_ms"] <= 1500
        p.close()


def test_clocks_stop_while_nobody_is_connected(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", seed_source=lambda: 3) as client:
        p, table = host_table(client, BOTS, turn_s=30)
        st = p.until(my_play_turn, timeout=30)
        before = st["table"]["clock"]["remaining_ms"]
        seq = st["seq"]
        p.close()

        def pretend_a_minute_passed() -> None:
            assert table.clock.paused_at is not None  # nobody watches: the clocks stopped
            table.clock.paused_at -= 60.0  # as if all this had happened a minute ago
            table.clock.turn_started -= 60.0
            for s in table.clock.absent_since:
                table.clock.absent_since[s] -= 60.0

        on_loop(client, pretend_a_minute_passed)
        w = WSPlayer(client, table.id)
        st = w.hello()
        clock = st["table"]["clock"]
        # The minute nobody watched does not count: the turn goes on where it stopped.
        assert st["seq"] == seq and clock["kind"] == "turn"
        assert before - 5_000 <= clock["remaining_ms"] <= before
        w.close()


def test_turn_timer_settings_are_validated(tmp_path: Path) -> None:
    public = {"fast_timings": False, "deal_ms": 150, "window_ms": 10_000,
              "bot_delay_ms": 700, "round_pause_ms": 6_000}
    with serve(tmp_path / "db.sqlite", **public) as client:
        for bad in (3, -1, 601, True, "20"):
            r = client.post("/api/tables", json={"name": "t", "turn_s": bad})
            assert r.status_code == 422 and r.json()["field"] == "turn_s", r.text
        for good in (0, 20, 30.5):
            r = client.post("/api/tables", json={"name": "t", "turn_s": good})
            assert r.status_code == 200, r.text
            info = client.get(f"/api/tables/{r.json()['id']}").json()
            assert info["settings"]["turn_s"] == good

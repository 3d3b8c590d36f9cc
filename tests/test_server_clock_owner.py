"""The table's clock owns its deadlines (issue 30 item 1): the driver asks it what is due
and tells it what happened; it never sets the clock's times itself.

The clock runs here on a table of its own (`clock.Timed`: status, game, settings, seq,
who is connected, which seats bots play), with no server.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path

from helpers import assigned_targets
from shengji import Game
from shengji.actions import DRAW
from shengji.server.clock import TableClock
from shengji.server.schema import TableSettings
from shengji.server.status import PLAYING

SRC = Path(__file__).resolve().parents[1] / "src" / "shengji" / "server"


class Timed:
    """A playing table as the clock reads it: seat 0 a connected human, 1-3 bots."""

    def __init__(self) -> None:
        self.status = PLAYING
        self.game = Game(seed=7)
        self.settings = TableSettings(deal_ms=200, window_ms=3000, bot_delay_ms=500,
                                      round_pause_ms=1000, turn_s=0)
        self.seq = 0

    def connected(self, seat: int) -> bool:
        return seat == 0

    def bot_plays(self, seat: int) -> bool:
        return seat != 0

    def act(self) -> None:
        self.game.apply(DRAW)
        self.seq += 1


def test_the_deal_and_the_bots_are_due_when_the_clock_says() -> None:
    table = Timed()
    clock = TableClock(table, n_players=4)
    assert set(clock.absent_since) == {0, 1, 2, 3}
    before = time.monotonic()
    clock.catch_up(before)
    assert clock.turn_started == before and clock.window_due() is None  # the deal
    assert clock.draw_due() == max(clock.pause_until, clock.next_draw_at)
    clock.drew()
    assert before + 0.2 <= clock.next_draw_at <= time.monotonic() + 0.2
    assert clock.draw_due() == clock.next_draw_at
    clock.after_action(DRAW, round_ended=True)  # a round ended: the pause is due first
    assert clock.draw_due() == clock.pause_until > clock.next_draw_at
    assert clock.bot_due() == clock.turn_started + 0.5
    assert TableClock(table, n_players=6).absent_since.keys() == set(range(6))


def test_catch_up_begins_a_turn_it_was_not_told_of_and_opens_and_closes_the_window() -> None:
    table = Timed()
    clock = TableClock(table)
    clock.catch_up(100.0)
    while table.game.decision().phase == "deal":
        table.act()
    assert table.game.decision().phase == "declare"  # RULES §3.3: the window after the deal
    clock.catch_up(200.0)  # an action the clock was not told of: a new turn from now
    assert clock.turn_seq == table.seq and clock.turn_started == 200.0
    assert clock.window_due() == 203.0  # the window opens, `window_ms` long
    clock.catch_up(201.0)  # nothing new: the turn and the window stand
    assert clock.turn_started == 200.0 and clock.window_due() == 203.0
    kind, seat, due, total = clock.deadline() or ("", None, 0.0, 0.0)
    assert (kind, seat, due, total) == ("window", None, 203.0, 3.0)
    clock.pause()  # nobody watches: the window stops and goes on where it was
    assert clock.paused_at is not None
    clock.paused_at -= 10.0
    clock.resume()
    assert 213.0 <= (clock.window_due() or 0) < 213.5  # 10 s stopped (and a little more)


def test_the_driver_never_writes_the_clocks_fields() -> None:
    """`botdriver` reads the clock through its methods; no assignment to its fields."""
    tree = ast.parse((SRC / "botdriver.py").read_text(encoding="utf-8"))
    writes = []
    for node, t in assigned_targets(tree):
        for a in ast.walk(t):
            if isinstance(a, ast.Attribute) and (
                "clock" in ast.unparse(a.value) or ast.unparse(a.value) == "tc"
            ):
                writes.append(f"{node.lineno}: {ast.unparse(a)}")
    assert not writes, writes
    assert "tc.catch_up(" in (SRC / "botdriver.py").read_text(encoding="utf-8")

"""A table's clocks: the deal's pace, the declaration window, turns, absences, pauses.

All times are `time.monotonic()` seconds in this process. Clients never see them: a
countdown goes out as the milliseconds left when the message was built (`json`), and
clients count down from there. While nobody is connected to the table every clock
stops (`pause`) and goes on from where it stopped (`resume`).

The clock is the one owner of its deadlines: the table's driver (`botdriver`) asks it
what is due (`catch_up`, `draw_due`, `window_due`, `bot_due`, `deadline`) and tells it
what happened (`drew`, `after_action`), and never sets its times itself.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from shengji.actions import Action, Declare
from shengji.game import Game

from .schema import KITTY_TURNS, TableSettings
from .status import PLAYING


class Timed(Protocol):
    """What the clock reads of its table (`tables.Table` is one), not the whole table."""

    @property
    def status(self) -> str:
        """The table's status (`status.PLAYING`, ...)."""

    @property
    def game(self) -> Game:
        """The table's game."""

    @property
    def settings(self) -> TableSettings:
        """The table's settings (its paces and timeouts)."""

    @property
    def seq(self) -> int:
        """The number of actions applied."""

    def connected(self, seat: int) -> bool:
        """Some connection sits at `seat`."""

    def bot_plays(self, seat: int) -> bool:
        """A bot plays `seat` (its turns have no countdown)."""


#: (kind, seat or None, due time, total seconds) of the running countdown
Deadline = tuple[str, int | None, float, float]


class TableClock:
    """The timing state of one table; `deadline()` says which countdown runs now."""

    def __init__(self, table: Timed, n_players: int = 4) -> None:
        self.table = table
        now = time.monotonic()
        # seats not connected
        self.absent_since: dict[int, float] = {s: now for s in range(n_players)}
        self.turn_seq = -1  # the action count when the current turn began
        self.turn_started = now
        self.pause_until = 0.0  # the pause between rounds (`round_pause_ms`)
        self.next_draw_at = 0.0  # the deal's pace (`deal_ms`)
        self.window_deadline: float | None = None  # the declaration window's end
        self.paused_at: float | None = None  # when the last connection left (clocks stop)

    def deadline(self) -> Deadline | None:
        """The running countdown: (kind, seat, due, total seconds), or None.

        Kinds: ``"window"`` (the declaration window, RULES §3.3), ``"turn"`` (the table's
        turn timer, `turn_s`; the kitty exchange gets `KITTY_TURNS` times as long) and
        ``"absent"`` (an absent player's seat goes to a stand-in after `bot_timeout_s`);
        the earliest one that applies. Bots' turns have none.
        """
        t = self.table
        if t.status != PLAYING or t.game.is_over:
            return None
        d = t.game.decision()
        if d.phase == "declare" and self.window_deadline is not None:
            return ("window", None, self.window_deadline, t.settings.window_ms / 1000)
        seat = d.seat
        if (d.phase not in ("declare", "kitty", "call", "play") or seat is None
                or t.bot_plays(seat)):
            return None
        best: Deadline | None = None
        # the kitty exchange and the friend call (RULES §12.4) are choices of several cards
        turn = t.settings.turn_s * (KITTY_TURNS if d.phase in ("kitty", "call") else 1)
        if turn > 0 and d.phase != "declare":
            best = ("turn", seat, self.turn_started + turn, turn)
        timeout = t.settings.bot_timeout_s
        if timeout is not None and not t.connected(seat):
            since = max(self.turn_started, self.absent_since.get(seat, self.turn_started))
            if best is None or since + timeout < best[2]:
                best = ("absent", seat, since + timeout, timeout)
        return best

    def json(self) -> dict[str, Any] | None:
        """The countdown for clients: they count down from `remaining_ms` as received."""
        dl = self.deadline()
        if dl is None:
            return None
        kind, seat, due, total = dl
        now = self.paused_at if self.paused_at is not None else time.monotonic()
        return {
            "kind": kind,
            "seat": seat,
            "remaining_ms": max(0, round((due - now) * 1000)),
            "total_ms": round(total * 1000),
        }

    def after_action(self, action: Action, round_ended: bool) -> None:
        """An action was applied: a new turn begins; the window opens (or restarts after a
        declaration, RULES §3.3) or closes; a finished round starts the pause."""
        t = self.table
        now = time.monotonic()
        if round_ended:
            self.pause_until = now + t.settings.round_pause_ms / 1000
        if t.game.decision().phase != "declare":
            self.window_deadline = None
        elif self.window_deadline is None or isinstance(action, Declare):
            self.window_deadline = now + t.settings.window_ms / 1000
        self.turn_seq, self.turn_started = t.seq, now

    def catch_up(self, now: float) -> None:
        """The driver's step begins at `now`: a turn the clock has not seen yet (an action
        it was not told of) begins now; the declaration window opens if the round is in
        its declarations (RULES §3.3) with none running, and closes if it is not."""
        t = self.table
        if self.turn_seq != t.seq:
            self.turn_seq, self.turn_started = t.seq, now
        if t.game.decision().phase != "declare":
            self.window_deadline = None
        elif self.window_deadline is None:
            self.window_deadline = now + t.settings.window_ms / 1000

    def draw_due(self) -> float:
        """When the deal's next card is due: after the pause between rounds and at the
        deal's pace (`deal_ms`)."""
        return max(self.pause_until, self.next_draw_at)

    def drew(self) -> None:
        """A card was drawn (or tried): the next one is due `deal_ms` from now."""
        self.next_draw_at = time.monotonic() + self.table.settings.deal_ms / 1000

    def window_due(self) -> float | None:
        """When the declaration window closes (None: none is open)."""
        return self.window_deadline

    def bot_due(self) -> float:
        """When the bot whose turn it is moves (`bot_delay_ms` after the turn began)."""
        return self.turn_started + self.table.settings.bot_delay_ms / 1000

    def absent(self, seat: int) -> None:
        """`seat` has no connection from now on."""
        self.absent_since[seat] = time.monotonic()

    def present(self, seat: int) -> None:
        """`seat` has a connection again."""
        self.absent_since.pop(seat, None)

    def pause(self) -> None:
        """Nobody is connected: every countdown stops where it is."""
        if self.paused_at is None:
            self.paused_at = time.monotonic()

    def resume(self) -> None:
        """Someone connected again: the countdowns go on from where they stopped."""
        if self.paused_at is None:
            return
        shift = time.monotonic() - self.paused_at
        self.paused_at = None
        self.turn_started += shift
        if self.window_deadline is not None:
            self.window_deadline += shift
        self.pause_until += shift
        self.next_draw_at += shift
        for seat in self.absent_since:
            self.absent_since[seat] += shift

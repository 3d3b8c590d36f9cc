"""The one event narrator behind the three terminal logs (demo, game, replay).

`Narrator` dispatches each event to a hook by the event's type (one table, no
`isinstance` ladder) and keeps what every log needs to follow a round from its events
alone: the plays of the trick so far and the declaring team once the trump is fixed
(RULES §3.2, §6). A log subclasses it and overrides the hooks it words; a hook it leaves
alone says nothing.
"""

from __future__ import annotations

from . import events as ev
from .cards import Card
from .results import TrickView

# The hook each narrated event type calls; other events (draws, passes, the kitty
# taken) carry nothing a log words.
_HOOKS: dict[type[ev.Event], str] = {
    ev.RoundStarted: "on_round_started",
    ev.Redealt: "on_redealt",
    ev.Declared: "on_declared",
    ev.KittyFlipped: "on_kitty_flipped",
    ev.TrumpFixed: "_trump_fixed",
    ev.KittyBuried: "on_kitty_buried",
    ev.ThrowFailed: "on_throw_failed",
    ev.Played: "_played",
    ev.TrickWon: "on_trick_won",
    ev.RoundOver: "on_round_over",
    ev.GameOver: "on_game_over",
}


class Narrator:
    """Base of the terminal's event logs: `narrate(e)` calls the hook for e's type."""

    def __init__(self) -> None:
        self.plays: list[tuple[int, tuple[Card, ...]]] = []  # the current trick so far
        self.declaring_team: int | None = None  # this round's, once the trump is fixed

    def narrate(self, e: ev.Event) -> None:
        """Say what one event means (its type picks the hook; unknown types say nothing)."""
        hook = _HOOKS.get(type(e))
        if hook is not None:
            getattr(self, hook)(e)

    def close_trick(self, e: ev.TrickWon) -> TrickView:
        """The trick `e` closes, from the plays seen since the last one (which it clears)."""
        plays, self.plays = tuple(self.plays), []
        return TrickView(plays[0][0], plays, e.winner, e.points)

    # ---------------------------------------------------------------- bookkeeping
    def _played(self, e: ev.Played) -> None:
        self.plays.append((e.seat, e.cards))
        self.on_played(e)

    def _trump_fixed(self, e: ev.TrumpFixed) -> None:
        self.declaring_team = e.declaring_team
        self.on_trump_fixed(e)

    # ---------------------------------------------------------------- hooks
    def on_round_started(self, e: ev.RoundStarted) -> None:
        """A round begins (RULES §8.3)."""

    def on_redealt(self, e: ev.Redealt) -> None:
        """Nobody declared: a redeal (RULES §3.5)."""

    def on_declared(self, e: ev.Declared) -> None:
        """A seat declared (RULES §3.3)."""

    def on_kitty_flipped(self, e: ev.KittyFlipped) -> None:
        """Nobody declared: the kitty was turned up (RULES §3.5)."""

    def on_trump_fixed(self, e: ev.TrumpFixed) -> None:
        """The trump is final (RULES §3.2); `declaring_team` is already set."""

    def on_kitty_buried(self, e: ev.KittyBuried) -> None:
        """The starter buried the kitty (RULES §4)."""

    def on_throw_failed(self, e: ev.ThrowFailed) -> None:
        """A throw failed (RULES §6.4)."""

    def on_played(self, e: ev.Played) -> None:
        """A seat played to the trick; the play is already in `plays`."""

    def on_trick_won(self, e: ev.TrickWon) -> None:
        """A trick closed (RULES §6.3); `close_trick(e)` gives it."""

    def on_round_over(self, e: ev.RoundOver) -> None:
        """The round ended (RULES §8)."""

    def on_game_over(self, e: ev.GameOver) -> None:
        """The game ended (RULES §9)."""


__all__ = ["Narrator"]

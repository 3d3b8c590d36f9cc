"""Step through a saved game (`shengji replay game.json`), trick by trick.

A record may show everything (RULES §11), so the replay shows every hand once
the kitty is buried, the kitty itself, and every trick.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.text import Text

from .. import events as ev
from ..actions import action_from_json
from ..game import Game
from ..narrate import Narrator
from ..record import GameRecord
from ..trump import Trump
from .render import (
    cards_text,
    failed_throw_text,
    hand_text,
    levels_text,
    options_text,
    result_text,
    seat_name,
    set_table,
    team_name,
    trick_text,
    trump_text,
)

PROMPT = "Enter: next trick · a: all the rest · q: quit> "
HELP_LINE = "Press Enter (or n) for the next step, a to print all the rest, q to quit."
"""The replay's answer to input it does not know."""


class Replay:
    """Replays a record on a fresh `Game`, printing as it goes; pauses after each trick
    unless `all_` (then it prints everything without reading input)."""

    def __init__(
        self, record: GameRecord, *, console: Console, stdin: TextIO | None, all_: bool
    ) -> None:
        self.record = record
        self.console = console
        self.stdin = stdin
        self.all = all_ or stdin is None

    def pause(self) -> bool:
        """Wait for Enter; False to stop (q or end of input), and 'a' prints the rest.
        Any other input is answered with a help line and does not advance."""
        if self.all:
            return True
        assert self.stdin is not None
        while True:
            self.console.print(Text(PROMPT, style="bold magenta"), end="")
            line = self.stdin.readline()
            if not line:
                self.console.print()
                return False
            cmd = line.strip().lower()
            isatty = getattr(self.stdin, "isatty", None)
            if not (callable(isatty) and isatty()):
                self.console.print(cmd, style="dim", highlight=False)  # echo scripted input
            if cmd in ("q", "quit", "exit"):
                return False
            if cmd in ("a", "all"):
                self.all = True
            if cmd in ("", "n", "next", "a", "all"):
                return True
            self.console.print(Text(f"{line.strip()!r} is not a replay command. " + HELP_LINE,
                                    style="yellow"), highlight=False)

    def run(self) -> int:
        """Replay the whole record (or until the viewer quits); the exit code, 0."""
        rec = self.record
        game = Game(rec.seed, rec.options)
        set_table(rec.options.n_players)  # seat names of this table (RULES §12.1)
        self.console.print(Text.assemble(
            ("Replay", "bold"), f" of game seed {rec.seed}, {len(rec.actions)} actions, "
            f"rules: {options_text(rec.options)}"))
        narrator = _Narrator(self.console, game)
        narrator(game.round_started(), None)
        for raw in rec.actions:
            events = game.apply(action_from_json(raw, rec.options.n_players))
            for k, event in enumerate(events):
                narrator(event, events[k + 1] if k + 1 < len(events) else None)
                if narrator.wants_pause and not self.pause():
                    return 0
                narrator.wants_pause = False
        if not game.is_over:
            self.console.print(Text(
                f"End of the record (game unfinished, round {game.round_no + 1}).", style="dim"
            ))
        return 0


class _Narrator(Narrator):
    """Prints a replay from the game's events (a record shows everything, RULES §11).

    Called with each event and the one after it in the same action (or None); sets
    `wants_pause` where the viewer steps: after the bury, after each trick but a
    round's last, and after each round's result but the game's last.
    """

    def __init__(self, console: Console, game: Game) -> None:
        super().__init__()
        self.console = console
        self.say = console.print
        self.game = game  # read through views only, for the hands and the trump order
        self.trump: Trump | None = None
        self.rounds = 0
        self.wants_pause = False
        self._after: ev.Event | None = None

    def __call__(self, e: ev.Event, after: ev.Event | None) -> None:
        """Print one event; `after` is the next event of the same action, if any."""
        self._after = after
        self.narrate(e)

    def on_trick_won(self, e: ev.TrickWon) -> None:
        trick = self.close_trick(e)
        assert self.declaring_team is not None  # the trump is fixed before any trick
        team = self.declaring_team if self.declaring_team >= 0 else None  # friends: -1
        self.say(trick_text(trick, e.trick + 1, None, declaring_team=team,
                            opponents_points=e.opponents_points))
        self.wants_pause = not isinstance(self._after, ev.RoundOver)

    def on_kitty_buried(self, e: ev.KittyBuried) -> None:
        assert e.cards is not None and self.trump is not None  # a record hides nothing
        self.say(Text.assemble(f"{seat_name(e.seat, None)} buries ",
                               cards_text(self.trump.sort(e.cards))))
        for s in range(self.game.options.n_players):
            text, _ = hand_text(self.game.view(s).hand, self.trump, indexed=False)
            self.say(Text(f"{seat_name(s, None)}'s hand:", style="bold"))
            self.say(text)
        self.wants_pause = True

    def on_round_over(self, e: ev.RoundOver) -> None:
        self.rounds += 1
        self.say(result_text(e.result, None, self.trump))
        self.wants_pause = not isinstance(self._after, ev.GameOver)

    def on_round_started(self, e: ev.RoundStarted) -> None:
        self.console.rule(f"Round {e.round_no + 1}")
        friends = self.game.options.mode == "friends"
        self.say(f"Levels: {levels_text(e.levels, None, friends)}; trump rank {e.trump_rank}.")

    def on_redealt(self, e: ev.Redealt) -> None:
        self.say(Text("Nobody declared: redeal (RULES §3.5).", style="yellow"))

    def on_declared(self, e: ev.Declared) -> None:
        self.say(Text.assemble((seat_name(e.seat, None), "bold"), " declares ",
                               cards_text(e.cards)))

    def on_kitty_flipped(self, e: ev.KittyFlipped) -> None:
        self.say(Text.assemble("Kitty turned up: ", cards_text(e.cards)))

    def on_trump_fixed(self, e: ev.TrumpFixed) -> None:
        self.trump = self.game.view(None).trump
        self.say(Text.assemble(("Trump: ", "bold"), trump_text(e.rank, e.suit, True),
                               f"; starter {seat_name(e.starter, None)}."))

    def on_throw_failed(self, e: ev.ThrowFailed) -> None:
        self.say(failed_throw_text(e, None))

    def on_game_over(self, e: ev.GameOver) -> None:
        if self.game.options.mode == "friends":  # §12.4: a player wins
            self.say(Text(f"{seat_name(e.winner, None)} wins the game after {self.rounds} "
                          f"rounds (levels {levels_text(e.levels, None, True)}).",
                          style="bold green"))
            return
        self.say(Text(f"{team_name(e.winner, None)} win the game after {self.rounds} "
                      f"rounds (levels {e.levels[0]} / {e.levels[1]}).", style="bold green"))


def replay_terminal(
    path: Path, *, all_: bool = False, console: Console | None = None,
    stdin: TextIO | None = None,
) -> int:
    """Entry point of `shengji replay`."""
    import sys

    record = GameRecord.load(path)
    return Replay(record, console=console or Console(highlight=False),
                  stdin=None if all_ else (stdin or sys.stdin), all_=all_).run()


__all__ = ["Replay", "replay_terminal"]

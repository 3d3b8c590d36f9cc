"""Step through a saved game (`shengji replay game.json`), trick by trick.

A record may show everything (RULES §11), so the replay shows every hand once
the kitty is buried, the kitty itself, and every trick.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.text import Text

from ..actions import Bury, Declare, Play, action_from_json
from ..game import Game
from ..record import GameRecord
from ..round import RoundResult
from .render import (
    cards_text,
    failed_throw_text,
    hand_text,
    options_text,
    result_text,
    seat_name,
    team_name,
    trick_text,
    trump_text,
)


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
        """Wait for Enter; False to stop (q or end of input), and 'a' prints the rest."""
        if self.all:
            return True
        assert self.stdin is not None
        self.console.print(Text("Enter: next trick · a: all the rest · q: quit> ",
                                style="bold magenta"), end="")
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
        return True

    def run(self) -> int:
        rec = self.record
        game = Game(rec.seed, rec.options)
        say = self.console.print
        say(Text.assemble(("Replay", "bold"), f" of game seed {rec.seed}, "
                          f"{len(rec.actions)} actions, rules: {options_text(rec.options)}"))
        for raw in rec.actions:
            action = action_from_json(raw)
            rnd = game.round
            phase = rnd.phase
            attempt = rnd.attempt
            n_tricks = len(rnd.tricks)
            n_failed = len(rnd.failed_throws)
            n_results = len(game.results)
            if phase == "deal" and rnd.drawn == 0 and attempt == 0:
                self.console.rule(f"Round {rnd.round_no + 1}")
                lv = rnd.levels
                say(f"Levels: {team_name(0, None)} {lv[0]}, {team_name(1, None)} {lv[1]}; "
                    f"trump rank {rnd.trump_rank}.")
            game.apply(action)
            if rnd.attempt != attempt:
                say(Text("Nobody declared: redeal (RULES §3.5).", style="yellow"))
            if isinstance(action, Declare):
                say(Text.assemble((seat_name(action.seat, None), "bold"), " declares ",
                                  cards_text(action.cards)))
            if phase in ("deal", "declare") and rnd.phase == "kitty":
                view = rnd.view(None)
                if view.kitty_flip:
                    say(Text.assemble("Kitty turned up: ", cards_text(view.kitty_flip)))
                t = rnd.trump
                assert t is not None and rnd.starter is not None
                say(Text.assemble(("Trump: ", "bold"), trump_text(t.rank, t.suit, True),
                                  f"; starter {seat_name(rnd.starter, None)}."))
            if isinstance(action, Bury):
                assert rnd.trump is not None
                say(Text.assemble(f"{seat_name(action.seat, None)} buries ",
                                  cards_text(rnd.trump.sort(action.cards))))
                for s in range(4):
                    text, _ = hand_text(rnd.hand(s), rnd.trump, indexed=False)
                    say(Text(f"{seat_name(s, None)}'s hand:", style="bold"))
                    say(text)
                if not self.pause():
                    return 0
            if isinstance(action, Play):
                if len(rnd.failed_throws) > n_failed:
                    say(failed_throw_text(rnd.failed_throws[-1], None))
                if len(rnd.tricks) > n_tricks:
                    tricks, _ = rnd.trick_views()
                    line = trick_text(tricks[-1], len(tricks), None)
                    line.append(f"   opponents' points {rnd.opponents_points}", style="dim")
                    say(line)
                    if len(game.results) == n_results and not self.pause():
                        return 0
            if len(game.results) > n_results:
                result = game.results[-1]
                assert isinstance(result, RoundResult)
                say(result_text(result, None, rnd.trump))
                if not game.is_over and not self.pause():
                    return 0
        if game.is_over:
            assert game.winner is not None
            say(Text(f"{team_name(game.winner, None)} win the game after {len(game.results)} "
                     f"rounds (levels {game.level_names[0]} / {game.level_names[1]}).",
                     style="bold green"))
        else:
            say(Text(f"End of the record (game unfinished, round {game.round_no + 1}).",
                     style="dim"))
        return 0


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

"""The terminal client, driven end to end through scripted input."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TextIO, cast

import pytest
from rich.console import Console

from shengji import Game, GameRecord, IllegalAction, RuleOptions, parse_cards, replay
from shengji.actions import Bury, Declare, Play
from shengji.analysis import Budget, review_lines, review_round
from shengji.bots import make_agent
from shengji.trump import Trump
from shengji.tui import Replay, TerminalGame, agents_for, parse_selection
from shengji.tui.render import cards_text, hand_text
from shengji.views import View


class ScriptedPlayer(io.TextIOBase):
    """Plays South through the text interface: reads the last prompt printed and types a
    line as a person would (cards by notation or by index), starting with some mistakes."""

    def __init__(self, out: io.StringIO, mistakes: list[str] | None = None,
                 declare: bool = True, early: dict[str, list[str]] | None = None) -> None:
        self.out = out
        self.early = early or {}  # prompt start -> mistakes typed there first
        self.ui: TerminalGame | None = None
        self.bot = make_agent("heuristic", 4)
        self.mistakes = list(mistakes or [])
        self.declare = declare
        self.lines: list[str] = []
        self.use_index = False
        self.throws = 0

    def readable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = self._answer()
        self.lines.append(line)
        return line + "\n"

    def _answer(self) -> str:
        assert self.ui is not None
        prompt = self.out.getvalue().rstrip("\n").rsplit("\n", 1)[-1]
        view = self.ui.game.view(0)
        for start, typed in self.early.items():
            if prompt.startswith(start) and typed:
                return typed.pop(0)
        if prompt.startswith("Declare?"):
            return "1" if self.declare else ""
        if prompt.startswith("Press Enter"):
            return ""
        if prompt.startswith("Throw anyway?"):
            self.throws += 1
            return "y"
        if prompt.startswith("Your play") and self.mistakes:
            return self.mistakes.pop(0)
        action = self.bot.act(view)
        assert isinstance(action, (Bury, Play)), prompt
        if not self.use_index:
            self.use_index = True
            return " ".join(c.text.lower() for c in action.cards)
        # By the numbers shown next to the cards (a card keeps its number all round).
        self.use_index = False
        numbers = self.ui.hand_numbers(view)
        idx: list[int] = []
        for c in action.cards:
            k = next(k for k, x in numbers.items() if x == c and k not in idx)
            idx.append(k)
        return " ".join(map(str, idx))


#: the coach's search in these tests: small, so that a hint or a review takes well under a second
COACH = Budget(worlds=2, rollouts=1)


def run_scripted(seed: int, tmp_path: Path, mistakes: list[str], max_rounds: int = 1,
                 declare: bool = True, early: dict[str, list[str]] | None = None,
                 ) -> tuple[TerminalGame, str, ScriptedPlayer]:
    out = io.StringIO()
    player = ScriptedPlayer(out, mistakes, declare, early)
    game = Game(seed, RuleOptions())
    ui = TerminalGame(
        game, agents_for("heuristic", "heuristic", seed),
        console=Console(file=out, width=120, color_system=None),
        stdin=cast(TextIO, player), save=tmp_path / "game.json", max_rounds=max_rounds,
        coach_budget=COACH,
    )
    player.ui = ui
    assert ui.run() == 0
    return ui, out.getvalue(), player


def test_a_whole_round_through_the_terminal(tmp_path: Path) -> None:
    ui, text, player = run_scripted(
        3, tmp_path, mistakes=["hint", "last", "help", "99", "7X", "BJ RJ RJ BJ BJ"]
    )
    game = ui.game
    assert len(game.results) == 1
    # The rejected inputs showed the rule and the player tried again.
    assert "there is no card number 99" in text
    assert "'7X' is not a card" in text
    assert "RULES §6" in text and "Hint: play " in text
    # The round was shown: declarations, trump, tricks, the summary.
    assert "You declare 2♦" in text and "overturns with" in text and "Trump is final" in text
    assert "Trick  1:" in text and "Round over." in text and "Opponents' points" in text
    assert "Next round:" in text
    # The saved record replays to the same result.
    rec = GameRecord.load(tmp_path / "game.json")
    again = replay(rec)
    assert again.results == game.results


def test_the_starter_exchanges_the_kitty(tmp_path: Path) -> None:
    # Declaring at the first chance makes South the starter for this seed.
    for seed in range(20):
        ui, text, _ = run_scripted(seed, tmp_path, mistakes=[], declare=True)
        if ui.game.results[0].starter == 0:
            assert "You are the starter" in text and "You bury" in text
            return
    pytest.fail("no seed made South the starter")


def test_a_refused_declaration_or_burial_is_said_and_typed_again(tmp_path: Path) -> None:
    # RULES §3.3 and §4: a declaration number not offered and a burial of the wrong
    # count are refused in red, and the same prompt comes back; the round goes on.
    for seed in range(20):
        early = {"Declare?": ["99"], "Bury": ["1"]}
        ui, text, _ = run_scripted(seed, tmp_path, mistakes=[], early=early)
        if ui.game.results[0].starter == 0:
            assert "choose 1-" in text and "or Enter to pass" in text
            assert "puts back exactly 8 cards, not 1" in text
            assert "You bury" in text and early == {"Declare?": [], "Bury": []}
            return
    pytest.fail("no seed made South the starter")


def test_illegal_follow_shows_the_rule(tmp_path: Path) -> None:
    out = io.StringIO()
    game = Game(8)
    agents = {s: make_agent("heuristic", s) for s in (1, 2, 3)}
    ui = TerminalGame(game, agents, console=Console(file=out, width=120, color_system=None),
                      stdin=io.StringIO(""), max_rounds=1)
    # Play until South must follow a lead, then feed a wrong number of cards.
    bot = make_agent("heuristic", 0)
    from shengji.driver import step

    while not (game.decision().phase == "play" and game.decision().seat == 0
               and game.view(0).lead is not None):
        step(game, [bot, *[agents[s] for s in (1, 2, 3)]])
    view = game.view(0)
    assert view.lead is not None
    n = len(view.lead)
    wrong = " ".join(c.text for c in view.hand[: n + 1])
    right = bot.act(view)
    assert isinstance(right, Play)
    ui.stdin = io.StringIO(wrong + "\n" + " ".join(c.text for c in right.cards) + "\n")
    action = ui.player.act(view)
    assert action == right
    assert f"play exactly {n} card" in out.getvalue()


def _south_to_play(seed: int, forced: bool) -> tuple[TerminalGame, io.StringIO, View]:
    """A terminal game advanced by bots to South's turn in the play, where South has
    exactly one legal play (`forced`) or more than one."""
    from shengji.driver import step

    out = io.StringIO()
    game = Game(seed)
    agents = {s: make_agent("heuristic", s) for s in (1, 2, 3)}
    ui = TerminalGame(game, agents, console=Console(file=out, width=120, color_system=None),
                      stdin=io.StringIO(""), max_rounds=1)
    bot = make_agent("heuristic", 0)
    while True:
        d = game.decision()
        if d.phase == "play" and d.seat == 0 and \
                (game.view(0).forced_play() is not None) == forced:
            return ui, out, game.view(0)
        assert not game.is_over and game.round_no == 0, "no such turn in the first round"
        step(game, [bot, *[agents[s] for s in (1, 2, 3)]])


def test_enter_alone_makes_the_only_legal_play_or_says_what_to_type_rules_6_2() -> None:
    ui, out, view = _south_to_play(3, forced=True)
    only = view.forced_play()
    assert only is not None and list(view.legal_plays()) == [only]
    ui.stdin = io.StringIO("\n")
    assert ui.player.act(view) == Play(0, only)
    assert "the only legal play (RULES §6.2)" in out.getvalue()

    ui, out, view = _south_to_play(3, forced=False)
    right = make_agent("heuristic", 0).act(view)
    assert isinstance(right, Play)
    ui.stdin = io.StringIO("\n" + " ".join(c.text for c in right.cards) + "\n")
    assert ui.player.act(view) == right  # Enter alone played nothing, then the typed play
    assert "Type the cards to play by their numbers" in out.getvalue()


def test_quit_saves_and_stops(tmp_path: Path) -> None:
    out = io.StringIO()
    game = Game(5)
    ui = TerminalGame(game, agents_for("random", "random", 5),
                      console=Console(file=out, width=100, color_system=None),
                      stdin=io.StringIO("quit\n"), save=tmp_path / "g.json")
    assert ui.run() == 0
    assert "Stopped." in out.getvalue()
    rec = GameRecord.load(tmp_path / "g.json")
    assert replay(rec).round.round_no == game.round.round_no


def test_end_of_input_stops_cleanly() -> None:
    out = io.StringIO()
    ui = TerminalGame(Game(2), agents_for("heuristic", "random", 2),
                      console=Console(file=out, width=100, color_system=None),
                      stdin=io.StringIO(""))
    assert ui.run() == 0


def test_agents_for_seats() -> None:
    agents = agents_for("heuristic", "random", 1)
    assert sorted(agents) == [1, 2, 3]
    assert type(agents[2]).__name__ == "HeuristicAgent"
    assert type(agents[1]).__name__ == type(agents[3]).__name__ == "RandomAgent"
    with pytest.raises(ValueError):
        TerminalGame(Game(1), {1: agents[1]}, console=Console(file=io.StringIO()),
                     stdin=io.StringIO())


def test_parse_selection_by_index_and_notation() -> None:
    order = parse_cards("3S 5S 10H 10H BJ")
    assert parse_selection("3 4", order) == parse_cards("10H 10H")
    assert parse_selection("10h, th", order) == parse_cards("10H 10H")
    assert parse_selection("5", order) == parse_cards("BJ")
    with pytest.raises(IllegalAction, match="no card number 6"):
        parse_selection("6", order)
    with pytest.raises(IllegalAction, match="chosen twice"):
        parse_selection("1 1", order)
    with pytest.raises(IllegalAction, match="RULES §1"):
        parse_selection("1 AS", order)
    with pytest.raises(IllegalAction):
        parse_selection("   ", order)


def test_hand_is_grouped_by_play_suit_in_order() -> None:
    t = Trump("2", "H")
    text, order = hand_text(parse_cards("AH 2S 3S KD BJ 4C 2H 5S"), t)
    lines = text.plain.splitlines()
    assert [ln.split()[0] for ln in lines] == ["Spades", "Diamonds", "Clubs", "Trumps"]
    assert [c.text for c in order] == ["3S", "5S", "KD", "4C", "AH", "2S", "2H", "BJ"]
    assert "1:3♠" in lines[0] and "8:BJ" in lines[3]


def test_declaring_during_the_deal(tmp_path: Path) -> None:
    ui, text, player = run_scripted(3, tmp_path, mistakes=[], declare=True)
    decls = [a for a in ui.game.actions if isinstance(a, Declare) and a.seat == 0]
    assert decls, "South declared when offered"
    assert "You may declare" in text and "You drew" in text


def _finished_tricks(text: str) -> list[str]:
    return [ln.split("   opponents")[0] for ln in text.splitlines()
            if ln.startswith("Trick ") and "→" in ln]


def test_replay_all_and_step_by_step(tmp_path: Path) -> None:
    _, played_text, _ = run_scripted(3, tmp_path, mistakes=[])
    rec = GameRecord.load(tmp_path / "game.json")
    out = io.StringIO()
    Replay(rec, console=Console(file=out, width=120, color_system=None), stdin=None,
           all_=True).run()
    text = out.getvalue()
    assert "Round over." in text and "South's hand:" in text and "buries" in text
    # The same tricks as were played (the replay names South instead of "You").
    played = [t.replace("You ", "South ").replace("→ You", "→ South")
              for t in _finished_tricks(played_text)]
    assert [t.rstrip() for t in _finished_tricks(text)] == [t.rstrip() for t in played]
    # Step by step: the kitty pause, one Enter per trick, then quit.
    out2 = io.StringIO()
    Replay(rec, console=Console(file=out2, width=120, color_system=None),
           stdin=io.StringIO("\n\nq\n"), all_=False).run()
    steps = out2.getvalue()
    assert steps.count("Enter: next trick") == 3
    assert len(_finished_tricks(steps)) == 2
    assert "Round over." not in steps


def _to_play(seed: int, seat: int = 0, min_tricks: int = 0) -> Game:
    """A seeded game advanced by random actions until `seat` is to play (§6)."""
    import random

    g = Game(seed)
    rng = random.Random(seed)
    while not (
        g.decision().phase == "play" and g.decision().seat == seat
        and len(g.round.tricks) >= min_tricks
    ):
        g.apply(g.random_action(rng))
    return g


def test_a_card_keeps_its_number_from_trick_to_trick() -> None:
    import random

    g = _to_play(5)
    ui = TerminalGame(g, agents_for("random", "random", 5), console=Console(file=io.StringIO()),
                      stdin=io.StringIO(""))
    first = ui.hand_numbers(g.view(0))
    assert sorted(first) == list(range(1, 26))
    rng = random.Random(1)
    g.apply(g.random_action(rng))
    while g.decision().seat != 0:
        g.apply(g.random_action(rng))
    later = ui.hand_numbers(g.view(0))
    assert len(later) == 24 and all(first[k] == c for k, c in later.items())
    assert len(set(first) - set(later)) == 1  # the played card's number is gone, none moved
    with pytest.raises(IllegalAction, match="no card number"):
        parse_selection(str((set(first) - set(later)).pop()), later)


def test_throw_is_confirmed_with_the_penalty_and_your_throw_wording() -> None:
    from shengji.round import FailedThrow
    from shengji.tui.game import throw_penalty_text
    from shengji.tui.render import failed_throw_text

    g = _to_play(5)
    text = throw_penalty_text(g.view(0), 3)
    assert "10 points for every card taken back (up to 20)" in text  # RULES §6.4 default
    f = FailedThrow(
        seat=0, attempted=tuple(parse_cards("QC JC")), forced=tuple(parse_cards("JC")),
        blocker=1, shown=tuple(parse_cards("KC")), penalty=-10, trick=0,
    )
    shown = failed_throw_text(f, 0).plain
    assert shown.startswith("Your throw J♣ Q♣") or shown.startswith("Your throw Q♣ J♣")
    assert failed_throw_text(f, 2).plain.startswith("South's throw")


def test_replay_of_a_finished_game_narrates_every_round_from_events() -> None:
    """The replay prints from `Game.apply`'s events: every round's header and result, every
    trick, and the game's end, consistent with the game that was played."""
    from shengji.bots import make_agent
    from shengji.driver import play_game

    game = Game(3)
    play_game(game, [make_agent("heuristic", s) for s in range(4)])
    assert game.winner is not None
    out = io.StringIO()
    # wide enough that no trick line wraps (a 9-card trick runs past 120 columns)
    Replay(game.record, console=Console(file=out, width=400, color_system=None), stdin=None,
           all_=True).run()
    text = out.getvalue()
    n = len(game.results)
    assert text.count("Round over.") == n and f"Round {n}" in text and f"Round {n + 1}" not in text
    tricks = [ln for ln in text.splitlines() if ln.startswith("Trick ") and "→" in ln]
    assert sum(1 for ln in tricks if ln.startswith("Trick  1:")) == n
    winner = ("South+North", "East+West")[game.winner]
    assert f"{winner} win the game after {n} rounds" in text
    assert "End of the record" not in text


# ---------------------------------------------------------------- the coach (issue 32)
class HintFollower(ScriptedPlayer):
    """Asks for a hint at every decision and then types what the hint printed (the card
    numbers, the declaration's option, or Enter for "do not declare now"); at the round
    summary it asks for the review once."""

    def __init__(self, out: io.StringIO, tty: bool = False) -> None:
        super().__init__(out)
        self.tty = tty
        self.hints: list[tuple[str, View]] = []  # each hint line and the view it answered
        self.reviews = 0

    def isatty(self) -> bool:
        return self.tty

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = super().readline(size)
        if self.tty:
            self.out.write(line)  # a terminal echoes what is typed
        return line

    def _answer(self) -> str:
        assert self.ui is not None
        lines = self.out.getvalue().rstrip("\n").split("\n")
        prompt = lines[-1]
        if prompt.startswith(("Press Enter", "Review this round?")):
            if self.reviews == 0:
                self.reviews += 1
                return "review" if prompt.startswith("Press") else "y"
            return ""
        if prompt.startswith("Throw anyway?"):
            return "y"
        if not prompt.startswith(("Declare?", "Bury 8 cards", "Your play")):
            return super()._answer()
        last = lines[-2] if len(lines) > 1 else ""
        view = self.ui.game.view(0)
        if not last.startswith("Hint: "):
            if self.hints and _same_decision(self.hints[-1][1], view):
                raise AssertionError("the hint typed was refused:\n" + "\n".join(lines[-4:]))
            return "hint"
        self.hints.append((last, view))
        if last.startswith("Hint: do not declare now"):
            return ""
        if last.startswith("Hint: declare "):
            return last.split("(option ", 1)[1].split(")", 1)[0]
        return last.split("(cards ", 1)[1].split(")", 1)[0]


def _same_decision(a: View, b: View) -> bool:
    """Whether two views wait for the same decision (nothing was applied in between)."""
    return (a.phase, a.hand, len(a.tricks), a.cards_left, len(a.declarations)) == (
        b.phase, b.hand, len(b.tricks), b.cards_left, len(b.declarations))


def _coach_run(seed: int, max_rounds: int = 1, tty: bool = False,
               options: RuleOptions | None = None) -> tuple[TerminalGame, str, HintFollower]:
    out = io.StringIO()
    player = HintFollower(out, tty=tty)
    ui = TerminalGame(
        Game(seed, options or RuleOptions()), agents_for("heuristic", "heuristic", seed),
        console=Console(file=out, width=400, color_system=None),
        stdin=cast(TextIO, player), max_rounds=max_rounds, coach_budget=COACH,
    )
    player.ui = ui
    assert ui.run() == 0
    return ui, out.getvalue(), player


def test_following_every_hint_plays_a_legal_round() -> None:
    """`hint` at every decision (declarations, the bury when South starts, every play):
    the suggestion is printed with its reason, and typing it is accepted (legal)."""
    seen: set[str] = set()
    for seed in range(8):
        ui, text, player = _coach_run(seed)
        assert len(ui.game.results) == 1
        # (HintFollower fails at once if a hint it typed was refused)
        kinds = {ln.split()[1] for ln, _ in player.hints}
        seen |= kinds
        plays = [(ln, v) for ln, v in player.hints if ln.startswith("Hint: play ")]
        assert len(plays) == len(_finished_tricks(text))  # one per trick: all followed
        assert all("points better than the next option" in ln or "only legal choice" in ln
                   for ln, _ in plays)
        # the hint matches the search from South's view alone (the web Hint's `suggest`)
        from shengji.analysis import suggest

        ln, v = plays[0]
        h = suggest(v, COACH, seed=ui.hint_seed)
        assert ln.startswith("Hint: play " + cards_text(parse_cards(" ".join(h.cards))).plain)
        assert h.text in ln
        if {"bury", "declare"} <= seen:
            break
    assert {"play", "bury", "declare"} <= seen, seen


def test_review_at_the_round_summary_prints_the_analyse_lines(tmp_path: Path) -> None:
    """`review` at the summary prints, with a progress line, the lines of `shengji
    analyse` for that round and seat: classes, the better play, and the accuracy."""
    ui, text, player = _coach_run(3, max_rounds=2)
    assert player.reviews == 1 and len(ui.game.results) == 2
    assert "analysing 0/" in text and "analysing 5/" in text
    review = review_round(ui.game.record, 0, 0, COACH, seed=ui.hint_seed)
    lines = review_lines(review)
    assert lines[0].startswith("Round 1, seat 0:") and lines[-1].startswith("Accuracy: ")
    assert "with hindsight" in lines[-1]  # the round is over: hindsight is shown
    assert all(ln in text for ln in lines)
    assert text.index(lines[-1]) < text.index("Round 2")  # before the next round starts
    classes = {d.knowledge.verdict for d in review.decisions}
    assert classes and all(f" {c} " in text for c in classes)
    # the same text as `shengji analyse` on the saved record
    from typer.testing import CliRunner

    from shengji.cli import app

    path = tmp_path / "g.json"
    ui.game.record.save(path)
    res = CliRunner().invoke(app, ["analyse", str(path), "--round", "1", "--worlds", "2",
                                   "--rollouts", "1", "--seed", str(ui.hint_seed)],
                             env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    assert [ln.rstrip() for ln in res.output.splitlines()] == lines


def test_the_last_round_offers_the_review_at_a_terminal_only() -> None:
    """After the last round a person at a terminal is asked "Review this round? [y/N]";
    piped input is never asked (a script's input is not consumed)."""
    _, text, player = _coach_run(2, tty=True)
    assert "Review this round? [y/N]" in text and player.reviews == 1
    assert "analysing 0/" in text and "Accuracy: " in text
    _, text, player = _coach_run(2, tty=False)
    assert "Review this round?" not in text and player.reviews == 0

"""The interactive terminal game: a human at one seat, bots at the others.

Input is read line by line from any text stream (a terminal, or a script in
tests); output goes to a rich `Console`. The human sees only their seat's view
(RULES §11), plus the public record of what was played.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

from rich.console import Console
from rich.text import Text

from .. import events as ev
from ..actions import Action, Bury, Call, Declare, Pass, Play
from ..bots import Agent, make_agent
from ..cards import Card, parse_cards
from ..driver import advance
from ..errors import IllegalAction
from ..game import Game
from ..narrate import Narrator
from ..options import RuleOptions
from ..results import RoundResult
from ..shapes import shape_of
from ..trump import Trump, trump_for
from ..views import View
from .render import (
    JOKERS_NOTE,
    calls_text,
    card_text,
    cards_text,
    failed_throw_text,
    group_by_play_suit,
    hand_text,
    levels_text,
    options_text,
    ordinal,
    result_text,
    seat_name,
    set_table,
    team_name,
    trick_text,
    trump_text,
)

if TYPE_CHECKING:  # the analysis layer is imported when the coach is first asked
    from ..analysis import Budget, RoundReview

#: what Enter alone at the play prompt says when more than one play is legal
EMPTY_PLAY = ("Type the cards to play by their numbers (e.g. 3 4) or as cards (e.g. 9S 9S); "
              "'hint' suggests a play, 'help' lists the commands.")

HELP = """\
Commands at any prompt:
  cards        by notation (10H 10H, as, bj) or by the numbers shown next to your cards (3 4);
               a card keeps its number for the whole round
               BJ is the black joker, RJ the red joker (the highest trump)
  last         the last trick          tricks   every trick of this round
  hand         your hand               score    points and levels
  hint         the coach's suggestion and its reason (searched from your view only)
  help         this text               quit     save (with --save) and stop
  Enter alone at your play makes it when only one play is legal (RULES §6.2)
At a round's end:
  review       the coach's review of your decisions in that round (as `shengji analyse`)
"""


#: an action of any kind, kept as its own type through `TerminalGame.checked`
A = TypeVar("A", bound=Action)


class QuitGame(Exception):
    """The human typed `quit`, or the input ended."""


class TerminalGame(Narrator):
    """Runs a `Game` with a human at `human` (default seat 0) and agents elsewhere."""

    def __init__(
        self,
        game: Game,
        agents: dict[int, Agent],
        *,
        console: Console,
        stdin: TextIO,
        human: int = 0,
        save: Path | None = None,
        max_rounds: int | None = None,
        hint_seed: int = 0,
        coach_budget: Budget | None = None,
    ) -> None:
        n = game.options.n_players
        if human in agents or sorted([*agents, human]) != list(range(n)):
            raise ValueError("agents must cover the seats other than the human's")
        set_table(n)  # seat names for this table (RULES §12.1)
        super().__init__()
        self.n = n
        self.friends = game.options.mode == "friends"
        self.game = game
        self.console = console
        self.stdin = stdin
        self.human = human
        self.save = save
        self.max_rounds = max_rounds
        self._header_shown = -1  # the round whose header was printed
        self._trump: Trump | None = None  # the final trump of this round, once fixed
        self.hint_seed = hint_seed
        # the search of the hint and the review (None: the analysis layer's defaults)
        self.coach_budget = coach_budget
        self._reviews: dict[int, RoundReview] = {}  # round (0-based) -> its review
        self.player = _HumanAgent(self)
        self.agents: list[Agent] = [
            self.player if s == human else agents[s] for s in range(n)
        ]
        isatty = getattr(stdin, "isatty", None)
        self._tty = bool(isatty()) if callable(isatty) else False
        self._declined: frozenset[str] | None = None
        self._last_hand: tuple[Card, ...] = ()
        # The number shown next to each copy of a card (card id -> numbers), kept
        # from the first trick to the last so that a card's number never changes.
        self._numbers: dict[int, list[int]] = {}
        self._numbering: tuple[int, bool] | None = None

    # ------------------------------------------------------------ I/O helpers
    def checked(self, action: A) -> A:
        """`action`, once the game finds it legal now (else `IllegalAction`, RULES §11)."""
        self.game.check(action)
        return action

    def attempt(self, make: Callable[[str], A], text: str) -> A | None:
        """The action `make` builds from what the player typed, once legal now; else
        None, the refusal said in red (the player types again, nothing changed)."""
        try:
            return self.checked(make(text))
        except IllegalAction as e:
            self.say(Text(str(e), style="bold red"))
            return None

    def say(self, *objs: object, **kw: object) -> None:
        """Print to the game's console (rich markup and renderables)."""
        self.console.print(*objs, **kw)  # type: ignore[arg-type]

    def ask(self, prompt: str) -> str:
        """Read one line; `quit` or the end of input ends the game."""
        self.console.print(Text(prompt, style="bold magenta"), end="")
        line = self.stdin.readline()
        if not line:
            self.console.print()
            raise QuitGame
        text = line.strip()
        if not self._tty:
            self.console.print(text, style="dim", highlight=False)  # echo scripted input
        if text.lower() in ("quit", "exit", "q"):
            raise QuitGame
        return text

    # ------------------------------------------------------------ the main loop
    def run(self) -> int:
        """Play until the game ends (or `max_rounds` rounds); returns a process exit code."""
        g = self.game
        if self.friends:
            who = (f" — finding friends (找朋友) at {self.n} seats: you are seat {self.human}; "
                   f"each round's leader calls {self.n // 2 - 1} friend(s) by card "
                   "(RULES §12.4). ")
        elif self.n != 4:
            who = (f" — {self.n} seats in two fixed teams: you are seat {self.human}, with "
                   f"{team_name(self.human % 2, self.human)} (RULES §12.2). ")
        else:
            who = " — you play South with North as your partner against East and West. "
        self.say(
            Text.assemble(
                ("Tractor", "bold"),
                f"{who}Seed {g.seed}; rules: {options_text(g.options)}. "
                "Type 'help' for commands.",
            )
        )
        try:
            while not g.is_over:
                if self.max_rounds is not None and len(g.results) >= self.max_rounds:
                    break
                self._step()
        except QuitGame:
            self.say("Stopped.", style="bold")
            self._save()
            return 0
        self._save()
        if g.is_over:
            assert g.winner is not None
            if self.friends:  # §12.4: the winner is a player
                mine = g.winner == self.human
                who = seat_name(g.winner, self.human)
                text = (f"Game over after {len(g.results)} rounds: {who} passed A and "
                        f"{'win' if mine else 'wins'}; levels "
                        f"{levels_text(g.level_names, self.human, True)}. ")
            else:
                mine = g.winner == self.human % 2
                text = (f"Game over after {len(g.results)} rounds: "
                        f"{team_name(g.winner, self.human)} win, levels "
                        f"{g.level_names[0]} / {g.level_names[1]}. ")
            self.say(Text(text + ("Well played!" if mine else "Better luck next time."),
                          style="bold green" if mine else "bold red"))
        return 0

    def _step(self) -> None:
        g = self.game
        if g.round_no != self._header_shown:
            self._header_shown = g.round_no
            self._round_header(g.round_started())
        for _, events in advance(g, self.agents):
            for event in events:
                self.narrate(event.for_seat(self.human))

    def narrate(self, e: ev.Event) -> None:
        """Say what one event means; the friends-mode events here (RULES §12.4)."""
        if isinstance(e, ev.Called):
            self.say(Text.assemble(
                (seat_name(e.seat, self.human), "bold"),
                " (the leader) calls: ", calls_text([(c, j, None, False) for c, j in e.calls],
                                                    self.human),
            ))
        elif isinstance(e, ev.FriendJoined):
            self.say(Text.assemble(
                (seat_name(e.seat, self.human), "bold green"),
                f" played the {ordinal(e.ordinal)} ", card_text(e.card),
                (" and joins the leader's side (RULES §12.4).", "bold green"),
            ))
        elif isinstance(e, ev.CallSpent):
            self.say(Text.assemble(
                f"{seat_name(e.seat, self.human)} played the {ordinal(e.ordinal)} ",
                card_text(e.card), ": that call is spent (RULES §12.4).",
            ), style="dim")
        else:
            super().narrate(e)

    # ------------------------------------------------------------ narration (events and
    # views only, never the round: what each event means to the player)
    def on_redealt(self, e: ev.Redealt) -> None:
        """Nobody declared: the redeal (RULES §3.5)."""
        self.say(Text("Nobody declared: all cards are reshuffled and dealt again (RULES §3.5).",
                      style="yellow"))

    def on_declared(self, e: ev.Declared) -> None:
        """A declaration, as the player sees it (RULES §3.3)."""
        self._announce_declaration(e)

    def on_kitty_flipped(self, e: ev.KittyFlipped) -> None:
        """Nobody declared: the kitty turned up (RULES §3.5)."""
        self.say(Text.assemble("Nobody declared: the kitty is turned up: ",
                               cards_text(e.cards), " (RULES §3.5)."))

    def on_trump_fixed(self, e: ev.TrumpFixed) -> None:
        """The final trump, the declaring team and the starter (RULES §3.2)."""
        me = self.human
        self._trump = trump_for(e.rank, e.suit)
        who = (f". Leader {seat_name(e.starter, me)}." if self.friends else
               f". Declaring team {team_name(e.declaring_team, me)}, "
               f"starter {seat_name(e.starter, me)}.")
        self.say(
            Text.assemble(
                ("Trump is final: ", "bold"),
                trump_text(e.rank, e.suit, final=True),
                who,
            )
        )

    def on_kitty_buried(self, e: ev.KittyBuried) -> None:
        """Another seat buried the kitty (which cards stays hidden, RULES §11)."""
        if e.seat != self.human:
            self.say(f"{seat_name(e.seat, self.human)} takes the kitty and buries "
                     f"{self.game.options.n_kitty} cards.")

    def on_throw_failed(self, e: ev.ThrowFailed) -> None:
        """A failed throw and its penalty (RULES §6.4)."""
        self.say(failed_throw_text(e, self.human))

    def on_trick_won(self, e: ev.TrickWon) -> None:
        """The closed trick, its winner and its points (RULES §6.3, §7). In friends mode
        (§12.4) the points count by the side the winner is on at the round's end, which
        nobody knows yet: the trick shows its points, not whose they are."""
        trick = self.close_trick(e)
        if self.friends:
            line = trick_text(trick, e.trick + 1, self.human)
            if trick.points:
                line.append(f" ({trick.points} points)", style="dim")
            self.say(line)
            return
        self.say(trick_text(trick, e.trick + 1, self.human,
                            declaring_team=self.declaring_team,
                            opponents_points=e.opponents_points))

    def on_round_over(self, e: ev.RoundOver) -> None:
        """The round's result; waits for Enter before the next round (RULES §8)."""
        self._round_over(e.result, self._trump)

    # ------------------------------------------------------------ announcements
    def _round_header(self, e: ev.RoundStarted) -> None:
        me = self.human
        self.console.rule(f"Round {e.round_no + 1}")
        line = Text(
            f"Levels: {levels_text(e.levels, me, self.friends)}. Trump rank {e.trump_rank}. "
        )
        if self.friends and e.starter is not None:
            line.append(f"Leader {seat_name(e.starter, me)} (trump at their level, RULES "
                        "§12.4); they call friends after the kitty.")
        elif self.friends:
            line.append("Whoever's declaration stands becomes the leader (RULES §12.4).")
        elif e.declaring_team is None:
            line.append("Whoever's declaration stands becomes the starter (RULES §3.4).")
        else:
            assert e.starter is not None
            line.append(
                f"{team_name(e.declaring_team, me)} declare; starter "
                f"{seat_name(e.starter, me)}. A declaration now only picks the trump suit."
            )
        self.say(line)
        self._declined = None
        self._last_hand = ()

    def _announce_declaration(self, e: ev.Declared) -> None:
        me = self.human
        overturn = e.overturns is not None
        verb = "overturns with" if overturn else "declares"
        if e.seat == me:
            verb = "overturn with" if overturn else "declare"
        line = Text.assemble(
            (seat_name(e.seat, me), "bold"), f" {verb} ", cards_text(e.cards), " — "
        )
        view = self.game.view(me)
        if e.cards[0].is_joker:
            line.append("no trump suit (RULES §5.3)", style="bold")
        else:
            line.append_text(trump_text(view.trump_rank or "", e.cards[0].suit, final=False))
        if view.phase == "deal":
            line.append(f"  ({view.cards_left} cards left to draw)", style="dim")
        self.say(line)
        self._declined = None

    def _round_over(self, result: RoundResult, trump: Trump | None) -> None:
        self.say("")
        self.say(result_text(result, self.human, trump))
        self._save(announce=False)
        round_no = len(self.game.results) - 1
        if not self.game.is_over and (
            self.max_rounds is None or len(self.game.results) < self.max_rounds
        ):
            while self.ask(
                "Press Enter for the next round, 'review' for the coach's review of this "
                "one (or 'quit')> "
            ).lower() == "review":
                self.show_review(round_no)
        elif self._tty:  # the last round: offered only to a person at a terminal
            try:
                answer = self.ask("Review this round? [y/N]> ").lower()
            except QuitGame:
                return
            if answer in ("y", "yes", "review"):
                self.show_review(round_no)

    def show_review(self, round_no: int) -> RoundReview:
        """Print the coach's review of the human's decisions in round `round_no` (0-based),
        the same lines as `shengji analyse`, with a progress line while it runs. The
        round is over, so the hindsight reading is shown too (the seat's own round)."""
        from ..analysis import Budget, review_lines, review_round

        review = self._reviews.get(round_no)
        if review is None:
            live = self.console.is_terminal

            def progress(done: int, total: int) -> None:
                # a terminal redraws one line; a log gets one line per 5 decisions
                if live or done in (0, total) or done % 5 == 0:
                    self.console.print(Text(f"analysing {done}/{total}", style="dim"),
                                       end="\r" if live and done < total else "\n")

            review = review_round(self.game.record, round_no, self.human,
                                  self.coach_budget or Budget(), seed=self.hint_seed,
                                  progress=progress)
            self._reviews[round_no] = review
        for line in review_lines(review):
            self.console.print(line, highlight=False, markup=False, soft_wrap=True)
        return review

    def _save(self, announce: bool = True) -> None:
        if self.save is not None:
            self.game.record.save(self.save)
            if announce:
                self.say(Text(f"Game saved to {self.save}", style="dim"))

    # ------------------------------------------------------------ shared prompt helpers
    def show_status(self, view: View) -> None:
        """One status line: round, trump, declaring team, opponents' points, levels."""
        me = self.human
        line = Text(f"Round {view.round_no + 1} · ", style="dim")
        line.append_text(trump_text(view.trump_rank, view.trump_suit, view.trump is not None))
        if self.friends:
            if view.starter is not None:
                line.append(f" · leader {seat_name(view.starter, me)}")
                if view.friends:
                    line.append(", friends " + ", ".join(seat_name(s, me) for s in view.friends))
                line.append(" · ")
                line.append(f"opponents' points {view.opponents_points}", style="bold yellow")
            line.append(f" · levels {levels_text(view.levels, me, True)}")
            self.say(line)
            if view.calls:
                self.say(calls_text(view.calls, me))
            return
        if view.declaring_team is not None and view.starter is not None:
            line.append(
                f" · {team_name(view.declaring_team, me)} declaring "
                f"(starter {seat_name(view.starter, me)}) · "
            )
            line.append(f"opponents' points {view.opponents_points}", style="bold yellow")
        line.append(f" · levels {view.levels[0]}/{view.levels[1]}")
        self.say(line)

    def hand_numbers(self, view: View) -> dict[int, Card]:
        """Number -> card for the hand in `view`. While tricks are played a card keeps
        its number (played cards leave gaps); before that the hand is numbered 1..n."""
        t = view.trump or view.display_trump
        assert t is not None
        order = [c for _, cards in group_by_play_suit(view.hand, t) for c in cards]
        key = (view.round_no, view.phase == "play")
        if key != self._numbering or view.phase != "play":
            self._numbers = {}
            for k, c in enumerate(order, 1):
                self._numbers.setdefault(c.id, []).append(k)
            self._numbering = key
        held: dict[int, int] = {}
        for c in order:
            held[c.id] = held.get(c.id, 0) + 1
        for cid in list(self._numbers):
            del self._numbers[cid][held.get(cid, 0):]  # a played copy gives up its number
        used: dict[int, int] = {}
        out: dict[int, Card] = {}
        for c in order:
            k = used.get(c.id, 0)
            out[self._numbers[c.id][k]] = c
            used[c.id] = k + 1
        return out

    def show_hand(self, view: View, *, mark: Sequence[Card] = ()) -> dict[int, Card]:
        """Print the human's hand with card numbers (`mark`: cards to underline, e.g. the
        kitty just taken); returns number -> card, as `hand_numbers`."""
        t = view.trump or view.display_trump
        assert t is not None
        numbers = self.hand_numbers(view)
        text, _ = hand_text(view.hand, t, mark=mark, numbers=list(numbers))
        n = len(view.hand)
        self.say(Text(f"Your hand ({n} card{'s' if n != 1 else ''}):", style="bold"))
        self.say(text)
        if any(c.is_joker for c in view.hand):
            self.say(Text("  " + JOKERS_NOTE, style="dim"))
        return numbers

    def command(self, text: str, view: View) -> bool:
        """Handle a non-card command; True if it was one."""
        low = text.lower()
        me = self.human
        if low in ("help", "?", "h"):
            self.say(HELP, highlight=False)
        elif low == "last":
            if view.tricks:
                self.say(trick_text(view.tricks[-1], len(view.tricks), me,
                                    declaring_team=view.declaring_team))
            else:
                self.say("No trick has been played yet this round.")
        elif low == "tricks":
            if not view.tricks:
                self.say("No trick has been played yet this round.")
            for k, tr in enumerate(view.tricks, 1):
                self.say(trick_text(tr, k, me, declaring_team=view.declaring_team))
        elif low == "hand":
            self.show_hand(view)
        elif low in ("score", "points"):
            self.show_status(view)
            if view.point_cards:
                self.say(Text.assemble("Point cards taken by the opponents: ",
                                       cards_text(view.point_cards)))
        elif low == "hint":
            self.show_hint(view)
        else:
            return False
        return True

    def show_hint(self, view: View) -> None:
        """Print the coach's suggestion for the decision in `view` (the human's view only:
        `analysis.suggest`, the web Hint's search) with its measured reason."""
        from ..analysis import HINT_BUDGET, suggest

        try:
            hint = suggest(view, self.coach_budget or HINT_BUDGET, seed=self.hint_seed)
        except IllegalAction as e:
            self.say(Text(str(e), style="yellow"))
            return
        line = Text("Hint: ", style="bold")
        cards = parse_cards(" ".join(hint.cards)) if hint.cards else []
        if not cards:
            line.append("do not declare now")
        else:
            line.append(f"{hint.kind} ")
            line.append_text(cards_text(cards))
            if hint.kind == "declare":
                ids = sorted(c.id for c in cards)
                options = view.legal_declarations()
                k = next((k for k, o in enumerate(options, 1)
                          if sorted(c.id for c in o) == ids), None)
                if k is not None:
                    line.append(f" (option {k})", style="dim")
            else:
                numbers = self.hand_numbers(view)
                picked: list[int] = []
                for c in cards:
                    n = next((n for n, x in numbers.items() if x == c and n not in picked),
                             None)
                    if n is not None:
                        picked.append(n)
                line.append(f" (cards {' '.join(map(str, picked))})", style="dim")
        line.append(f" — {hint.text}.")
        self.say(line)


def parse_selection(text: str, order: Sequence[Card] | Mapping[int, Card]) -> list[Card]:
    """Cards from typed input: numbers pick cards by the number shown, else notation (§1).

    `order` is the hand in the order shown (number k is `order[k - 1]`) or a
    mapping from the numbers shown to the cards."""
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise IllegalAction("type some cards, e.g. '10H 10H', or their numbers, e.g. '3 4'")
    by_number = (
        dict(order) if isinstance(order, Mapping) else {k: c for k, c in enumerate(order, 1)}
    )
    if all(tok.isdigit() for tok in tokens):
        picked: list[Card] = []
        seen: set[int] = set()
        for tok in tokens:
            k = int(tok)
            if k not in by_number:
                shown = ", ".join(map(str, sorted(by_number))) if len(by_number) < 8 else (
                    f"{min(by_number)}-{max(by_number)}" if by_number else "none"
                )
                raise IllegalAction(f"there is no card number {k} (your cards are {shown})")
            if k in seen:
                raise IllegalAction(f"card number {k} is chosen twice")
            seen.add(k)
            picked.append(by_number[k])
        return picked
    return parse_cards(text)


class _HumanAgent:
    """The human's `Agent`: prompts on the terminal and validates before answering."""

    def __init__(self, ui: TerminalGame) -> None:
        self.ui = ui

    def act(self, view: View) -> Action:
        seat = view.seat
        assert seat is not None
        if view.phase == "deal":
            return self._deal(view, seat)
        if view.phase == "declare":
            return self._final_window(view, seat)
        if view.phase == "kitty":
            return self._bury(view, seat)
        if view.phase == "call":
            return self._call(view, seat)
        return self._play(view, seat)

    # ---------------------------------------------------------------- declarations (§3.3)
    def _declaration_choice(self, view: View, seat: int, prompt: str) -> Action:
        ui = self.ui
        options = view.legal_declarations()
        ui.show_hand(view)
        line = Text("You may declare: ")
        for k, opt in enumerate(options, 1):
            line.append(f" {k}: ", style="dim")
            line.append_text(cards_text(opt))
        if view.declarations:
            s, cards = view.declarations[-1]
            line.append(f"   (standing: {seat_name(s, ui.human)} ")
            line.append_text(cards_text(cards))
            line.append(")")
        ui.say(line)

        def declare(text: str) -> Declare:  # an option's number, or the cards (§3.3)
            if not text.isdigit():
                return Declare(seat, tuple(parse_cards(text)))
            k = int(text)
            if not 1 <= k <= len(options):
                raise IllegalAction(f"choose 1-{len(options)}, or Enter to pass")
            return Declare(seat, tuple(options[k - 1]))

        while True:
            text = ui.ask(prompt)
            if not text:
                return Pass(seat)
            if ui.command(text, view):
                continue
            action = ui.attempt(declare, text)
            if action is not None:
                return action

    def _deal(self, view: View, seat: int) -> Action:
        ui = self.ui
        new = _new_cards(ui._last_hand, view.hand)
        ui._last_hand = view.hand
        options = view.legal_declarations()
        key = frozenset(" ".join(c.text for c in o) for o in options)
        if not options or key == ui._declined:
            return Pass(seat)
        drawn = Text.assemble("You drew ", cards_text(new), f" ({view.cards_left} left to draw).")
        ui.say(drawn)
        action = self._declaration_choice(
            view, seat, "Declare? number or cards, Enter to keep drawing> "
        )
        if isinstance(action, Pass):
            ui._declined = key
        return action

    def _final_window(self, view: View, seat: int) -> Action:
        ui = self.ui
        if not view.legal_declarations():
            return Pass(seat)
        ui.say(Text("All cards are drawn: last chance to declare (RULES §3.3).", style="bold"))
        return self._declaration_choice(view, seat, "Declare? number or cards, Enter to pass> ")

    # ---------------------------------------------------------------- the kitty (§4)
    def _bury(self, view: View, seat: int) -> Action:
        ui = self.ui
        ui.say(Text.assemble(
            ("You are the starter: ", "bold"),
            "you take the kitty (", cards_text(view.kitty_taken or ()),
            f", underlined) and put {len(view.kitty_taken or ())} cards back face down "
            "(RULES §4).",
        ))
        ui.show_status(view)
        order = ui.show_hand(view, mark=view.kitty_taken or ())
        while True:
            text = ui.ask(f"Bury {len(view.kitty_taken or ())} cards> ")
            if ui.command(text, view):
                continue
            bury = ui.attempt(lambda t: Bury(seat, tuple(parse_selection(t, order))), text)
            if bury is not None:
                ui.say(Text.assemble("You bury ", cards_text(bury.cards), "."))
                return bury

    # ---------------------------------------------------------------- calls (§12.4)
    def _call(self, view: View, seat: int) -> Action:
        ui = self.ui
        n = len(view.hand_sizes)
        f = n // 2 - 1
        decks = view.options.n_decks
        ui.say(Text.assemble(
            ("You lead: call your friends (RULES §12.4). ", "bold"),
            f"Name {f} card{'s' if f != 1 else ''}, each with which copy (1-{decks}) to be "
            "played this round joins you, e.g. 'AS 2' for the 2nd A♠",
            ", 'AS 2, KH 1'" if f > 1 else "", ". Not a joker, not the trump rank.",
        ))
        ui.show_hand(view)
        while True:
            text = ui.ask(f"Call {f} friend{'s' if f != 1 else ''}> ")
            if not text or ui.command(text, view):
                continue
            call = ui.attempt(lambda t: Call(seat, parse_calls(t)), text)
            if call is not None:
                return call

    # ---------------------------------------------------------------- the play (§6)
    def _play(self, view: View, seat: int) -> Action:
        ui = self.ui
        trick = view.current_trick
        ui.say("")
        ui.show_status(view)
        n = len(view.tricks) + 1
        if trick is not None and trick.plays:
            ui.say(trick_text(trick, n, ui.human, to_act=seat))
        else:
            ui.say(Text(f"Trick {n:>2}: you lead.", style="bold"))
        order = ui.show_hand(view)
        while True:
            text = ui.ask("Your play> ")
            if not text:
                forced = view.forced_play()
                if forced is not None:  # Enter makes the one legal play, as the web's auto-play
                    ui.say(f"You play {cards_text(forced)}, the only legal play (RULES §6.2).")
                    return ui.checked(Play(seat, forced))
                ui.say(Text(EMPTY_PLAY, style="dim"))
                continue
            if ui.command(text, view):
                continue
            play = ui.attempt(lambda t: Play(seat, tuple(parse_selection(t, order))), text)
            if play is None:
                continue
            throw_ok = view.lead is not None or view.trump is None or _confirm_throw(
                ui, view, play.cards, view.trump
            )
            if throw_ok:
                return play


def throw_penalty_text(view: View, n: int) -> str:
    """What a failed throw of n cards can cost at this table (RULES §6.4 and its options)."""
    per = int(getattr(view.options, "throw_penalty_per_card", 10))
    mode = str(getattr(view.options, "throw_penalty", "returned"))
    me = view.seat
    side = (
        "added to the opponents' points" if me is not None and me % 2 == view.declaring_team
        else "taken from your side's points"
    )
    if mode == "none" or per == 0:
        return "At this table a failed throw costs no points."
    if mode == "attempted":
        return f"It costs {per} points for every card of the throw ({per * n}), {side}."
    return (
        f"It costs {per} points for every card taken back (up to {per * (n - 1)}), {side}."
    )


def _confirm_throw(ui: TerminalGame, view: View, cards: Sequence[Card], trump: Trump) -> bool:
    """A throw may fail (RULES §6.4): state the penalty and ask before it goes."""
    shape = shape_of([c.id for c in cards], trump)
    if shape.kind != "throw":
        return True
    ui.say(Text.assemble(
        ("A throw: ", "bold"), cards_text(cards),
        ". If another player can beat one of its units it fails: you lead only that unit. ",
        throw_penalty_text(view, len(cards)), " (RULES §6.4)",
    ))
    answer = ui.ask("Throw anyway? [y/N]> ").strip().lower()
    return answer in ("y", "yes")


def parse_calls(text: str) -> tuple[tuple[Card, int], ...]:
    """Friend calls from text (RULES §12.4): "AS 2, KH 1" (a card and an ordinal each; the
    ordinal may be left out for the 1st copy). Malformed text raises `IllegalAction`."""
    out: list[tuple[Card, int]] = []
    for piece in (p.strip() for p in text.replace(";", ",").split(",")):
        if not piece:
            continue
        words = piece.split()
        if len(words) > 2 or (len(words) == 2 and not words[1].isdigit()):
            raise IllegalAction(
                f"RULES §12.4: write a call as a card and an ordinal, e.g. 'AS 2', not {piece!r}"
            )
        cards = parse_cards(words[0])
        if len(cards) != 1:
            raise IllegalAction(f"RULES §12.4: a call names one card, not {words[0]!r}")
        out.append((cards[0], int(words[1]) if len(words) == 2 else 1))
    return tuple(out)


def _new_cards(before: Sequence[Card], after: Sequence[Card]) -> list[Card]:
    left = list(before)
    out: list[Card] = []
    for c in after:
        if c in left:
            left.remove(c)
        else:
            out.append(c)
    return out


def agents_for(
    partner: str, opponents: str, seed: int, human: int = 0, n_players: int = 4,
    friends: bool = False,
) -> dict[int, Agent]:
    """Bots for the other seats: the partner(s) on the human's team (same parity, RULES
    §12.2), opponents on the other; in friends mode (§12.4), where sides change every
    round, every other seat plays `opponents`."""
    rng = random.Random(f"shengji-play:{seed}")
    out: dict[int, Agent] = {}
    for s in range(n_players):
        if s == human:
            continue
        kind = partner if s % 2 == human % 2 and not friends else opponents
        out[s] = make_agent(kind, rng.getrandbits(48))
    return out


def play_terminal(
    *,
    seed: int,
    options: RuleOptions,
    partner: str = "heuristic",
    opponents: str = "heuristic",
    save: Path | None = None,
    console: Console | None = None,
    stdin: TextIO | None = None,
    max_rounds: int | None = None,
    coach_budget: Budget | None = None,
) -> int:
    """Entry point of `shengji play`: a whole game with the human at South (seat 0);
    `coach_budget` is the search of the `hint` and `review` commands."""
    import sys

    assert isinstance(options, RuleOptions)
    game = Game(seed=seed, options=options)
    ui = TerminalGame(
        game,
        agents_for(partner, opponents, seed, 0, options.n_players, options.mode == "friends"),
        console=console or Console(highlight=False),
        stdin=stdin or sys.stdin,
        save=save,
        max_rounds=max_rounds,
        hint_seed=seed,
        coach_budget=coach_budget,
    )
    return ui.run()


__all__ = [
    "QuitGame", "TerminalGame", "agents_for", "parse_calls", "parse_selection",
    "play_terminal",
]

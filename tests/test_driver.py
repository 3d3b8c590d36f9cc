"""The turn-based driver (RULES §3.3 timing decision): who is asked, and when."""

from __future__ import annotations

import pytest

from shengji import Game, Round
from shengji.actions import Action, Declare, Draw, Pass, Play
from shengji.bots import make_agent
from shengji.driver import play_game, play_round, step
from shengji.errors import IllegalAction
from shengji.views import View


class Recorder:
    """An agent that plays randomly and notes the phase and seat of every question."""

    def __init__(self, seat: int) -> None:
        self.inner = make_agent("random", seed=seat)
        self.asked: list[tuple[str, int | None]] = []

    def act(self, view: View) -> Action:
        self.asked.append((view.phase, view.seat))
        return self.inner.act(view)


def test_during_the_deal_only_the_seat_that_just_drew_is_asked_when_it_can_declare() -> None:
    """RULES §3.3: after each draw the drawer may declare; a seat with no legal
    declaration is not asked (its only answer would be a pass)."""
    rnd = Round(seed=1)
    agents = [Recorder(s) for s in range(4)]
    asked = skipped = 0
    for n in range(100):
        before = sum(len(a.asked) for a in agents)
        actions = step(rnd, agents)
        assert isinstance(actions[0], Draw)
        drawer = n % 4  # RULES §3.1: seat 0 draws first in the first round, then play order
        if sum(len(a.asked) for a in agents) == before + 1:
            assert agents[drawer].asked[-1] == ("deal", drawer)
            asked += 1
        else:
            assert sum(len(a.asked) for a in agents) == before
            assert not rnd.has_declaration(drawer) and rnd.legal_declarations(drawer) == []
            skipped += 1
    assert asked > 0 and skipped > 0


def test_play_round_finishes_a_round_and_reports_every_action() -> None:
    seen: list[Action] = []
    rnd = play_round(Round(seed=2), [make_agent("random", seed=s) for s in range(4)],
                     on_action=seen.append)
    assert rnd.is_over
    assert tuple(seen) == rnd.actions
    assert sum(isinstance(a, Play) for a in seen) >= 25  # at least 25 cards per hand


def test_play_game_stops_after_max_rounds() -> None:
    game = play_game(Game(seed=3), [make_agent("random", seed=s) for s in range(4)], max_rounds=2)
    assert len(game.results) == 2 and not game.is_over


class WrongAnswer:
    def act(self, view: View) -> Action:
        return Draw()


def test_an_agent_answering_the_deal_with_a_non_declaration_is_refused() -> None:
    rnd = Round(seed=4)
    with pytest.raises(IllegalAction, match="RULES §3.3"):
        for _ in range(100):  # the first drawer holding a trump-rank card is asked
            step(rnd, [WrongAnswer()] * 4)


def test_stepping_a_finished_game_is_refused() -> None:
    game = play_game(Game(seed=5), [make_agent("random", seed=s) for s in range(4)])
    assert game.is_over
    with pytest.raises(IllegalAction, match="RULES §9"):
        step(game, [make_agent("random", seed=0)] * 4)


def test_a_declaring_agent_declares_through_the_driver() -> None:
    class DeclareFirst:
        def act(self, view: View) -> Action:
            decls = view.legal_declarations()
            assert view.seat is not None
            return Declare(view.seat, decls[0]) if decls else Pass(view.seat)

    rnd = Round(seed=6)
    while rnd.decision().phase == "deal":
        step(rnd, [DeclareFirst()] * 4)
    assert rnd.view(None).declarations, "some seat held a trump-rank card during the deal"

"""The expert agent (bots/expert.py): legal decisions over whole rounds, honest by
construction (RULES §11), deterministic for a seed and an iteration budget, picklable."""

from __future__ import annotations

import pickle
import random

import pytest

from helpers import at_the_kitty, checked_honest, mid_trick_position, scramble
from shengji import Round, RuleOptions
from shengji.actions import Action, Bury, Declare, Pass, Play
from shengji.bots import ExpertAgent, make_agent
from shengji.bots.expert import DEFAULT_MS, utility
from shengji.driver import play_round, step
from shengji.views import View

SMALL = "expert:iters=8,candidates=3"


class Checked:
    """Checks every action of the wrapped agent against its view and the engine."""

    def __init__(self, agent: object, rnd: Round, seat: int) -> None:
        self.agent = agent
        self.rnd = rnd
        self.seat = seat
        self.plays = 0

    def act(self, view: View) -> Action:
        action = self.agent.act(view)  # type: ignore[attr-defined]
        if view.phase == "play":
            assert isinstance(action, Play) and action.seat == self.seat
            assert view.is_legal(action.cards)
            self.plays += 1
        elif view.phase == "kitty":
            assert isinstance(action, Bury) and len(action.cards) == 8
        else:
            assert isinstance(action, (Declare, Pass))
        if view.phase != "deal" or isinstance(action, Declare):
            self.rnd.check(action)  # IllegalAction if the engine disagrees
        return action


def test_expert_makes_only_legal_decisions_over_whole_rounds() -> None:
    for seed, opts in ((0, RuleOptions()), (1, RuleOptions(strict_tractor_follow=True))):
        rnd = Round(seed, opts)  # a first round: the expert declares too (§3.3)
        agents = [
            Checked(make_agent(SMALL if s % 2 == seed % 2 else "heuristic", s), rnd, s)
            for s in range(4)
        ]
        play_round(rnd, agents)
        assert rnd.is_over and rnd.result is not None
        rnd.counts_check()
        assert sum(a.plays for a in agents if isinstance(a.agent, ExpertAgent)) > 10


def test_the_expert_decides_the_same_whatever_the_hidden_cards_rules_11() -> None:
    checked = checked_honest(lambda: ExpertAgent(77, iters=12, candidates=4),
                             ((3, 2), (4, 6), (5, 9)), random.Random(4))
    assert checked == 6


def test_the_expert_is_deterministic_for_a_seed_and_iteration_budget() -> None:
    rnd, seat = mid_trick_position(8, 4)
    view = rnd.view(seat)
    first = [ExpertAgent(5, iters=15).act(view) for _ in range(2)]
    assert first[0] == first[1]
    # The same agent asked again (a later decision) is still a legal play.
    agent = ExpertAgent(5, iters=15)
    agent.act(view)
    again = agent.act(view)
    assert isinstance(again, Play) and view.is_legal(again.cards)


def test_the_expert_decides_the_same_with_the_heuristics_kept_knowledge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The heuristic keeps its knowledge between calls (the inference model is asked
    about several seats, moments and sampled worlds): the expert's decisions equal those
    made with the knowledge rebuilt from every view."""
    from shengji.bots.knowledge import Knowledge

    views = [rnd.view(seat) for rnd, seat in (mid_trick_position(3, 3), mid_trick_position(4, 7))]
    kept = [ExpertAgent(11, iters=16, candidates=4).act(v) for v in views]
    monkeypatch.setattr(Knowledge, "sync", lambda self, view: False)
    rebuilt = [ExpertAgent(11, iters=16, candidates=4).act(v) for v in views]
    assert kept == rebuilt


def test_the_expert_and_its_view_are_picklable() -> None:
    rnd, seat = mid_trick_position(9, 3)
    view = rnd.view(seat)
    agent = ExpertAgent(3, iters=10)
    back = pickle.loads(pickle.dumps(agent))
    view_back = pickle.loads(pickle.dumps(view))
    assert view_back == view
    assert back.act(view_back) == agent.act(view)


def test_the_expert_buries_eight_of_its_cards_by_search() -> None:
    rnd = at_the_kitty(10)
    view = rnd.view(0)
    action = ExpertAgent(1, iters=6).act(view)
    assert isinstance(action, Bury) and len(action.cards) == 8
    rnd.check(action)


def test_the_millisecond_budget_still_gives_a_legal_play() -> None:
    rnd, seat = mid_trick_position(12, 5)
    view = rnd.view(seat)
    action = make_agent("expert:ms=30", 1).act(view)
    assert isinstance(action, Play) and view.is_legal(action.cards)


def test_utility_counts_levels_for_the_seats_team_rules_8_2() -> None:
    rnd = Round(13, trump_rank="2", starter=0, declaring_team=0)
    play_round(rnd, [make_agent("heuristic", s) for s in range(4)])
    res = rnd.result
    assert res is not None
    u0, u1 = utility(rnd, 0), utility(rnd, 1)
    assert u0 == -u1 and utility(rnd, 2) == u0
    if res.levels_gained:
        declarers_won = res.gainer == "declarers"
        assert (u0 > 0) == declarers_won


def test_terminal_play_seats_expert_bots_from_specs() -> None:
    from shengji.cli import _kind
    from shengji.tui.game import agents_for

    assert _kind("expert:ms=300") == "expert:ms=300"
    bots = agents_for("expert", "expert:iters=5", seed=1)
    assert all(isinstance(b, ExpertAgent) for b in bots.values())
    assert bots[1].iters == 5
    # a plain `expert` thinks for the default time per decision (250 ms), not a fixed count
    assert bots[2].iters is None and bots[2].ms == DEFAULT_MS


def test_without_a_consistent_world_the_expert_plays_the_heuristic_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from shengji.bots import expert as expert_module
    from shengji.bots.heuristic import HeuristicAgent
    from shengji.bots.worlds import WorldError

    def no_world(*_: object) -> None:
        raise WorldError("no world is consistent with this view")

    monkeypatch.setattr(expert_module, "sample_world", no_world)
    rnd, seat = mid_trick_position(14, 3)
    view = rnd.view(seat)
    action = ExpertAgent(2, iters=10).act(view)
    assert isinstance(action, Play) and view.is_legal(action.cards)
    assert view.lead is not None  # a follow: the heuristic's choice has no random tie-break
    assert action == HeuristicAgent(2).act(view)


# ==================================================================== declaring (§3.3)
class Passer:
    """Never declares (RULES §3.3: a pass is always an answer)."""

    def act(self, view: View) -> Action:
        assert view.seat is not None
        return Pass(view.seat)


def _deal_ask(seed: int, min_cards: int = 0) -> tuple[Round, int]:
    """The first declaration ask of a heuristic deal with at least `min_cards` in hand."""
    from shengji.actions import Draw

    rnd = Round(seed, trump_rank="2", starter=seed % 4, declaring_team=seed % 2)
    while rnd.phase == "deal":
        rnd.apply(Draw())
        s = rnd.decision().last_drawer
        if (rnd.phase == "deal" and s is not None and rnd.has_declaration(s)
                and rnd.hand_sizes[s] >= min_cards):
            return rnd, s
    raise AssertionError("no declaration ask in this deal")


def _strong_hearts_window() -> Round:
    """Seat 0 (starter, drawing first) holds one of each 2 and of each joker (nobody else
    can show a pair to overturn with) and 19 more hearts; nobody declared in the deal:
    the final window asks seat 0 first (RULES §3.3, §3.5)."""
    hearts = list(range(14, 26)) + list(range(19, 26))  # 3H-AH, 8H-AH
    mine = hearts + [0, 13, 26, 39, 52, 53]  # and 2S 2H 2D 2C BJ RJ
    rest = [i for i in range(54) for _ in range(2)]
    for i in mine:
        rest.remove(i)
    random.Random(5).shuffle(rest)
    deck = []
    for p in range(108):
        deck.append(mine.pop() if p < 100 and p % 4 == 0 else rest.pop())
    rnd = Round(1, trump_rank="2", starter=0, declaring_team=0, deck=deck)
    passers = [Passer()] * 4
    while rnd.phase == "deal":
        step(rnd, passers)
    assert rnd.phase == "declare" and rnd.decision().seat == 0
    return rnd


def test_the_expert_prefers_declaring_its_long_suit_to_passing_rules_3_3() -> None:
    rnd = _strong_hearts_window()
    view = rnd.view(0)
    values = ExpertAgent(3).declaration_values(view, n_worlds=8, seed=1)
    assert set(values) == {"pass", "2S", "2H", "2D", "2C"}
    # Passing lets another seat declare a suit seat 0 cannot overturn, or the kitty pick
    # trump (§3.5); 2H makes its long suit trump and nobody can overturn it.
    assert values["2H"] > values["pass"] + 0.3
    assert values["2H"] == max(values.values())
    action = ExpertAgent(3, iters=20).act(view)
    assert isinstance(action, Declare) and [str(c) for c in action.cards] == ["2H"]
    rnd.check(action)


def test_the_experts_declarations_are_legal_in_the_deal_and_the_window() -> None:
    seen = {"deal": 0, "declare": 0, "declared": 0}
    for seed in (2, 3):
        rnd = Round(seed, trump_rank="2", starter=seed % 4, declaring_team=seed % 2)
        agents = [Checked(make_agent("expert:iters=6", s), rnd, s) for s in range(4)]
        while rnd.phase in ("deal", "declare"):
            before = len(rnd.declarations)
            if rnd.phase == "declare":
                seen["declare"] += 1
            elif rnd.decision().last_drawer is not None:
                seen["deal"] += 1
            step(rnd, agents)
            seen["declared"] += len(rnd.declarations) - before
    assert seen["deal"] and seen["declare"] and seen["declared"]


def test_the_experts_declaration_ignores_the_hidden_and_undealt_cards_rules_11() -> None:
    rng = random.Random(6)
    for seed in (4, 9):
        rnd, seat = _deal_ask(seed, min_cards=6)
        view = rnd.view(seat)
        assert view.legal_declarations()  # a real choice: declare or not now
        a = ExpertAgent(21, iters=8).act(view)
        for _ in range(2):
            other = scramble(rnd, seat, rng)  # the undealt rest (the kitty too) as well
            assert other.deck != rnd.deck
            assert other.view(seat) == view
            assert ExpertAgent(21, iters=8).act(other.view(seat)) == a


def test_the_experts_declaration_is_deterministic_for_a_seed_and_budget() -> None:
    rnd, seat = _deal_ask(11, min_cards=8)
    view = rnd.view(seat)
    assert ExpertAgent(8, iters=8).act(view) == ExpertAgent(8, iters=8).act(view)
    v1 = ExpertAgent(8).declaration_values(view, n_worlds=3, seed=2)
    v2 = ExpertAgent(8).declaration_values(view, n_worlds=3, seed=2)
    assert v1 == v2 and "pass" in v1 and len(v1) >= 2


def test_with_too_small_a_budget_the_expert_declares_as_the_heuristic() -> None:
    from shengji.bots.heuristic import HeuristicAgent

    rnd = _strong_hearts_window()
    view = rnd.view(0)
    action = ExpertAgent(3, iters=8).act(view)  # five candidates need ten rollouts
    assert action == HeuristicAgent(0).act(view)  # no random tie-break in the window
    assert ExpertAgent(3, ms=20).act(view) == action

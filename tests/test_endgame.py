"""The expert's exact endgame (`expert:endgame=N`, bots/expert.py `solve`): alpha-beta gives
the plain minimax value of the last tricks, and a search that uses it inside its sampled
worlds still decides the same whatever the hidden cards are (RULES §11)."""

from __future__ import annotations

import random

from helpers import mid_trick_position, scramble
from shengji import Round
from shengji.actions import Play
from shengji.bots import ExpertAgent, make_agent
from shengji.bots.expert import solve, utility
from shengji.cards import CARDS
from shengji.driver import step
from shengji.follow import iter_follows, iter_leads
from shengji.shapes import shape_of


def _minimax(rnd: Round, me: int) -> float:
    """Every line of play, no pruning: the value `solve` must equal."""
    if rnd.phase != "play":
        return utility(rnd, me)
    seat, t = rnd.to_act, rnd.trump
    assert seat is not None and t is not None
    hand = rnd.hand_counts(seat)
    plays = rnd.current
    moves = (iter_follows(hand, shape_of(plays[0][1], t), t, rnd.options.strict_tractor_follow)
             if plays else iter_leads(hand, t))
    vals = []
    for ids in moves:
        child = rnd.clone()
        child.step(Play(seat, tuple(CARDS[i] for i in ids)))
        vals.append(_minimax(child, me))
    return max(vals) if seat % 2 == me % 2 else min(vals)


def _ending(seed: int, cards: int) -> Round:
    """A round played by heuristic bots until every hand holds `cards` cards, a trick to lead."""
    rnd = Round(seed, trump_rank="2", starter=0, declaring_team=0)
    agents = [make_agent("heuristic", s) for s in range(4)]
    while rnd.phase != "play" or rnd.current or rnd.hand_sizes[0] > cards:
        step(rnd, agents)
    return rnd


def test_alpha_beta_gives_the_minimax_value_of_the_last_tricks() -> None:
    checked = 0
    for seed in range(6):
        rnd = _ending(seed, 2)
        if rnd.phase != "play":
            continue
        for me in (0, 1):
            exact = _minimax(rnd.clone(), me)
            assert solve(rnd.clone(), me) == exact
            checked += 1
        # the two teams' values are each other's negatives (utility is zero-sum)
        assert solve(rnd.clone(), 0) == -solve(rnd.clone(), 1)
    assert checked >= 8


def test_with_one_card_each_the_value_is_the_forced_last_tricks_utility() -> None:
    rnd = _ending(4, 1)
    forced = rnd.clone()
    while forced.phase == "play":
        seat = forced.to_act
        assert seat is not None
        only = [i for i, n in enumerate(forced.hand_counts(seat)) for _ in range(n)]
        forced.step(Play(seat, tuple(CARDS[i] for i in only)))
    assert solve(rnd.clone(), 2) == utility(forced, 2)


def test_the_endgame_expert_decides_the_same_whatever_the_hidden_cards_rules_11() -> None:
    rng = random.Random(9)
    late = []
    for seed in (5, 6):  # a few cards left: the rollouts reach the solved tricks at once
        rnd = _ending(seed, 4)
        step(rnd, [make_agent("heuristic", s) for s in range(4)])  # somebody leads
        assert rnd.to_act is not None
        late.append((rnd, rnd.to_act))
    for rnd, seat in [mid_trick_position(3, 2), *late]:
        a = ExpertAgent(77, iters=12, candidates=4, endgame=2).act(rnd.view(seat))
        for _ in range(2):
            other = scramble(rnd, seat, rng)
            assert other.view(seat) == rnd.view(seat)
            assert ExpertAgent(77, iters=12, candidates=4, endgame=2).act(other.view(seat)) == a


def test_endgame_is_an_expert_setting() -> None:
    agent = make_agent("expert:iters=10,endgame=2", 0)
    assert isinstance(agent, ExpertAgent) and agent.endgame == 2
    assert make_agent("expert", 0).endgame == 0  # type: ignore[attr-defined]

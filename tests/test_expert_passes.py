"""Inference from declarations not made (`expert:passes=1`, issue 31): a seat that passed
when the final declaration window closed (RULES §3.3) is less likely to hold a
declaration the heuristic would have made there."""

from __future__ import annotations

import random

from helpers import checked_honest
from shengji import Round
from shengji.bots import ExpertAgent, make_agent, parse_agent_spec
from shengji.bots.worlds import Likelihood, WorldFacts, sample_world
from shengji.driver import play_round, step


def _in_play(seed: int, tricks: int = 2, first: bool = True) -> Round:
    """A round of four heuristic seats in its play phase: a first round (the declaration
    picks the declarers, §3.4) or a later one (the declaring team fixed)."""
    rnd = Round(seed) if first else Round(seed, trump_rank="2", starter=seed % 4,
                                         declaring_team=seed % 2)
    bots = [make_agent("heuristic", 7 * seed + s) for s in range(4)]
    while not (rnd.phase == "play" and len(rnd.tricks) == tricks):
        step(rnd, bots)
    return rnd


def test_the_true_hands_of_heuristic_seats_are_never_ruled_out() -> None:
    # the seats really are the heuristic, and they passed: their hands then must not read
    # as "would have declared" under any reading the view allows
    checked = 0
    for seed in range(40):
        for first in (True, False):
            rnd = _in_play(seed, first=first)
            for me in range(4):
                for p in Likelihood(rnd.view(me), 1, passes=True).passed:
                    assert p.seat not in (me, rnd.starter, rnd.view(me).declarer)
                    assert not p.would_declare(rnd.hand_counts(p.seat)), (seed, first, me)
                    checked += 1
    assert checked > 200


def test_a_pass_with_a_declaration_the_heuristic_would_make_weighs_worlds_down() -> None:
    # Over sampled worlds of real positions, some put in a passed seat's hand a declaration
    # the heuristic would have made: those worlds (and only those) are weighed down.
    marked = kept = 0
    for seed in range(12):
        rnd = _in_play(100 + seed, first=False)
        view = rnd.view(0)
        plain, weighed = Likelihood(view, 0), Likelihood(view, 0, passes=True)
        assert not plain.passed and not plain.points and not weighed.points
        facts, rng = WorldFacts.from_view(view), random.Random(seed)
        policy = make_agent("heuristic", 0)
        for _ in range(40):
            hands, kitty = sample_world(facts, rng)
            contradicted = sum(p.would_declare(hands[p.seat]) for p in weighed.passed)
            assert plain.weight(hands, kitty, policy) == 1.0
            assert weighed.weight(hands, kitty, policy) == 0.35 ** contradicted
            marked += contradicted > 0
            kept += contradicted == 0
    assert marked > 0 and kept > marked


def test_the_pass_inference_stays_honest_rules_11() -> None:
    checked = checked_honest(lambda: ExpertAgent(78, iters=12, candidates=4, passes=1),
                             ((3, 0), (4, 4), (6, 8)), random.Random(5))
    assert checked == 6


def test_whole_rounds_with_the_pass_inference_are_legal_and_deterministic() -> None:
    results = []
    for _ in range(2):
        rnd = Round(12)
        play_round(rnd, [make_agent("expert:iters=40,passes=1" if s % 2 else "heuristic", s)
                         for s in range(4)])
        assert rnd.is_over and rnd.result is not None
        results.append(rnd.result)
    assert results[0] == results[1]
    assert parse_agent_spec("expert:passes=1") == ("expert", {"passes": 1})

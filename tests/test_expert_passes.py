"""Inference from declarations not made (`expert:passes=1`, issue 31): a seat that passed
when the final declaration window closed (RULES §3.3) is less likely to hold a
declaration the heuristic would have made there."""

from __future__ import annotations

import random

from shengji import Round
from shengji.bots import make_agent
from shengji.bots.worlds import Likelihood, WorldFacts, sample_world
from shengji.driver import step


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

"""The expert's switches that stay off until the arena shows they help (issue 31):
`throws=1` (tested throws among a lead's candidates, RULES §6.1, §6.4) and `passes=1`
(worlds weighed by the final declaration window, §3.3); and `settle=1` (an early stop,
on at web tables, issue 35); and the setting `back=N` (how many finished tricks the
inference reads). Each keeps the seat's view alone (§11) and plays whole legal rounds,
the same for the same seed."""

from __future__ import annotations

import random

import pytest

from helpers import checked_honest
from shengji import Round
from shengji.bots import ExpertAgent, make_agent, parse_agent_spec
from shengji.driver import play_round

SWITCHES = (("throws", 11, ((3, 0), (4, 4), (5, 8))), ("passes", 12, ((3, 0), (4, 4), (6, 8))),
            ("settle", 13, ((3, 0), (4, 4), (7, 8))))


@pytest.mark.parametrize(("switch", "seed", "positions"), SWITCHES)
def test_the_switch_stays_honest_rules_11(switch: str, seed: int,
                                          positions: tuple[tuple[int, int], ...]) -> None:
    checked = checked_honest(lambda: ExpertAgent(66 + seed, iters=12, candidates=4,
                                                 **{switch: 1}),
                             positions, random.Random(seed))
    assert checked == 6


@pytest.mark.parametrize(("switch", "seed", "positions"), SWITCHES)
def test_whole_rounds_with_the_switch_are_legal_and_deterministic(
        switch: str, seed: int, positions: tuple[tuple[int, int], ...]) -> None:
    results = []
    for _ in range(2):
        rnd = Round(seed)
        play_round(rnd, [make_agent(f"expert:iters=40,{switch}=1" if s % 2 else "heuristic", s)
                         for s in range(4)])
        assert rnd.is_over and rnd.result is not None
        rnd.counts_check()
        results.append(rnd.result)
    assert results[0] == results[1]
    assert parse_agent_spec(f"expert:{switch}=1") == ("expert", {switch: 1})
    with pytest.raises(ValueError, match=switch):
        make_agent(f"expert:{switch}=2", 0)


def test_the_inference_looks_back_as_far_as_back_says_and_stays_honest_rules_11() -> None:
    """`back=N`: the likelihood weighs the others' plays of the current trick and the N
    finished tricks before it (issue 31: a sharper inference tried in the arena)."""
    from helpers import mid_trick_position
    from shengji.bots.worlds import Likelihood

    rnd, seat = mid_trick_position(4, 6)
    view = rnd.view(seat)
    seen = [len(Likelihood(view, back).points) for back in (0, 1, 3)]
    assert seen[0] < seen[1] < seen[2]  # each finished trick adds the others' plays
    agent = make_agent("expert:iters=12,back=3", 0)
    assert isinstance(agent, ExpertAgent) and agent.infer_back == 3
    assert parse_agent_spec("expert:back=3") == ("expert", {"back": 3})
    checked = checked_honest(lambda: ExpertAgent(81, iters=12, candidates=4, infer=8, back=3),
                             ((3, 4), (5, 8)), random.Random(15))
    assert checked == 4
    assert parse_agent_spec("expert:back=0") == ("expert", {"back": 0})  # this trick only
    with pytest.raises(ValueError, match="back takes an integer from 0"):
        make_agent("expert:back=-1", 0)
    with pytest.raises(ValueError, match="back=-1"):
        ExpertAgent(0, iters=12, back=-1)

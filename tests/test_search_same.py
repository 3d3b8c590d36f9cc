"""The expert's lean rollout path makes the same decisions as the path it replaced
(issue 31): a digest over seeded search decisions, pinned where the old path ran.

At the kitty and play decisions of seeded arena deals (played out by the heuristic),
an expert with a fixed search (`iters` large, `worlds=6`: deterministic for its seed)
is asked for its move; the digest hashes every move it chose and every rollout's value
(`ExpertAgent._rollout`'s result, in order), so a change to the sampled worlds, to the
rollout policy's knowledge or to the play-out itself shows here, not only one that
flips a choice. One deal has the endgame solver on (`endgame=2`), one the bury searched.
The pins were printed by `digest()` at the commit before the lean path (a1e548f, the
pure and the compiled engine alike); both builds must keep them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from helpers import every_nth_play
from shengji.arena import deal_round, deal_seed
from shengji.bots import ExpertAgent, make_agent
from shengji.driver import step
from shengji.options import RuleOptions

# (deal index, house rules, expert settings)
CASES: tuple[tuple[int, RuleOptions, dict[str, int]], ...] = (
    (0, RuleOptions(), {}),
    (1, RuleOptions(strict_tractor_follow=True, kitty_multiplier="power"), {}),
    (2, RuleOptions(throw_tractors="off"), {"endgame": 2}),
    (3, RuleOptions(gap_tractors="trumps_only"), {"candidates": 4}),
    (4, RuleOptions(), {"infer": 1}),
)
EVERY = 2  # ask the expert at every second kitty or play decision
PINS = {
    0: "a3bfc21c9dedf95b",
    1: "4828c8f536d6479d",
    2: "ac6a6c7772e156e2",
    3: "a2414ef901926164",
    4: "23f0338902f64316",
}


def digest(index: int, options: RuleOptions, settings: dict[str, int]) -> tuple[str, int, int]:
    """The digest of one deal's searched decisions, with how many decisions and rollouts."""
    rnd = deal_round(deal_seed(31, index), options)
    bots = [make_agent("heuristic", 10 * index + s) for s in range(4)]
    experts = [ExpertAgent(100 * index + s, iters=100_000, worlds=6, **settings)
               for s in range(4)]
    h = hashlib.sha256()
    values: list[float] = []
    for e in experts:
        inner = e._rollout

        def counted(*args: Any, _inner: Any = inner, **kw: Any) -> float:
            v: float = _inner(*args, **kw)
            values.append(v)
            return v

        e._rollout = counted  # type: ignore[method-assign]
    n = 0
    asked = 0
    while not rnd.is_over:
        d = rnd.decision()
        seat = d.seat
        if seat is not None and d.phase in ("kitty", "play"):
            if d.phase == "kitty" or n % EVERY == 0:
                view = rnd.view(seat)
                h.update(json.dumps(experts[seat].act(view).to_json()).encode())
                asked += 1
            n += 1
        step(rnd, bots)
    h.update(json.dumps([repr(v) for v in values]).encode())
    return h.hexdigest()[:16], asked, len(values)


def test_the_lean_rollouts_decide_as_the_old_path() -> None:
    for index, options, settings in CASES:
        got, asked, rollouts = digest(index, options, settings)
        assert asked >= 8 and rollouts >= 100, (index, asked, rollouts)
        assert got == PINS[index], (
            f"deal {index}: the expert's searched decisions changed ({got}, {asked} "
            f"decisions, {rollouts} rollouts); if the change is meant, measure it and pin")


if __name__ == "__main__":
    for case in CASES:
        print(case[0], *digest(*case))


def test_one_likelihood_weighs_many_worlds_as_a_fresh_replay_does() -> None:
    """`worlds.Likelihood` (built once per decision, the seats' past knowledge carried
    from world to world) gives each sampled world the weight `play_likelihood` finds
    replaying it from views (RULES §11), failed throws (§6.4) and misses included;
    `accepts` (which stops weighing once the world is sure to be rejected) keeps the
    worlds a full weighing keeps."""
    import random

    from shengji.bots import HeuristicAgent
    from shengji.bots.worlds import Likelihood, WorldFacts, play_likelihood, sample_world
    from shengji.round import Round

    rng = random.Random(7)
    weights: list[float] = []
    after_throws = 0
    for seed in range(6):
        rnd = Round(seed, trump_rank="2", starter=seed % 4, declaring_team=seed % 2)
        kinds = ["random", "heuristic", "heuristic", "random"] if seed % 2 else ["heuristic"] * 4
        agents = [make_agent(kinds[s], 10 * seed + s) for s in range(4)]
        for view in every_nth_play(rnd, agents, 4):
            after_throws += bool(view.failed_throws)
            lik = Likelihood(view, 2)
            model = HeuristicAgent(0)
            f = WorldFacts.from_view(view)
            for w in range(4):
                hands, kitty = sample_world(f, rng)
                model.rng.seed(1000 * seed + w)
                got = lik.weight(hands, kitty, model)
                fresh = HeuristicAgent(0)
                fresh.rng.seed(1000 * seed + w)
                assert got == play_likelihood(view, hands, kitty, fresh, 2)
                weights.append(got)
                for draw in (0.1, 0.3, 0.5, 0.99):  # stops early, decides the same
                    model.rng.seed(1000 * seed + w)
                    assert lik.accepts(hands, kitty, model, draw) == (draw < got)
    assert after_throws >= 3, after_throws  # the replay from views after a failed throw
    assert len(weights) >= 200 and min(weights) < 0.5 and max(weights) == 1.0


def test_every_play_of_a_rollout_passes_the_engines_checks() -> None:
    """The rollouts put their policy's plays down unchecked (`Round.step_legal_play`):
    replayed through the checked `Round.step` from the rollout's start, every play of
    every rollout of two seeded deals (house rules and the endgame solver included) is
    legal (RULES §6.1-§6.4) and leads to the very same end."""
    replayed = 0
    for index, options, settings in CASES[1:3]:
        rnd = deal_round(deal_seed(31, index), options)
        bots = [make_agent("heuristic", 10 * index + s) for s in range(4)]
        expert = ExpertAgent(7, iters=100_000, worlds=3, **settings)
        inner = expert._rollout

        def checked(r: Any, ks: Any, me: int, seed: int, _inner: Any = inner) -> float:
            nonlocal replayed
            start, n0 = r.clone(), len(r.actions)
            value: float = _inner(r, ks, me, seed)
            for a in r.actions[n0:]:
                start.step(a)  # raises IllegalAction for a play the rules refuse
                replayed += 1
            assert start.phase == r.phase and start.opponents_points == r.opponents_points
            assert start.result == r.result
            return value

        expert._rollout = checked  # type: ignore[method-assign]
        for view in every_nth_play(rnd, bots, 3):
            expert.act(view)
    assert replayed >= 5000, replayed

"""The expert's worlds and search at every table of RULES §12 (issue 33): N seats, d
decks, teams and friends.

- sampled worlds keep every fact of the view (§11, §6.2, §12.3: voids; a seat that showed
  no pair, or no k-tuple, holds one copy at most), the true world is one of them, and the
  world built from them shows the seat exactly its view;
- deal-phase worlds (§3.1, §3.3 at N seats and d decks) are rebuilt in the view's position;
- in a search world every seat knows its own side (§12.4: a seat holding an open call's
  copy plays for the leader), and a join in a rollout tells every seat;
- the utility counts by the side a seat ended on (§12.4) and the scaled bands (§12.3);
- the expert plays whole rounds at five to ten seats in both modes.
"""

from __future__ import annotations

import random

import pytest

from helpers import deal_asks_in
from shengji.bots import make_agent, table_kind_error
from shengji.bots.expert import ExpertAgent
from shengji.bots.knowledge import Knowledge
from shengji.bots.rollout import play_out, utility
from shengji.bots.worlds import (
    DealFacts,
    WorldFacts,
    deal_error,
    deal_round,
    sample_deal,
    sample_world,
    world_error,
)
from shengji.driver import step
from shengji.options import RuleOptions
from shengji.round import Round

TABLES = [(5, "friends", None), (6, "friends", None), (6, "teams", 3), (8, "teams", None),
          (8, "friends", None), (10, "friends", 5)]


def _round(seed: int, n: int, mode: str, decks: int | None = None) -> Round:
    opts = RuleOptions(players=n, mode=mode, decks=decks)
    return Round(seed, opts, trump_rank="2", starter=seed % n,
                 **({} if mode == "friends" else {"declaring_team": seed % 2}))


def _true_world(rnd: Round) -> tuple[list[list[int]], list[int]]:
    kitty = list(rnd.kitty) if rnd.phase in ("play", "call") else list(rnd.kitty_taken)
    return [list(rnd.hand_counts(s)) for s in range(rnd.n_players)], kitty


@pytest.mark.parametrize(("n", "mode", "decks"), TABLES)
def test_sampled_worlds_keep_every_fact_at_every_table(
    n: int, mode: str, decks: int | None
) -> None:
    rng = random.Random(n)
    seen = {"void": 0, "nopair": 0, "hidden_kitty": 0, "worlds": 0}
    for seed in range(2):
        rnd = _round(seed, n, mode, decks)
        agents = [make_agent("heuristic" if s % 2 else "random", 10 * seed + s,
                             options=rnd.options) for s in range(n)]
        k = 0
        while not rnd.is_over:
            d = rnd.decision()
            if d.phase in ("kitty", "play") and d.seat is not None:
                k += 1
                if k % 4 == 0 or d.phase == "kitty":
                    for s in (d.seat, (d.seat + 1) % n) if d.phase == "play" else (d.seat,):
                        view = rnd.view(s)
                        f = WorldFacts.from_view(view)
                        assert f.n == n and len(f.capacity) == n + 1
                        # the facts are sound: the real deal keeps them
                        assert world_error(f, *_true_world(rnd)) is None
                        seen["void"] += sum(map(sum, f.void))
                        seen["nopair"] += sum(map(sum, f.nopair))
                        seen["hidden_kitty"] += f.capacity[f.kitty_loc] > 0
                        if f.capacity[f.kitty_loc]:
                            assert f.capacity[f.kitty_loc] == rnd.n_kitty
                        hands, kitty = sample_world(f, rng)
                        assert world_error(f, hands, kitty) is None
                        world = Round.from_view(view, hands, kitty)
                        assert world.view(s) == view  # the seat cannot tell it apart
                        seen["worlds"] += 1
            step(rnd, agents)
    assert all(v > 0 for v in seen.values()), seen


def test_a_world_breaking_a_fact_at_a_larger_table_is_named() -> None:
    rnd = _round(3, 6, "friends")
    agents = [make_agent("heuristic", s, options=rnd.options) for s in range(6)]
    while rnd.phase != "play" or len(rnd.tricks) < 3:
        step(rnd, agents)
    seat = rnd.decision().seat
    assert seat is not None
    f = WorldFacts.from_view(rnd.view(seat))
    hands, kitty = _true_world(rnd)
    assert world_error(f, hands[:4], kitty) == "4 hands, not 6"
    other = (seat + 1) % 6
    moved = [list(h) for h in hands]
    i = next(i for i, c in enumerate(moved[other]) if c)
    moved[other][i] -= 1
    assert world_error(f, moved, kitty) is not None


@pytest.mark.parametrize(("n", "mode", "decks"), [(6, "friends", None), (8, "teams", 4),
                                                  (5, "friends", 3)])
def test_deal_worlds_at_larger_tables_are_rebuilt_in_the_views_position(
    n: int, mode: str, decks: int | None
) -> None:
    """RULES §3.1, §3.3 at N seats and d decks: the others' cards and the undealt deck
    are sampled (declarers keep what they showed) and rebuilt through the engine."""
    rng = random.Random(5)
    checked = window = 0
    for seed in range(2):
        rnd = _round(seed, n, mode, decks)
        agents = [make_agent("heuristic", seed * 10 + s, options=rnd.options)
                  for s in range(n)]
        for _, s in deal_asks_in(rnd, agents):
            view = rnd.view(s)
            f = DealFacts.from_view(view)
            true = ([list(rnd.hand_counts(x)) for x in range(n)],
                    list(rnd.deck[sum(rnd.hand_sizes):]))
            assert deal_error(f, *true) is None
            hands, undealt = sample_deal(f, rng)
            assert deal_error(f, hands, undealt) is None
            world = deal_round(view, hands, undealt)
            assert world.view(s) == view
            assert world.legal_declarations(s) == rnd.legal_declarations(s)
            checked += 1
            window += view.phase == "declare"
    assert checked >= 4 and window  # the final window's asks too


def _friends_in_play(seed: int) -> Round:
    rnd = _round(seed, 6, "friends")
    agents = [make_agent("heuristic", s, options=rnd.options) for s in range(6)]
    while rnd.phase != "play":
        step(rnd, agents)
    return rnd


def test_in_a_search_world_each_seat_knows_its_own_side_rules_12_4() -> None:
    """A seat holding a copy of an open call counts itself on the leader's side; the
    others count the leader's known side as their opponents; a join played in a rollout
    tells every seat (`see_join`), so the sides at the end are the round's."""
    joined = 0
    for seed in range(6):
        rnd = _friends_in_play(seed)
        leader = rnd.starter
        assert leader is not None
        seat = (leader + 1) % 6
        view = rnd.view(seat)
        t = view.trump
        assert t is not None
        k0 = Knowledge(view, t)
        hands, kitty = _true_world(rnd)
        ks = k0.world(hands, kitty, leader)
        calls = [cid for cid, _ in rnd.calls]
        for s, k in enumerate(ks):
            holds = any(hands[s][cid] for cid in calls)
            if s == leader or holds:
                assert k.declaring and (s == leader or leader in k.mates)
            else:  # it plays with the seats off the leader's known side
                assert not k.declaring and leader not in k.mates and k.mates
        world = Round.from_view(view, hands, kitty)
        policy = make_agent("heuristic", seed, options=rnd.options)
        assert play_out(policy, world, ks, 0)  # type: ignore[arg-type]
        res = world.result
        assert res is not None and res.sides is not None
        for s, k in enumerate(ks):
            if res.sides[s] != "opponent":  # the leader and every friend who joined
                assert k.declaring, (seed, s)
            elif not any(hands[s][cid] for cid in calls):  # never held a called copy
                assert not k.declaring, (seed, s)
                # it learnt the joins: no friend counts as its mate any more
                assert not set(res.friends or ()) & set(k.mates), (seed, s)
        joined += len(res.friends or ())
    assert joined > 0  # the rollouts met real joins


def test_utility_counts_by_the_side_a_seat_ended_on_rules_12_3_12_4() -> None:
    for seed in range(8):
        rnd = _friends_in_play(seed)
        agents = [make_agent("heuristic", s, options=rnd.options) for s in range(6)]
        while not rnd.is_over:
            step(rnd, agents)
        res = rnd.result
        assert res is not None and res.sides is not None
        band = 20 * rnd.n_decks  # §12.3: three decks, 60-point bands
        assert band == 60
        vals = [utility(rnd, s) for s in range(6)]
        for s in range(6):
            same = [o for o in range(6) if (res.sides[o] == "opponent")
                    == (res.sides[s] == "opponent")]
            assert all(vals[o] == vals[s] for o in same)  # a side shares its worth
            if res.sides[s] != "opponent":
                opp = next(o for o in range(6) if res.sides[o] == "opponent")
                assert vals[s] == -vals[opp]  # and the other side has the opposite
        won = res.gainer == "declarers"
        assert (vals[rnd.starter or 0] > 0) == won or res.levels_gained == 0


@pytest.mark.parametrize(("n", "mode", "decks"), TABLES)
def test_the_expert_plays_every_table_to_the_end(
    n: int, mode: str, decks: int | None
) -> None:
    """Issue 33: the expert searches at every §12 table (its deal, bury, call and play
    decisions all accepted by the engine), beside heuristic seats."""
    opts = RuleOptions(players=n, mode=mode, decks=decks)
    assert table_kind_error("expert", opts) is None
    rnd = Round(n, opts)  # a first round: the deal's declarations are searched too
    agents = [ExpertAgent(s, iters=12) if s % 2 == 0 else make_agent("heuristic", s,
                                                                    options=opts)
              for s in range(n)]
    while not rnd.is_over:
        step(rnd, agents)
    assert rnd.result is not None
    searched = [a for a in agents if isinstance(a, ExpertAgent)]
    assert sum(a.decisions for a in searched) > n  # it did decide, not only stand by

"""The heuristic bot at every table of RULES §12: N seats, d decks, teams and friends.

- seeded rounds (and a whole game) play to the end at 5, 6, 8 and 10 players in both
  modes (teams at even tables, §12.2; friends, §12.4), every action accepted by the
  engine;
- its calls of friends (§12.4) are legal, never on a copy the leader holds or buried,
  and on plain suits;
- a seat holding a called copy plays for the leader (it feeds the leader's trick where
  it would keep its points as an opponent);
- honesty (§11): with every card the seat cannot see scrambled, the same decision;
- the four-player game is unchanged: `bench/bots_digest.py`'s lines at the branch point.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from helpers import scramble
from shengji.actions import Call, Play, call_error
from shengji.bots import HeuristicAgent, make_agent, table_kind_error
from shengji.bots.heuristic_base import lead_shape
from shengji.bots.heuristic_call import choose_calls
from shengji.bots.heuristic_follow import follow
from shengji.bots.knowledge import Knowledge, sides_of
from shengji.cards import CARDS
from shengji.driver import step
from shengji.game import Game
from shengji.options import RuleOptions
from shengji.round import Round
from shengji.trick import winner_index
from shengji.trump import TRUMP

TABLES = [(5, "friends"), (6, "teams"), (6, "friends"), (8, "teams"), (8, "friends"),
          (10, "teams"), (10, "friends")]


def _round(seed: int, n: int, mode: str) -> Round:
    return Round(seed, RuleOptions(players=n, mode=mode), trump_rank="2", starter=seed % n,
                 **({} if mode == "friends" else {"declaring_team": seed % 2}))


@pytest.mark.parametrize(("n", "mode"), TABLES)
def test_heuristic_plays_every_table_to_the_end(n: int, mode: str) -> None:
    """RULES §12: heuristic seats (mixed with random ones) finish seeded rounds."""
    for seed in range(3):
        rnd = _round(seed, n, mode)
        kinds = ["heuristic" if s % 3 else "random" for s in range(n)] if seed else \
            ["heuristic"] * n
        opts = rnd.options
        agents = [make_agent(k, 10 * seed + s, options=opts) for s, k in enumerate(kinds)]
        while not rnd.is_over:
            step(rnd, agents)
        assert rnd.result is not None
        assert all(size == 0 for size in rnd.hand_sizes)
        played = sum(len(cs) for tr in rnd.view(None).tricks for _, cs in tr.plays)
        assert played == n * opts.n_hand  # every dealt card went into a trick


def test_heuristic_plays_a_whole_friends_game() -> None:
    """A six-player friends game (§12.4) by heuristic seats goes to its end."""
    g = Game(3, RuleOptions(players=6, mode="friends"))
    agents = [make_agent("heuristic", s) for s in range(6)]
    while not g.is_over:
        step(g, agents)
        assert g.round_no < 80, "the game should end"
    assert g.winner is not None or g.winners


def _to_call(seed: int, n: int) -> Round:
    rnd = _round(seed, n, "friends")
    agents = [make_agent("heuristic", s) for s in range(n)]
    while rnd.decision().phase != "call":
        step(rnd, agents)
    return rnd


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8, 9, 10])
def test_calls_are_legal_and_not_on_own_cards(n: int) -> None:
    """RULES §12.4: N // 2 - 1 legal calls; each names a copy another seat can play (the
    leader's own copies, held or buried, are counted past), on a plain suit."""
    for seed in range(4):
        rnd = _to_call(seed, n)
        leader = rnd.decision().seat
        assert leader is not None
        view = rnd.view(leader)
        call = HeuristicAgent(seed).act(view)
        assert isinstance(call, Call) and call.seat == leader
        t = view.trump
        assert t is not None
        assert call_error(call.calls, t.rank, n, t.decks) is None
        own = view.counts()
        for c in view.kitty or ():
            own[c.id] += 1
        for card, j in call.calls:
            assert own[card.id] < j <= t.decks, (card, j, own[card.id])
            assert t.play_suit[card.id] != TRUMP
            assert not card.is_joker and card.rank != t.rank
        rnd.step(call)  # the engine takes it
        assert rnd.decision().phase == "play"


def test_random_calls_differ_from_the_heuristic() -> None:
    """The call is a judgement, not the engine's random legal call: aces first."""
    rnd = _to_call(1, 6)
    view = rnd.view(rnd.decision().seat)
    calls = choose_calls(view).calls
    assert {c.rank for c, _ in calls} == {"A"}


def _feeds(k: Knowledge, plays: list[tuple[int, list[int]]]) -> list[int]:
    shape = lead_shape(plays[0][1], k.t)
    return follow(HeuristicAgent(0), k, plays, shape)


def test_a_called_card_holder_plays_for_the_leader() -> None:
    """RULES §12.4: the seat holding a called copy knows it will be a friend. Last to
    play, with the leader holding the trick, it gives points; the same seat taken as an
    opponent keeps them. The position: the leader leads a sure single, the seat before
    it (last to play) holds the called card and a point card in the led suit."""
    n = 6
    found = 0
    for seed in range(60):
        rnd = _to_call(seed, n)
        leader = rnd.decision().seat
        assert leader is not None
        last = (leader - 1) % n
        hand = rnd.hand_counts(last)
        lead_hand = rnd.hand_counts(leader)
        t = rnd.view(leader).trump
        assert t is not None
        # call a plain card the last seat holds and the leader does not (ordinal 1)
        mine = [i for i in range(52) if hand[i] and not lead_hand[i] and CARDS[i].rank != "2"
                and t.play_suit[i] != TRUMP]
        if not mine:
            continue
        target = mine[0]
        others = [(CARDS[i], 1) for i in range(52) if i != target and CARDS[i].rank != "2"]
        rnd.step(Call(leader, ((CARDS[target], 1), *others[: n // 2 - 2])))
        # the leader leads its highest trump single; the others follow by the heuristic
        top = max((i for i in range(54) if lead_hand[i] and t.play_suit[i] == TRUMP),
                  key=lambda i: t.level[i], default=None)
        if top is None:
            continue
        agents = [make_agent("heuristic", s) for s in range(n)]
        rnd.step(Play(leader, (CARDS[top],)))
        while rnd.to_act != last:
            step(rnd, agents)
        view = rnd.view(last)
        trick = view.current_trick
        assert trick is not None
        plays = [(s, [c.id for c in cs]) for s, cs in trick.plays]
        shape = lead_shape(plays[0][1], t)
        if plays[winner_index([p for _, p in plays], shape, t)][0] != leader:
            continue
        points = [i for i in range(54) if hand[i] and t.play_suit[i] == TRUMP
                  and CARDS[i].points and i != target]
        if not points:
            continue
        k = Knowledge(view, t)
        mates, declaring = sides_of(view)
        assert declaring and leader in mates  # it counts itself on the leader's side
        as_friend = _feeds(k, plays)
        k.mates, k.declaring = [s for s in range(n) if s not in (leader, last)], False
        as_opponent = _feeds(k, plays)
        pts_friend = sum(CARDS[i].points for i in as_friend)
        pts_opp = sum(CARDS[i].points for i in as_opponent)
        assert pts_friend >= pts_opp
        if pts_friend > pts_opp:
            found += 1
        if found >= 2:
            break
    assert found >= 2, "positions where the holder feeds the leader's trick"


@pytest.mark.parametrize("mode", ["friends", "teams"])
def test_honesty_scramble_at_six_seats(mode: str) -> None:
    """RULES §11: the heuristic's decision is the same with every hidden card moved (the
    others' hands and an unseen kitty), at every few decisions of 6-seat rounds."""
    rng = random.Random(5)
    checked = 0
    for seed in range(2):
        rnd = _round(seed, 6, mode)
        agents = [make_agent("heuristic", s) for s in range(6)]
        n = 0
        while not rnd.is_over:
            d = rnd.decision()
            if d.seat is not None and d.phase in ("kitty", "call", "play") and n % 7 == 0:
                other = scramble(rnd, d.seat, rng)
                a = HeuristicAgent(seed).act(rnd.view(d.seat))
                b = HeuristicAgent(seed).act(other.view(d.seat))
                assert a == b, (d.phase, a, b)
                checked += 1
            n += 1
            step(rnd, agents)
    assert checked >= 20


def test_only_the_four_seat_bots_are_refused_at_larger_tables_naming_the_rule() -> None:
    """RULES §12: random, heuristic and the expert's levels play every table (issue 33:
    the expert's worlds deal N hands); the learned bots (four-seat observations) and
    the research bot are refused there, naming the rule."""
    opts = RuleOptions(players=6, mode="friends")
    for kind in ("random", "heuristic", "fast", "expert", "master", "expert:iters=20"):
        assert table_kind_error(kind, opts) is None, kind
        assert table_kind_error(kind, RuleOptions(players=8)) is None, kind
    for kind in ("dmc:checkpoint.pt", "omniscient"):
        assert "RULES §12" in (table_kind_error(kind, opts) or ""), kind
        assert table_kind_error(kind, RuleOptions()) is None, kind
    with pytest.raises(ValueError, match="RULES §12"):
        make_agent("dmc:checkpoint.pt", 0, options=opts)
    rnd = _round(0, 6, "teams")
    while rnd.decision().phase != "play":
        step(rnd, [make_agent("heuristic", s) for s in range(6)])
    seat = rnd.decision().seat
    assert seat is not None
    rnd.apply(make_agent("expert:iters=8", 0, options=rnd.options).act(rnd.view(seat)))


def test_four_player_digest_unchanged() -> None:
    """The four-player decisions are byte-identical to the branch point's (a2-round, before
    the §12 heuristic): `bench/bots_digest.py --deals 12` printed these lines there (the
    facts and expert lines as the world sampler has them since the starter's declared
    cards may lie in the kitty, RULES §4)."""
    path = Path(__file__).resolve().parents[1] / "bench" / "bots_digest.py"
    spec = importlib.util.spec_from_file_location("bots_digest", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = mod.digests(12)
    assert got["heuristic"] == "ab26c85bf908f4e4"
    assert got["facts"] == "b4bb839bf2ab5644 (1752 world, 28 deal)"
    assert got["expert"] == "a12bf741bde1c7b6"


def test_sides_as_each_seat_knows_them() -> None:
    """Teams (§12.2): the seats of one's parity. Friends (§12.4), before any join: the
    leader alone on its side; a seat without a called card plays with every other seat
    off the leader's side (the Decision of `sides_of`), a holder with the leader."""
    rnd = _round(0, 6, "teams")
    while rnd.decision().phase != "play":
        step(rnd, [make_agent("heuristic", s) for s in range(6)])
    assert sides_of(rnd.view(1))[0] == [3, 5]
    assert sides_of(rnd.view(4))[0] == [0, 2]
    rnd = _to_call(2, 6)
    leader = rnd.decision().seat
    assert leader is not None
    rnd.step(HeuristicAgent(0).act(rnd.view(leader)))
    view = rnd.view(leader)
    called = {c.id for c, _, _, _ in view.calls}
    assert sides_of(view) == ([], True)
    for s in range(6):
        if s == leader:
            continue
        mates, declaring = sides_of(rnd.view(s))
        holds = any(rnd.hand_counts(s)[i] for i in called)
        assert declaring == holds
        assert (leader in mates) == holds
        if not holds:
            assert mates == [x for x in range(6) if x not in (s, leader)]

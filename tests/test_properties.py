"""Property-based tests (hypothesis): invariants of whole games, generator == checker."""

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import checked_follows, checked_leads, follow_chi2, snapshot
from shengji import CARDS, Game, Play, RuleOptions, Trump, replay
from shengji.cards import POINTS, RANKS, counts_of
from shengji.round import level_index
from shengji.shapes import shape_of

options_st = st.builds(
    RuleOptions,
    self_reinforce=st.booleans(),
    strict_tractor_follow=st.booleans(),
    no_trump_keeps_rank=st.booleans(),
    band_80_115=st.sampled_from(["swap", "stay"]),
    first_drawer=st.integers(0, 3),
    throw_penalty_per_card=st.integers(0, 100),
    throw_penalty=st.sampled_from(["returned", "attempted", "none"]),
    kitty_multiplier=st.sampled_from(["per_card", "flat", "power"]),
    round1_no_declaration=st.sampled_from(["redeal", "flip"]),
    gap_tractors=st.sampled_from(["on", "trumps_only"]),
    throw_tractors=st.sampled_from(["on", "off"]),
    joker_pairs=st.sampled_from(["equal", "red_over_black"]),
    win_at_a=st.sampled_from(["pass", "as_declarers"]),
    max_levels_per_round=st.none() | st.integers(1, 12),
    stop_levels=st.none() | st.lists(st.sampled_from(list(RANKS[1:])), max_size=4),
)


def check_invariants(game: Game) -> None:
    rnd = game.round
    rnd.counts_check()  # all 108 cards accounted for
    assert sum(POINTS[i] * 2 for i in range(54)) == 200
    played = Counter()
    for _, plays, _, _ in rnd.tricks:
        for s, ids in plays:
            played[s] += len(ids)
    for s, ids in rnd.current:
        played[s] += len(ids)
    for s in range(4):
        assert sum(rnd.hand_counts(s)) == rnd.hand_sizes[s]
        if rnd.phase == "deal":
            assert rnd.hand_sizes[s] == len(
                [k for k in range(rnd.drawn) if (rnd.first_drawer + k) % 4 == s]
            )
        elif rnd.phase == "declare":
            assert rnd.hand_sizes[s] == 25
        elif rnd.phase == "kitty":
            assert rnd.hand_sizes[s] == (33 if s == rnd.starter else 25)
        else:
            assert rnd.hand_sizes[s] == 25 - played[s]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), options=options_st, max_rounds=st.integers(1, 3))
def test_random_games_keep_every_invariant_and_replay_exactly(seed, options, max_rounds):
    game = Game(seed, options)
    rng = random.Random(seed)
    checkpoints = {}
    while not game.is_over and len(game.results) < max_rounds:
        game.apply(game.random_action(rng))
        check_invariants(game)
        if rng.random() < 0.01:
            checkpoints[len(game.actions)] = snapshot(game)
    assert snapshot(replay(game.record)) == snapshot(game)
    for n, snap in checkpoints.items():
        assert snapshot(replay(game.record, upto=n)) == snap


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), options=options_st)
def test_under_any_options_the_generators_agree_with_the_checker_in_play_rules_6(
    seed, options
):
    """In whole random rounds under random house rules: every generated follow is
    accepted by `check`, the uniform random play is among them, and every level
    result respects the §9 options."""
    game = Game(seed, options)
    rng = random.Random(seed)
    checked = 0
    while not game.is_over and len(game.results) < 2:
        rnd = game.round
        d = game.decision()
        if d.phase == "play" and rnd.current and checked < 40:
            follows = list(itertools.islice(game.legal_plays(d.seat), 300))
            assert follows, "a seat to act always has a legal follow"
            assert len(set(map(frozenset_multiset, follows))) == len(follows)
            for cards in follows[:: max(1, len(follows) // 25)]:
                game.check(Play(d.seat, cards))
            pick = game.random_play(d.seat, rng)
            if len(follows) < 300:
                assert frozenset_multiset(pick) in set(map(frozenset_multiset, follows))
            checked += 1
        game.apply(game.random_action(rng))
        check_invariants(game)
    for r in game.results:
        before = [level_index(x) for x in r.levels_before]
        after = [level_index(x) for x in r.levels_after]
        gain = max(a - b for a, b in zip(after, before, strict=True))
        if options.max_levels_per_round is not None:
            assert gain <= options.max_levels_per_round
        if options.win_at_a == "as_declarers" and max(after) > 12:
            team = 0 if after[0] > 12 else 1
            assert r.gainer == "declarers" and r.next_declaring_team == team
        for stop in options.stop_levels or ():
            k = RANKS.index(stop)
            assert not any(b < k < a for a, b in zip(after, before, strict=True))
    assert snapshot(replay(game.record)) == snapshot(game)


def frozenset_multiset(cards):
    return tuple(sorted(c.id for c in cards))


TRUMPS = [
    Trump("2", "H"), Trump("5", "S"), Trump(None, None), Trump("7", None),
    # the unit options of RULES §5.4 and §6.1 travel with the trump context
    Trump("5", "S", gap_tractors=False), Trump("7", None, gap_tractors=False),
    Trump("9", "D", throw_tractors=False), Trump("5", "H", gap_tractors=False,
                                                throw_tractors=False),
]


@st.composite
def follow_case(draw):
    trump = draw(st.sampled_from(TRUMPS))
    # Small pools keep pairs and tractors frequent.
    ps = draw(st.sampled_from([p for p in range(5) if len(trump.suit_ids[p]) >= 2]))
    suit_ids = trump.suit_ids[ps]
    pool = suit_ids[: draw(st.integers(2, min(8, len(suit_ids))))]
    lead_ids = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6))
    lead_ids = [i for i, n in Counter(lead_ids).items() for _ in range(min(n, 2))]
    other = [i for i in range(54) if trump.play_suit[i] != ps][:10]
    hand_ids = draw(st.lists(st.sampled_from(pool + other), min_size=len(lead_ids), max_size=12))
    counts = [0] * 54
    for i in hand_ids:
        counts[i] = min(2, counts[i] + 1)
    if sum(counts) < len(lead_ids):
        counts[other[0]] = 2
        counts[other[1]] = 2
        counts[other[2]] = 2
    strict = draw(st.booleans())
    return trump, lead_ids, counts, strict


@settings(max_examples=300, deadline=None)
@given(case=follow_case())
def test_generated_follows_equal_the_checker_rules_6_2(case):
    trump, lead_ids, counts, strict = case
    checked_follows(counts, lead_ids, trump, strict, draws=20)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_generated_leads_are_every_single_suit_subset_rules_6_1(seed):
    rng = random.Random(seed)
    trump = rng.choice(TRUMPS)
    counts = [0] * 54
    for i in rng.sample(range(54), 6):
        counts[i] = rng.randint(1, 2)
    checked_leads(counts, trump, rng, draws=10)


def test_random_follow_is_uniform_over_distinct_plays():
    trump = Trump("2", "H")
    hand = counts_of([CARDS[i] for i in (0, 0, 1, 1, 2, 3, 20, 21)])  # spades + some diamonds
    shape = shape_of([5, 5], trump)  # a pair of spades
    _, chi2 = follow_chi2(hand, shape, trump, seed=1)
    assert chi2 < 30  # len(plays) - 1 degrees of freedom is small; 30 is far in the tail


@pytest.mark.slow
def test_a_thousand_complete_random_games():
    rounds = 0
    for seed in range(1000):
        game = Game(seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(game.random_action(rng))
        rounds += len(game.results)
        assert game.winner in (0, 1)
    assert rounds > 5000

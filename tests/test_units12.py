"""RULES §12.1 (declarations) and §12.3 (units with more decks): hand-built examples for
every sentence, and the generators against a brute-force reading for d = 3, 4, 5."""

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import C
from helpers import all_plays, checked_follows, checked_leads, follow_chi2
from shengji import Trump
from shengji.cards import DECK_SIZE, deck_ids, full_deck, shuffled_ids
from shengji.declare import candidate_declarations, declaration_strength, overturn_error
from shengji.errors import IllegalAction
from shengji.follow import (
    _follow_error_k,
    follow_error,
    is_legal_follow,
    random_bury,
)
from shengji.hand import Hand
from shengji.options import RuleOptions
from shengji.shapes import _shape_of_k, match_value, shape_of
from shengji.trick import failed_throw, trick_winner, winner_index
from shengji.trump import trump_for

T3 = Trump("2", "H", decks=3)
T4 = Trump("2", "H", decks=4)


def ids(text):
    return [c.id for c in C(text)]


def counts(text):
    out = [0] * 54
    for i in ids(text):
        out[i] += 1
    return out


def units(text, t=T3):
    return [(u.k, u.length, " ".join(str(c) for c in u.cards())) for u in
            shape_of(ids(text), t).units]


def legal(hand, lead, play, t=T3, strict=False):
    return is_legal_follow(C(hand), C(lead), C(play), t, strict)


# ---------------------------------------------------------------- the deck and hands


def test_the_deck_of_d_decks_holds_each_card_d_times_rules_12_1():
    assert sorted(shuffled_ids(7)) == list(deck_ids(2))
    assert len(deck_ids(2)) == DECK_SIZE == 108
    assert [c.id for c in full_deck()] == list(deck_ids(2))
    for d in (3, 4, 5):
        assert len(deck_ids(d)) == 54 * d
        assert Counter(deck_ids(d)) == {i: d for i in range(54)}


def test_a_hand_holds_up_to_d_copies_rules_12_1():
    with pytest.raises(IllegalAction, match="0-2"):
        Hand.of(C("AS AS AS"))
    h = Hand.of(C("AS AS AS KS KS"), decks=3)
    assert h.tuples(3) == C("AS") and h.tuples(2) == C("KS AS")
    with pytest.raises(IllegalAction, match="RULES §12"):
        h.plus(C("AS"), decks=3)
    assert h.plus(C("AS"), decks=4)[C("AS")[0].id] == 4


def test_trump_carries_the_deck_count_rules_12_3():
    assert trump_for("2", "H", True, True, 3) is trump_for("2", "H", True, True, 3)
    assert trump_for("2", "H", True, True, 3) != trump_for("2", "H")
    assert repr(T3) == "Trump('2', 'H', decks=3)" and repr(Trump("2", "H")) == "Trump('2', 'H')"
    with pytest.raises(IllegalAction, match="RULES §12"):
        Trump("2", "H", decks=6)


# ---------------------------------------------------------------- units (§12.3 sentence 1)


def test_a_k_tuple_is_k_identical_cards_rules_12_3():
    assert shape_of(ids("3S 3S 3S"), T3).kind == "tuple"
    assert units("3S 3S 3S") == [(3, 1, "3S 3S 3S")]
    assert shape_of(ids("3S 3S"), T3).kind == "pair"
    # equal cards of different suits are no tuple (the off-suit trump-rank cards)
    assert shape_of(ids("2S 2S 2S 2D 2D 2D"), T3).kind == "throw"


def test_a_tractor_is_k_tuples_of_one_k_at_consecutive_levels_rules_12_3():
    assert units("3S 3S 3S 4S 4S 4S") == [(3, 2, "3S 3S 3S 4S 4S 4S")]
    assert shape_of(ids("3S 3S 3S 4S 4S 4S 5S 5S 5S"), T3).kind == "tractor"
    # across the trump rank's gap (§5.4), and only with gap_tractors on
    t5 = Trump("5", "H", decks=3)
    assert shape_of(ids("4S 4S 4S 6S 6S 6S"), t5).kind == "tractor"
    t5gap = Trump("5", "H", gap_tractors=False, decks=3)
    assert shape_of(ids("4S 4S 4S 6S 6S 6S"), t5gap).kind == "throw"
    # in trumps: A♥ → 2♠ (off-suit trump rank) → 2♥ → BJ → RJ
    assert units("AH AH AH 2S 2S 2S") == [(3, 2, "AH AH AH 2S 2S 2S")]
    assert units("BJ BJ BJ RJ RJ RJ") == [(3, 2, "BJ BJ BJ RJ RJ RJ")]
    # a triple next to a pair is no tractor of triples
    assert shape_of(ids("3S 3S 3S 5S 5S 5S"), T3).kind == "throw"


def test_a_throw_reads_tractors_then_tuples_then_singles_rules_12_3():
    # tractors first, larger k first: the triples' tractor before the pairs' one
    assert units("3S 3S 3S 4S 4S 4S 8S 8S 9S 9S KS KS KS AS") == [
        (3, 2, "3S 3S 3S 4S 4S 4S"), (2, 2, "8S 8S 9S 9S"), (3, 1, "KS KS KS"), (1, 1, "AS")]
    # then longer first
    assert units("3S 3S 4S 4S 8S 8S 9S 9S 10S 10S", T3)[0] == (2, 3, "8S 8S 9S 9S 10S 10S")
    # tuples larger k first, then singles high to low
    assert units("3S 3S AS AS AS 5S KS", T4) == [
        (3, 1, "AS AS AS"), (2, 1, "3S 3S"), (1, 1, "KS"), (1, 1, "5S")]
    assert units("3S 3S 3S 3S AS AS AS", T4) == [(4, 1, "3S 3S 3S 3S"), (3, 1, "AS AS AS")]
    # throw_tractors=off: tractors count as their tuples
    t_off = Trump("2", "H", throw_tractors=False, decks=3)
    assert units("3S 3S 3S 4S 4S 4S AS", t_off) == [
        (3, 1, "4S 4S 4S"), (3, 1, "3S 3S 3S"), (1, 1, "AS")]


def test_need_k_counts_the_disjoint_k_tuples_of_the_lead_rules_12_3():
    # a triple gives one pair; a tractor of two triples two pairs and two triples
    assert shape_of(ids("3S 3S 3S"), T3).need_k(2) == 1
    s = shape_of(ids("3S 3S 3S 4S 4S 4S"), T3)
    assert (s.need_k(2), s.need_k(3)) == (2, 2)
    s = shape_of(ids("3S 3S 3S 3S"), T4)
    assert (s.need_k(2), s.need_k(3), s.need_k(4)) == (2, 1, 1)
    assert shape_of(ids("3S 5S"), T3).need_k(2) == 0
    # two decks keep n_pairs as need_2
    s2 = shape_of(ids("3S 3S 4S 4S 9S"), Trump("2", "H"))
    assert s2.need_k(2) == s2.n_pairs == 2


def test_each_unit_of_a_throw_must_be_unbeatable_by_its_own_kind_rules_12_3():
    # a triple is beaten only by a higher triple (k identical cards)
    assert failed_throw(C("KS KS KS AS"), [C("AS AS 5D"), C("3C")], T3) is None
    assert failed_throw(C("KS KS KS AS"), [C("AS AS AS 5D"), C("3C")], T3) == C("KS KS KS")
    # four identical cards hold a higher triple (d = 4)
    assert failed_throw(C("KS KS KS AS"), [C("AS AS AS AS"), C("3C")], T4) == C("KS KS KS")
    # a tractor of triples by a higher tractor of triples of the same length only
    lead = C("JS JS JS QS QS QS AS")
    assert failed_throw(lead, [C("KS KS KS AS AS"), C("3C")], T3) is None
    assert failed_throw(lead, [C("3C"), C("KS KS KS AS AS AS")], T3) == C("JS JS JS QS QS QS")
    # the forced unit is the beatable one with fewest cards: the single
    assert failed_throw(C("QS QS QS JS"), [C("KS KS KS AS")], T3) == C("JS")


# ---------------------------------------------------------------- following (§12.3 sentence 2)


def test_a_triple_lead_is_followed_by_a_pair_and_a_card_without_a_triple_rules_12_3():
    assert legal("5S 5S 6S 9S AH", "3S 3S 3S", "5S 5S 6S")
    assert legal("5S 5S 6S 9S AH", "3S 3S 3S", "5S 5S 9S")
    assert not legal("5S 5S 6S 9S AH", "3S 3S 3S", "5S 6S 9S")
    # a triple held must be played
    assert legal("5S 5S 6S 7S 7S 7S", "3S 3S 3S", "7S 7S 7S")
    assert not legal("5S 5S 6S 7S 7S 7S", "3S 3S 3S", "5S 5S 6S")
    # four identical cards answer a triple with three of them (d = 4)
    assert legal("5S 5S 5S 5S 9S", "3S 3S 3S", "5S 5S 5S", T4)


def test_follow_suit_as_far_as_possible_first_rules_12_3():
    assert legal("5S 5S 9D 9D", "3S 3S 3S", "5S 5S 9D")
    assert not legal("5S 5S 9D 9D", "3S 3S 3S", "5S 9D 9D")


def test_higher_tuples_come_first_then_lower_ones_rules_12_3():
    # d = 4, a quadruple led (need 1 quadruple, 1 triple, 2 pairs): a triple and a card
    # beat two pairs, since triples count before pairs
    hand = "5S 5S 5S 6S 6S 7S 7S"
    assert legal(hand, "3S 3S 3S 3S", "5S 5S 5S 6S", T4)
    assert not legal(hand, "3S 3S 3S 3S", "6S 6S 7S 7S", T4)
    err = follow_error(counts(hand), shape_of(ids("3S 3S 3S 3S"), T4), ids("6S 6S 7S 7S"), T4)
    assert err is not None and "RULES §12.3" in err and "triple" in err
    # a tractor of triples (need 2 triples, 2 pairs): one triple and one pair and a card
    assert legal("5S 5S 5S 9S 9S JS KS", "3S 3S 3S 4S 4S 4S", "5S 5S 5S 9S 9S JS")
    assert not legal("5S 5S 5S 9S 9S JS KS", "3S 3S 3S 4S 4S 4S", "5S 5S 5S 9S JS KS")
    # a triple and two pairs led (need 1 triple, 3 pairs): the triple and two pairs
    hand = "5S 5S 5S 7S 7S 8S 8S 10S 10S JS"
    assert legal(hand, "3S 3S 3S 6S 6S QS QS", "5S 5S 5S 7S 7S 8S 8S")
    assert not legal(hand, "3S 3S 3S 6S 6S QS QS", "7S 7S 8S 8S 10S 10S JS")


def test_tuples_answering_a_tractor_need_not_be_consecutive_rules_12_3():
    assert legal("5S 5S 5S 9S 9S 9S", "3S 3S 3S 4S 4S 4S", "5S 5S 5S 9S 9S 9S")
    # ... unless strict_tractor_follow and a tractor of triples is held
    hand = "5S 5S 5S 6S 6S 6S 9S 9S 9S"
    assert legal(hand, "3S 3S 3S 4S 4S 4S", "5S 5S 5S 9S 9S 9S")
    assert not legal(hand, "3S 3S 3S 4S 4S 4S", "5S 5S 5S 9S 9S 9S", strict=True)
    assert legal(hand, "3S 3S 3S 4S 4S 4S", "5S 5S 5S 6S 6S 6S", strict=True)


def test_the_general_rule_is_the_two_deck_rule_at_two_decks_rules_12_3():
    t2 = Trump("2", "H")
    rng = random.Random(5)
    for _ in range(400):
        ps = rng.choice([0, 2, 4])
        pool = t2.suit_ids[ps][:7]
        lead = Counter(rng.choice(pool) for _ in range(rng.randint(2, 6)))
        lead_ids = [i for i, n in lead.items() for _ in range(min(n, 2))]
        hand = [0] * 54
        for i in rng.sample(pool + t2.suit_ids[(ps + 2) % 4][:5], 9):
            hand[i] = rng.randint(1, 2)
        if sum(hand) < len(lead_ids):
            continue
        shape = shape_of(lead_ids, t2)
        shape_k = _shape_of_k(tuple(lead_ids), ps, t2)
        for play in itertools.islice(all_plays(hand, len(lead_ids)), 200):
            a = follow_error(hand, shape, play, t2)
            b = _follow_error_k(hand, shape_k, play, t2, False)
            assert (a is None) == (b is None), (lead_ids, hand, play, a, b)


# ---------------------------------------------------------------- winning (§12.3 sentence 3)


def test_a_play_wins_only_when_it_splits_into_the_leads_unit_kinds_rules_12_3():
    # triple lead: a pair and a card do not match; a higher triple does; a trump triple
    # ruffs; a higher trump triple ruffs over it
    plays = ["3S 3S 3S", "4S 4S 5S", "AS AS AS", "3H 3H 3H", "4H 4H 4H"]
    assert trick_winner([C(p) for p in plays], T3) == 4
    assert trick_winner([C(p) for p in plays[:4]], T3) == 3
    assert trick_winner([C(p) for p in ["3S 3S 3S", "4H 4H 5H", "AS AS AS"]], T3) == 2
    # a tractor of triples needs a tractor of triples: two triples apart do not match
    shape = shape_of(ids("3S 3S 3S 4S 4S 4S"), T3)
    assert match_value(ids("6S 6S 6S 8S 8S 8S"), shape, T3) is None
    assert match_value(ids("6S 6S 6S 7S 7S 7S"), shape, T3) is not None
    # a quadruple is no triple and a card ... unless the lead was a triple and a card
    s = shape_of(ids("3S 3S 3S 5S"), T4)
    assert match_value(ids("9S 9S 9S 9S"), s, T4) is not None
    assert match_value(ids("9S 9S 8S 8S"), s, T4) is None


def test_the_deciding_unit_is_the_highest_unit_of_the_largest_kind_rules_12_3():
    # lead: a tractor of triples and a triple; ruffs compared by their tractor
    lead = "3S 3S 3S 4S 4S 4S AS AS AS"
    a = "5H 5H 5H 6H 6H 6H 3H 3H 3H"   # tractor top 6H
    b = "3H 3H 3H 4H 4H 4H AH AH AH"   # higher triple, lower tractor
    assert trick_winner([C(lead), C(a), C(b)], T3) == 1
    assert trick_winner([C(lead), C(b), C(a)], T3) == 2
    # a throw stands unless ruffed: the leader wins among plays of the led suit
    shape = shape_of(ids("KS KS KS QS"), T3)
    assert winner_index([ids("KS KS KS QS"), ids("AS AS AS 3S")], shape, T3) == 1
    # equal values go to the earlier play
    assert trick_winner([C("3S 3S 3S"), C("5H 5H 5H"), C("5H 5H 5H")], T3) == 1


# ---------------------------------------------------------------- declarations (§12.1)


def test_declarations_show_k_of_a_kind_rules_12_1():
    assert declaration_strength(ids("2S"), "2", 3) == 1
    assert declaration_strength(ids("2S 2S"), "2", 3) == 2
    assert declaration_strength(ids("BJ BJ"), "2", 3) == 3
    assert declaration_strength(ids("2S 2S 2S"), "2", 3) == 4
    assert declaration_strength(ids("RJ RJ RJ"), "2", 3) == 5
    for bad in ("BJ", "3S 3S", "2S 2D", "2S 2S 2S 2S"):
        with pytest.raises(IllegalAction, match="RULES §12.1"):
            declaration_strength(ids(bad), "2", 3)
    # two decks: §3.3 exactly
    assert [declaration_strength(ids(x), "2") for x in ("2S", "2S 2S", "BJ BJ")] == [1, 2, 3]
    with pytest.raises(IllegalAction, match="RULES §3.3"):
        declaration_strength(ids("2S 2S 2S"), "2")


DEFAULT = RuleOptions()


def overturns(seat, new, standing_seat, standing, options=DEFAULT, d=3):
    s_ids = tuple(ids(standing))
    std = (standing_seat, declaration_strength(s_ids, "2", d), s_ids)
    return overturn_error(seat, ids(new), declaration_strength(ids(new), "2", d), std,
                          options, d) is None


def test_more_cards_overturn_and_jokers_win_at_equal_count_rules_12_1():
    assert overturns(1, "2S 2S 2S", 0, "BJ BJ")
    assert overturns(1, "BJ BJ", 0, "2S 2S")
    assert not overturns(1, "2S 2S", 0, "BJ BJ")
    assert not overturns(1, "2D 2D 2D", 0, "2S 2S 2S")
    assert overturns(1, "BJ BJ BJ", 0, "2S 2S 2S")
    # joker_pairs between jokers of equal count
    assert not overturns(1, "RJ RJ", 0, "BJ BJ")
    rob = RuleOptions(joker_pairs="red_over_black")
    assert overturns(1, "RJ RJ RJ", 0, "BJ BJ BJ", rob)
    assert not overturns(1, "BJ BJ BJ", 0, "RJ RJ RJ", rob)


def test_self_reinforce_adds_copies_of_the_same_card_rules_12_1():
    sr = RuleOptions(self_reinforce=True)
    assert not overturns(0, "2S 2S 2S", 0, "2S 2S")
    assert overturns(0, "2S 2S 2S", 0, "2S 2S", sr)
    assert overturns(0, "2S 2S 2S", 0, "2S", sr)
    assert not overturns(0, "2H 2H 2H", 0, "2S 2S", sr)


def test_candidate_declarations_weakest_first_rules_12_1():
    hand = counts("2S 2S 2S 2H BJ BJ RJ RJ RJ")
    assert candidate_declarations(hand, "2", 3) == [
        tuple(ids(x)) for x in ("2S", "2H", "2S 2S", "BJ BJ", "RJ RJ", "2S 2S 2S", "RJ RJ RJ")]
    assert candidate_declarations(counts("2S 2S BJ BJ"), "2") == [
        tuple(ids(x)) for x in ("2S", "2S 2S", "BJ BJ")]


# ---------------------------------------------------------------- generators vs brute force


def brute_legal(hand, lead_ids, t):
    """§12.3 read directly: the lead's need_k from its units, then every play of n cards
    with min(n, h) of the led suit whose capped tuple counts (d first) are largest."""
    d = t.decks
    shape = shape_of(lead_ids, t)
    need = {k: sum(u.length * (u.k // k) for u in shape.units if u.k >= 2)
            for k in range(2, d + 1)}
    suit = shape.play_suit
    n = len(lead_ids)
    h = sum(c for i, c in enumerate(hand) if t.play_suit[i] == suit)
    m = min(n, h)

    def vec(play):
        c = Counter(i for i in play if t.play_suit[i] == suit)
        return tuple(min(need[k], sum(x // k for x in c.values())) for k in range(d, 1, -1))

    plays = [p for p in all_plays(hand, n) if sum(t.play_suit[i] == suit for i in p) == m]
    best = max(vec(p) for p in plays)
    return {p for p in plays if vec(p) == best}


@st.composite
def follow_case_d(draw):
    d = draw(st.sampled_from([3, 4, 5]))
    rank, suit = draw(st.sampled_from([("2", "H"), ("5", "S"), (None, None), ("7", None)]))
    t = Trump(rank, suit, decks=d, gap_tractors=draw(st.booleans()),
              throw_tractors=draw(st.booleans()))
    ps = draw(st.sampled_from([p for p in range(5) if len(t.suit_ids[p]) >= 2]))
    pool = t.suit_ids[ps][: draw(st.integers(2, 5))]
    lead = Counter(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=7)))
    lead_ids = [i for i, n in lead.items() for _ in range(min(n, d))]
    other = [i for i in range(54) if t.play_suit[i] != ps][:4]
    hand = [0] * 54
    for i in draw(st.lists(st.sampled_from(pool + other), min_size=len(lead_ids),
                           max_size=11)):
        hand[i] = min(d, hand[i] + 1)
    if sum(hand) < len(lead_ids):
        for i in other[:3]:
            hand[i] = d
    return t, lead_ids, hand, draw(st.booleans())


@settings(max_examples=250, deadline=None)
@given(case=follow_case_d())
def test_generated_follows_equal_the_checker_and_the_text_for_d_3_to_5_rules_12_3(case):
    t, lead_ids, hand, strict = case
    accepted = checked_follows(hand, lead_ids, t, strict, draws=10)
    if not strict:
        assert accepted == brute_legal(hand, lead_ids, t)
    else:
        assert accepted and accepted <= brute_legal(hand, lead_ids, t)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_generated_leads_are_every_single_suit_subset_for_d_3_to_5_rules_12_3(seed):
    rng = random.Random(seed)
    d = rng.choice([3, 4, 5])
    t = Trump(rng.choice(["2", "9"]), rng.choice(["H", None]), decks=d)
    hand = [0] * 54
    for i in rng.sample(range(54), 4):
        hand[i] = rng.randint(1, d)
    checked_leads(hand, t, rng, draws=10)
    for _ in range(5):
        bury = random_bury(hand, rng, 3)
        assert len(bury) == 3 and all(bury.count(i) <= hand[i] for i in bury)


def test_random_follow_is_uniform_with_more_decks_rules_12_3():
    # no triple held against a triple and a card: a pair and two cards, many ways
    hand = counts("5S 5S 6S 6S 8S 9S 10S AH")
    shape = shape_of(ids("3S 3S 3S 4S"), T3)
    plays, chi2 = follow_chi2(hand, shape, T3, seed=2)
    assert len(plays) > 6
    assert chi2 < 40

"""`Hand`: the hand as counts per card id, shared by the engine, views and bots (RULES §1)."""

import random

import pytest

from shengji import Hand, IllegalAction, Round, Trump
from shengji.cards import parse_cards as C


def test_a_hand_is_54_counts_each_card_held_at_most_twice_rules_1() -> None:
    h = Hand.of(C("AS AS 5H KD 10C BJ"))
    assert len(h) == 54 and h.size == 6 and isinstance(h, tuple)
    assert h[C("AS")[0].id] == 2 and h[C("2S")[0].id] == 0
    with pytest.raises(IllegalAction, match="RULES §1"):
        Hand.of(C("AS AS AS"))
    with pytest.raises(IllegalAction, match="54 counts"):
        Hand([0] * 53)
    with pytest.raises(IllegalAction, match="54 counts"):
        Hand([3] + [0] * 53)


def test_hand_operations_give_new_hands_and_name_the_rule_they_break() -> None:
    h = Hand.of(C("AS AS 5H KD 10C"))
    assert h.holds(C("AS AS")) and not h.holds(C("5H 5H"))
    less = h.minus(C("AS 5H"))
    assert less.size == 3 and h.size == 5  # h is unchanged
    with pytest.raises(IllegalAction, match="RULES §6"):
        h.minus(C("QS"))
    assert less.plus(C("AS 5H")) == h
    with pytest.raises(IllegalAction, match="RULES §1"):
        h.plus(C("AS"))
    assert h.pairs() == C("AS") and h.points() == 25
    assert h.ids() == sorted(c.id for c in C("AS AS 5H KD 10C"))


def test_hand_sorts_by_play_suit_and_counts_suits_under_a_trump_rules_5() -> None:
    t = Trump("5", "H")
    h = Hand.of(C("5S 3H AS 5H BJ 2C"))
    # trumps are 3H, 5S (off-suit trump rank), 5H (trump rank in trump suit), BJ
    assert h.suit_count(t, None) == 4 and h.suit_count(t, "S") == 1
    assert h.suit_count(t, "H") == 0 and h.suit_count(t, "C") == 1
    cards = h.cards(t)
    assert set(cards[-4:]) == set(C("3H 5S 5H BJ")) and cards[-1] == C("BJ")[0]


def test_round_and_view_give_the_same_hand_as_the_cards_shown() -> None:
    rnd = Round(4)
    while rnd.phase == "deal":
        rnd.apply(rnd.random_action(random.Random(0)))
    for seat in range(4):
        h = rnd.hand_counts(seat)
        v = rnd.view(seat)
        assert isinstance(h, Hand) and v.hand_counts == h
        assert Hand.of(v.hand) == h and h.size == v.hand_sizes[seat]

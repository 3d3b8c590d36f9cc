"""RULES §5: play suits and card order."""

from conftest import C
from shengji import Trump
from shengji.trump import TRUMP


def order(trump: Trump, text: str) -> list[int]:
    return [trump.level_of(c) for c in C(text)]


def test_trump_order_example_rules_5_2():
    t = Trump("2", "H")
    cards = C("RJ BJ 2H 2S 2D 2C AH KH 3H")
    assert all(t.is_trump(c) for c in cards)
    lv = [t.level_of(c) for c in cards]
    assert lv[0] > lv[1] > lv[2] > lv[3] > lv[6] > lv[7] > lv[8]
    assert lv[3] == lv[4] == lv[5]  # off-suit trump-rank cards are equal


def test_other_suits_skip_the_trump_rank_rules_5_2():
    t = Trump("5", "H")
    assert t.play_suit_of(C("4S")[0]) == "S"
    assert t.play_suit_of(C("5S")[0]) == "T"
    # §5.4: with R = 5, 4♠ and 6♠ are consecutive
    assert t.level_of(C("6S")[0]) - t.level_of(C("4S")[0]) == 1


def test_consecutive_chain_through_the_rank_gap_rules_5_4():
    t = Trump("2", "H")
    chain = order(t, "AH 2C 2H BJ RJ")
    assert chain == list(range(chain[0], chain[0] + 5))
    assert t.level_of(C("2C")[0]) == t.level_of(C("2S")[0])


def test_no_trump_round_only_jokers_are_trumps_rules_5_3():
    t = Trump(None, None)
    assert [t.is_trump(c) for c in C("RJ BJ 2H AS")] == [True, True, False, False]
    assert t.level_of(C("3S")[0]) - t.level_of(C("2S")[0]) == 1
    assert t.level_of(C("AS")[0]) == 12
    assert t.level_of(C("RJ")[0]) == t.level_of(C("BJ")[0]) + 1


def test_no_trump_keeps_rank_option_rules_10():
    t = Trump("7", None)
    assert t.is_trump(C("7S")[0]) and t.is_trump(C("7H")[0])
    assert t.level_of(C("7S")[0]) == t.level_of(C("7D")[0])
    assert t.level_of(C("BJ")[0]) == t.level_of(C("7C")[0]) + 1
    assert not t.is_trump(C("AS")[0])


def test_every_card_has_one_play_suit_rules_5_1():
    t = Trump("10", "D")
    sizes = [len(ids) for ids in t.suit_ids]
    assert sum(sizes) == 54
    assert sizes[TRUMP] == 12 + 3 + 1 + 2  # diamonds without 10, three 10s, 10D, jokers


def test_sort_groups_by_play_suit_then_level():
    t = Trump("2", "S")
    s = t.sort(C("RJ 3S 2H AH KH 4D"))
    assert [c.text for c in s] == ["KH", "AH", "4D", "3S", "2H", "RJ"]

"""RULES §6.1: leads — singles, pairs, tractors, throws."""

import pytest

from conftest import C
from shengji import IllegalAction, Trump, classify_lead
from shengji.shapes import shape_of

T2H = Trump("2", "H")


@pytest.mark.parametrize(
    ("cards", "kind"),
    [
        ("AS", "single"),
        ("AS AS", "pair"),
        ("3S 3S 4S 4S", "tractor"),
        ("AH AH 2C 2C", "tractor"),  # §6.1 example, R = 2, S = hearts
        ("2C 2C 2H 2H", "tractor"),
        ("BJ BJ RJ RJ", "tractor"),
        ("2H 2H BJ BJ RJ RJ", "tractor"),
        ("AS KS", "throw"),
        ("AS AS KS", "throw"),
        ("2C 2C 2D 2D", "throw"),  # same level: not consecutive (§5.4)
        ("3S 3S 5S 5S", "throw"),
    ],
)
def test_lead_classification_rules_6_1(cards, kind):
    assert classify_lead(C(cards), T2H) == kind


def test_tractor_across_skipped_rank_rules_5_4():
    assert classify_lead(C("4S 4S 6S 6S"), Trump("5", "H")) == "tractor"
    with pytest.raises(IllegalAction):  # 5S is a trump: not the same play suit as 4S
        classify_lead(C("4S 4S 5S 5S"), Trump("5", "H"))


def test_mixed_play_suits_are_not_a_lead_rules_6_1():
    with pytest.raises(IllegalAction, match="RULES §6.1"):
        classify_lead(C("AS AH"), T2H)
    with pytest.raises(IllegalAction, match="RULES §6.1"):
        classify_lead(C("AS 2S"), T2H)  # 2S is a trump
    with pytest.raises(IllegalAction, match="RULES §6.1"):
        classify_lead([], T2H)


def test_trump_lead_of_mixed_natural_suits_is_one_play_suit_rules_5_1():
    assert classify_lead(C("2S AH BJ"), T2H) == "throw"


def test_throw_units_longest_tractor_first_rules_6_1():
    s = shape_of([c.id for c in C("3S 3S 4S 4S 5S 5S 9S 9S KS")], T2H)
    assert s.kind == "throw"
    assert [u.kind for u in s.units] == ["tractor", "pair", "single"]
    assert s.units[0].npairs == 3
    assert s.n_pairs == 4


def test_joker_tractor_with_trump_rank_no_trump_round():
    assert classify_lead(C("BJ BJ RJ RJ"), Trump(None, None)) == "tractor"
    assert classify_lead(C("AS AS KS KS"), Trump(None, None)) == "tractor"  # no rank gap
    with pytest.raises(IllegalAction):  # AS is not a trump
        classify_lead(C("AS AS BJ BJ"), Trump(None, None))

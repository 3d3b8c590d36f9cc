"""RULES §1: cards, notation, the deck."""

import pytest

from shengji import CARDS, IllegalAction, card_points, format_cards, parse_cards, shuffled_deck
from shengji.cards import full_deck


def test_notation_round_trips_every_card_rules_1():
    text = format_cards(CARDS)
    assert parse_cards(text) == list(CARDS)
    assert len(CARDS) == 54


def test_notation_accepts_t_symbols_and_any_case_rules_1():
    assert parse_cards("th 10h T♥ 10♥") == parse_cards("10H 10H 10H 10H")
    assert parse_cards("a♠, k♦ q♣ bj Rj") == parse_cards("AS KD QC BJ RJ")
    assert format_cards(parse_cards("AS 2C")) == "AS 2C"


@pytest.mark.parametrize("bad", ["1H", "11S", "AX", "JJ", "", "10", "H"])
def test_bad_notation_names_rule_1(bad):
    with pytest.raises(IllegalAction, match="RULES §1"):
        parse_cards(bad) if bad else parse_cards([bad])


def test_deck_has_108_cards_each_twice_and_200_points_rules_1():
    deck = full_deck()
    assert len(deck) == 108
    assert all(deck.count(c) == 2 for c in CARDS)
    assert card_points(deck) == 200


def test_point_cards_rules_1():
    assert [c.points for c in parse_cards("KS 10H 5D 5C QS AS BJ RJ 2H")] == [
        10, 10, 5, 5, 0, 0, 0, 0, 0,
    ]


def test_seeded_shuffle_is_reproducible():
    assert shuffled_deck(7) == shuffled_deck(7)
    assert shuffled_deck(7) != shuffled_deck(8)
    assert sorted(shuffled_deck(7)) == sorted(full_deck())

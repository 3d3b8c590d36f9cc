"""Declarations (RULES §3.3): strengths, the cards a hand can show, the suit they make."""

from __future__ import annotations

import pytest

from conftest import C
from shengji.cards import CARDS, counts_of, format_cards
from shengji.declare import candidate_declarations, declaration_strength, declaration_suit
from shengji.errors import IllegalAction


def ids(text: str) -> list[int]:
    return [c.id for c in C(text)]


@pytest.mark.parametrize(
    ("cards", "rank", "strength"),
    [("2S", "2", 1), ("2H 2H", "2", 2), ("BJ BJ", "2", 3), ("RJ RJ", "9", 3), ("9C", "9", 1)],
)
def test_declaration_strength_single_pair_jokers(cards: str, rank: str, strength: int) -> None:
    """RULES §3.3: strength 1 a trump-rank card, 2 a pair of them, 3 two identical jokers."""
    assert declaration_strength(ids(cards), rank) == strength


@pytest.mark.parametrize(
    ("cards", "rank", "why"),
    [
        ("3S", "2", "trump rank 2"),
        ("2S 2H", "2", "identical"),
        ("BJ RJ", "2", "identical"),
        ("BJ", "2", "trump rank"),
        ("3S 3S", "2", "trump rank 2"),
        ("2S 2S 2S", "2", "one or two"),
        ("", "2", "one or two"),
    ],
)
def test_declarations_that_are_not_one_of_the_three_kinds_are_refused(
    cards: str, rank: str, why: str
) -> None:
    with pytest.raises(IllegalAction, match=why) as exc:
        declaration_strength(ids(cards) if cards else [], rank)
    assert exc.value.rule == "3.3"


def test_declaration_suit_is_the_cards_suit_and_none_for_jokers() -> None:
    """RULES §3.3: a rank card makes its suit trump; two jokers make no trump suit."""
    assert declaration_suit(ids("2H")) == "H"
    assert declaration_suit(ids("7D 7D")) == "D"
    assert declaration_suit(ids("RJ RJ")) is None


def test_candidate_declarations_lists_every_showable_declaration_weakest_first() -> None:
    hand = counts_of(C("2S 2H 2H 3C BJ BJ RJ AS"))
    found = candidate_declarations(hand, "2")
    assert [format_cards([CARDS[i] for i in d]) for d in found] == ["2S", "2H", "2H 2H", "BJ BJ"]
    strengths = [declaration_strength(d, "2") for d in found]
    assert strengths == sorted(strengths)


def test_a_hand_without_rank_cards_or_joker_pairs_has_no_declaration() -> None:
    assert candidate_declarations(counts_of(C("3S 4S 5H BJ RJ")), "2") == []

"""The engine's follow rule with any number of decks agrees with the slow reading of
RULES §6.2/§12.3 in tests/reference12.py (bench/fuzz12.py runs 500,000 plays)."""

from __future__ import annotations

import random

import pytest

from reference12 import TABLES, check_case, lead_units, legal_follows, need_of, random_case
from shengji.trump import Trump


@pytest.mark.parametrize("table", TABLES)
def test_the_engine_agrees_with_the_reading_at_every_table_rules_12_3(
    table: tuple[int, int],
) -> None:
    rng = random.Random(hash(table) & 0xFFFF)
    compared = 0
    for _ in range(60):
        t, lead, hand = random_case(rng, *table)
        n, bad = check_case(t, lead, hand)
        assert not bad, (t.rank, t.suit, lead, hand, bad)
        compared += n
    assert compared > 500


def test_the_reading_itself_on_hand_built_cases_rules_12_3() -> None:
    t = Trump("2", "H", decks=3)
    s = t.suit_ids[0]  # spades, lowest first: 3S 4S 5S ...
    three, four, five = s[0], s[1], s[2]
    # a triple gives one pair; a tractor of two triples two pairs and two triples
    assert need_of(((3, 1),), 3)[2:] == (1, 1)
    assert need_of(((3, 2),), 3)[2:] == (2, 2)
    # tractors first: 3S 3S 3S 4S 4S reads as a tractor of pairs and a single
    assert lead_units([three] * 3 + [four] * 2, t.level, 3) == {((2, 2), (1, 1))}
    # a triple lead: a hand with a pair and singles of spades must play the pair
    hand = {four: 2, five: 1, s[5]: 1}
    legal = legal_follows(hand, [three] * 3, t.play_suit, t.level, 3)
    assert legal == {tuple(sorted([four, four, five])), tuple(sorted([four, four, s[5]]))}

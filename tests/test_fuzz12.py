"""The engine's follow rule and trick winner with any number of decks agree with the slow
reading of RULES §6.2, §6.3 and §12.3 in tests/reference12.py (bench/fuzz12.py runs
500,000 plays and 100,000 tricks)."""

from __future__ import annotations

import random

import pytest

from reference12 import (
    TABLES,
    check_case,
    check_throw_case,
    check_trick,
    lead_units,
    legal_follows,
    need_of,
    random_case,
    random_throw,
    random_trick,
    trick_winner,
)
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


@pytest.mark.parametrize("table", TABLES)
def test_the_engine_picks_the_readings_trick_winner_at_every_table_rules_12_3(
    table: tuple[int, int],
) -> None:
    rng = random.Random(f"trick {table}")  # (a str seed: the same in every process)
    compared = followers = 0
    for _ in range(150):
        t, plays = random_trick(rng, *table)
        ok, bad = check_trick(t, plays)
        assert not bad, (t.rank, t.suit, plays, bad)
        compared += ok
        followers += ok and (trick_winner(plays, t.play_suit, t.level, t.decks) or (0,))[0] > 0
    assert compared > 100 and followers > 30  # the followers won often enough to matter


def test_the_winner_reading_on_hand_built_tricks_rules_12_3() -> None:
    t = Trump("2", "H", decks=3)
    s, tr = t.suit_ids[0], t.suit_ids[4]  # spades and trumps, lowest first
    lead_tractor = [s[0]] * 3 + [s[1]] * 3
    tricks = {  # a trick -> its winner by the rules
        # a triple is beaten by a higher triple, not by a pair and a single higher up
        ((s[0],) * 3, (s[5],) * 2 + (s[6],), (s[1],) * 3): 2,
        # a tractor of triples is ruffed only by a trump tractor of triples
        (tuple(lead_tractor), (tr[0],) * 3 + (tr[2],) * 3): 0,  # not consecutive
        (tuple(lead_tractor), (tr[0],) * 3 + (tr[1],) * 3): 1,
        # a throw of a triple and a single: the triple decides; ties go to the earlier
        ((s[0],) * 3 + (s[9],), (s[4],) * 3 + (s[1],), (s[4],) * 3 + (s[8],)): 1,
        # a play of spades and trumps together cannot win; a later pair of spades can
        ((s[0], s[0]), (s[5], tr[3]), (s[3], s[3])): 2,
    }
    for trick, expected in tricks.items():
        plays = [sorted(p) for p in trick]
        got = trick_winner(plays, t.play_suit, t.level, 3)
        assert got is not None and got[0] == expected, (trick, got)
        ok, bad = check_trick(t, plays)  # and the engine agrees
        assert ok and not bad, (trick, bad)


@pytest.mark.parametrize("table", TABLES)
def test_the_engine_judges_throws_as_the_reading_does_at_every_table_rules_12_3(
    table: tuple[int, int],
) -> None:
    rng = random.Random(f"throw {table}")
    seen: dict[str, int] = {}
    for _ in range(150):
        t, lead, others = random_throw(rng, *table)
        what, bad = check_throw_case(t, lead, others)
        assert not bad, (t.rank, t.suit, lead, others, bad)
        seen[what] = seen.get(what, 0) + 1
    assert seen.get("fails", 0) > 20 and seen.get("stands", 0) > 3, seen


def test_the_throw_reading_on_hand_built_cases_rules_12_3() -> None:
    from reference12 import throw_outcome

    t = Trump("2", "H", decks=3)
    six, queen, king, ace = (t.suit_ids[0][j] for j in (3, 9, 10, 11))  # spades: 3 4 5 6 ...
    lead = [queen] * 3 + [ace]  # a throw: a triple of queens and the ace
    # a pair of kings beats neither unit (a pair is another kind than a triple; a king
    # is below the ace); a triple of kings beats the triple
    assert check_throw_case(t, lead, [{king: 2}, {six: 1}]) == ("stands", [])
    assert check_throw_case(t, lead, [{six: 1}, {king: 3}]) == ("fails", [])
    assert throw_outcome(lead, [{six: 1}, {king: 3}], t.play_suit, t.level, 3) == \
        ((3, 1, t.level[queen]), 1, t.level[king])
    # when both units can be beaten the single is forced (fewest cards); the first seat
    # that beats it shows its lowest beater
    lead = [queen] * 3 + [six]
    assert throw_outcome(lead, [{king: 3}, {ace: 1}], t.play_suit, t.level, 3) == \
        ((1, 1, t.level[six]), 0, t.level[king])
    assert check_throw_case(t, lead, [{king: 3}, {ace: 1}]) == ("fails", [])

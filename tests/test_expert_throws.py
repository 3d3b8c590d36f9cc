"""The expert's tested throws (`expert:throws=1`, issue 31): leads the heuristic would not
make, proposed to the search, which plays them out (and their failures, RULES §6.4) in
its sampled worlds."""

from __future__ import annotations

from helpers import position
from shengji import Round, parse_cards
from shengji.bots.expert import throw_leads
from shengji.bots.knowledge import Knowledge
from shengji.cards import CARDS
from shengji.shapes import THROW, shape_of


def _ids(text: str) -> list[int]:
    return sorted(c.id for c in parse_cards(text))


def _knowledge(hands: list[str]) -> tuple[Knowledge, Round]:
    rnd = position(hands)  # trump rank 2, hearts; seat 0 leads
    view = rnd.view(0)
    assert view.trump is not None
    return Knowledge(view, view.trump), rnd


def test_a_suit_of_sure_units_and_its_highest_beatable_one_are_proposed_rules_6_1() -> None:
    # Seat 0 holds both A♠ (a pair nobody can beat: no higher spade pair exists) and K♠
    # (no A♠ is left for anyone), so A♠A♠ K♠ is a sure throw; 5♠ can be beaten.
    k, rnd = _knowledge(["AS AS KS 5S 3D", "QS 9D 8D 7D 6D", "4D 5D 9C 10C JC",
                         "JS 10S 9S 8S 7S"])
    got = throw_leads(k)
    assert got == [_ids("AS AS KS"), _ids("AS AS KS 5S")]
    view = rnd.view(0)
    for ids in got:
        assert shape_of(ids, k.t).kind == THROW  # several units of one suit (§6.1)
        assert view.is_legal(tuple(CARDS[i] for i in ids))  # a lead the seat may make


def test_one_unit_or_no_sure_unit_proposes_nothing() -> None:
    # A lone pair is a pair, not a throw; K♠ Q♠ with both A♠ unseen has no sure unit.
    k, _ = _knowledge(["AS AS 3D 4D 5D", "QS 9D 8D 7D 6D", "8C 9C 10C JC QC",
                       "JS 10S 9S 8S 7S"])
    assert throw_leads(k) == []
    k, _ = _knowledge(["KS QS 3D 4D 5D", "AS 9D 8D 7D 6D", "8C 9C 10C JC QC",
                       "AS 10S 9S 8S 7S"])
    assert throw_leads(k) == []

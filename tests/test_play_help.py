"""Issue 30: the seat's own play help sent to the browser (`View.play_help_json`) is the
engine's answer: the forced play is the unique legal play (RULES §6.2, with and without
`strict_tractor_follow`, and at §12 tables with 3 decks), the lead's units are the engine's
decomposition (§6.1, §12.3) and the sort keys order the hand by play suit and level (§5.4)."""

import itertools
import json
import random

import pytest

from shengji import Game
from shengji.actions import Play
from shengji.cards import CARDS, parse_cards
from shengji.options import RuleOptions
from shengji.shapes import shape_of


def _check_round(options: RuleOptions, seed: int) -> tuple[int, int]:
    """Play one round at random, checking every seat's help at every play decision;
    returns (decisions seen, forced plays seen)."""
    g = Game(seed=seed, options=options)
    rng = random.Random(seed)
    seen = forced = 0
    while not g.is_over and not g.results:
        d = g.decision()
        if d.phase == "play" and d.seat is not None:
            for seat in range(options.n_players):
                v = g.view(seat)
                help_ = v.play_help_json()
                assert v.trump is not None
                key = v.trump.sort_key
                hand = list(v.hand)
                if not hand:  # played its last card: nothing to help with
                    assert help_ == {}
                    continue
                assert help_["sort_keys"] == [key[c.id] for c in hand]
                by_key = [c.id for _, c in sorted(zip(help_["sort_keys"], hand, strict=True),
                                                  key=lambda p: (p[0], p[1].id))]
                assert by_key == [c.id for c in v.trump.sort(hand)]
                if seat != d.seat:  # nothing about the play for a seat not to act
                    assert set(help_) == {"sort_keys"}
                    continue
                seen += 1
                legal = list(itertools.islice(g.legal_plays(seat), 2))  # the round's own
                if len(legal) == 1:
                    forced += 1
                    assert sorted(help_["forced"]) == sorted(c.text for c in legal[0])
                    g.check(Play(seat, tuple(parse_cards(help_["forced"]))))
                else:
                    assert "forced" not in help_
                lead = v.lead
                if lead is None:
                    assert "lead_units" not in help_
                else:
                    shape = shape_of([c.id for c in lead], v.trump)
                    assert help_["lead_units"] == [[u.k, u.length] for u in shape.units]
                    assert sum(k * n for k, n in help_["lead_units"]) == len(lead)
        g.apply(g.random_action(rng))
    return seen, forced


@pytest.mark.parametrize(
    "options",
    [
        RuleOptions(),
        RuleOptions(strict_tractor_follow=True),
        RuleOptions(players=6, decks=3),
        RuleOptions(players=6, decks=3, strict_tractor_follow=True),
    ],
    ids=["default", "strict", "six-3decks", "six-3decks-strict"],
)
def test_forced_play_lead_units_and_sort_keys_are_the_engines(options: RuleOptions) -> None:
    seen = forced = 0
    for seed in range(3):
        s, f = _check_round(options, seed)
        seen += s
        forced += f
    assert seen > 50 and forced > 0 and seen - forced > 20, (seen, forced)


def test_help_holds_only_the_seats_own_cards_and_nothing_outside_play() -> None:
    g = Game(seed=1)
    rng = random.Random(1)
    while g.decision().phase in ("deal", "declare", "kitty"):
        for seat in range(4):
            h = g.view(seat).play_help_json()
            assert "forced" not in h and "lead_units" not in h
        g.apply(g.random_action(rng))
    for seat in range(4):
        v = g.view(seat)
        h = v.play_help_json()
        assert len(h["sort_keys"]) == len(v.hand)
        for card in h.get("forced", []):
            assert card in {c.text for c in v.hand}
    assert g.view(None).play_help_json() == {}
    # the engine's own JSON (bots, records, external bots) is unchanged by the help
    assert "sort_keys" not in json.dumps(g.view(0).to_json())
    assert all(c.text for c in CARDS)

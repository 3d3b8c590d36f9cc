"""The Hint (`shengji.analysis.suggest`, issue 32): legal, deterministic, and blind to the
cards the seat cannot see (RULES §11): scrambling them changes nothing."""

from __future__ import annotations

import random

import pytest

from helpers import first_round_record, scramble
from shengji import Game
from shengji.actions import Bury, Play, action_from_json
from shengji.analysis import Budget, hint_kind, suggest
from shengji.cards import CARDS
from shengji.errors import IllegalAction

SMALL = Budget(worlds=3, rollouts=2, candidates=4)
BY_NAME = {str(c): c for c in CARDS}


def test_a_hint_is_legal_and_ignores_the_hidden_cards_rules_11() -> None:
    rec = first_round_record()
    g = Game(rec.seed, rec.options)
    rng = random.Random(7)
    kinds: list[str] = []
    for raw in rec.actions:
        a = action_from_json(raw)
        if g.round_no > 0:
            break
        if isinstance(a, Bury | Play) and a.seat == 1 and len(kinds) < 6:
            view = g.view(1)
            h = suggest(view, SMALL, seed=4)
            kinds.append(h.kind)
            cards = tuple(BY_NAME[x] for x in h.cards)
            g.check((Bury if h.kind == "bury" else Play)(1, cards))  # legal (§4, §6)
            assert h.text  # worded from the figures
            assert suggest(view, SMALL, seed=4) == h  # deterministic
            other = scramble(g.round, 1, rng)
            assert other.view(1) == view
            assert suggest(other.view(1), SMALL, seed=4) == h  # the same, whatever is hidden
        g.apply(a)
    assert len(kinds) == 6 and "play" in kinds


def test_nothing_to_decide_is_refused() -> None:
    g = Game(5)
    view = g.view(0)  # before the first draw: no turn, no bury, nothing to declare
    assert hint_kind(view) is None
    with pytest.raises(IllegalAction, match="nothing to decide"):
        suggest(view, SMALL)

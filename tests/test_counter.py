"""The card counter (记牌器, issue 32): `shengji.counter.card_counter`, public info only."""

from __future__ import annotations

import dataclasses
import random

from shengji import Game
from shengji.cards import CARDS, parse_cards
from shengji.counter import card_counter
from shengji.options import RuleOptions
from shengji.round import FailedThrow, TrickView
from shengji.trump import Trump
from shengji.views import View

T_2H = Trump("2", "H")


def _view(hand: str, tricks=(), current=None, declarations=(), failed=(), kitty=None) -> View:
    cards = tuple(T_2H.sort(parse_cards(hand)))
    n = len(cards)
    return View(
        seat=0, phase="play", to_act=0, round_no=1, hand=cards, hand_sizes=(n, n, n, n),
        trump_rank="2", trump_suit="H", trump=T_2H, declarations=tuple(declarations),
        declarer=0, kitty_flip=(), starter=0, declaring_team=0, levels=("2", "2"),
        cards_left=0, last_drawer=None, tricks=tuple(tricks), current_trick=current,
        failed_throws=tuple(failed), opponents_points=0, point_cards=(), kitty=kitty,
        kitty_taken=None, result=None, options=RuleOptions(), display_trump=T_2H,
    )


def _trick(leader: int, *plays: str) -> TrickView:
    seats = [(leader + k) % 4 for k in range(len(plays))]
    pairs = zip(seats, plays, strict=True)
    return TrickView(leader, tuple((s, tuple(parse_cards(p))) for s, p in pairs), None, 0)


def test_counts_on_a_hand_built_position_rules_1_and_5():
    # RULES §1: 108 cards, each twice. §5.2: trump 2H -> trumps are H (12 ranks without 2),
    # the eight 2s and the four jokers: 2*(12+4+2) = 36; every plain suit 2*12 = 24.
    done = _trick(1, "AS AS", "3S 4S", "KS KS", "5S 6S")
    now = _trick(0, "RJ")
    v = _view("RJ BJ 2S 7S 9D 10C", tricks=[done], current=now,
              declarations=[(2, tuple(parse_cards("2H 2H")))])
    c = card_counter(v)
    assert c is not None
    assert c["suits"]["T"] == {"total": 36, "played": 1, "mine": 3, "out": 32}
    assert c["suits"]["S"] == {"total": 24, "played": 8, "mine": 1, "out": 15}
    assert c["suits"]["D"] == {"total": 24, "played": 0, "mine": 1, "out": 23}
    assert c["suits"]["H"]["total"] == 0  # every heart is a trump (§5.1)
    assert sum(s["total"] for s in c["suits"].values()) == 108
    top = {t["card"]: t for t in c["top_trumps"]}
    # RJ BJ, 2H, the other 2s, then AH (the trump suit's highest plain card), highest first
    assert [t["card"] for t in c["top_trumps"]] == ["RJ", "BJ", "2H", "2S", "2D", "2C", "AH"]
    assert top["RJ"]["out"] == 0  # one played (by me), one in my hand
    assert top["BJ"]["out"] == 1
    # seat 2 showed two 2H in its declaration (§3.3) and has played none: both are out,
    # known to be in its hand
    assert top["2H"] == {"card": "2H", "out": 2, "held": {"2": 2}}
    assert top["2S"]["out"] == 1
    assert top["AH"] == {"card": "AH", "out": 2, "held": {}}
    # points (§1: 200 in the deck): KS KS 5S played (25), 10C in my hand (10)
    assert c["points_out"] == 200 - 25 - 10


def test_shown_cards_leave_the_held_list_once_played_rules_6_4():
    # seat 1 tried to throw BJ with 3C, seat 2 stopped it showing RJ (§6.4); seat 1 then
    # had to play BJ: it no longer holds a known BJ; seat 2 still holds the RJ it showed
    ft = FailedThrow(1, tuple(parse_cards("BJ 3C")), tuple(parse_cards("BJ")), 2,
                     tuple(parse_cards("RJ")), 10, 0)
    now = _trick(1, "BJ")
    c = card_counter(_view("7S", current=now, failed=[ft]))
    assert c is not None
    top = {t["card"]: t for t in c["top_trumps"]}
    assert top["BJ"] == {"card": "BJ", "out": 1, "held": {}}
    assert top["RJ"] == {"card": "RJ", "out": 2, "held": {"2": 1}}


def test_no_counter_before_the_trump_is_final():
    v = dataclasses.replace(_view("7S"), trump=None, phase="deal")
    assert card_counter(v) is None


def _mid_game(seed: int) -> Game:
    g = Game(seed=seed)
    rng = random.Random(seed)
    while not (g.round.phase == "play" and len(g.round.tricks) >= 5):
        g.apply(g.random_action(rng))
    return g


def test_the_counter_matches_the_truth_and_hides_nothing_rules_11():
    # what is out for a seat is exactly the other hands plus the kitty, card by card
    g = _mid_game(3)
    rnd = g.round
    for seat in range(4):
        c = card_counter(g.view(seat))
        assert c is not None
        hidden = [sum(rnd.hand_counts(s)[i] for s in range(4) if s != seat)
                  + sum(1 for k in rnd.kitty if k == i) for i in range(54)]
        trump = g.view(seat).trump
        for ps, name in enumerate("SHDCT"):
            ids = trump.suit_ids[ps]
            assert c["suits"][name]["out"] == sum(hidden[i] for i in ids), (seat, name)
        for t in c["top_trumps"]:
            i = next(k.id for k in CARDS if k.text == t["card"])
            assert t["out"] == hidden[i]


def test_scrambling_hidden_cards_does_not_change_the_counter_rules_11():
    # the counter is a function of the seat's view; the parts of a view that are not public
    # (the kitty the starter may see, §11) and anything in other hands never enter it
    g = _mid_game(5)
    starter = g.round.starter
    v = g.view(starter)
    assert v.kitty is not None
    rng = random.Random(1)
    for _ in range(5):
        fake = tuple(rng.sample(CARDS, 8))
        other = dataclasses.replace(v, kitty=fake, kitty_taken=fake, hand_counts=None)
        assert card_counter(other) == card_counter(v)
    # and a spectator's counter is the seat's, plus the seat's own hand
    spec, mine = card_counter(g.view(None)), card_counter(v)
    assert spec is not None and mine is not None
    for name, s in mine["suits"].items():
        assert spec["suits"][name]["out"] == s["out"] + s["mine"]

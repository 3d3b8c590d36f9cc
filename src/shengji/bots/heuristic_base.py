"""What the heuristic's decisions share: its tunables and what a card is worth to it.

`HeuristicBase` holds the tunables (chosen by A/B arena runs, `bench/heuristic_ab.py`),
the random generator that breaks ties, and the card values every play rule reads: how
much a card is worth keeping (trumps, pairs and sure winners, §6.1), what playing it
away costs, the top trump kept for the last trick and the kitty's worth (§8.1). The
decisions are in `heuristic_declare` (§3.3), `heuristic_bury` (§4), `heuristic_lead`
(§6.1) and `heuristic_follow` (§6.2, §6.3); `heuristic.HeuristicAgent` puts them
together. Everything a seat knows comes from `knowledge.Knowledge` (§11).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final, cast

from ..botkit import (
    N_IDS,
    POINTS,
    TRUMP,
    Shape,
    Trump,
    Unit,
    decompose,
    match_value,
    shape_of,
)
from .knowledge import Knowledge, other_seats

__all__ = [
    "LONE_PENALTY", "PAIR_BONUS", "TRUMP_BONUS", "HeuristicBase", "Ids", "dump_cost", "keep",
    "kitty_value", "lead_shape", "last_trick_reserve", "play_value", "units_of",
]

Ids = list[int]

# Weights of the card-keeping score (bigger = more worth keeping).
TRUMP_BONUS: Final = 20
PAIR_BONUS: Final = 6
LONE_PENALTY: Final = 6  # kitty: leaving one low card in a side suit


class HeuristicBase:
    """The heuristic's tunables, its tie-breaking random generator (seeded) and the card
    values its decisions share."""

    # Tunables, chosen by A/B arena runs (600 mirrored deals each): these values beat the
    # first guesses (6, 0.8, 0.25, 2.0, 3.0, 20) by +0.032 levels per deal, CI [+0.003, +0.060].
    # `bench/heuristic_ab.py --set NAME=VALUE` A/Bs one against the committed bot; around
    # these values others are flat within +-0.01 levels/deal (500 mirrored deals each:
    # win_weight 3/5.5, feed_weight 4/9, lead_worth 6, tractor_lead_bonus
    # 15); pair_lead_bonus 40 looked +0.02 (+0.030 and +0.011 on two seeds).
    strong_min_trumps = 5  # pull trumps when holding at least this many ...
    strong_ratio = 0.6  # ... and this share of the trumps still out
    decl_strong_ratio = 0.6  # the same share for the declaring team
    # bury: worth of each side suit emptied. 40 rather than 12: the starter ruffs the
    # emptied suits; +0.043 levels/deal (seed 1, 500 mirrored deals) and +0.016 (seed 13,
    # 800), the declaring side gaining 2-6 points of win rate.
    void_bonus = 40.0  # (12 before; 40: see above)
    lone_penalty = 6.0  # bury: cost of leaving one low card in a side suit (= LONE_PENALTY)
    ace_keep = 10.0  # bury: an ace's extra worth of keeping
    point_keep = 2.0  # bury: per point of a card (points buried risk the multiplier, §8.1)
    pair_lead_bonus = 25.0  # a cheap lead: how much a pair is preferred to a single
    tractor_lead_bonus = 5.0  # ... and a tractor to a pair (0: no tractor as a cheap lead)
    lead_worth = 3.0  # points the lead of the next trick is worth when deciding to win
    max_ruff_risk = 0.25  # lead side-suit winners only below this chance of a ruff
    win_weight = 4.0  # points are worth this many "keep" units when deciding to win
    feed_weight = 6.0  # how eagerly to give points to a partner who holds the trick
    reserve_kitty = 20.0  # keep the top trump for the last trick above this kitty value
    kitty_share = 0.5  # an unseen kitty holds this share of its fair share of the points

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)


# The card values: module functions rather than methods, so that compiled code calls
# them directly (a method of a class with a subclass is called through its vtable).
def keep(bot: HeuristicBase, k: Knowledge, i: int) -> float:
    """How much a card is worth keeping (bigger = keep)."""
    t = k.t
    ps = t.play_suit[i]
    lv = t.level[i]
    v = float(lv)
    if ps == TRUMP:
        v += TRUMP_BONUS
    else:
        sure = k.sure_cache[ps]
        if lv >= (sure if sure is not None else k.sure_level(ps)):
            v += 6  # a sure winner
    if k.hand[i] >= 2:
        v += PAIR_BONUS
    return v


def dump_cost(bot: HeuristicBase, k: Knowledge, i: int, point_weight: float) -> float:
    """What playing card `i` away costs: its keeping worth plus its points, weighed."""
    return keep(bot, k, i) + point_weight * POINTS[i]


def last_trick_reserve(bot: HeuristicBase, k: Knowledge) -> set[int]:
    """The top trump kept back for the last trick when the kitty is worth it (§8.1)."""
    n = k.n_hand
    if n > 4 or n <= 1:
        return set()
    if kitty_value(bot, k) < bot.reserve_kitty:
        return set()
    t = k.t
    trumps = [i for i in range(N_IDS) if k.hand[i] and t.play_suit[i] == TRUMP]
    if not trumps:
        return set()
    top = max(trumps, key=lambda i: t.level[i])
    if k.higher_single(TRUMP, t.level[top], other_seats(k.me, k.n)):
        return set()
    return {top}


def kitty_value(bot: HeuristicBase, k: Knowledge) -> float:
    """Points the kitty would add at the single-card multiplier (estimated if unseen)."""
    if k.starter_kitty:
        return 2.0 * k.kitty_pts
    unseen_cards = k.n_unseen
    if unseen_cards <= 0:
        return 0.0
    unseen_pts = k.unseen_pts
    # A starter rarely buries points: count the kitty's fair share at half.
    return 2.0 * bot.kitty_share * unseen_pts * k.n_kitty / unseen_cards


#: suits' units kept per trump context (`units_of`)
_UNITS_KEPT = 20000


def units_of(ids: Sequence[int], t: Trump) -> list[Unit]:
    """`decompose` (§6.1) of the same cards in the same order, remembered in the trump
    context (`Trump.units`): a hand's suit changes by one play at a time and the same
    suits come back turn after turn."""
    key = tuple(ids)
    memo = t.units
    got = memo.get(key)
    if got is None:
        if len(memo) >= _UNITS_KEPT:
            memo.clear()
        units = decompose(ids, t)
        memo[key] = units
        return units
    return cast(list[Unit], got)  # the memo only ever holds what this function put


def lead_shape(ids: Sequence[int], t: Trump) -> Shape:
    """`shape_of` a lead (§6.1), which remembers it in the trump context: the lead is
    read again by every follower."""
    return shape_of(ids, t)


def play_value(ids: Sequence[int], shape: Shape, t: Trump) -> int:
    """`match_value` of a play against the lead's shape (§6.3), -1 if it does not match."""
    v = match_value(ids, shape, t)
    return -1 if v is None else v


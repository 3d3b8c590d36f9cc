"""A trick's winner (RULES §6.3); the throw check and the failed-throw procedure (§6.4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._build import picklable
from .cards import CARDS, N_IDS, Card, as_list, counts_of
from .shapes import THROW, Shape, Unit, match_value, play_suit_of_ids, runs_in_hand, shape_of
from .trump import TRUMP, Trump


def winner_index(plays: Sequence[Sequence[int]], shape: Shape, t: Trump) -> int:
    """Index of the winning play (§6.3); `plays[0]` is the lead, of shape `shape`."""
    lead_suit = shape.play_suit
    best = 0
    best_trump = lead_suit == TRUMP
    best_val = shape.value
    ps = t.play_suit
    for idx in range(1, len(plays)):
        play = plays[idx]
        s = ps[play[0]]
        if s != lead_suit and s != TRUMP:
            continue
        if len(play) > 1 and play_suit_of_ids(play, t) != s:
            continue
        val = match_value(play, shape, t)
        if val is None:
            continue
        is_trump = s == TRUMP
        if is_trump and not best_trump:
            best, best_trump, best_val = idx, True, val
        elif is_trump == best_trump and val > best_val:
            best, best_val = idx, val
    return best


def trick_winner(plays: Sequence[Sequence[Card]], trump: Trump) -> int:
    """Index of the winning play of a trick (RULES §6.3); `plays[0]` is the lead."""
    ids = [[c.id for c in p] for p in plays]
    return winner_index(ids, shape_of(ids[0], trump), trump)


# ---------------------------------------------------------------- throws (§6.1, §6.4)


def lowest_beater(hand: Sequence[int], unit: Unit, ps: int, t: Trump) -> tuple[int, ...] | None:
    """The lowest unit of `hand` (counts) that beats `unit` of play suit `ps`, or None (§6.1):
    with more decks (§12.3) a higher unit of the same kind, k identical cards for a
    k-tuple and a tractor of the same k and length for a tractor."""
    hand = as_list(hand)
    levels = t.ids_at_level[ps]
    if unit.k > 2:
        return _lowest_beater_k(hand, unit, levels)
    if unit.npairs == 0:
        for lvl in range(unit.top + 1, len(levels)):
            for i in levels[lvl]:
                if hand[i]:
                    return (i,)
        return None
    if unit.npairs == 1:
        for lvl in range(unit.top + 1, len(levels)):
            for i in levels[lvl]:
                if hand[i] >= 2:
                    return (i, i)
        return None
    k = unit.npairs
    prof = runs_in_hand(hand, t, ps)
    run = 0
    for lvl in range(len(levels)):
        run = run + 1 if prof[lvl] else 0
        if run >= k and lvl > unit.top:
            out: list[int] = []
            for low in range(lvl - k + 1, lvl + 1):
                i = next(j for j in levels[low] if hand[j] >= 2)
                out += [i, i]
            return tuple(out)
    return None


def _lowest_beater_k(
    hand: list[int], unit: Unit, levels: list[list[int]]
) -> tuple[int, ...] | None:
    """`lowest_beater` for a unit of k-tuples, k ≥ 3 (§12.3)."""
    k = unit.k
    length = unit.length
    run = 0
    for lvl in range(len(levels)):
        run = run + 1 if any(hand[i] >= k for i in levels[lvl]) else 0
        if run >= length and lvl > unit.top:
            out: list[int] = []
            for low in range(lvl - length + 1, lvl + 1):
                i = next(j for j in levels[low] if hand[j] >= k)
                out += [i] * k
            return tuple(out)
    return None


@dataclass(frozen=True, slots=True, init=False)
class ThrowCheck:
    """Outcome of a failed throw (§6.4): the forced unit, who stopped it and the cards shown."""

    forced: tuple[int, ...]
    blocker: int
    shown: tuple[int, ...]

    def __init__(
        self,
        forced: tuple[int, ...],
        blocker: int,
        shown: tuple[int, ...],
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        object.__setattr__(self, "forced", forced)
        object.__setattr__(self, "blocker", blocker)
        object.__setattr__(self, "shown", shown)


def check_throw(
    shape: Shape, leader: int, hands: Sequence[Sequence[int]], t: Trump
) -> ThrowCheck | None:
    """None if the lead stands; else the failed-throw outcome (§6.4).

    `hands` are every seat's count arrays. The forced unit is the beatable
    unit with fewest cards, among those the lowest; the first player after the
    leader in play order who can beat it shows their lowest beating unit.
    """
    if shape.kind != THROW:
        return None
    ps = shape.play_suit
    n = len(hands)  # every seat after the leader, in play order (RULES §12.1: N seats)
    if n == 4:
        others = [(leader + 1) % 4, (leader + 2) % 4, (leader + 3) % 4]
    else:
        others = [(leader + k) % n for k in range(1, n)]
    # plain loops, no key lambda or generator: compiled code runs them without
    # calling back into the interpreter
    # the search for the forced unit also finds who stops it first and with what
    best: ThrowCheck | None = None
    forced: Unit | None = None
    for u in shape.units:
        if forced is not None and (u.size, u.top) >= (forced.size, forced.top):
            continue
        for s in others:
            shown = lowest_beater(hands[s], u, ps, t)
            if shown is not None:
                forced = u
                best = ThrowCheck(tuple(sorted(u.ids)), s, shown)
                break
    return best


def failed_throw(
    lead: Sequence[Card], other_hands: Sequence[Sequence[Card]], trump: Trump
) -> list[Card] | None:
    """The unit the leader must lead instead of `lead` (RULES §6.4), or None if it stands.

    `other_hands` are the hands of the other players (in play order after the
    leader: three at four seats, N − 1 at N, §12.1). Single, pair, tuple and tractor
    leads always stand.
    """
    shape = shape_of([c.id for c in lead], trump)
    hands = [[0] * N_IDS] + [counts_of(h) for h in other_hands]
    result = check_throw(shape, 0, hands, trump)
    if result is None:
        return None
    return [CARDS[i] for i in result.forced]


picklable(ThrowCheck)

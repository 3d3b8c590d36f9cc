"""Pairs, tractors and units: lead classification and shape matching (RULES §6.1, §6.3).

Functions here work on card ids (ints) and a `Trump`'s tables; the public
wrappers taking `Card` lists live in `shengji.trick` and `shengji.follow`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from ._build import picklable
from .cards import CARDS, ONE_ID, PAIR_ID, Card, as_list
from .errors import IllegalAction
from .trump import Trump
from .vocab import LeadKind

SINGLE = LeadKind.SINGLE
PAIR = LeadKind.PAIR
TRACTOR = LeadKind.TRACTOR
THROW = LeadKind.THROW


@dataclass(frozen=True, slots=True, init=False)
class Unit:
    """One unit of a lead (§6.1): a single (0 pairs), a pair, or a tractor of `npairs` pairs.

    `top` is the level of its highest card (the deciding level, §6.3); `ids`
    the card ids it is made of.
    """

    npairs: int
    top: int
    ids: tuple[int, ...]

    def __init__(
        self,
        npairs: int,
        top: int,
        ids: tuple[int, ...],
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        object.__setattr__(self, "npairs", npairs)
        object.__setattr__(self, "top", top)
        object.__setattr__(self, "ids", ids)

    @property
    def kind(self) -> LeadKind:
        """`LeadKind.SINGLE`, `PAIR` or `TRACTOR`."""
        return SINGLE if self.npairs == 0 else PAIR if self.npairs == 1 else TRACTOR

    @property
    def size(self) -> int:
        """Number of cards in the unit."""
        return len(self.ids)

    def cards(self) -> list[Card]:
        """The unit's cards."""
        return [CARDS[i] for i in self.ids]


@dataclass(frozen=True, slots=True, init=False)
class Shape:
    """A lead's shape: play suit, kind, and its units, longest tractors first (§6.1)."""

    play_suit: int
    kind: LeadKind
    units: tuple[Unit, ...]
    n_cards: int
    tractor_lengths: tuple[int, ...]  # descending
    n_pair_units: int
    n_pairs: int  # all pairs in the lead (p of §6.2)
    value: int  # level of the deciding unit (§6.3)

    def __init__(
        self,
        play_suit: int,
        kind: LeadKind,
        units: tuple[Unit, ...],
        n_cards: int,
        tractor_lengths: tuple[int, ...],
        n_pair_units: int,
        n_pairs: int,
        value: int,
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        object.__setattr__(self, "play_suit", play_suit)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "units", units)
        object.__setattr__(self, "n_cards", n_cards)
        object.__setattr__(self, "tractor_lengths", tractor_lengths)
        object.__setattr__(self, "n_pair_units", n_pair_units)
        object.__setattr__(self, "n_pairs", n_pairs)
        object.__setattr__(self, "value", value)


def play_suit_of_ids(ids: Sequence[int], t: Trump) -> int:
    """The common play suit of the ids, or -1 if they are mixed (or empty)."""
    ids = tuple(ids)  # typed: compiled code indexes a tuple directly
    if not ids:
        return -1
    ps = t.play_suit
    s = ps[ids[0]]
    for i in ids:
        if ps[i] != s:
            return -1
    return s


def count_ids(ids: Iterable[int]) -> dict[int, int]:
    """How many times each id occurs."""
    out: dict[int, int] = {}
    for i in ids:
        out[i] = out.get(i, 0) + 1
    return out


def longest_run(pairs_at: Sequence[Sequence[int] | int]) -> tuple[int, int]:
    """(length, top level) of the longest run of consecutive levels holding a pair.

    Among runs of equal length the highest wins. Accepts lists (non-empty means
    a pair is there) or ints (pair counts).
    """
    best_len = 0
    best_top = -1
    cur = 0
    for lvl, p in enumerate(pairs_at):
        if p:
            cur += 1
            if cur >= best_len:
                best_len = cur
                best_top = lvl
        else:
            cur = 0
    return best_len, best_top


def decompose(ids: Sequence[int], t: Trump) -> list[Unit]:
    """Split cards of one play suit into units: tractors (longest first), pairs, singles (§6.1)."""
    counts = count_ids(ids)
    level = t.level
    pair_at: dict[int, list[int]] = {}
    for i, n in counts.items():
        if n >= 2:
            pair_at.setdefault(level[i], []).append(i)
    units: list[Unit] = []
    while len(pair_at) >= 2:
        best_len, best_top, cur, prev = 0, -1, 0, -2
        for lvl in sorted(pair_at):
            cur = cur + 1 if lvl == prev + 1 else 1
            if cur >= best_len:
                best_len, best_top = cur, lvl
            prev = lvl
        if best_len < 2:
            break
        tids: list[int] = []
        for lvl in range(best_top - best_len + 1, best_top + 1):
            i = pair_at[lvl].pop()
            if not pair_at[lvl]:
                del pair_at[lvl]
            counts[i] -= 2
            tids += [i, i]
        units.append(Unit(best_len, best_top, tuple(tids)))
    pairs: list[Unit] = []
    singles: list[Unit] = []
    for i, n in counts.items():
        if n >= 2:
            pairs.append(Unit(1, level[i], PAIR_ID[i]))
            n -= 2
        if n == 1:
            singles.append(Unit(0, level[i], ONE_ID[i]))
    pairs.sort(key=lambda u: -u.top)
    singles.sort(key=lambda u: -u.top)
    units.sort(key=lambda u: (-u.npairs, -u.top))
    return units + pairs + singles


def shape_of(ids: Sequence[int], t: Trump) -> Shape:
    """The shape of a lead (§6.1); raises `IllegalAction` if empty or of mixed play suits.

    A throw's tractors are units unless the trump context says `throw_tractors`
    False (option `throw_tractors=off`): then they count as their pairs.
    """
    key = tuple(ids)
    cache = t.shapes
    cached = cache.get(key)
    if cached is not None:  # shapes are immutable: one per lead and trump context
        return cast(Shape, cached)  # the cache only ever holds what this function put
    shape = _shape_of(key, t)
    if len(cache) >= _SHAPE_CACHE:
        cache.clear()
    cache[key] = shape
    return shape


#: most lead shapes kept per trump context. A lead's shape is read again within moments
#: (the check, then the play; each follower; a bot's candidates), so a small cache keeps
#: the hits; a large one kept thousands of shapes (each with its units and their tuples)
#: alive in a server, objects every young pass of the collector scanned (gcpolicy.py).
_SHAPE_CACHE = 512


def _shape_of(ids: tuple[int, ...], t: Trump) -> Shape:
    if not ids:
        raise IllegalAction("RULES §6.1: a lead has at least one card")
    ps = play_suit_of_ids(ids, t)
    if ps < 0:
        raise IllegalAction("RULES §6.1: all cards of a lead must be of one play suit")
    if len(ids) <= 2 and ids[0] == ids[-1]:  # fast path: a single or a pair
        lvl = t.level[ids[0]]
        npairs = len(ids) - 1
        unit = Unit(npairs, lvl, ids)
        return Shape(ps, unit.kind, (unit,), len(ids), (), npairs, npairs, lvl)
    units = decompose(ids, t)
    n = len(ids)
    if len(units) > 1 and not t.throw_tractors and units[0].npairs >= 2:
        units = _without_tractors(units, t)
    kind = units[0].kind if len(units) == 1 else THROW
    tractors = tuple(u.npairs for u in units if u.npairs >= 2)
    n_pair_units = sum(1 for u in units if u.npairs == 1)
    n_pairs = sum(u.npairs for u in units)
    # Deciding unit (§6.3): highest unit of the lead's longest kind.
    if tractors:
        k = tractors[0]
        value = max(u.top for u in units if u.npairs == k)
    elif n_pair_units:
        value = max(u.top for u in units if u.npairs == 1)
    else:
        value = max(u.top for u in units)
    return Shape(ps, kind, tuple(units), n, tractors, n_pair_units, n_pairs, value)


def _without_tractors(units: list[Unit], t: Trump) -> list[Unit]:
    """A throw's units read as pairs and singles (§6.1, option `throw_tractors=off`)."""
    level = t.level
    pairs: list[Unit] = []
    rest: list[Unit] = []
    for u in units:
        if u.npairs >= 2:
            pairs += [Unit(1, level[i], PAIR_ID[i]) for i in u.ids[::2]]
        elif u.npairs == 1:
            pairs.append(u)
        else:
            rest.append(u)
    pairs.sort(key=lambda u: -u.top)
    return pairs + rest


def classify_lead(cards: Sequence[Card], trump: Trump) -> str:
    """`"single"`, `"pair"`, `"tractor"` or `"throw"` for a lead (RULES §6.1).

    Raises `IllegalAction` if the cards are empty or not all of one play suit.
    """
    return shape_of([c.id for c in cards], trump).kind


def _pair_counts(ids: Sequence[int], t: Trump, ps: int) -> list[int]:
    counts = count_ids(ids)
    return [sum(1 for i in lv if counts.get(i, 0) >= 2) for lv in t.ids_at_level[ps]]


def match_value(ids: Sequence[int], shape: Shape, t: Trump) -> int | None:
    """Deciding level of a play that matches the lead's shape (§6.3), else None.

    The caller has checked that the play is all of one play suit.
    """
    ids = tuple(ids)  # typed: compiled code indexes a tuple directly
    if len(ids) != shape.n_cards:
        return None
    level = t.level
    kind = shape.kind
    if kind == SINGLE:
        return level[ids[0]]
    if kind == PAIR:
        return level[ids[0]] if ids[0] == ids[1] else None
    ps = t.play_suit[ids[0]]
    if kind == TRACTOR:
        # pairs of identical cards at consecutive levels: sorted by (level, id), cards
        # 2j and 2j+1 are the same card and the j-th pair's level is the first's + j
        keys = sorted([level[i] * 64 + i for i in ids])
        base = keys[0] >> 6
        for j in range(0, len(keys), 2):
            if keys[j] != keys[j + 1] or keys[j] >> 6 != base + (j >> 1):
                return None
        return keys[-1] >> 6
    # A throw: split the play into the lead's units (§6.3).
    prof = _pair_counts(ids, t, ps)
    if not shape.tractor_lengths:
        if sum(prof) < shape.n_pair_units:
            return None
        if shape.n_pair_units:
            return max(lvl for lvl, n in enumerate(prof) if n)
        return max(level[i] for i in ids)
    k1 = shape.tractor_lengths[0]
    best = _best_tractor_assignment(prof, list(shape.tractor_lengths), shape.n_pair_units, k1)
    return None if best < 0 else best


def _best_tractor_assignment(prof: list[int], lengths: list[int], n_pairs: int, k1: int) -> int:
    """Max top among length-`k1` tractors over all ways to carve `lengths` tractors and
    `n_pairs` further pairs out of the pair profile; -1 if impossible."""
    best = -1

    def rec(idx: int, cur_best: int) -> None:
        nonlocal best
        if idx == len(lengths):
            if sum(prof) >= n_pairs and cur_best > best:
                best = cur_best
            return
        k = lengths[idx]
        for top in range(len(prof) - 1, k - 2, -1):
            lo = top - k + 1
            if all(prof[lvl] for lvl in range(lo, top + 1)):
                for lvl in range(lo, top + 1):
                    prof[lvl] -= 1
                rec(idx + 1, max(cur_best, top) if k == k1 else cur_best)
                for lvl in range(lo, top + 1):
                    prof[lvl] += 1

    rec(0, -1)
    return best


def runs_in_hand(counts: Sequence[int], t: Trump, ps: int) -> list[int]:
    """Pair counts per level of play suit `ps` in a hand's count array."""
    h = as_list(counts)
    return [sum(1 for i in lv if h[i] >= 2) for lv in t.ids_at_level[ps]]


picklable(Unit, Shape)

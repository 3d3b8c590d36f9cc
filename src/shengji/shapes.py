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
TUPLE = LeadKind.TUPLE


@dataclass(frozen=True, slots=True, init=False)
class Unit:
    """One unit of a lead (§6.1, §12.3): a single, a k-tuple (k identical cards: a pair,
    with more decks a triple, a quadruple…) or a tractor of `length` k-tuples.

    `k` is the tuple size (1 for a single) and `length` the number of k-tuples (1 for a
    lone tuple, ≥ 2 for a tractor). `npairs` keeps its two-deck meaning: 0 for a single,
    1 for a pair, the number of pairs of a tractor; with more decks it is 0 for a single
    and `length` for any k-tuple or tractor of them. `top` is the level of its highest
    card (the deciding level, §6.3); `ids` the card ids it is made of.
    """

    npairs: int
    top: int
    ids: tuple[int, ...]
    k: int
    length: int

    def __init__(
        self,
        npairs: int,
        top: int,
        ids: tuple[int, ...],
        k: int = 0,
        length: int = 0,
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        object.__setattr__(self, "npairs", npairs)
        object.__setattr__(self, "top", top)
        object.__setattr__(self, "ids", ids)
        if k <= 0:  # the two-deck units, from their pairs
            k = 1 if npairs == 0 else 2
            length = npairs if npairs > 1 else 1
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "length", length)

    @property
    def kind(self) -> LeadKind:
        """`LeadKind.SINGLE`, `PAIR`, `TRACTOR`, or `TUPLE` for a lone k-tuple of k ≥ 3."""
        if self.k == 1:
            return SINGLE
        if self.length >= 2:
            return TRACTOR
        return PAIR if self.k == 2 else TUPLE

    @property
    def size(self) -> int:
        """Number of cards in the unit."""
        return len(self.ids)

    @property
    def power(self) -> int:
        """How many times a unit doubles the kitty under `kitty_multiplier="power"`
        (§8.1): (k − 1) · length, i.e. its cards less its tuples. With two decks this is
        `npairs` (single 0, pair 1, a tractor of k pairs k); a triple is 2, a tractor of
        two triples 4 (§12.3)."""
        return (self.k - 1) * self.length

    def cards(self) -> list[Card]:
        """The unit's cards."""
        return [CARDS[i] for i in self.ids]


@dataclass(frozen=True, slots=True, init=False)
class Shape:
    """A lead's shape: play suit, kind, and its units, longest tractors first (§6.1); with
    more decks (§12.3) tractors first (larger k first, then longer), then tuples (larger
    k first), then singles.

    `need[k]` (for 2 ≤ k ≤ d; 0 below) is `need_k` of §12.3: the disjoint k-tuples that
    can be taken from the lead's tuples and tractors. With two decks `need[2]` is
    `n_pairs`. `tractor_lengths` are the lengths of the lead's tractors in unit order;
    `n_pair_units` counts its lone tuples (pairs with two decks).
    """

    play_suit: int
    kind: LeadKind
    units: tuple[Unit, ...]
    n_cards: int
    tractor_lengths: tuple[int, ...]  # descending
    n_pair_units: int
    n_pairs: int  # all pairs in the lead (p of §6.2)
    value: int  # level of the deciding unit (§6.3)
    need: tuple[int, ...]  # need_k of §12.3, indexed by k

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
        need: tuple[int, ...] = (),
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        if not need:  # two decks: the pairs are all that is needed (§6.2)
            need = _NEED2[n_pairs] if n_pairs < len(_NEED2) else (0, 0, n_pairs)
        object.__setattr__(self, "need", need)
        object.__setattr__(self, "play_suit", play_suit)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "units", units)
        object.__setattr__(self, "n_cards", n_cards)
        object.__setattr__(self, "tractor_lengths", tractor_lengths)
        object.__setattr__(self, "n_pair_units", n_pair_units)
        object.__setattr__(self, "n_pairs", n_pairs)
        object.__setattr__(self, "value", value)

    def need_k(self, k: int) -> int:
        """`need_k` of §12.3: the disjoint k-tuples the lead's tuples and tractors hold
        (0 for k < 2 or beyond the lead's largest tuple)."""
        need = self.need
        return need[k] if 0 <= k < len(need) else 0


#: the shared `need` of a two-deck shape of p pairs (§6.2), p < 64
_NEED2: tuple[tuple[int, ...], ...] = tuple((0, 0, p) for p in range(64))


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


def _longest_level_run(levels: list[int]) -> tuple[int, int]:
    """(length, top level) of the longest run of consecutive levels in `levels` (sorted,
    distinct); among runs of equal length the highest wins (§5.4, §12.3)."""
    best_len, best_top, cur, prev = 0, -1, 0, -2
    for lvl in levels:
        cur = cur + 1 if lvl == prev + 1 else 1
        if cur >= best_len:
            best_len, best_top = cur, lvl
        prev = lvl
    return best_len, best_top


def decompose(ids: Sequence[int], t: Trump) -> list[Unit]:
    """Split cards of one play suit into units: tractors (longest first), pairs, singles
    (§6.1); with more decks tractors (larger k first, then longer), tuples (larger k
    first), singles (§12.3)."""
    if t.decks != 2:
        return decompose_k(ids, t)
    counts = count_ids(ids)
    level = t.level
    pair_at: dict[int, list[int]] = {}
    for i, n in counts.items():
        if n >= 2:
            pair_at.setdefault(level[i], []).append(i)
    units: list[Unit] = []
    while len(pair_at) >= 2:
        best_len, best_top = _longest_level_run(sorted(pair_at))
        if best_len < 2:
            break
        tids: list[int] = []
        for lvl in range(best_top - best_len + 1, best_top + 1):
            i = pair_at[lvl].pop()
            if not pair_at[lvl]:
                del pair_at[lvl]
            counts[i] -= 2
            tids += [i, i]
        units.append(Unit(best_len, best_top, tuple(tids), 2, best_len))
    pairs: list[Unit] = []
    singles: list[Unit] = []
    for i, n in counts.items():
        if n >= 2:
            pairs.append(Unit(1, level[i], PAIR_ID[i], 2, 1))
            n -= 2
        if n == 1:
            singles.append(Unit(0, level[i], ONE_ID[i], 1, 1))
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
        unit = Unit(npairs, lvl, ids, npairs + 1, 1)
        return Shape(ps, unit.kind, (unit,), len(ids), (), npairs, npairs, lvl)
    if t.decks != 2:
        return _shape_of_k(ids, ps, t)
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
            pairs += [Unit(1, level[i], PAIR_ID[i], 2, 1) for i in u.ids[::2]]
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
    if t.decks != 2:
        return _match_value_k(ids, shape, t)
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


# ---------------------------------------------------------------- more decks (§12.3)


def _tuple_name(k: int) -> str:
    """The name of a k-tuple (§12.3)."""
    return TUPLE_NAMES[k] if k < len(TUPLE_NAMES) else f"{k}-tuple"


#: what §12.3 calls a k-tuple, by k
TUPLE_NAMES: tuple[str, ...] = ("", "single", "pair", "triple", "quadruple", "quintuple")


def decompose_k(ids: Sequence[int], t: Trump) -> list[Unit]:
    """Split cards of one play suit into the units of §12.3, for any number of decks:
    tractors first (larger k first, then longer, then higher), then tuples (larger k
    first, then higher), then singles (higher first). Each tractor is the longest run of
    consecutive levels (§5.4) holding k identical cards, the highest among equally long
    ones; at a level of several equal cards (the off-suit trump-rank cards) the lowest id
    that has k copies left is taken."""
    counts = count_ids(ids)
    level = t.level
    tractors: list[Unit] = []
    for k in range(t.decks, 1, -1):
        while True:
            at: dict[int, int] = {}  # level -> the lowest id with k copies left there
            for i, n in counts.items():
                if n >= k:
                    lvl = level[i]
                    j = at.get(lvl)
                    if j is None or i < j:
                        at[lvl] = i
            if len(at) < 2:
                break
            best_len, best_top = _longest_level_run(sorted(at))
            if best_len < 2:
                break
            tids: list[int] = []
            for lvl in range(best_top - best_len + 1, best_top + 1):
                i = at[lvl]
                counts[i] -= k
                tids += [i] * k
            tractors.append(Unit(best_len, best_top, tuple(tids), k, best_len))
    tuples: list[Unit] = []
    singles: list[Unit] = []
    for i in sorted(counts):
        n = counts[i]
        if n >= 2:
            tuples.append(Unit(1, level[i], (i,) * n, n, 1))
        elif n == 1:
            singles.append(Unit(0, level[i], ONE_ID[i], 1, 1))
    tractors.sort(key=lambda u: (-u.k, -u.length, -u.top))
    tuples.sort(key=lambda u: (-u.k, -u.top))
    singles.sort(key=lambda u: -u.top)
    return tractors + tuples + singles


def need_of(units: Sequence[Unit], decks: int) -> tuple[int, ...]:
    """`need_k` of §12.3 for k = 0..decks (0 for k < 2): the disjoint k-tuples that can
    be taken from these units' tuples and tractors (a triple gives one pair; a tractor of
    two triples two pairs and two triples)."""
    need = [0] * (decks + 1)
    for u in units:
        if u.k >= 2:
            for k in range(2, u.k + 1):
                need[k] += u.length * (u.k // k)
    return tuple(need)


def _shape_of_k(ids: tuple[int, ...], ps: int, t: Trump) -> Shape:
    """`shape_of` with more decks (§12.3)."""
    units = decompose_k(ids, t)
    if len(units) > 1 and not t.throw_tractors and units[0].length >= 2:
        units = _without_tractors_k(units, t)
    kind = units[0].kind if len(units) == 1 else THROW
    tractors = tuple(u.length for u in units if u.length >= 2)
    n_tuple_units = sum(1 for u in units if u.k >= 2 and u.length == 1)
    need = need_of(units, t.decks)
    # Deciding unit (§12.3): the highest unit of the lead's largest kind, the first unit
    # (units are sorted by kind, then high to low)
    return Shape(ps, kind, tuple(units), len(ids), tractors, n_tuple_units, need[2],
                 units[0].top, need)


def _without_tractors_k(units: list[Unit], t: Trump) -> list[Unit]:
    """A throw's units with each tractor read as its k-tuples (§6.1 `throw_tractors=off`)."""
    level = t.level
    tuples: list[Unit] = []
    rest: list[Unit] = []
    for u in units:
        if u.length >= 2:
            for j in range(0, len(u.ids), u.k):
                i = u.ids[j]
                tuples.append(Unit(1, level[i], (i,) * u.k, u.k, 1))
        elif u.k >= 2:
            tuples.append(u)
        else:
            rest.append(u)
    tuples.sort(key=lambda u: (-u.k, -u.top))
    return tuples + rest


def _match_value_k(ids: tuple[int, ...], shape: Shape, t: Trump) -> int | None:
    """`match_value` with more decks (§12.3): the play must split into the lead's units of
    the same kinds (each k-tuple by k identical cards, each tractor by a tractor of the
    same k and length, singles by any cards); its value is the highest unit of the lead's
    largest kind over every such split."""
    level = t.level
    first = shape.units[0]
    if first.k == 1:  # singles only: the highest card decides
        best = -1
        for i in ids:
            if level[i] > best:
                best = level[i]
        return best
    counts = count_ids(ids)
    kinds = [(u.k, u.length) for u in shape.units if u.k >= 2]
    ps = t.play_suit[ids[0]]  # the play's suit: the led one or trumps (a ruff)
    levels = t.ids_at_level[ps]
    k0, len0 = kinds[0]
    best = -1

    def rec(idx: int, cur: int, bound: int) -> None:
        nonlocal best
        if idx == len(kinds):
            if cur > best:
                best = cur
            return
        k, length = kinds[idx]
        same_as_prev = idx > 0 and kinds[idx - 1] == kinds[idx]
        top_max = bound if same_as_prev else len(levels) - 1
        decides = k == k0 and length == len0
        for top in range(top_max, length - 2, -1):
            lo = top - length + 1
            picks = _tuple_picks(counts, levels, lo, top, k)
            for pick in picks:
                for i in pick:
                    counts[i] -= k
                rec(idx + 1, max(cur, top) if decides else cur, top)
                for i in pick:
                    counts[i] += k

    rec(0, -1, len(levels) - 1)
    return None if best < 0 else best


def _tuple_picks(
    counts: dict[int, int], levels: list[list[int]], lo: int, top: int, k: int
) -> list[list[int]]:
    """Every way to take k identical cards at each level lo..top from `counts`: one id per
    level (several only where equal cards share a level)."""
    out: list[list[int]] = [[]]
    for lvl in range(lo, top + 1):
        ok = [i for i in levels[lvl] if counts.get(i, 0) >= k]
        if not ok:
            return []
        out = [p + [i] for p in out for i in ok]
    return out


def tuple_runs(counts: Sequence[int], t: Trump, ps: int, k: int) -> list[int]:
    """Per level of play suit `ps`: how many ids the count array holds at least k times
    (k = 2 is `runs_in_hand`)."""
    h = as_list(counts)
    return [sum(1 for i in lv if h[i] >= k) for lv in t.ids_at_level[ps]]


picklable(Unit, Shape)

"""A slow, obviously-correct reading of the follow rule with any number of decks (RULES
§6.2, §12.3), written from the rulebook alone: the differential fuzzer
(tests/test_fuzz12.py, bench/fuzz12.py) holds the engine's fast code to it.

It uses only card ids and a `Trump`'s `play_suit` and `level` tables (§5), never the
engine's shapes, follow or trick code. Everything is brute force that mirrors a
sentence of the rules:

- the lead's units (§12.3 "A lead is ... read as units: tractors first (larger k first,
  then longer), then tuples (larger k first), then singles"): taken greedily in that
  order, every tie tried; `need` is only defined when all tie-breaks agree;
- `need_k` (§12.3 "the number of disjoint k-tuples that can be taken from the lead's
  tuples and tractors"): per unit, its tuples' cards split into k-tuples;
- a legal follow (§12.3 "must play n cards with min(n, h) of L, and among the plays that
  do, must maximise first the number of disjoint d-tuples of L it contains (up to
  need_d), then of (d-1)-tuples, ..., down to pairs"): every play of the hand is scored
  and the legal ones are those with the best score.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

Unit = tuple[int, int]  # (k, length): a single (1, 1), a k-tuple (k, 1), a tractor (k, L >= 2)


def _runs(counts: dict[int, int], k: int, level: Sequence[int]) -> list[list[int]]:
    """Every tractor of k-tuples in `counts` (one play suit), as the ids it takes in level
    order: runs of >= 2 consecutive levels, each level giving an id with >= k copies
    (RULES §12.3, §5.4 for what is consecutive)."""
    by_level: dict[int, list[int]] = {}
    for i, n in counts.items():
        if n >= k:
            by_level.setdefault(level[i], []).append(i)
    out: list[list[int]] = []
    for start in by_level:
        for length in range(2, len(by_level) + 1):
            levels = [start + j for j in range(length)]
            if not all(lv in by_level for lv in levels):
                break
            for pick in itertools.product(*(by_level[lv] for lv in levels)):
                out.append(list(pick))
    return out


def lead_units(ids: Sequence[int], level: Sequence[int], decks: int) -> set[tuple[Unit, ...]]:
    """The lead's units by the §12.3 reading, for every way of breaking ties: a set of
    sorted unit lists (one element when the reading does not depend on ties)."""
    results: set[tuple[Unit, ...]] = set()

    def rec(counts: dict[int, int], taken: list[Unit]) -> None:
        for k in range(decks, 1, -1):  # tractors first, larger k first, then longer
            runs = _runs(counts, k, level)
            if runs:
                longest = max(len(r) for r in runs)
                for r in runs:
                    if len(r) == longest:
                        rest = dict(counts)
                        for i in r:
                            rest[i] -= k
                        rec(rest, [*taken, (k, len(r))])
                return
        units = list(taken)
        for n in counts.values():  # then tuples, larger k first, then singles
            while n > 0:
                k = min(n, decks)
                units.append((k, 1))
                n -= k
        results.add(tuple(sorted(units, reverse=True)))

    rec(dict(Counter(ids)), [])
    return results


def need_of(units: Sequence[Unit], decks: int) -> tuple[int, ...]:
    """`need_k` for k = 0..decks (0 below 2): the disjoint k-tuples the lead's tuples and
    tractors hold (a triple gives one pair; a tractor of two triples two pairs and two
    triples)."""
    need = [0] * (decks + 1)
    for k_unit, length in units:
        if k_unit < 2:
            continue
        for k in range(2, decks + 1):
            need[k] += length * (k_unit // k)
    return tuple(need)


def tuples_in(counts: dict[int, int], k: int) -> int:
    """The most disjoint k-tuples (k identical cards each) a multiset holds."""
    return sum(n // k for n in counts.values())


def plays_of(hand: dict[int, int], size: int) -> Iterator[tuple[int, ...]]:
    """Every distinct sub-multiset of `hand` with `size` cards, as sorted ids."""
    items = sorted(hand.items())

    def rec(idx: int, left: int, acc: list[int]) -> Iterator[tuple[int, ...]]:
        if left == 0:
            yield tuple(acc)
            return
        if idx == len(items):
            return
        i, n = items[idx]
        for take in range(min(n, left), -1, -1):
            yield from rec(idx + 1, left - take, acc + [i] * take)

    yield from rec(0, size, [])


def legal_follows(
    hand: dict[int, int], lead: Sequence[int], play_suit: Sequence[int],
    level: Sequence[int], decks: int,
) -> set[tuple[int, ...]] | None:
    """The legal follows (sorted ids) to `lead` from `hand` by §6.2/§12.3, or None when the
    lead's reading depends on how ties are broken (the rules do not say)."""
    readings = {need_of(u, decks) for u in lead_units(lead, level, decks)}
    if len(readings) != 1:
        return None
    (need,) = readings
    suit = play_suit[lead[0]]
    n = len(lead)
    h = sum(c for i, c in hand.items() if play_suit[i] == suit)
    want = min(n, h)
    scored: dict[tuple[int, ...], tuple[int, ...]] = {}
    for play in plays_of(hand, n):
        in_suit = Counter(i for i in play if play_suit[i] == suit)
        if sum(in_suit.values()) != want:
            continue
        scored[play] = tuple(min(tuples_in(in_suit, k), need[k])
                             for k in range(decks, 1, -1))
    best = max(scored.values())
    return {p for p, s in scored.items() if s == best}


# ------------------------------------------------------------- the differential fuzzer

#: (players, decks) tables of RULES §12.1 and their hands' sizes
TABLES = ((4, 2), (5, 2), (6, 2), (6, 3), (7, 3), (8, 2), (8, 4), (9, 4), (10, 5))


def hand_size(players: int, decks: int) -> int:
    """Cards per hand at this table with the §12.1 kitty (the smallest >= 5 that leaves
    equal hands)."""
    kitty = 5
    while (54 * decks - kitty) % players:
        kitty += 1
    return (54 * decks - kitty) // players


def random_case(rng: random.Random, players: int, decks: int, max_hand: int = 11
                ) -> tuple[Any, list[int], dict[int, int]]:
    """A trump context, a lead (ids of one play suit) and a hand (counts) that a table of
    this size could deal, biased so that tuples and tractors are frequent."""
    from shengji.trump import Trump

    rank = rng.choice(["2", "5", "9", "A", None])
    suit = rng.choice(["S", "H", "D", "C", None])
    if rank is None:
        suit = None
    t = Trump(rank, suit, decks=decks, gap_tractors=rng.random() < 0.8)
    suits = [ps for ps in range(5) if len(t.suit_ids[ps]) >= 3]
    ps = rng.choice(suits)
    ids = list(t.suit_ids[ps])
    start = rng.randrange(0, max(1, len(ids) - 5))
    pool = ids[start:start + rng.randint(2, 6)]
    lead: list[int] = []
    for _ in range(rng.randint(1, 3)):
        i = rng.choice(pool)
        lead += [i] * rng.randint(1, decks)
    lead = [i for i, n in Counter(lead).items() for _ in range(min(n, decks))]
    left = Counter({i: decks for i in range(54)})
    left.subtract(Counter(lead))
    size = rng.randint(len(lead), max(len(lead), min(max_hand, hand_size(players, decks))))
    others = [i for i in range(54) if t.play_suit[i] != ps]
    hand: Counter[int] = Counter()
    while sum(hand.values()) < size:
        i = rng.choice(pool + ids) if rng.random() < 0.75 else rng.choice(others)
        if hand[i] < left[i]:
            hand[i] += 1
    return t, sorted(lead), dict(hand)


def check_case(t: Any, lead: list[int], hand: dict[int, int]) -> tuple[int, list[str]]:
    """Compare the engine with this reading on one position: the lead's `need`, the
    legality of every play of the hand, and `iter_follows`' set. Returns (plays compared,
    disagreements)."""
    from shengji.botkit import follow_error, iter_follows, shape_of

    d = t.decks
    expected = legal_follows(hand, lead, t.play_suit, t.level, d)
    if expected is None:
        return 0, []
    counts = [hand.get(i, 0) for i in range(54)]
    shape = shape_of(lead, t)
    bad: list[str] = []
    (units,) = lead_units(lead, t.level, d)
    need = need_of(units, d)
    engine_need = tuple(shape.need_k(k) for k in range(d + 1))
    if engine_need[2:] != need[2:]:
        bad.append(f"need: engine {engine_need[2:]} reading {need[2:]}")
    n = 0
    for play in plays_of(hand, len(lead)):
        n += 1
        ok = follow_error(counts, shape, list(play), t) is None
        if ok != (play in expected):
            bad.append(f"play {play}: engine {'legal' if ok else 'illegal'}")
    generated = {tuple(sorted(p)) for p in iter_follows(counts, shape, t)}
    if generated != expected:
        bad.append(f"iter_follows: {len(generated)} plays, reading {len(expected)}")
    return n, bad

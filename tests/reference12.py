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
  and the legal ones are those with the best score;
- the winner of a trick (§6.3, §12.3 "a play matches the lead's shape when it splits into
  the lead's units of the same kinds; the deciding unit is the highest unit of the lead's
  largest kind"): every way of splitting a play into the lead's units is tried. Where
  the splits give different deciding units the rules do not say which counts; the
  reading takes the play's best one (a player lays out their cards to their advantage),
  and says how often that happened;
- a throw (§6.1, §6.4, §12.3 "each unit of a throw must be unbeatable by a unit of the
  same kind (same k, and the same length for a tractor)"): for each unit of the lead,
  every other hand is searched for k identical cards (or a run of `length` levels of
  them) higher up; the forced unit is the beatable one with fewest cards, then the
  lowest, and the first seat after the leader that can beat it shows its lowest beater.
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
    sorted unit lists (one element when the reading does not depend on ties; see
    `lead_unit_tops`, which keeps each unit's top level too)."""
    return {tuple(sorted(((k, length) for k, length, _ in units), reverse=True))
            for units in lead_unit_tops(ids, level, decks)}


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


def _kind_key(unit: Unit) -> tuple[bool, int, int]:
    """§12.3's reading order of unit kinds: tractors first (larger k first, then longer),
    then tuples (larger k first), then singles; the first is the lead's largest kind."""
    k, length = unit
    return (length >= 2, k, length)


def _splits(counts: dict[int, int], units: Sequence[Unit], level: Sequence[int],
            values: list[int]) -> Iterator[list[int]]:
    """Every way to take `units` (in order) out of `counts`: for each, the level of each
    unit taken (a tractor's top pair, a tuple's or a single's card), in `units`' order."""
    if not units:
        if not any(counts.values()):
            yield list(values)
        return
    k, length = units[0]
    if length >= 2:
        takes = [r for r in _runs(counts, k, level) if len(r) == length]
    else:
        takes = [[i] for i, n in counts.items() if n >= k]
    for ids in takes:
        rest = dict(counts)
        for i in ids:
            rest[i] -= k
        yield from _splits(rest, units[1:], level, [*values, max(level[i] for i in ids)])


def deciding_values(play: Sequence[int], units: Sequence[Unit], level: Sequence[int]
                    ) -> set[int]:
    """The deciding unit's level (§6.3: the highest unit of the lead's largest kind) for
    every way `play` splits into `units`; empty when it does not match the lead's shape."""
    order = sorted(units, key=_kind_key, reverse=True)
    top = _kind_key(order[0])
    out = set()
    for vals in _splits(dict(Counter(play)), order, level, []):
        out.add(max(v for u, v in zip(order, vals, strict=True) if _kind_key(u) == top))
    return out


def trick_winner(plays: Sequence[Sequence[int]], play_suit: Sequence[int],
                 level: Sequence[int], decks: int, trump_suit: int = 4
                 ) -> tuple[int, bool] | None:
    """The winning play's index (§6.3 with §12.3's units) and whether some play split in
    ways with different deciding units (read at its best); None when the lead's own
    reading depends on ties. A play can win only if all of it is the led suit or all of it
    trump, and it matches the lead's shape; any all-trump play beats a led-suit one, and
    a later play wins only if strictly higher (ties to the earlier)."""
    readings = lead_units(plays[0], level, decks)
    if len(readings) != 1:
        return None
    (units,) = readings
    led = play_suit[plays[0][0]]
    best, best_trump = 0, led == trump_suit
    lead_vals = deciding_values(plays[0], units, level)
    split_ways = len(lead_vals) > 1
    best_val = max(lead_vals)
    for idx, play in enumerate(plays[1:], start=1):
        suits = {play_suit[i] for i in play}
        if len(suits) != 1 or not suits <= {led, trump_suit}:
            continue
        vals = deciding_values(play, units, level)
        if not vals:
            continue
        split_ways |= len(vals) > 1
        val, is_trump = max(vals), suits == {trump_suit}
        if (is_trump and not best_trump) or (is_trump == best_trump and val > best_val):
            best, best_trump, best_val = idx, is_trump, val
    return best, split_ways


def lead_unit_tops(ids: Sequence[int], level: Sequence[int], decks: int
                   ) -> set[tuple[tuple[int, int, int], ...]]:
    """The lead's units by the §12.3 reading with each unit's top level: (k, length, top),
    for every way of breaking ties (a set of sorted tuples). Tractors first (larger k
    first, then longer, every longest run tried), then tuples (larger k first), then
    singles."""
    results: set[tuple[tuple[int, int, int], ...]] = set()

    def rec(counts: dict[int, int], taken: list[tuple[int, int, int]]) -> None:
        for k in range(decks, 1, -1):
            runs = _runs(counts, k, level)
            if runs:
                longest = max(len(r) for r in runs)
                for r in runs:
                    if len(r) == longest:
                        rest = dict(counts)
                        for i in r:
                            rest[i] -= k
                        rec(rest, [*taken, (k, len(r), max(level[i] for i in r))])
                return
        units = list(taken)
        for i, n in counts.items():
            while n > 0:
                k = min(n, decks)
                units.append((k, 1, level[i]))
                n -= k
        results.add(tuple(sorted(units, reverse=True)))

    rec(dict(Counter(ids)), [])
    return results


def beaters(hand: dict[int, int], unit: tuple[int, int, int], suit: int,
            play_suit: Sequence[int], level: Sequence[int]) -> list[int]:
    """The top levels of every unit of the same kind as `unit` (k identical cards, or a
    run of `length` consecutive levels of them) that `hand` holds in `suit` above it."""
    k, length, top = unit
    mine = {i: n for i, n in hand.items() if play_suit[i] == suit}
    if length == 1:
        return [level[i] for i, n in mine.items() if n >= k and level[i] > top]
    return [lv for lv in {max(level[i] for i in r) for r in _runs(mine, k, level)
                          if len(r) == length} if lv > top]


def throw_outcome(lead: Sequence[int], others: Sequence[dict[int, int]],
                  play_suit: Sequence[int], level: Sequence[int], decks: int
                  ) -> tuple[tuple[int, int, int], int, int] | None | str:
    """A throw's fate by §6.1/§6.4 against the `others`' hands (in play order after the
    leader): None if it stands, else (the forced unit, the index in `others` of the
    first that beats it, the top level of that seat's lowest beater); "ambiguous" when
    the lead's reading or the forced unit depends on ties."""
    readings = lead_unit_tops(lead, level, decks)
    if len(readings) != 1:
        return "ambiguous"
    (units,) = readings
    if len(units) == 1:
        return None  # a single, a tuple or a tractor always stands
    suit = play_suit[lead[0]]
    beatable = [u for u in units if any(beaters(h, u, suit, play_suit, level) for h in others)]
    if not beatable:
        return None
    rank = [(u[0] * u[1], u[2]) for u in beatable]  # fewest cards, then lowest
    first = min(rank)
    if rank.count(first) > 1:
        return "ambiguous"
    forced = beatable[rank.index(first)]
    for seat, h in enumerate(others):
        tops = beaters(h, forced, suit, play_suit, level)
        if tops:
            return forced, seat, min(tops)
    raise AssertionError("unreachable: the forced unit is beatable")


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


def random_trick(rng: random.Random, players: int, decks: int
                 ) -> tuple[Any, list[list[int]]]:
    """A trump context and a trick of `players` plays: a lead as `random_case` makes it,
    then plays of its size, each at random one of: the lead moved up or down the led suit
    (the same shape, often), the same in trump (a ruff), or any cards; no card more often
    than the decks hold."""
    t, lead, _ = random_case(rng, players, decks)
    left = Counter({i: decks for i in range(54)})
    left.subtract(Counter(lead))
    plays = [list(lead)]
    led = t.play_suit[lead[0]]
    for _ in range(players - 1):
        play: list[int] = []
        r = rng.random()
        suit = led if r < 0.55 else 4 if r < 0.8 else None
        if suit is not None:
            ids = list(t.suit_ids[suit])
            shift = rng.randint(-4, 4)
            for i in lead:
                pos = t.suit_ids[led].index(i) + shift
                play.append(ids[max(0, min(len(ids) - 1, pos))])
        else:
            play = [rng.randrange(54) for _ in lead]
        taken = Counter(play)
        if any(taken[i] > left[i] for i in taken):
            play = []
            while len(play) < len(lead):  # any cards still in the deck
                i = rng.randrange(54)
                if left[i] > Counter(play)[i]:
                    play.append(i)
        left.subtract(Counter(play))
        plays.append(sorted(play))
    return t, plays


def check_trick(t: Any, plays: list[list[int]]) -> tuple[bool, list[str]]:
    """Compare the engine's trick winner with this reading on one trick. Returns (compared:
    False when the lead's reading depends on ties, disagreements)."""
    from shengji.botkit import shape_of, winner_index

    expected = trick_winner(plays, t.play_suit, t.level, t.decks)
    if expected is None:
        return False, []
    got = winner_index(plays, shape_of(plays[0], t), t)
    if got != expected[0]:
        return True, [f"winner: engine {got}, reading {expected[0]}"]
    return True, []


def random_throw(rng: random.Random, players: int, decks: int
                 ) -> tuple[Any, list[int], list[dict[int, int]]]:
    """A trump context, a lead as `random_case` makes it, and the other seats' hands
    (in play order after the leader) from the cards left, rich in the lead's suit."""
    t, lead, _ = random_case(rng, players, decks)
    left = Counter({i: decks for i in range(54)})
    left.subtract(Counter(lead))
    suit = t.suit_ids[t.play_suit[lead[0]]]
    others = []
    rich = rng.choice((0.0, 0.1, 0.3, 0.7))  # how much of the lead's suit the others hold
    off = [i for i in range(54) if i not in suit]
    for _ in range(players - 1):
        hand: Counter[int] = Counter()
        for _ in range(rng.randint(3, 12)):
            i = rng.choice(suit) if rng.random() < rich else rng.choice(off)
            if left[i] > 0:
                left[i] -= 1
                hand[i] += 1
        others.append(dict(hand))
    return t, lead, others


def check_throw_case(t: Any, lead: list[int], others: list[dict[int, int]]
                     ) -> tuple[str, list[str]]:
    """Compare the engine's throw check (`trick.check_throw`) with this reading: what
    was compared ("not a throw", "stands", "fails" or "ambiguous") and the
    disagreements."""
    from shengji.botkit import shape_of
    from shengji.trick import check_throw

    expected = throw_outcome(lead, others, t.play_suit, t.level, t.decks)
    if expected == "ambiguous":
        return "ambiguous", []
    if expected is None and len(next(iter(lead_unit_tops(lead, t.level, t.decks)))) == 1:
        got_one = check_throw(shape_of(lead, t), 0, [[0] * 54] * (len(others) + 1), t)
        return "not a throw", [] if got_one is None else ["engine fails a one-unit lead"]
    hands = [[0] * 54] + [[h.get(i, 0) for i in range(54)] for h in others]
    got = check_throw(shape_of(lead, t), 0, hands, t)
    if expected is None:
        return "stands", [] if got is None else [f"engine fails it: {got.forced}"]
    assert not isinstance(expected, str)
    (k, length, top), seat, shown_top = expected
    if got is None:
        return "fails", ["engine lets it stand"]
    bad = []
    forced = Counter(got.forced)
    if (len(got.forced), max(t.level[i] for i in got.forced)) != (k * length, top) or \
            set(forced.values()) != {k}:
        bad.append(f"forced: engine {got.forced}, reading {(k, length, top)}")
    if got.blocker != seat + 1:
        bad.append(f"blocker: engine seat {got.blocker}, reading {seat + 1}")
    if max(t.level[i] for i in got.shown) != shown_top or len(got.shown) != k * length:
        bad.append(f"shown: engine {got.shown}, reading top level {shown_top}")
    return "fails", bad

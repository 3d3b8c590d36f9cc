"""Is a follow legal (RULES §6.2); every distinct legal play, lazily; a uniform random one.

Hands are count arrays (54 ints indexed by card id). The public wrapper
`is_legal_follow` takes `Card` lists.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from .cards import N_IDS, Card, as_list, below, counts_of
from .shapes import Shape, count_ids, longest_run, runs_in_hand, shape_of
from .trump import Trump

Play = tuple[int, ...]


def follow_error(
    hand: Sequence[int], shape: Shape, play: Sequence[int], t: Trump, strict: bool = False
) -> str | None:
    """Why `play` (ids, already known to be in `hand`) is not a legal follow, or None (§6.2)."""
    n = shape.n_cards
    if len(play) != n:
        return f"RULES §6: play exactly {n} card(s), as many as the leader"
    hand = as_list(hand)
    lead_suit = shape.play_suit
    ps = t.play_suit
    suit_ids = t.suit_ids[lead_suit]
    h = 0
    q = 0
    for i in suit_ids:
        c = hand[i]
        if c:
            h += c
            q += c >> 1
    pc = count_ids(play)
    k = 0
    pairs = 0
    for i, c in pc.items():
        if ps[i] == lead_suit:
            k += c
            pairs += c >> 1
    need_suit = n if h >= n else h
    if k != need_suit:
        return (
            f"RULES §6.2: follow suit as far as possible: play {need_suit} card(s) "
            f"of the led suit (you played {k})"
        )
    need_pairs = shape.n_pairs if shape.n_pairs < q else q
    if pairs < need_pairs:
        return (
            f"RULES §6.2: play pairs as far as possible: {need_pairs} pair(s) "
            f"of the led suit are required (you played {pairs})"
        )
    if strict and shape.tractor_lengths:
        held, _ = longest_run(runs_in_hand(hand, t, lead_suit))
        if held >= 2:
            req = min(shape.tractor_lengths[0], held)
            played, _ = longest_run(runs_in_hand(_counts(play), t, lead_suit))
            if played < req:
                return (
                    "RULES §6.2 (strict_tractor_follow): you hold a tractor in the led suit "
                    f"and must play a tractor of {req} pairs"
                )
    return None


def _counts(ids: Sequence[int]) -> list[int]:
    out = [0] * N_IDS
    for i in ids:
        out[i] += 1
    return out


def is_legal_follow(
    hand: Sequence[Card], lead: Sequence[Card], play: Sequence[Card], trump: Trump,
    strict_tractor_follow: bool = False,
) -> bool:
    """Whether `play` is a legal follow to `lead` from `hand` (RULES §6.2).

    `hand` is the follower's whole hand before playing (it must contain `play`);
    `lead` is the (successful) lead.
    """
    counts = counts_of(hand)
    for i, c in count_ids([c.id for c in play]).items():
        if counts[i] < c:
            return False
    shape = shape_of([c.id for c in lead], trump)
    err = follow_error(counts, shape, [c.id for c in play], trump, strict_tractor_follow)
    return err is None


# ---------------------------------------------------------------- enumeration


def submultisets(
    items: Sequence[tuple[int, int]], size: int, min_pairs: int, start: int = 0
) -> Iterator[list[int]]:
    """Distinct sub-multisets of `size` cards from (id, count) items with >= min_pairs pairs."""
    if size == 0:
        if min_pairs <= 0:
            yield []
        return
    n_items = len(items)
    if start >= n_items:
        return
    # Pruning: cards and pairs still available from items[start:].
    avail = 0
    avail_pairs = 0
    for j in range(start, n_items):
        avail += items[j][1]
        avail_pairs += items[j][1] >> 1
    if avail < size or avail_pairs < min_pairs or 2 * min_pairs > size:
        return
    i, c = items[start]
    for take in range(min(c, size), -1, -1):
        for rest in submultisets(items, size - take, min_pairs - (take >> 1), start + 1):
            yield [i] * take + rest


def hand_items(hand: Sequence[int], ids: Sequence[int]) -> list[tuple[int, int]]:
    """(id, count) of each of `ids` the hand (a count array) holds."""
    h = as_list(hand)
    return [(i, h[i]) for i in as_list(ids) if h[i]]


def iter_leads(hand: Sequence[int], t: Trump) -> Iterator[Play]:
    """Every distinct lead (§6.1): any non-empty set of cards of one play suit,
    singles first, then by size."""
    hand = as_list(hand)
    per_suit = [hand_items(hand, ids) for ids in t.suit_ids]
    max_size = max(sum(c for _, c in items) for items in per_suit)
    for size in range(1, max_size + 1):
        for items in per_suit:
            for combo in submultisets(items, size, 0):
                yield tuple(combo)


def iter_follows(
    hand: Sequence[int], shape: Shape, t: Trump, strict: bool = False
) -> Iterator[Play]:
    """Every distinct legal follow to a lead of this shape (§6.2), lazily."""
    hand = as_list(hand)
    lead_suit = shape.play_suit
    if shape.n_cards == 1:  # a single: any card of the led suit, else any card
        suit = [i for i in t.suit_ids[lead_suit] if hand[i]]
        for i in suit or [i for i in range(N_IDS) if hand[i]]:
            yield (i,)
        return
    suit_items = hand_items(hand, t.suit_ids[lead_suit])
    h = sum(c for _, c in suit_items)
    q = sum(c >> 1 for _, c in suit_items)
    n = shape.n_cards
    gen: Iterator[list[int]]
    if h >= n:
        gen = submultisets(suit_items, n, min(shape.n_pairs, q))
        base: list[int] = []
    else:
        base = [i for i, c in suit_items for _ in range(c)]
        rest = [(i, hand[i]) for i in range(N_IDS) if hand[i] and t.play_suit[i] != lead_suit]
        gen = submultisets(rest, n - h, 0)
    for combo in gen:
        play = tuple(base + combo)
        if strict and shape.tractor_lengths and follow_error(hand, shape, play, t, True):
            continue
        yield play


# ---------------------------------------------------------------- uniform sampling


def _count_table(items: Sequence[tuple[int, int]], size: int, min_pairs: int) -> list[int]:
    """Flat table: `dp[(j * (size + 1) + m) * (min_pairs + 1) + r]` is the number of
    sub-multisets of items[j:] with m cards and >= r pairs."""
    n_items = len(items)
    width = min_pairs + 1
    row = (size + 1) * width
    dp = [0] * ((n_items + 1) * row)
    dp[n_items * row] = 1
    for j in range(n_items - 1, -1, -1):
        c = items[j][1]
        nxt = (j + 1) * row
        cur = j * row
        for m in range(size + 1):
            for r in range(width):
                total = dp[nxt + m * width + r]
                if m >= 1 and c >= 1:
                    total += dp[nxt + (m - 1) * width + r]
                if m >= 2 and c >= 2:
                    total += dp[nxt + (m - 2) * width + (r - 1 if r else 0)]
                dp[cur + m * width + r] = total
    return dp


def sample_submultiset(
    items: Sequence[tuple[int, int]], size: int, min_pairs: int, rng: random.Random
) -> list[int]:
    """A uniformly random sub-multiset of `size` cards with >= min_pairs pairs."""
    if size == 0:
        return []
    if min_pairs == 0 and size == 1:
        return [items[below(rng, len(items))][0]]
    return _sample_with(_count_table(items, size, min_pairs), items, size, min_pairs, rng)


def _sample_with(
    dp: list[int], items: Sequence[tuple[int, int]], size: int, min_pairs: int,
    rng: random.Random,
) -> list[int]:
    """Walk the count table `dp` of `_count_table(items, size, min_pairs)`: each item's
    take (0, 1 or 2) is drawn with the number of completions it leaves as its weight."""
    out: list[int] = []
    width = min_pairs + 1
    row = (size + 1) * width
    m, r = size, min_pairs
    for j in range(len(items)):
        i, c = items[j]
        nxt = (j + 1) * row
        w0 = dp[nxt + m * width + r]
        w1 = dp[nxt + (m - 1) * width + r] if m >= 1 and c >= 1 else 0
        w2 = dp[nxt + (m - 2) * width + (r - 1 if r else 0)] if m >= 2 and c >= 2 else 0
        x = below(rng, w0 + w1 + w2)
        if x < w0:
            continue
        if x < w0 + w1:
            out.append(i)
            m -= 1
        else:
            out.append(i)
            out.append(i)
            m -= 2
            if r:
                r -= 1
        if m == 0 and r == 0:
            break
    return out


def _weighted_choice(weights: Sequence[int], rng: random.Random) -> int:
    """Index k with probability weights[k] / sum(weights)."""
    total = 0
    for w in weights:
        total += w
    x = below(rng, total)
    for k, w in enumerate(weights):
        if x < w:
            return k
        x -= w
    raise AssertionError("unreachable")


def random_lead(hand: Sequence[int], t: Trump, rng: random.Random) -> Play:
    """A uniformly random distinct lead: any non-empty set of one play suit's cards (§6.1)."""
    hand = as_list(hand)
    per_suit = [hand_items(hand, ids) for ids in t.suit_ids]
    weights = []
    for items in per_suit:
        w = 1
        for _, c in items:
            w *= c + 1
        weights.append(w - 1)
    items = per_suit[_weighted_choice(weights, rng)]
    while True:
        out: list[int] = []
        for i, c in items:
            k = below(rng, c + 1)
            if k:
                out.append(i)
                if k == 2:
                    out.append(i)
        if out:
            return tuple(out)


#: rejection rounds before a strict-tractor follow is drawn from the enumeration
STRICT_TRIES = 24


def random_follow(
    hand: Sequence[int], shape: Shape, t: Trump, rng: random.Random, strict: bool = False
) -> Play:
    """A uniformly random distinct legal follow (§6.2), without enumerating them.

    Under `strict_tractor_follow` (§6.2 option) the rule is checked on the sample and a
    refused sample drawn again (uniform over the legal ones); after `STRICT_TRIES`
    refusals the legal follows are enumerated and one is drawn from them.
    """
    hand = as_list(hand)
    lead_suit = shape.play_suit
    suit_items = hand_items(hand, t.suit_ids[lead_suit])
    h = 0
    q = 0
    for _, c in suit_items:
        h += c
        q += c >> 1
    n = shape.n_cards
    check = strict and bool(shape.tractor_lengths)
    if h >= n:
        pairs = min(shape.n_pairs, q)
        if n == 1:  # a single lead: any card of the suit
            return (suit_items[below(rng, len(suit_items))][0],)
        dp = _count_table(suit_items, n, pairs)
        for _ in range(STRICT_TRIES if check else 1):
            play = tuple(_sample_with(dp, suit_items, n, pairs, rng))
            if not check or follow_error(hand, shape, play, t, True) is None:
                return play
    else:
        base = [i for i, c in suit_items for _ in range(c)]
        rest = [(i, hand[i]) for i in range(N_IDS) if hand[i] and t.play_suit[i] != lead_suit]
        dp = _count_table(rest, n - h, 0)
        for _ in range(STRICT_TRIES if check else 1):
            play = tuple(base + _sample_with(dp, rest, n - h, 0, rng))
            if not check or follow_error(hand, shape, play, t, True) is None:
                return play
    # Rejection kept failing (strict option, rare tractor): choose among the enumeration.
    legal = list(iter_follows(hand, shape, t, strict))
    return legal[below(rng, len(legal))]


def random_bury(hand: Sequence[int], rng: random.Random, size: int = 8) -> Play:
    """A uniformly random distinct set of `size` cards from the hand (the kitty, §4)."""
    return tuple(sample_submultiset(hand_items(hand, range(N_IDS)), size, 0, rng))


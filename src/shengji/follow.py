"""Is a follow legal (RULES §6.2); every distinct legal play, lazily; a uniform random one.

Hands are count arrays (54 ints indexed by card id). The public wrapper
`is_legal_follow` takes `Card` lists.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from .cards import N_IDS, Card, as_list, below, counts_of
from .shapes import TUPLE_NAMES, Shape, count_ids, longest_run, runs_in_hand, shape_of
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
    if t.decks != 2:
        return _follow_error_k(hand, shape, play, t, strict)
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


def _led_items(hand: Sequence[int], t: Trump, lead_suit: int) -> tuple[list[tuple[int, int]], int]:
    """`hand_items` of the led suit and how many cards of it the hand holds (§6.2)."""
    items = hand_items(hand, t.suit_ids[lead_suit])
    h = 0
    for _, c in items:
        h += c
    return items, h


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
    """Every distinct legal follow to a lead of this shape (§6.2; with more decks §12.3),
    lazily."""
    hand = as_list(hand)
    lead_suit = shape.play_suit
    if t.decks != 2 and shape.n_cards > 1:
        k, req = _strict_need(hand, shape, t) if strict else (0, 0)
        for play in _iter_follows_k(hand, shape, t):
            if req and _longest_tuple_run(_counts(play), t, lead_suit, k) < req:
                continue
            yield play
        return
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
                elif k > 2:  # more decks (§12): up to d copies
                    out.extend([i] * (k - 1))
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
    refusals the legal follows are enumerated and one is drawn from them. With more decks
    (§12.3) the draw walks the tuple rule's count table instead (the strict option
    enumerates).
    """
    hand = as_list(hand)
    if t.decks != 2 and shape.n_cards > 1:
        return _random_follow_k(hand, shape, t, rng, strict)
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
    items = hand_items(hand, range(N_IDS))
    for _, c in items:
        if c > 2:  # more decks (§12): the table for takes of 0..d copies
            return tuple(sample_submultiset_k(items, size, rng))
    return tuple(sample_submultiset(items, size, 0, rng))



# ---------------------------------------------------------------- more decks (§12.3)
#
# With d decks a follower holding h cards of the led suit L plays n cards, min(n, h) of
# them of L, and among such plays maximises, in this order, the disjoint d-tuples of L it
# holds (each count capped at the lead's need_d), then the (d-1)-tuples, ... then the
# pairs. A play's "vector" is those capped counts, high k first. Over the cards of L the
# reachable vectors are found by a small dynamic programme whose state is (cards taken,
# vector): each card id adds x copies (0..its count), which adds x // k to each k-tuple
# count. Every distinct play is one path of x's, so counting paths counts distinct plays.

_State = tuple[int, ...]  # (cards taken, capped count of d-tuples, ..., of pairs)


def _caps(shape: Shape, d: int) -> list[int]:
    """need_k for k = d down to 2 (§12.3)."""
    return [shape.need_k(k) for k in range(d, 1, -1)]


def _step(state: _State, x: int, caps: list[int], d: int) -> _State:
    """The state after taking x copies of one more card id."""
    out = [state[0] + x]
    for j in range(len(caps)):
        v = state[j + 1] + x // (d - j)
        cap = caps[j]
        out.append(v if v < cap else cap)
    return tuple(out)


def _layers(
    items: Sequence[tuple[int, int]], m: int, caps: list[int], d: int
) -> list[dict[_State, int]]:
    """`layers[j][state]`: the number of ways items[:j] reach `state` (at most m cards)."""
    layer: dict[_State, int] = {tuple([0] * (len(caps) + 1)): 1}
    layers = [layer]
    for _, c in items:
        nxt: dict[_State, int] = {}
        for st, w in layer.items():
            room = m - st[0]
            for x in range(min(c, room) + 1):
                ns = _step(st, x, caps, d)
                nxt[ns] = nxt.get(ns, 0) + w
        layers.append(nxt)
        layer = nxt
    return layers


def _target(layers: list[dict[_State, int]], m: int) -> _State:
    """The best final state of m cards: its vector lexicographically largest (§12.3)."""
    best: _State | None = None
    for st in layers[-1]:
        if st[0] == m and (best is None or st > best):
            best = st
    assert best is not None  # m <= the cards of the items
    return best


def _vector(counts: dict[int, int], lead_suit: int, caps: list[int], d: int, t: Trump) -> _State:
    """(cards of the led suit, capped k-tuple counts for k = d..2) of a play's counts."""
    ps = t.play_suit
    n = 0
    raw = [0] * len(caps)
    for i, c in counts.items():
        if ps[i] == lead_suit:
            n += c
            for j in range(len(caps)):
                raw[j] += c // (d - j)
    return tuple([n] + [raw[j] if raw[j] < caps[j] else caps[j] for j in range(len(caps))])


def _longest_tuple_run(counts: Sequence[int], t: Trump, ps: int, k: int) -> int:
    """The longest run of consecutive levels of play suit `ps` holding k identical cards."""
    h = as_list(counts)
    best = cur = 0
    for lv in t.ids_at_level[ps]:
        if any(h[i] >= k for i in lv):
            cur += 1
            if cur > best:
                best = cur
        else:
            cur = 0
    return best


def _strict_need(hand: list[int], shape: Shape, t: Trump) -> tuple[int, int]:
    """(k, run) that `strict_tractor_follow` asks with more decks (§6.2, §12.3): the lead's
    first tractor is of k-tuples; `run` is the longest run of k-tuples (capped at that
    tractor's length) that any play legal under the tuple rule holds, 0 when under 2."""
    lead = shape.units[0]
    if lead.length < 2:
        return (0, 0)
    k = lead.k
    best = 0
    for play in _iter_follows_k(hand, shape, t):
        run = _longest_tuple_run(_counts(play), t, shape.play_suit, k)
        if run > best:
            best = run
            if best >= lead.length:
                best = lead.length
                break
    return (k, best if best >= 2 else 0)


def _follow_error_k(
    hand: list[int], shape: Shape, play: Sequence[int], t: Trump, strict: bool
) -> str | None:
    """`follow_error` with more decks (§12.3)."""
    d = t.decks
    n = shape.n_cards
    lead_suit = shape.play_suit
    items, h = _led_items(hand, t, lead_suit)
    caps = _caps(shape, d)
    got = _vector(count_ids(play), lead_suit, caps, d, t)
    need_suit = n if h >= n else h
    if got[0] != need_suit:
        return (
            f"RULES §6.2: follow suit as far as possible: play {need_suit} card(s) "
            f"of the led suit (you played {got[0]})"
        )
    if any(caps):
        best = _target(_layers(items, need_suit, caps, d), need_suit)
        for j in range(len(caps)):
            if got[j + 1] < best[j + 1]:
                name = TUPLE_NAMES[d - j] if d - j < len(TUPLE_NAMES) else f"{d - j}-tuple"
                return (
                    f"RULES §12.3: play tuples as far as possible: {best[j + 1]} disjoint "
                    f"{name}(s) of the led suit are required (you played {got[j + 1]})"
                )
            if got[j + 1] > best[j + 1]:  # unreachable: best is the largest
                break
    if strict and shape.units[0].length >= 2:
        k, req = _strict_need(hand, shape, t)
        if req and _longest_tuple_run(_counts(play), t, lead_suit, k) < req:
            return (
                "RULES §6.2 (strict_tractor_follow): you hold a tractor in the led suit "
                f"and must play a tractor of {req} {TUPLE_NAMES[k] if k < 6 else 'tuple'}s"
            )
    return None


def _iter_follows_k(hand: list[int], shape: Shape, t: Trump) -> Iterator[Play]:
    """Every distinct follow legal under §12.3's tuple rule (strict option aside)."""
    d = t.decks
    lead_suit = shape.play_suit
    n = shape.n_cards
    items, h = _led_items(hand, t, lead_suit)
    if h < n:
        base = [i for i, c in items for _ in range(c)]
        rest = [(i, hand[i]) for i in range(N_IDS) if hand[i] and t.play_suit[i] != lead_suit]
        for combo in submultisets(rest, n - h, 0):
            yield tuple(base + combo)
        return
    caps = _caps(shape, d)
    layers = _layers(items, n, caps, d)
    target = _target(layers, n)
    # alive[j]: the states at layer j from which the target can still be reached
    alive: list[set[_State]] = [set() for _ in layers]
    alive[-1].add(target)
    for j in range(len(items) - 1, -1, -1):
        c = items[j][1]
        nxt = alive[j + 1]
        for st in layers[j]:
            for x in range(min(c, n - st[0]) + 1):
                if _step(st, x, caps, d) in nxt:
                    alive[j].add(st)
                    break
    start = tuple([0] * (len(caps) + 1))
    if start in alive[0]:
        yield from _walk(items, alive, caps, d, n, 0, start, [])


def _walk(
    items: Sequence[tuple[int, int]],
    alive: list[set[_State]],
    caps: list[int],
    d: int,
    n: int,
    j: int,
    st: _State,
    out: list[int],
) -> Iterator[Play]:
    """The plays of `_iter_follows_k` from item j in state `st`, `out` taken so far: each
    take that keeps the target reachable (`alive`), most copies first."""
    if j == len(items):
        yield tuple(out)
        return
    i, c = items[j]
    nxt = alive[j + 1]
    for x in range(min(c, n - st[0]), -1, -1):
        ns = _step(st, x, caps, d)
        if ns in nxt:
            yield from _walk(items, alive, caps, d, n, j + 1, ns, out + [i] * x)


def _random_follow_k(
    hand: list[int], shape: Shape, t: Trump, rng: random.Random, strict: bool
) -> Play:
    """`random_follow` with more decks (§12.3): uniform over the distinct legal plays."""
    d = t.decks
    lead_suit = shape.play_suit
    n = shape.n_cards
    if strict and shape.units[0].length >= 2:
        legal = list(iter_follows(hand, shape, t, True))
        return legal[below(rng, len(legal))]
    items, h = _led_items(hand, t, lead_suit)
    if h < n:
        base = [i for i, c in items for _ in range(c)]
        rest = [(i, hand[i]) for i in range(N_IDS) if hand[i] and t.play_suit[i] != lead_suit]
        return tuple(base + sample_submultiset_k(rest, n - h, rng))
    caps = _caps(shape, d)
    layers = _layers(items, n, caps, d)
    st = _target(layers, n)
    # walk back from the target: each item's take weighted by the ways to reach its
    # predecessor, so that every distinct play (one path) is equally likely
    takes = [0] * len(items)
    for j in range(len(items) - 1, -1, -1):
        c = items[j][1]
        opts: list[tuple[_State, int]] = []
        weights: list[int] = []
        for prev, w in layers[j].items():
            for x in range(min(c, n - prev[0]) + 1):
                if _step(prev, x, caps, d) == st:
                    opts.append((prev, x))
                    weights.append(w)
        prev, x = opts[_weighted_choice(weights, rng)]
        takes[j] = x
        st = prev
    out: list[int] = []
    for j, (i, _) in enumerate(items):
        out.extend([i] * takes[j])
    return tuple(out)


def sample_submultiset_k(
    items: Sequence[tuple[int, int]], size: int, rng: random.Random
) -> list[int]:
    """A uniformly random distinct sub-multiset of `size` cards, items held any number of
    times (the general `sample_submultiset` with no pair requirement)."""
    if size == 0:
        return []
    # ways[j][m]: sub-multisets of items[j:] with m cards
    n_items = len(items)
    ways = [[0] * (size + 1) for _ in range(n_items + 1)]
    ways[n_items][0] = 1
    for j in range(n_items - 1, -1, -1):
        c = items[j][1]
        for m in range(size + 1):
            total = 0
            for x in range(min(c, m) + 1):
                total += ways[j + 1][m - x]
            ways[j][m] = total
    out: list[int] = []
    m = size
    for j in range(n_items):
        if m == 0:
            break
        i, c = items[j]
        weights = [ways[j + 1][m - x] for x in range(min(c, m) + 1)]
        x = _weighted_choice(weights, rng)
        out.extend([i] * x)
        m -= x
    return out

"""The search's world draw, compiled (issue 31): the hidden cards dealt to the places
that may hold them, one card at a time, weighted by the room left (`worlds.sample_world`
calls `greedy_draw` with a `WorldFacts`' arrays; the facts themselves are RULES §11's,
gathered in `worlds`).

The draws are the very ones the interpreted sampler made: `shuffle` is
`random.Random.shuffle` (the same `getrandbits` calls), a weighted pick is
`rng.choices(places, weights)[0]` (the same `random()` call and the same cumulative
sums), and the cards are ordered by their number of places with a stable sort.
`tests/test_search_same.py` pins the worlds through the search's digest.
"""

from __future__ import annotations

import random

from ..cards import N_IDS, POINTS
from ..trump import TRUMP, Trump

__all__ = ["greedy_draw", "kitty_weight", "pinned_start", "world_of"]

Hands = list[list[int]]

# `kitty_weight` per card id, per trump (a handful of trumps are ever in play)
_KITTY_WEIGHTS: dict[Trump, list[float]] = {}


def kitty_weight(i: int, t: Trump) -> float:
    """A prior: starters rarely bury trumps or points (§4), so the kitty draws them less."""
    w = 1.0
    if t.play_suit[i] == TRUMP:
        w *= 0.25
    if POINTS[i]:
        w *= 0.4
    return w


def pinned_start(capacity: list[int], pool: list[int], pinned: Hands
                 ) -> tuple[Hands, list[int], list[int]]:
    """The start of every draw: each place's hand holding its pinned cards, each place's
    capacity left, and the pool's copies left to place, per card id."""
    n_locs = len(capacity)
    hands = [[0] * N_IDS for _ in range(n_locs)]
    cap = list(capacity)
    rest = list(pool)
    for loc in range(n_locs):
        row = pinned[loc]
        h = hands[loc]
        for i in range(N_IDS):
            n = row[i]
            if n:
                h[i] += n
                cap[loc] -= n
                rest[i] -= n
    return hands, cap, rest


def world_of(seat: int, hand: list[int], kitty_known: tuple[int, ...] | None, hands: Hands
             ) -> tuple[Hands, list[int]]:
    """The world of filled places: the seats' hands (the seat's own as it is) and the
    kitty ids (the known kitty, or the one placed at the last place, the kitty's)."""
    kloc = len(hands) - 1
    out = [hand[:] if s == seat else hands[s] for s in range(kloc)]
    if kitty_known is not None:
        return out, list(kitty_known)
    kitty: list[int] = []
    row = hands[kloc]
    for i in range(N_IDS):
        for _ in range(row[i]):
            kitty.append(i)
    return out, kitty


def shuffle(x: list[int], rng: random.Random) -> None:
    """`rng.shuffle(x)`: the same `getrandbits` draws, so the same order."""
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j: int = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def greedy_draw(
    seat: int, t: Trump, hand: list[int], pool: list[int], capacity: list[int],
    void: list[list[bool]], nopair: list[list[bool]], pinned: Hands,
    kitty_known: tuple[int, ...] | None, either: list[int] | None, starter: int | None,
    rng: random.Random, relax_pairs: bool,
) -> tuple[Hands, list[int]] | None:
    """One greedy draw of a world keeping the facts (`worlds.WorldFacts`' fields), or
    None when it paints itself into a corner (`worlds.sample_world` draws again)."""
    hands, cap, rest = pinned_start(capacity, pool, pinned)
    for c in cap:
        if c < 0:
            return None
    kloc = len(capacity) - 1
    if either is not None:
        assert starter is not None
        if not _place_either(t, either, starter, kloc, void, nopair, hands, cap, rest, rng,
                             relax_pairs):
            return None
    locs: list[int] = []
    for loc in range(kloc + 1):
        if cap[loc] > 0 or any(pinned[loc]):
            locs.append(loc)
    ps_of = t.play_suit
    # The places a card may go, per play suit (a void seat takes none).
    opts_of: list[list[int]] = []
    for ps in range(5):
        opts_of.append([loc for loc in locs if loc == kloc or not void[loc][ps]])
    cards: list[int] = []
    for i in range(N_IDS):
        for _ in range(rest[i]):
            cards.append(i)
    shuffle(cards, rng)
    # stable, the fewest places first: cards bucketed by their number of places
    buckets: list[list[int]] = [[] for _ in range(kloc + 2)]
    for i in cards:
        buckets[len(opts_of[ps_of[i]])].append(i)
    kitty_w = _KITTY_WEIGHTS.get(t)
    if kitty_w is None:
        kitty_w = _KITTY_WEIGHTS[t] = [kitty_weight(i, t) for i in range(N_IDS)]
    rand = rng.random
    choices: list[int] = []
    cum: list[float] = []
    for bucket in buckets:
        for i in bucket:
            ps = ps_of[i]
            choices.clear()
            cum.clear()
            total = 0.0
            for loc in opts_of[ps]:
                c = cap[loc]
                if c <= 0:
                    continue
                if loc != kloc:
                    if not relax_pairs and nopair[loc][ps] and hands[loc][i]:
                        continue
                    total += c * 1.0
                else:
                    total += c * kitty_w[i]
                cum.append(total)
                choices.append(loc)
            n = len(choices)
            if n == 0:
                return None
            loc = choices[0]
            if n > 1:  # `rng.choices(choices, weights)[0]`: the same draw, the same sums
                x: float = rand() * (total + 0.0)
                j = 0
                while j < n - 1 and cum[j] <= x:  # bisect_right over cum[:n - 1]
                    j += 1
                loc = choices[j]
            hands[loc][i] += 1
            cap[loc] -= 1
    return world_of(seat, hand, kitty_known, hands)


def _place_either(
    t: Trump, either: list[int], st: int, kloc: int, void: list[list[bool]],
    nopair: list[list[bool]], hands: Hands, cap: list[int], rest: list[int],
    rng: random.Random, relax_pairs: bool,
) -> bool:
    """Place the copies the starter declared with (§3.3): in its hand or in the hidden
    kitty (§4), weighted by the room left (and the kitty's prior); False if neither has
    room for one."""
    for i in range(N_IDS):
        n = either[i]
        ps = t.play_suit[i]
        for _ in range(n):
            choices: list[int] = []
            weights: list[float] = []
            if (cap[st] > 0 and not void[st][ps]
                    and (relax_pairs or not (nopair[st][ps] and hands[st][i]))):
                choices.append(st)
                weights.append(float(cap[st]))
            if cap[kloc] > 0:
                choices.append(kloc)
                weights.append(cap[kloc] * kitty_weight(i, t))
            if not choices:
                return False
            loc = choices[0] if len(choices) == 1 else rng.choices(choices, weights)[0]
            hands[loc][i] += 1
            cap[loc] -= 1
            rest[i] -= 1
    return True

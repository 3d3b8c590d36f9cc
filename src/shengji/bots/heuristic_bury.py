"""The heuristic's kitty (RULES §4): bury to make voids, keep what wins tricks.

`bury_options` scores every choice of side suits to empty (a void lets the starter
ruff them) filled up with the cheapest cards to keep: trumps, aces, pairs and points
are expensive (points buried risk the kitty multiplier, §8.1), and a side suit left
with one low card costs a little.
"""

from __future__ import annotations

from itertools import combinations

from ..botkit import CARDS, N_IDS, TRUMP, Trump, View
from .heuristic_base import LONE_PENALTY, PAIR_BONUS, HeuristicBase

__all__ = ["bury_options"]


def bury_options(bot: HeuristicBase, view: View, n: int) -> list[list[int]]:
    """The `n` best distinct kitties (ids) by this bot's judgement, best first (§4).

    A kitty is scored by what its cards are worth keeping (trumps, aces, pairs and
    points are expensive: points buried are at risk of the kitty multiplier, §8.1),
    with a bonus for each side suit it empties (a void lets the starter ruff).
    """
    t = view.trump
    assert t is not None
    hand = [c.id for c in view.hand]
    counts = [0] * N_IDS
    for i in hand:
        counts[i] += 1
    ps_of = t.play_suit
    level = t.level
    n_kitty = view.options.n_kitty  # 8 at four players; §12.1 at other tables

    def cost(i: int) -> float:
        c = CARDS[i]
        v = float(level[i])
        if ps_of[i] == TRUMP:
            return 1000.0 + v
        if c.rank == "A":
            v += bot.ace_keep
        v += bot.point_keep * c.points
        if counts[i] >= 2:
            v += PAIR_BONUS + 4
        return v

    side = [[i for i in hand if ps_of[i] == s] for s in range(4)]
    found: dict[tuple[int, ...], float] = {}
    suits = [s for s in range(4) if side[s]]
    for r in range(len(suits) + 1):
        for subset in combinations(suits, r):
            chosen = [i for s in subset for i in side[s]]
            if len(chosen) > n_kitty:
                continue
            # sums of float costs start at 0.0: compiled by mypyc, sum() from the int
            # 0 is read as an int and refuses the float it gets
            total = sum((cost(i) for i in chosen), 0.0) - bot.void_bonus * len(subset)
            rest = sorted(
                (i for i in hand if ps_of[i] == TRUMP or ps_of[i] not in subset),
                key=lambda i: (cost(i), i),
            )
            fill = rest[: n_kitty - len(chosen)]
            total += sum((cost(i) for i in fill), 0.0)
            total += _lone_cards(side, subset, fill, t) * bot.lone_penalty / LONE_PENALTY
            key = tuple(sorted(chosen + fill))
            if len(key) == n_kitty and total < found.get(key, float("inf")):
                found[key] = total
    ranked = sorted(found.items(), key=lambda kv: (kv[1], kv[0]))
    return [list(k) for k, _ in ranked[:n]]


def _lone_cards(
    side: list[list[int]], emptied: tuple[int, ...], fill: list[int], t: Trump
) -> float:
    """Bury rule: a side suit left with one low card is nearly a void wasted (§4).

    A lone card must be played the first time the suit is led and usually loses;
    burying it too would have made a void. A lone top card is fine.
    """
    penalty = 0.0
    for s in range(4):
        if s in emptied or not side[s]:
            continue
        left = list(side[s])
        for i in fill:
            if i in left:
                left.remove(i)
        if len(left) == 1 and t.level[left[0]] < len(t.ids_at_level[s]) - 1:
            penalty += LONE_PENALTY
    return penalty

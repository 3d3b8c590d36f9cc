"""The heuristic's declarations (RULES §3.3): declare when long in a suit.

`choose_declaration` picks among the legal declarations the one that makes the
largest share of the hand trumps (`trump_count`; a no-trump declaration by
`no_trump_score`) and declares it when that share is high enough for this moment of
the deal: more is asked early in the deal, less in the final window, and overturning a
partner's declaration needs a much better suit than an opponent's. In friends mode
(§12.4) there are no partners yet: only the seat's own declaration counts as one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import Action, Declare, Pass
from ..botkit import Card, View

__all__ = ["choose_declaration", "no_trump_score", "standing_quality", "trump_count"]


def trump_count(hand: Sequence[Card], rank: str | None, suit: str | None) -> float:
    """How many of these cards would be trumps (high trumps count a bit more)."""
    n = 0.0
    for c in hand:
        if c.is_joker:
            n += 1.5
        elif c.rank == rank:
            n += 1.3 if c.suit == suit else 1.1
        elif suit is not None and c.suit == suit:
            n += 1.1 if c.rank in ("A", "K") else 1.0
    return n


def no_trump_score(hand: Sequence[Card]) -> float:
    """A no-trump round favours aces, pairs and jokers."""
    score = 0.0
    seen: set[int] = set()
    for c in hand:
        if c.is_joker:
            score += 1.5
        elif c.rank == "A":
            score += 1.2
        if c.id in seen:
            score += 0.5
        seen.add(c.id)
    return score


def choose_declaration(
    view: View, seat: int, options: Sequence[Sequence[Card]], rng: random.Random
) -> Action:
    """Declare one of `options` (the seat's legal declarations, not empty) or pass.

    `rng` breaks near-ties in the deal (a little noise on the length asked for).
    """
    rank = view.trump_rank
    hand = view.hand
    n = len(hand)
    final = view.phase == "declare"
    first_round = view.declaring_team is None  # the declaration picks the declarers
    friends = bool(view.sides)  # friends mode (§12.4): no teams; later rounds have a leader
    if friends:
        first_round = view.starter is None
    standing = view.declarer
    best: tuple[float, tuple[Card, ...]] | None = None
    for opt in options:
        cards = tuple(opt)
        if cards[0].is_joker:
            q = no_trump_score(hand) - 1.0
        else:
            q = trump_count(hand, rank, cards[0].suit)
        frac = q / max(n, 1)
        if best is None or frac > best[0]:
            best = (frac, cards)
    assert best is not None
    frac, cards = best
    if standing is None:
        if final:
            ok = first_round or frac >= 0.28
        else:
            # Early in the deal a long suit is a weak signal: ask for more.
            need = 0.5 if n < 6 else 0.4 if n < 12 else 0.34
            ok = frac >= need + rng.uniform(-0.02, 0.02)
    elif (standing == seat) if friends else standing % 2 == seat % 2:
        cur = standing_quality(view, hand)
        ok = frac - cur >= 0.2 and not first_round
    else:
        cur = standing_quality(view, hand)
        gain = frac - cur
        ok = (first_round and (frac >= 0.3 or final)) or gain >= 0.08
    return Declare(seat, cards) if ok else Pass(seat)


def standing_quality(view: View, hand: Sequence[Card]) -> float:
    """The share of `hand` the standing declaration would make trumps (as `trump_count`
    or `no_trump_score` reads them); 0 with no declaration yet."""
    decl = view.declarations[-1][1] if view.declarations else ()
    if not decl:
        return 0.0
    if decl[0].is_joker:
        return no_trump_score(hand) / max(len(hand), 1)
    return trump_count(hand, view.trump_rank, decl[0].suit) / max(len(hand), 1)

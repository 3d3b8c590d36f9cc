"""Points, the kitty multiplier, failed-throw penalties and level changes (RULES §6.4, §7-§9)."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import RANKS, Card, card_points
from .options import RuleOptions
from .vocab import Gainer

A_LEVEL = 12
"""Level index of A (§2); a level above it has won the game (§9)."""


def kitty_points(kitty: Iterable[Card], cards_per_player: int) -> int:
    """Kitty points with the §8.1 multiplier `2 × c` (single ×2, pair ×4, five cards ×10)."""
    return card_points(kitty) * 2 * cards_per_player


def kitty_multiplier(mode: str, cards_per_player: int, largest_unit_pairs: int) -> int:
    """The kitty multiplier of §8.1 for the last trick.

    `mode` is the option `kitty_multiplier`: `"per_card"` gives 2 × the cards each
    player played to the last trick; `"flat"` always 2; `"power"` 2^(k+1) for the
    largest unit of the winning play, k its pairs (single ×2, pair ×4, a tractor of
    k pairs ×2^(k+1)). The winning play of a trick matches the lead unit by unit
    (§6.3), so the engine passes the lead's largest unit: a ruff that happens to hold a
    longer tractor than the lead asked for counts as the units it won with. With more
    decks (RULES §12.3: "the kitty multiplier is unchanged") the round passes the unit's
    `power` in place of its pairs, (k−1)·length for a tractor of k-tuples (`shapes.Unit`),
    which is the pairs for d = 2.
    """
    if mode == "flat":
        return 2
    if mode == "power":
        return 2 << largest_unit_pairs
    return 2 * cards_per_player


def throw_penalty(attempted: int, forced: int, options: RuleOptions) -> int:
    """Points a failed throw of `attempted` cards costs when `forced` of them stay led
    (§6.4): per card taken back (`throw_penalty="returned"`), per card of the throw
    (`"attempted"`) or nothing (`"none"`), `throw_penalty_per_card` each."""
    mode = options.throw_penalty
    if mode == "none":
        return 0
    cards = attempted if mode == "attempted" else attempted - forced
    return cards * options.throw_penalty_per_card


def level_change(
    opponent_points: int, band_80_115: str = "swap", decks: int = 2
) -> tuple[Gainer, int]:
    """Who goes up and by how much for the opponents' final points (RULES §8.2, §12.3).

    Returns `("declarers", n)` or `("opponents", n)`. With `decks` = d the bands are
    s = 20·d points wide (RULES §12.3 Decision): T ≤ 0 gives the declarers +3, 5 … s−5
    +2, s … 2s−5 +1, 2s … 3s−5 the swap, then the opponents +1, +2, +3 a band and one
    more for each further full s. With d = 2 (s = 40) this is the table of §8.2.
    The swap band gives `("opponents", 0)` (the opponents take over without a level
    change), or `("declarers", 0)` with the `band_80_115="stay"` option.
    """
    t = opponent_points
    if t <= 0:
        return ("declarers", 3)
    band = t // (20 * decks)  # 0 for 5 … s−5, 1 for s … 2s−5, …
    if band < 2:
        return ("declarers", 2 - band)
    if band == 2:
        return ("opponents", 0) if band_80_115 == "swap" else ("declarers", 0)
    return ("opponents", band - 2)


def new_level(level: int, gain: int, as_declarers: bool, options: RuleOptions) -> int:
    """A team's level index after gaining `gain` levels (§8.2) under the §9 options.

    - `max_levels_per_round`: the gain is at most that many levels;
    - `stop_levels`: the level stops at the first listed rank it would jump over
      (landing on it, or starting from it, is not jumping over it);
    - `win_at_a="as_declarers"`: the opponents' gains stop at A, so a team at A wins
      only by gaining as declarers (a declaring team's gain is not stopped).

    Level indices: 0 is "2", 12 is "A", 13 and above is beyond A (§9).
    """
    cap = options.max_levels_per_round
    if cap is not None and gain > cap:
        gain = cap
    new = level + gain
    stops = options.stop_levels
    if stops:
        for rank in stops:
            stop = RANKS.index(rank)
            if level < stop < new:
                new = stop
                break
    if options.win_at_a == "as_declarers" and new > A_LEVEL and not as_declarers:
        new = A_LEVEL
    return new

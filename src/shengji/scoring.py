"""Points, the kitty multiplier and level changes (RULES §7, §8)."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import Card, card_points


def kitty_points(kitty: Iterable[Card], cards_per_player: int) -> int:
    """Kitty points with the §8.1 multiplier `2 × c` (single ×2, pair ×4, five cards ×10)."""
    return card_points(kitty) * 2 * cards_per_player


def level_change(opponent_points: int, band_80_115: str = "swap") -> tuple[str, int]:
    """Who goes up and by how much for the opponents' final points (RULES §8.2).

    Returns `("declarers", n)` or `("opponents", n)`. The 80-115 band gives
    `("opponents", 0)` (the opponents take over without a level change), or
    `("declarers", 0)` with the `band_80_115="stay"` option.
    """
    t = opponent_points
    if t <= 0:
        return ("declarers", 3)
    if t < 40:
        return ("declarers", 2)
    if t < 80:
        return ("declarers", 1)
    if t < 120:
        return ("opponents", 0) if band_80_115 == "swap" else ("declarers", 0)
    if t < 160:
        return ("opponents", 1)
    if t < 200:
        return ("opponents", 2)
    return ("opponents", 3 + (t - 200) // 40)

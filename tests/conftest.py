"""Shared test helpers."""

from __future__ import annotations

from shengji import Card, parse_cards


def C(text: str) -> list[Card]:  # noqa: N802 - short helper for card lists
    """Cards from notation."""
    return parse_cards(text)

"""Shared test helpers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from shengji import Card, parse_cards


def C(text: str) -> list[Card]:  # noqa: N802 - short helper for card lists
    """Cards from notation."""
    return parse_cards(text)


@pytest.fixture(scope="module")
def _playwright() -> Iterator[Any]:
    """The Playwright driver, shared by a test file (it holds no browser or page)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p

"""The card counter panel (记牌器, issue 32) in headless Chromium.

As in tests/test_browser_table.py the page is served by the real server and its WebSocket
answered by the test with real engine views, here carrying the counter the server would
add (`shengji.counter.card_counter`); then a later state, one trick on, must change the
numbers on screen. The lobby's switch is checked against the real server.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_helpers import (
    FakeServer,
    in_phase,
    new_page,
    open_lobby,
    show_fake,
    state_of,
    submit_create,
)
from shengji import Game
from shengji.counter import card_counter

pytestmark = [pytest.mark.browser, pytest.mark.timeout(60)]


def _with_counter(g: Game, you: int, seq: int) -> dict[str, Any]:
    st = state_of(g, you, settings={"card_counter": True})
    st["seq"] = seq
    st["view"]["counter"] = card_counter(g.view(you))
    return st


def _out(page: Any, sel: str) -> int:
    return int(page.get_attribute(f"#card-counter {sel}", "data-out"))


def test_the_panel_shows_the_counter_and_its_numbers_change_after_a_trick(
    server: str, browser: Any
) -> None:
    g = in_phase(7, "play", 2)
    you = 0
    first = _with_counter(g, you, 1)
    n = len(g.round.tricks)
    g2 = in_phase(7, "play", n + 1)
    second = _with_counter(g2, you, 2)
    c1, c2 = first["view"]["counter"], second["view"]["counter"]
    # one trick (RULES §6: 4 plays) more is out of play in the second state
    assert sum(s["out"] + s["mine"] for s in c1["suits"].values()) > sum(
        s["out"] + s["mine"] for s in c2["suits"].values())
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        fake = FakeServer(first)
        show_fake(page, server, fake, "#card-counter .cc-suit[data-suit='T']")
        for key, s in c1["suits"].items():
            if s["total"]:
                assert _out(page, f".cc-suit[data-suit='{key}']") == s["out"], key
        shown = page.eval_on_selector_all("#card-counter .cc-card",
                                          "els => els.map(e => e.dataset.card)")
        assert shown == [t["card"] for t in c1["top_trumps"]]
        assert str(c1["points_out"]) in page.inner_text("#card-counter summary")
        fake.push(second)
        page.wait_for_function(
            "n => [...document.querySelectorAll('#card-counter .cc-suit')]"
            ".reduce((a, e) => a + Number(e.dataset.out), 0) === n",
            arg=sum(s["out"] for s in c2["suits"].values()),
        )
        for key, s in c2["suits"].items():
            if s["total"]:
                assert _out(page, f".cc-suit[data-suit='{key}']") == s["out"], key
        # the panel folds away and opens again
        page.click("#card-counter summary")
        assert page.get_attribute("#card-counter", "open") is None
        page.click("#card-counter summary")
        assert page.get_attribute("#card-counter", "open") is not None


def test_no_panel_without_the_counter_and_the_lobby_switch_turns_it_on(
    server: str, browser: Any
) -> None:
    g = in_phase(7, "play", 1)
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        show_fake(page, server, FakeServer(state_of(g, 0)), "#trick-history")
        assert page.locator("#card-counter").count() == 0
    with new_page(browser) as page:
        open_lobby(page, server)
        page.fill("input[name=table-name]", "counted")
        page.check("input[name=card_counter]")
        tid = submit_create(page)
        settings = page.evaluate(
            "id => fetch('/api/tables/' + id).then(r => r.json()).then(j => j.settings)", tid)
        assert settings["card_counter"] is True

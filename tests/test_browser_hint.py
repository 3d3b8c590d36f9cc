"""The Hint button at the table, in headless Chromium (issue 32).

End to end: at a real table against three bots (hints left to the default, so on), the
player waits for its bury or its turn, clicks Hint, and the search's suggestion arrives
over the real WebSocket and is selected in the hand, ready to play. Then, exactly: the
page is served by the real server, its WebSocket answered by the test (as in
test_browser_table) with a real engine view, and the `hint` it answers is the real
search's (`shengji.analysis.suggest` on that seat's view). Clicking Hint sends
{"type":"hint"}, selects the suggested cards in the hand and shows the reason in the
player's language; a table with hints off shows no button.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from browser_helpers import (
    CORNER,
    FakeServer,
    catalogue,
    create_table_and_sit,
    lead_position,
    new_page,
    open_lobby,
    show_fake,
    state_of,
    submit_create,
)
from shengji.analysis import suggest

browser_only = pytest.mark.browser


class HintServer(FakeServer):
    """One state, then a real hint for that seat's view whenever the client asks."""

    def __init__(self, state: dict[str, Any], hint: dict[str, Any]) -> None:
        super().__init__(state)
        self.hint = hint

    def answer(self, m: dict[str, Any]) -> None:
        """The state to hello, the hint to hint, always legal to check; nothing else."""
        if m["type"] == "hint":
            self.push({"type": "hint", "seq": self.state["seq"], **self.hint})
        elif m["type"] in ("hello", "check"):
            super().answer(m)


@browser_only
@pytest.mark.timeout(90)
def test_hint_selects_the_suggested_cards_and_shows_the_reason(server: str, browser: Any) -> None:
    g, seat = lead_position(5)
    st = state_of(g, seat, settings={"hints": True})
    hint = suggest(g.view(seat), seed=3).to_json()
    assert hint["kind"] == "play" and hint["cards"]
    en = catalogue("en")
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        fake = HintServer(st, hint)
        show_fake(page, server, fake)
        # a card picked by hand first: the hint replaces the selection
        page.locator("#hand .card").first.click(position=CORNER)
        page.click("#hint-btn")
        page.wait_for_selector("#hint-note")
        assert [m for m in fake.sent if m["type"] == "hint"] == [{"type": "hint"}]
        chosen = page.locator("#hand .card.sel").evaluate_all(
            "els => els.map(e => e.dataset.card)")
        assert sorted(chosen) == sorted(hint["cards"])
        note = page.inner_text("#hint-note")
        key = hint["reason"]["key"]
        assert en[key].split("{")[0].strip() in note  # worded from the key, in English
        assert page.get_attribute("#hint-note", "data-cards") == " ".join(hint["cards"])
        page.wait_for_selector("#play-btn:not([disabled])")  # the suggestion is playable


@browser_only
@pytest.mark.timeout(60)
def test_no_hint_button_where_hints_are_off(server: str, browser: Any) -> None:
    g, seat = lead_position(5)
    st = state_of(g, seat, settings={"hints": False})
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        show_fake(page, server, HintServer(st, {}))
        page.wait_for_selector("#play-btn")
        assert page.locator("#hint-btn").count() == 0


MY_DECISION_JS = """() => {
  const m = document.querySelector('main.table-page');
  return !!m && (m.dataset.phase === 'play' || m.dataset.phase === 'kitty')
    && m.dataset.me !== '' && m.dataset.toAct === m.dataset.me
    && !!document.querySelector('#hint-btn');
}"""


@browser_only
@pytest.mark.timeout(180)
def test_hint_end_to_end_against_bots(server: str, browser: Any) -> None:
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        create_table_and_sit(page, server)
        page.click("#start-btn")
        page.wait_for_function(MY_DECISION_JS, timeout=120_000)
        phase = page.get_attribute("main.table-page", "data-phase")
        page.click("#hint-btn")
        page.wait_for_selector("#hint-note", timeout=30_000)
        suggested = (page.get_attribute("#hint-note", "data-cards") or "").split()
        assert page.get_attribute("#hint-note", "data-kind") == ("bury" if phase == "kitty"
                                                                 else "play")
        assert len(suggested) == 8 or phase == "play"
        chosen = page.locator("#hand .card.sel").evaluate_all(
            "els => els.map(e => e.dataset.card)")
        assert sorted(chosen) == sorted(suggested) and chosen
        ready = "#bury-btn:not([disabled])" if phase == "kitty" else "#play-btn:not([disabled])"
        page.wait_for_selector(ready)


@browser_only
@pytest.mark.timeout(60)
def test_the_host_chooses_hints_in_the_create_form(server: str, browser: Any) -> None:
    import urllib.request

    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_lobby(page, server)
        page.fill("input[name=table-name]", "hints on")
        # "on": with no human seated yet, the default (null) would read false
        page.select_option("select[name=hints]", "on")
        table_id = submit_create(page)
    with urllib.request.urlopen(f"{server}/api/tables/{table_id}", timeout=10) as r:
        assert json.loads(r.read())["settings"]["hints"] is True

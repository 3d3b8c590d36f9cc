"""Accessibility of the lobby and the table: axe-core in headless Chromium (issue #29 item 10).

axe-core (MPL-2.0, vendored unmodified as test data in tests/data/axe/) runs in the page
and reports violations of the rules a first player's screen reader tripped on: the
primary button's contrast (>= 4.5:1), face-card buttons whose accessible name lacks their
visible text, the lobby left in the accessibility tree behind the rules overlay, and the
heading order around the chat. The table is answered by a fake WebSocket with real
engine views (as in tests/test_browser_table.py).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from browser_helpers import FakeServer, new_page, open_lobby, open_table, show_fake, state_of

AXE = Path(__file__).resolve().parent / "data" / "axe" / "axe.min.js"
RULES = [
    "color-contrast",
    "label-content-name-mismatch",
    "heading-order",
    "aria-hidden-focus",
    "button-name",
    "aria-dialog-name",
]
SIZES = [{"width": 1366, "height": 800}, {"width": 390, "height": 844}]

AXE_JS = """async (rules) => {
  const r = await axe.run(document, {runOnly: {type: 'rule', values: rules}});
  return {
    violations: r.violations.map(v => ({id: v.id, nodes: v.nodes.map(n => n.target.join(' '))})),
    passes: r.passes.map(v => v.id),
  };
}"""


def axe(page: Any) -> dict[str, Any]:
    """axe-core's verdict on the page as it is now (the script is injected once per page)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    out: dict[str, Any] = page.evaluate(AXE_JS, RULES)
    return out


def a11y_page(browser: Any, size: dict[str, int]) -> Any:
    # bypass_csp: the server's CSP (script-src 'self') would refuse the injected axe script.
    return new_page(browser, viewport=size, bypass_csp=True)


@pytest.mark.browser
@pytest.mark.timeout(90)
@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_the_lobby_and_the_rules_overlay_pass_axe(
    server: str, browser: Any, size: dict[str, int]
) -> None:
    with a11y_page(browser, size) as page:
        open_lobby(page, server, "#create-btn")
        res = axe(page)
        assert res["violations"] == [], res["violations"]
        assert "color-contrast" in res["passes"]  # the primary "Create" button was checked
        page.click("#rules-link")
        page.wait_for_selector("#rules")
        # The rules are a modal dialog: what is behind it is inert and hidden from the
        # accessibility tree, and the dialog is not.
        behind = page.evaluate(
            "() => [...document.querySelectorAll('.app > :not(#rules)')].map("
            "e => [e.tagName, e.inert, e.getAttribute('aria-hidden')])"
        )
        assert behind and all(inert and hidden == "true" for _, inert, hidden in behind), behind
        assert page.evaluate("document.querySelector('#rules').closest('[inert]') === null")
        res = axe(page)
        assert res["violations"] == [], res["violations"]
        page.go_back()  # the rules close: the page is back in reach
        page.wait_for_function("() => !document.querySelector('#rules')")
        # (the overlay goes first and the effect that lifts `inert` runs after it, so
        # wait for the page to be back in reach rather than read it in that instant)
        reach = (
            "() => [...document.querySelectorAll('.app > *')].map("
            "e => e.inert || e.hasAttribute('aria-hidden'))"
        )
        # (past the wait, the assertion below says what is still out of reach)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(f"() => {{ const a = ({reach})(); "
                                   "return a.length > 0 && !a.some(Boolean); }",
                                   timeout=10_000)
        after = page.evaluate(reach)
        assert after and not any(after), after


@pytest.mark.browser
@pytest.mark.timeout(90)
@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_the_table_passes_axe(
    server: str, browser: Any, play_state: dict[str, Any], size: dict[str, int]
) -> None:
    with a11y_page(browser, size) as page:
        open_table(page, server, play_state)
        page.wait_for_selector("#hand .card")
        faces = page.locator("#hand button.card:has(.face)")
        assert faces.count() > 0  # the hand holds face cards: their names are checked
        res = axe(page)
        assert res["violations"] == [], res["violations"]
        assert {"label-content-name-mismatch", "heading-order"} <= set(res["passes"]), res["passes"]
        # The visible corner is part of each face card's name ("K of hearts" shows "K").
        for i in range(faces.count()):
            card = faces.nth(i)
            assert card.inner_text().split()[0] in (card.get_attribute("aria-label") or "")


@pytest.mark.browser
@pytest.mark.timeout(90)
def test_the_waiting_room_passes_axe(server: str, browser: Any) -> None:
    from shengji import Game

    seats = [{"name": n, "kind": "human", "connected": True} for n in ("Ann", "Bo", "Cy", "Di")]
    st = state_of(Game(seed=1), 0, status="waiting", seats=seats)
    st["is_host"] = True
    with a11y_page(browser, SIZES[0]) as page:
        show_fake(page, server, FakeServer(st), "#start-btn:not([disabled])")
        res = axe(page)
        assert res["violations"] == [], res["violations"]
        assert "heading-order" in res["passes"]

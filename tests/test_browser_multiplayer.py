"""Play with friends: two people in two browsers at one table (headless Chromium).

The host creates a table in the lobby and sits at seat 0; a friend opens the shared
link `/t/{id}` in a separate browser context (its own localStorage) and sits at seat 1
by name; the host fills seats 2 and 3 with bots and starts. Both people play a whole
round by clicking cards, one loop driving both pages. Mid-round the friend reloads the
page and is put back in the seat with the same hand (seat token in localStorage). At
the end both pages show the round summary.

Hidden information is checked against the server's truth: every `state` message each
page receives over its WebSocket is recorded; each page's hand in the DOM must be the
hand the server sent to that page's seat, the friend's page only ever receives seat 1's
view, and at any one step the two hands together hold at most two copies of any card
(the deck has two of each), so the friend's page never shows the host's cards.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from browser_helpers import (
    ARTIFACTS,
    STATE_JS,
    add_bots,
    choose_play,
    create_and_sit,
    new_page,
    sit,
)

VIEWPORT = {"width": 1280, "height": 860}


class Wire:
    """The `state` messages one page receives, across reloads (each new WebSocket)."""

    def __init__(self, page: Any) -> None:
        self.states: list[dict[str, Any]] = []
        page.on("websocket", self._attach)

    def _attach(self, ws: Any) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload: Any) -> None:
        if isinstance(payload, bytes):
            payload = payload.decode("utf-8")
        with contextlib.suppress(ValueError):
            msg = json.loads(payload)
            if isinstance(msg, dict) and msg.get("type") == "state":
                self.states.append(msg)

    def hand(self) -> list[str]:
        """The latest hand the server sent (empty before any view)."""
        for m in reversed(self.states):
            if m.get("view"):
                return list(m["view"]["hand"])
        return []


def dom_hand(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)"))


def wait_hand_is_servers(page: Any, wire: Wire, timeout_s: float = 5) -> list[str]:
    """The DOM hand settles on the latest hand the server sent to this page's seat."""
    deadline = time.monotonic() + timeout_s
    while True:
        dom, truth = dom_hand(page), wire.hand()
        if Counter(dom) == Counter(truth):
            return dom
        if time.monotonic() > deadline:
            raise AssertionError(f"DOM hand {sorted(dom)} != server hand {sorted(truth)}")
        page.wait_for_timeout(50)


def check_hidden(host: Any, guest: Any, wires: dict[int, Wire]) -> None:
    """Each page shows only its own seat's hand, as the server sent it."""
    h = Counter(wait_hand_is_servers(host, wires[0]))
    g = Counter(wait_hand_is_servers(guest, wires[1]))
    both = h + g
    assert all(n <= 2 for n in both.values()), f"a card shown on both pages: {both}"
    # Cards the host holds twice can be in no other hand: the friend's page must not show them.
    pairs = {c for c, n in h.items() if n == 2}
    assert not pairs & set(g), (sorted(pairs), sorted(g))


def token_of(page: Any, table_id: str) -> str | None:
    return page.evaluate("k => localStorage.getItem(k)", f"shengji.token.{table_id}")  # type: ignore[no-any-return]


VISIBLE_POINT_JS = """(el) => {
  el.scrollIntoView({block: 'nearest'});
  const r = el.getBoundingClientRect();
  const mid = (r.top + r.bottom) / 2;
  // rows from the card's middle outwards: a point well inside it, never at an edge that
  // its hover lift (6 px) or a neighbour's could move off the card
  const ys = [mid];
  for (let d = 8; d < (r.bottom - r.top) / 2 - 8; d += 8) ys.push(mid - d, mid + d);
  for (const y of ys)
    for (let x = r.left + 4; x < r.right - 2; x += 4)
      if (document.elementFromPoint(x, y)?.closest('.card') === el)
        return {x: x - r.left, y: y - r.top};  // relative to the card, measured together
  return null;
}"""

#: true once no transition or animation runs on the card (a hover lift, a selection rise)
SETTLED_JS = "(i) => { const el = document.querySelector(`#hand .card[data-index='${i}']`);" \
    " return !!el && el.getAnimations().length === 0; }"


def click_cards(page: Any, indices: list[int]) -> None:
    """Click each card where it shows, right to left: a selected card rises above its right
    neighbour and may hide that card's visible strip.

    One click per card, no retry: the click goes through Playwright's actionability checks
    (the card is stable and is what receives the click at that point), and hand cards are
    keyed by the card itself (hand.js), so a state that re-renders the hand as the click
    lands never turns the element into another card. A click that does not toggle its
    card is a failure of the client, not of the machine.
    """
    xs = {
        i: page.locator(f"#hand .card[data-index='{i}']").evaluate(
            "e => e.getBoundingClientRect().left"
        )
        for i in indices
    }
    for i in sorted(indices, key=lambda i: -xs[i]):
        card = page.locator(f"#hand .card[data-index='{i}']")
        was = card.get_attribute("aria-pressed")
        page.wait_for_function(SETTLED_JS, arg=i, timeout=5000)
        at = card.evaluate(VISIBLE_POINT_JS)
        assert at, f"hand card {i} is hidden under others"
        card.click(position=at)
        page.mouse.move(1, 1)  # no hover left on the hand
        page.wait_for_function(
            "([i, was]) => document.querySelector(`#hand .card[data-index='${i}']`)"
            "?.getAttribute('aria-pressed') !== was",
            arg=[i, was],
            timeout=5000,
        )


class Player:
    """One person at the table: a page, its seat and what it has done."""

    def __init__(self, page: Any, seat: int, wire: Wire) -> None:
        self.page, self.seat, self.wire = page, seat, wire
        self.declared = False
        self.plays = 0
        self.cards = 0
        self.buried = 0

    def step(self) -> str:
        """Act once if it is this seat's turn. Returns the phase seen ('summary' at the end)."""
        page = self.page
        st = page.evaluate(STATE_JS)
        if st is None or st["me"] == "":
            return ""
        assert st["me"] == str(self.seat), st["me"]
        if st["summary"]:
            return "summary"
        phase, mine = st["phase"], st["toAct"] == st["me"]
        if phase in ("deal", "declare"):
            # The buttons come and go with the deal: a missed click is not an error.
            if st["decl"] and not self.declared:
                with contextlib.suppress(PlaywrightTimeout):
                    page.locator(".decl-btn").first.click(timeout=500)
                    self.declared = True
            elif st["pass"]:
                with contextlib.suppress(PlaywrightTimeout):
                    page.locator("#pass-btn").click(timeout=500)
        elif phase == "kitty" and mine and st["bury"]:
            click_cards(page, [h["i"] for h in st["hand"][:8]])
            page.wait_for_selector("#bury-btn:not([disabled])")
            page.click("#bury-btn")
            page.wait_for_function("() => document.querySelector('main').dataset.phase !== 'kitty'")
            self.buried += 1
        elif phase == "play" and mine and st["play"] is not None:
            hand = st["hand"]
            choice = choose_play(hand, st["lead"], st["leadSuit"])
            click_cards(page, choice)
            page.wait_for_selector("#play-btn:not([disabled])", timeout=5000)
            page.click("#play-btn")
            page.wait_for_function(
                f"() => document.querySelectorAll('#hand .card').length < {len(hand)}"
                " || !!document.querySelector('#summary')"
            )
            self.plays += 1
            self.cards += len(choice)
        return str(phase)


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_two_friends_play_a_round(server: str, browser: Any) -> None:  # noqa: F811
    t0 = time.monotonic()
    with (
        new_page(browser, viewport=VIEWPORT) as host,
        new_page(browser, viewport=VIEWPORT) as guest,
    ):
        wires = {0: Wire(host), 1: Wire(guest)}
        table_id = create_and_sit(host, server, "Hana", "friends table")
        host_token = token_of(host, table_id)
        assert host_token

        # The friend follows the shared link in another browser: no token there.
        guest.goto(f"{server}/t/{table_id}")
        guest.wait_for_selector(".seat[data-seat='1'] .sit-btn")
        assert token_of(guest, table_id) is None
        assert guest.locator("#start-btn").count() == 0  # only the host starts
        sit(guest, "Minh", seat=1)
        guest_token = token_of(guest, table_id)
        assert guest_token and guest_token != host_token
        # The host sees the friend arrive, by name, then fills the table with bots.
        host.wait_for_function(
            "() => (document.querySelector(\".seat[data-seat='1'] .seat-name\")"
            " || {}).textContent === 'Minh'"
        )
        assert guest.inner_text(".seat[data-seat='0'] .seat-name").strip() == "Hana"
        add_bots(host, ((2, "heuristic"), (3, "random")))
        host.wait_for_selector("#start-btn:not([disabled])")
        host.click("#start-btn")
        for page in (host, guest):
            page.wait_for_selector("main[data-status='playing']")

        players = [Player(host, 0, wires[0]), Player(guest, 1, wires[1])]
        reloaded = False
        shot = False
        checks = 0
        done: set[int] = set()
        deadline = time.monotonic() + 120
        while len(done) < 2:
            assert time.monotonic() < deadline, "the round did not end in 120 s"
            phases = []
            for p in players:
                if p.seat in done:
                    continue
                ph = p.step()
                phases.append(ph)
                if ph == "summary":
                    done.add(p.seat)
            if done:
                time.sleep(0.03)
                continue
            if "play" in phases and guest.locator("#hand .card").count() and checks < 40:
                check_hidden(host, guest, wires)
                checks += 1
            if not shot and "play" in phases and players[1].plays >= 3:
                shot = True
                host.screenshot(path=str(ARTIFACTS / "multi-host.png"))
                guest.screenshot(path=str(ARTIFACTS / "multi-guest.png"))
            if not reloaded and "play" in phases and players[1].plays >= 8:
                # Mid-round the friend reloads: the stored token puts them back in seat 1.
                before = wait_hand_is_servers(guest, wires[1])
                assert 0 < len(before) < 25, before
                guest.reload()
                guest.wait_for_selector(".seat[data-seat='1'] .you")
                guest.wait_for_function(
                    f"() => document.querySelectorAll('#hand .card').length === {len(before)}"
                    " || !!document.querySelector('#summary')"
                )
                assert guest.evaluate("document.querySelector('main').dataset.me") == "1"
                assert token_of(guest, table_id) == guest_token
                if not guest.locator("#summary").count():
                    assert Counter(dom_hand(guest)) == Counter(before)
                reloaded = True
            time.sleep(0.03)

        assert reloaded, "the round ended before the friend reloaded"
        assert shot and checks >= 5, checks
        for p in players:
            assert p.cards == 25, (p.seat, p.cards)  # every card of the hand, trick by trick
        for page in (host, guest):
            assert page.locator("#summary").is_visible()
            assert page.locator("#sum-points").inner_text().strip().lstrip("-").isdigit()
            assert page.locator("#summary [data-card]").count() == 8  # the kitty, shown to all
        host.screenshot(path=str(ARTIFACTS / "multi-host-summary.png"))
        guest.screenshot(path=str(ARTIFACTS / "multi-guest-summary.png"))

        # The wire: each page only ever received its own seat's view.
        for seat, wire in wires.items():
            assert wire.states, seat
            for m in wire.states:
                v = m.get("view") or {}
                if m.get("you") is None:
                    assert v.get("seat") is None and not v.get("hand"), (seat, m.get("seq"))
                else:
                    assert m["you"] == seat and v.get("seat") == seat, (seat, m.get("seq"))
        # At the same step the two hands never share more than the deck's two copies.
        by_seq: dict[int, dict[int, Counter[str]]] = {}
        for seat, wire in wires.items():
            for m in wire.states:
                if m.get("view") and m.get("you") == seat:
                    by_seq.setdefault(m["seq"], {})[seat] = Counter(m["view"]["hand"])
        shared = [s for s, hs in by_seq.items() if len(hs) == 2]
        assert len(shared) > 20, len(shared)
        for s in shared:
            both = by_seq[s][0] + by_seq[s][1]
            assert all(n <= 2 for n in both.values()), (s, both)
            # Equal hands would mean one page shows the other's hand, unless they are
            # tiny (late in the round two seats may each hold one copy of the same card).
            small = sum(by_seq[s][0].values()) <= 3
            assert by_seq[s][0] != by_seq[s][1] or small, s
    print(f"two friends played a round in {time.monotonic() - t0:.1f}s; checks {checks}")

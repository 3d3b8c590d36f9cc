"""A seat link used mid-game waits (issue 28 item 3, docs/WEB_PROTOCOL.md "Seats
mid-game"), in headless Chromium: the claimant is told what it waits for, a seated
player of the accepting team gets Accept / Refuse and sends `accept_claim`, the host's
own team is not asked, and the table's own chat lines are not shown as a spectator's.
The page is the real client; its WebSocket is answered by the test (test_browser_table).
"""
from __future__ import annotations

from typing import Any

import pytest

from browser_helpers import FakeServer, in_phase, new_page, open_table, state_of
from shengji import Game

pytestmark = pytest.mark.browser


def _mid_round() -> Game:
    return in_phase(5, "play", 2)


@pytest.mark.parametrize("size", [(1366, 800), (390, 844)])
def test_an_opponent_is_asked_to_accept_a_claim_and_answers_with_accept_claim(
    server: str, browser: Any, size: tuple[int, int]
) -> None:
    g = _mid_round()
    claim = {"seat": 2, "name": "Mallory", "team": 1}
    with new_page(browser, viewport={"width": size[0], "height": size[1]}) as page:
        fake = open_table(page, server, state_of(g, 1, claims=[claim]))
        ask = page.locator(".claim-ask[data-seat='2']")
        ask.wait_for()
        assert "Mallory" in ask.inner_text()
        assert ask.locator(".claim-accept").is_visible()
        ask.locator(".claim-accept").click()
        for _ in range(400):  # the message event, polled through the page (up to 20 s)
            if any(m["type"] == "accept_claim" for m in fake.sent):
                break
            page.wait_for_timeout(50)
        sent = [m for m in fake.sent if m["type"] == "accept_claim"]
        assert sent == [{"type": "accept_claim", "seat": 2, "accept": True}]


def test_only_the_accepting_team_is_asked(server: str, browser: Any) -> None:
    g = _mid_round()
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_table(page, server, state_of(g, 2, claims=[{"seat": 1, "name": "M", "team": 1},
                                                        {"seat": 3, "name": "N", "team": 0}]))
        # seat 2 is of team 0: it is asked about the claim whose team is 0, not the other
        page.locator(".claim-ask[data-seat='3']").wait_for()
        assert page.locator(".claim-ask").count() == 1


class ClaimantServer(FakeServer):
    """Answers hello with a spectator's state, then the claim's `claim_pending`."""

    def answer(self, m: dict[str, Any]) -> None:
        """The state, the claim and the table's line to hello; nothing else."""
        if m["type"] == "hello":
            self.push(self.state)
            self.push({"type": "claim_pending", "seat": 3, "waiting_for": "acceptance"})
            self.push({"type": "chat", "messages": [
                {"n": 1, "at": "2026-12-02T00:00:00+00:00", "seat": None,
                 "name": "Table", "system": True,
                 "text": "Mallory asks for seat 3 with a seat link"}]})


def test_the_claimant_is_told_it_waits_and_the_tables_lines_are_the_tables(
    server: str, browser: Any
) -> None:
    import re

    g = _mid_round()
    state = state_of(g, 0)
    state["you"] = None
    state["view"] = g.view(None).to_json()
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        page.route_web_socket(re.compile(r".*/ws/.*"), ClaimantServer(state))
        page.goto(server + "/t/fake")
        wait = page.locator("#claim-wait")
        wait.wait_for()
        assert "seat 4" in wait.inner_text() and "other team" in wait.inner_text()
        line = page.locator(".chat-msg.system", has_text="Mallory asks")
        line.wait_for()
        assert line.locator(".chat-who").inner_text() == "Table"

"""Issue 28 (Low), in headless Chromium: a table paused after idle redeals shows a banner
with a "Deal again" button that sends `resume`; a storage pause shows its own banner; a
typed ":wow:" is shown as text, a reaction message as the reaction. As in
test_browser_table.py, the page is served by the real server and its WebSocket is
answered by the test with a real engine view."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from browser_helpers import FakeServer, in_phase, new_page, show_fake, state_of

browser_only = pytest.mark.browser


class PausedServer(FakeServer):
    """The fake server, answering `resume` with the state unpaused, and able to `push`."""

    def answer(self, m: dict[str, Any]) -> None:
        """The state to hello; to `resume`, the state unpaused (nothing else is answered)."""
        if m["type"] == "hello":
            self.push(self.state)
        elif m["type"] == "resume":
            st = copy.deepcopy(self.state)
            st["table"]["paused"] = None
            st["seq"] += 1
            self.push(st)


def open_table(page: Any, base: str, state: dict[str, Any]) -> PausedServer:
    return show_fake(page, base, PausedServer(state))


@browser_only
@pytest.mark.timeout(60)
def test_an_idle_pause_shows_a_deal_again_button_that_resumes(
    server: str, browser: Any
) -> None:
    st = state_of(in_phase(1, "deal"), 0, paused="idle")
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        fake = open_table(page, server, st)
        banner = page.locator("#paused-banner")
        banner.wait_for()
        assert "paused" in banner.inner_text()
        page.click("#resume-btn")
        banner.wait_for(state="detached")  # the server's answer: the table goes on
        assert [m for m in fake.sent if m["type"] == "resume"] == [{"type": "resume"}]


@browser_only
@pytest.mark.timeout(60)
def test_a_storage_pause_and_a_typed_reaction_code(server: str, browser: Any) -> None:
    st = state_of(in_phase(1, "deal"), 0, paused="storage")
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        fake = open_table(page, server, st)
        page.locator("#paused-banner").wait_for()
        assert "cannot save" in page.inner_text("#paused-banner")
        assert page.locator("#resume-btn").count() == 0
        chat = {"type": "chat", "messages": [
            {"n": 0, "at": "2026-01-01T00:00:00+00:00", "seat": 1, "name": "B", "text": ":wow:"},
            {"n": 1, "at": "2026-01-01T00:00:01+00:00", "seat": 1, "name": "B", "text": ":wow:",
             "reaction": "wow"},
        ]}
        fake.push(chat)
        page.wait_for_selector(".chat-msg[data-n='1']")
        assert page.inner_text(".chat-msg[data-n='0'] .chat-text") == ":wow:"
        assert page.locator(".chat-msg[data-n='0'] .chat-reaction").count() == 0
        assert page.locator(".chat-msg[data-n='1'] .chat-reaction").count() == 1

"""Issue 28: the browser tells a refused WebSocket apart from a lost one. A foreign-Origin
refusal (close 4403) stops: trying again cannot help; too many connections from the
address (4429) tries again after 30 s, not in the quick reconnect steps (0.5 s, 1 s,
2 s ...) that the server would only refuse again. Each case says why, in words.

The page's WebSocket is answered by the test (Playwright's `route_web_socket`), which
closes every connection with the code, and the page's timers run on Playwright's clock,
moved by the test: the number of tries over a stretch of time is exact, not a race."""

from __future__ import annotations

import re
from typing import Any

import pytest

from browser_helpers import new_page

pytestmark = pytest.mark.browser


class Refuser:
    """Closes every WebSocket the page opens with `code`; counts them."""

    def __init__(self, code: int) -> None:
        self.code, self.tries = code, 0

    def __call__(self, ws: Any) -> None:
        self.tries += 1
        ws.close(code=self.code, reason="refused by the test")


def open_refused(page: Any, base: str, code: int) -> Refuser:
    refuser = Refuser(code)
    page.clock.install()
    page.route_web_socket(re.compile(r".*/ws/.*"), refuser)
    page.goto(base + "/t/fake")
    page.wait_for_selector("#net-refusal")
    return refuser


@pytest.mark.timeout(60)
def test_a_foreign_origin_refusal_stops_and_says_why(server: str, browser: Any) -> None:
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        refuser = open_refused(page, server, 4403)
        assert "another site" in page.inner_text("#net-refusal")
        page.clock.run_for(120_000)  # two minutes: a reconnecting client would try ~14 times
        assert refuser.tries == 1


@pytest.mark.timeout(60)
def test_too_many_connections_tries_again_after_30_s_only(server: str, browser: Any) -> None:
    with new_page(browser, viewport={"width": 390, "height": 844}) as page:
        refuser = open_refused(page, server, 4429)
        assert "Too many connections" in page.inner_text("#net-refusal")
        page.clock.run_for(29_500)
        assert refuser.tries == 1  # the quick steps would have tried 5 times by now
        steps = 50  # past 30 s, in steps of 0.1 s until the page's second try reaches us
        while refuser.tries < 2 and steps:
            page.clock.run_for(100)
            steps -= 1
        assert refuser.tries == 2
        page.clock.run_for(25_000)
        assert refuser.tries == 2

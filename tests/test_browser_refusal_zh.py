"""An illegal lead's refusal, in Chinese, in headless Chromium (issue #29 item 3).

The WebSocket is answered by the test as the server would answer it: the client's
`check` of the selected cards goes to the real engine (`Game.check`), and the refusal's
text, rule, code and facts come back as `routing.check` sends them. The player must read
the refusal all in Chinese, with the rule cited once (by the link), never the engine's
English sentence nor "RULES §6.1 … 规则 §6.1".
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from browser_helpers import (
    CORNER,
    FakeServer,
    catalogue,
    lead_position,
    new_page,
    set_lang,
    show_fake,
    state_of,
)
from shengji import Game, parse_cards
from shengji.actions import Play
from shengji.errors import IllegalAction


class EngineChecks(FakeServer):
    """A fake server whose `check` answers come from the engine, as `routing.check`'s do."""

    def __init__(self, state: dict[str, Any], game: Game, seat: int) -> None:
        super().__init__(state)
        self.game, self.seat = game, seat
        self.refusals: list[dict[str, Any]] = []

    def check(self, cards: str) -> dict[str, Any]:
        """The engine's verdict on `cards`, with the refusal's fields as the server sends them."""
        answer: dict[str, Any] = {"type": "check", "cards": cards, "legal": True,
                                  "reason": None, "rule": None, "code": None, "facts": {}}
        try:
            self.game.check(Play(self.seat, tuple(parse_cards(cards))))
        except IllegalAction as e:
            answer.update(legal=False, reason=e.message, rule=e.rule, code=e.code, facts=e.facts)
            self.refusals.append(answer)
        return answer


@pytest.mark.browser
@pytest.mark.timeout(60)
def test_an_illegal_lead_is_refused_all_in_chinese_citing_the_rule_once(
    server: str, browser: Any
) -> None:
    zh = catalogue("zh")
    g, seat = lead_position(8)
    hand = g.view(seat).hand
    # two cards of different play suits: the engine refuses them as a lead (RULES §6.1)
    pair = next(
        (a, b) for a, b in itertools.combinations(hand, 2)
        if _refusal(g, Play(seat, (a, b))) == "lead_one_suit"
    )
    st = state_of(g, seat)
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        set_lang(page, server, "zh")
        fake = EngineChecks(st, g, seat)
        show_fake(page, server, fake)
        for card in pair:
            page.locator(f"#hand .card[data-card='{card.text}']").first.click(position=CORNER)
        reason = page.locator("#reason")
        # the engine's answer to the client's check has come: only it cites a rule (the
        # client's own pre-check words the same rule without a link)
        reason.locator(".rule-link").wait_for()
        assert fake.refusals and fake.refusals[-1]["code"] == "lead_one_suit"
        assert fake.refusals[-1]["reason"].startswith("RULES §6.1")  # English on the wire...
        text = reason.inner_text()
        cite = zh["rules.see"].format(ref="6.1")
        assert " ".join(text.split()) == f"{zh['refusal.lead_one_suit']} {cite}"  # ...not here
        assert text.count("§") == 1 and "RULES" not in text
        assert not re.search(r"[A-Za-z]{2,}", text), text  # no English word at all
        assert reason.locator(".rule-link").get_attribute("href") == "#/rules/6.1"
        assert page.locator("#play-btn").is_disabled()
    assert not fake.actions()  # nothing illegal was sent


def _refusal(g: Game, action: Play) -> str | None:
    try:
        g.check(action)
    except IllegalAction as e:
        return e.code
    return None

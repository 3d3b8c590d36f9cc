"""Each house rule's effect on a round's outcome, as a player sees it in Chromium (issue 11).

The engine plays the same last trick (or the same end of round) under two values of a
rule (the positions of tests/test_house_rules.py, RULES §6.4, §8.1, §9); the page gets
the real engine result in a state message and its round summary must show what RULES
says that value does. The unit rules (§5.4 `gap_tractors`, §6.1 `throw_tractors`) are
checked in the browser by test_browser_clock_chat.py (the client reads leads as the
engine does under each); the declaration rules (§3.3) change the declarations the page
offers.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from browser_helpers import new_page, open_table, state_of
from helpers import THROW_HANDS, last_trick_result, position, rigged_deal, round_result
from shengji import Declare, Game, Play, RoundResult, RuleOptions, parse_cards
from shengji.views import result_json

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def summary(page: Any, base: str, result: RoundResult) -> dict[str, str]:
    """Open the table with `result` as the last round's and read its summary."""
    st = state_of(Game(1), 0)
    st["view"]["last_result"] = result_json(result)
    open_table(page, base, copy.deepcopy(st))
    page.wait_for_selector("#summary-btn")
    if not page.locator("#summary-title").count():  # a new result opens it by itself
        page.click("#summary-btn")
    page.wait_for_selector("#summary-title")
    dialog = page.locator(".levels-table").locator("xpath=..")
    return {
        "text": dialog.inner_text(),
        "points": page.inner_text("#sum-points"),
        "after0": page.inner_text(".levels-table tr.team0 td b"),
        "after1": page.inner_text(".levels-table tr.team1 td b"),
    }


def test_each_kitty_multiplier_shows_its_kitty_points_rules_8_1(server: str, browser: Any) -> None:
    tractor = "9S 9S 10S 10S JS JS"  # the opponents win the last trick with three pairs
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        for option, mult, points in (("per_card", 12, 300), ("power", 16, 400), ("flat", 2, 50)):
            r = last_trick_result(tractor, option)
            assert (r.multiplier, r.kitty_points) == (mult, points)
            shown = summary(page, server, r)
            assert f"{points}" in shown["text"] and f"{mult}" in shown["text"], (option, shown)
            assert shown["points"] == str(r.opponents_points)


def test_each_level_rule_shows_its_levels_after_the_round_rules_9(
    server: str, browser: Any
) -> None:
    cases: list[tuple[dict[str, Any], int, tuple[str, str], int, tuple[str, str]]] = [
        ({}, 170, ("K", "A"), 0, ("K", "A+")),
        ({"win_at_a": "as_declarers"}, 170, ("K", "A"), 0, ("K", "A")),
        ({}, 0, ("3", "2"), 0, ("6", "2")),
        ({"max_levels_per_round": 1}, 0, ("3", "2"), 0, ("4", "2")),
        ({"stop_levels": ["5", "10", "K"]}, 0, ("3", "2"), 0, ("5", "2")),
    ]
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        for opts, points, before, team, after in cases:
            r = round_result(points, before, team, **opts)
            assert r.levels_after == after
            shown = summary(page, server, r)
            assert (shown["after0"], shown["after1"]) == after, (opts, shown)


def test_each_throw_penalty_shows_in_the_round_summary_rules_6_4(
    server: str, browser: Any
) -> None:
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        for mode, paid in (("returned", 20), ("attempted", 30), ("none", 0)):
            # RULES §6.4's example: the declarers' A♥A♥Q♥ fails on Q♥; then play out.
            rnd = position(THROW_HANDS, suit="S", options=RuleOptions(throw_penalty=mode))
            rnd.apply(Play(0, tuple(parse_cards("AH AH QH"))))
            rng = random.Random(0)
            while not rnd.is_over:
                rnd.apply(rnd.random_action(rng))
            r = rnd.result
            assert r is not None and r.penalties == paid
            shown = summary(page, server, r)
            assert shown["points"] == str(r.opponents_points)
            # Whose throw, what it did to the opponents' points, and the rule (issue #29 item 8).
            line = [x for x in shown["text"].splitlines() if "failed throw" in x]
            said = f"Team A's failed throw: +{paid} to the opponents' points. Rules §6.4"
            assert line == ([said] if paid else []), (mode, shown)


def declaration_buttons(page: Any, base: str, view_json: dict[str, Any], seat: int) -> list[str]:
    """The declarations the page offers `seat` for this engine view (RULES §3.3)."""
    st = state_of(Game(1), seat)
    st["view"] = view_json
    st["you"] = seat
    open_table(page, base, st)
    page.wait_for_selector("#prompt")
    return sorted(str(b.get_attribute("data-cards")) for b in page.locator(".decl-btn").all())


def test_the_declaration_rules_change_what_the_page_offers_rules_3_3(
    server: str, browser: Any
) -> None:
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        for on, offered in ((False, []), (True, ["2S 2S"])):  # self_reinforce: same card only
            rnd = rigged_deal({0: "2S 2S 2D 2D"}, options=RuleOptions(self_reinforce=on))
            rnd.apply(Declare(0, tuple(parse_cards("2S"))))
            view = rnd.view(0).to_json()
            assert [" ".join(d) for d in view["legal_declarations"]] == offered
            assert declaration_buttons(page, server, view, 0) == offered
        for jp, offered in (("equal", []), ("red_over_black", ["RJ RJ"])):
            rnd = rigged_deal({0: "BJ BJ", 1: "RJ RJ"}, options=RuleOptions(joker_pairs=jp))
            rnd.apply(Declare(0, tuple(parse_cards("BJ BJ"))))
            view = rnd.view(1).to_json()
            assert declaration_buttons(page, server, view, 1) == offered

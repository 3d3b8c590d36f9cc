"""The table page at a glance, in headless Chromium, with positions from the engine.

The page is served by the real server (the `server` fixture), but its WebSocket is
answered by the test: each test hands the client a real engine view (a bury with
33 cards, a trick to follow, a forced last card) and reads what the client sends
back. That keeps these checks exact and quick: no bots to wait for. Covered: the
rules page in every language and the links to it, the hand fully on screen at
1280x720, 1366x800 and 390x844, the trick history, sorting and arranging the
hand, the mute switch remembered, the throw confirmation and its penalty
(RULES §6.4), auto-play of a forced move (RULES §6.2).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from browser_helpers import (
    CORNER,
    LANGS,
    NAMES,
    _advance,
    _lead_state,
    _seat_to_act,
    catalogue,
    fill_options,
    in_phase,
    lead_position,
    new_page,
    open_lobby,
    open_table,
    rules_catalogue,
    set_lang,
    state_of,
    wait_until,
)

browser_only = pytest.mark.browser
SIZES = [(1280, 720), (1366, 800), (390, 844)]



def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    js = "els => els.map(e => e.getBoundingClientRect().toJSON())"
    return list(page.eval_on_selector_all(selector, js))


def assert_inside(page: Any, selector: str, w: int, h: int, top: float = 0) -> None:
    for b in boxes(page, selector):
        assert b["x"] >= -0.5 and b["x"] + b["width"] <= w + 0.5, (selector, w, h, b)
        assert b["y"] >= top - 0.5 and b["y"] + b["height"] <= h + 0.5, (selector, w, h, b)


@pytest.fixture(scope="module")
def bury_state() -> dict[str, Any]:
    g = in_phase(3, "kitty")
    return state_of(g, _seat_to_act(g))


# ---------------------------------------------------------------- layout


@browser_only
@pytest.mark.timeout(120)
def test_the_whole_hand_and_the_action_bar_fit_the_screen(
    server: str, browser: Any, bury_state: dict[str, Any], play_state: dict[str, Any]
) -> None:
    assert len(bury_state["view"]["hand"]) == 33  # the starter holds the kitty too (RULES §4)
    for state, n in ((bury_state, 33), (play_state, len(play_state["view"]["hand"]))):
        with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
            open_table(page, server, state)
            for w, h in SIZES:
                page.set_viewport_size({"width": w, "height": h})
                page.wait_for_timeout(150)
                assert page.locator("#hand .card").count() == n
                top = page.eval_on_selector(".topbar", "e => e.getBoundingClientRect().bottom")
                # Every card, the action bar and its buttons on the first screen, under the top bar.
                assert_inside(page, "#hand .card", w, h, top)
                assert_inside(page, ".actions", w, h, top)
                assert_inside(page, ".infobar", w, h, top)
                if w < 500:  # a phone: the trick too
                    assert_inside(page, "#trick .slot .card", w, h, top)
                assert page.evaluate("document.documentElement.scrollWidth") <= w


@browser_only
@pytest.mark.timeout(60)
def test_a_raised_card_never_covers_its_neighbour(
    server: str, browser: Any, bury_state: dict[str, Any]
) -> None:
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_table(page, server, bury_state)
        cards = page.locator("#hand .card")
        first, second = cards.nth(3), cards.nth(4)
        first.click(position=CORNER)
        first.hover(position=CORNER)  # the pointer stays on the selected card
        b = second.bounding_box()
        hit = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('.card').dataset.index",
            [b["x"] + 4, b["y"] + b["height"] - 8],
        )
        assert hit == second.get_attribute("data-index")


# ---------------------------------------------------------------- the rules page


@browser_only
@pytest.mark.timeout(120)
def test_rules_page_in_every_language(server: str, browser: Any) -> None:
    with new_page(browser, viewport={"width": 1280, "height": 720}) as page:
        for lang in LANGS:
            rules = rules_catalogue(lang)
            set_lang(page, server, lang)
            # A new query: a real load, in the stored language.
            page.goto(server + f"/?l={lang}#/rules")
            page.wait_for_function(
                "t => document.querySelector('#rules-title')?.textContent === t", arg=rules["title"]
            )
            assert page.locator(".rules-sec").count() == len(rules["sections"]) >= 10
            # Card pictures drawn by the client's own card component, the level table of RULES §8.2.
            assert page.locator(".rules-ex .card").count() >= 20
            assert page.locator("#rules-level-table tbody tr").count() == 8
            assert rules["sections"][5]["title"] in page.inner_text("#rules-6\\.1")
        # The link in the top bar opens it over the page, and Back returns.
        page.goto(server + "/")
        page.click("#rules-link")
        page.wait_for_selector("#rules .rules-sec")
        page.click("#rules-close")
        page.wait_for_selector("#rules", state="detached")
        assert page.locator("#create-form").is_visible()


@browser_only
@pytest.mark.timeout(60)
def test_a_refusal_links_to_the_rule_it_cites(server: str, browser: Any) -> None:
    g, seat = lead_position(8)
    st = state_of(g, seat)
    st["view"]["hand"] = ["AS", *[c for c in st["view"]["hand"] if c != "AS"]]
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_table(page, server, st)
        page.locator("#hand .card[data-card='AS']").first.click(position=CORNER)
        page.wait_for_selector("#play-btn:not([disabled])")
        page.click("#play-btn")  # the fake server refuses it, citing RULES §6.2
        link = page.locator(".toast .rule-link")
        link.wait_for()
        assert link.get_attribute("href") == "#/rules/6.2"
        link.click()
        page.wait_for_selector("#rules-6\\.2.focus")
        page.click("#rules-close")
        page.wait_for_selector("#rules", state="detached")
        assert page.locator("main.table-page").count() == 1  # the table stayed open


# ---------------------------------------------------------------- the round's memory and the hand


@browser_only
@pytest.mark.timeout(60)
def test_trick_history_lists_every_trick_with_winner_and_points(
    server: str, browser: Any, play_state: dict[str, Any]
) -> None:
    tricks = play_state["view"]["tricks"]
    state = copy.deepcopy(play_state)
    state["view"]["point_cards"] = ["10H", "10S", "5D", "KC", "10C"]  # shown overlapped
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_table(page, server, state)
        page.click("#trick-history summary")
        items = page.locator("#trick-list .th-item")
        assert items.count() == len(tricks) >= 5
        for k, tr in enumerate(reversed(tricks)):  # newest first
            item = items.nth(k)
            assert item.get_attribute("data-trick") == str(len(tricks) - k)
            assert item.get_attribute("data-winner") == str(tr["winner"])
            assert item.get_attribute("data-points") == str(tr["points"])
            assert NAMES[tr["winner"]] in item.locator(".th-win").inner_text()
            shown = item.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
            assert sorted(shown) == sorted(c for _, cards in tr["plays"] for c in cards)
        # Small overlapped cards keep their whole index in sight ("10", not "1(").
        page.set_viewport_size({"width": 390, "height": 844})
        covered = page.evaluate(COVERED_JS)
        assert covered["checked"] > 0 and not covered["bad"], covered


COVERED_JS = """() => {
  let checked = 0; const bad = [];
  for (const row of document.querySelectorAll('.side .cards.overlap')) {
    const cards = [...row.children];
    for (let i = 0; i + 1 < cards.length; i++) {
      const r = cards[i].querySelector('.corner .r');
      if (!r) continue;
      checked++;
      const right = r.getBoundingClientRect().right;
      const next = cards[i + 1].getBoundingClientRect().left;
      if (right > next + 0.5) bad.push([cards[i].dataset.card, right, next]);
    }
  }
  return {checked, bad};
}"""


@browser_only
@pytest.mark.timeout(60)
def test_sort_toggle_and_arranging_the_hand(
    server: str, browser: Any, bury_state: dict[str, Any]
) -> None:
    order_js = "() => [...document.querySelectorAll('#hand .card')].map(e => e.dataset.card)"
    suits_js = "() => [...document.querySelectorAll('#hand .card')].map(e => e.dataset.ps)"
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_table(page, server, bury_state)
        ps = page.evaluate(suits_js)
        first_t = ps.index("T")
        assert all(x == "T" for x in ps[first_t:]), ps  # trumps on the right
        assert page.get_attribute("#sort-btn", "data-mode") == "trumps"
        before = page.evaluate(order_js)
        page.click("#sort-btn")
        assert page.get_attribute("#sort-btn", "data-mode") == "suit"
        by_suit = page.evaluate(order_js)
        assert sorted(by_suit) == sorted(before) and by_suit != before
        jokers = [c for c in by_suit if c in ("BJ", "RJ")]
        assert by_suit[len(by_suit) - len(jokers) :] == jokers
        # Click-to-arrange: the first card goes where the sixth one is.
        page.click("#reorder-btn")
        cards = page.locator("#hand .card")
        moved = cards.nth(0).get_attribute("data-card")
        cards.nth(0).click(position=CORNER)
        cards.nth(5).click(position=CORNER)
        page.click("#reorder-btn")
        after = page.evaluate(order_js)
        assert after[5] == moved and after[:5] == by_suit[1:6]
        # Or drag: the card now last goes first.
        last = cards.nth(len(after) - 1)
        last.drag_to(cards.nth(0), source_position=CORNER, target_position=CORNER)
        dragged = page.evaluate(order_js)
        assert dragged[0] == after[-1] and dragged[1:] == after[:-1]
        assert page.get_attribute("#sort-btn", "data-mode") == "custom"
        assert page.evaluate("localStorage.getItem('shengji.sort')") == '"suit"'
        # Arranging never selects: nothing was buried or played.
        assert page.locator("#hand .card.sel").count() == 0


@browser_only
@pytest.mark.timeout(60)
def test_mute_is_remembered(server: str, browser: Any) -> None:
    with new_page(browser, viewport={"width": 1280, "height": 720}) as page:
        open_lobby(page, server, "#mute-btn")
        assert page.get_attribute("#mute-btn", "aria-pressed") == "false"
        page.click("#mute-btn")
        assert page.get_attribute("#mute-btn", "aria-pressed") == "true"
        page.reload()
        page.wait_for_selector("#mute-btn")
        assert page.get_attribute("#mute-btn", "aria-pressed") == "true"
        assert page.evaluate("localStorage.getItem('shengji.mute')") == "true"
        page.click("#mute-btn")
        assert page.evaluate("localStorage.getItem('shengji.mute')") == "false"


# ---------------------------------------------------------------- throws and forced moves


@browser_only
@pytest.mark.timeout(60)
def test_a_throw_is_confirmed_with_its_penalty(server: str, browser: Any) -> None:
    st, two = _lead_state(11)
    st["view"]["options"]["throw_penalty_per_card"] = 15
    en = catalogue("en")
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        fake = open_table(page, server, st)
        for c in two:
            page.locator(f"#hand .card[data-card='{c}']").first.click(position=CORNER)
        page.wait_for_selector("#play-btn:not([disabled])")
        page.click("#play-btn")
        page.wait_for_selector("#throw-confirm")
        # RULES §6.4: two cards thrown, one at most taken back, 15 points a card here.
        expect = en["throw.confirm_returned"].replace("{per}", "15").replace("{max}", "15")
        assert page.inner_text("#throw-text") == expect
        # the units as the engine reads the lead (RULES §6.1): two singles
        units = page.inner_text("#throw-units")
        assert units.count("·") == 1, units
        page.click("#throw-cancel")
        assert page.locator("#throw-confirm").count() == 0
        assert not fake.actions()
        page.click("#play-btn")
        page.click("#throw-go")
        page.wait_for_function("() => !document.querySelector('#throw-confirm')")
        assert fake.actions() and fake.actions()[-1][0] == "play"
        assert sorted(fake.actions()[-1][2].split()) == sorted(two)


@browser_only
@pytest.mark.timeout(60)
def test_auto_play_makes_a_forced_move_only_when_switched_on(server: str, browser: Any) -> None:
    g = _advance(
        4, lambda g: g.decision().phase == "play" and g.round.hand_sizes[_seat_to_act(g)] == 1
    )
    seat = _seat_to_act(g)
    st = state_of(g, seat)
    last = st["view"]["hand"][0]
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        fake = open_table(page, server, st)
        page.wait_for_function("() => document.title.startsWith('● ')")  # the turn alert
        # Off by default: no play for longer than the client's auto-play delay (700 ms).
        # A busy machine can only make this check weaker, never fail it.
        page.wait_for_timeout(1200)
        assert not fake.actions()
        page.check("#autoplay-toggle")
        page.wait_for_function("() => document.querySelector('#play-btn').disabled")
        wait_until(page, fake.actions)  # the play arrives (after the delay, however slow)
        assert fake.actions() == [["play", seat, last]]
        assert page.evaluate("localStorage.getItem('shengji.autoplay')") == "true"



@browser_only
@pytest.mark.timeout(60)
def test_an_out_of_range_timing_is_refused_in_seconds_and_in_the_players_language(
    server: str, browser: Any
) -> None:
    zh = catalogue("zh")
    # Not new_page: Chromium logs the expected HTTP 400 as a console error.
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        set_lang(page, server, "zh")
        page.reload()
        page.wait_for_selector("#create-form")
        fill_options(page, deal_ms="99")  # seconds: over the server's 10 000 ms
        page.click("#create-btn")
        err = page.locator("#create-form .error-text")
        err.wait_for()
        field = zh["timing.deal_ms"]
        expect = zh["lobby.timing_range"].format(field=field, lo=0, hi=10)
        assert expect in err.inner_text()
        assert "detail" not in err.inner_text() and "10000" not in err.inner_text()
    finally:
        context.close()
    assert not errors


PLURAL_JS = """async ([lang, key, n]) => {
  const i = await import('/static/js/i18n.js');
  await i.loadLang(lang);
  const out = i.tn(key, n, {team: 'T'});
  await i.loadLang('en');
  return out;
}"""


@browser_only
@pytest.mark.timeout(60)
def test_counts_use_each_languages_plural_rules(server: str, browser: Any) -> None:
    en, sq, zh = catalogue("en"), catalogue("sq"), catalogue("zh")
    with new_page(browser) as page:
        open_lobby(page, server)
        cases = [
            ("en", "summary.gain", 1, en["summary.gain.one"]),  # "Team A go up 1 level!"
            ("en", "summary.gain", 3, en["summary.gain.other"]),
            ("en", "wait.waiting", 1, en["wait.waiting.one"]),
            ("sq", "play.follow", 1, sq["play.follow.one"]),
            ("sq", "play.follow", 4, sq["play.follow.other"]),
            ("zh", "summary.gain", 1, zh["summary.gain.other"]),  # Chinese has one form
        ]
        for lang, key, n, text in cases:
            expect = text.replace("{n}", str(n)).replace("{team}", "T")
            assert page.evaluate(PLURAL_JS, [lang, key, n]) == expect, (lang, key, n)
    assert "level(s)" not in json.dumps(en) and "player(s)" not in json.dumps(en)

"""What tripped a first-time player at the table and in the lobby (issue #29), in headless Chromium.

Like tests/test_browser_table.py, the page is served by the real server and its WebSocket
is answered by the test with real engine views, so each check is exact and quick. Each
test opens its own browser context; the browser itself is rebuilt for each test
(tests/conftest.py `browser`), so one failure never breaks another test's page.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from browser_helpers import (
    ARTIFACTS,
    LANGS,
    FakeServer,
    _advance,
    catalogue,
    fill_options,
    new_page,
    open_table,
    set_lang,
    show_fake,
    state_of,
    wait_until,
)

browser_only = pytest.mark.browser
DESKTOP = {"width": 1366, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = [DESKTOP, PHONE]


# ------------------------------------------------ item 2: "declarers" is the team only


def test_the_seat_that_named_trump_is_never_called_declarer_in_any_language() -> None:
    # RULES §3.4: the declaring team are "declarers"; the seat whose declaration stood
    # may sit on the other team in later rounds, so its badge needs a word of its own.
    for lang in LANGS:
        c = catalogue(lang)
        team, badge = c["info.declarers"].casefold(), c["seat.declarer"].casefold()
        assert team not in badge and badge not in team, (lang, team, badge)
        stem = team[:5]
        assert stem not in badge, (lang, team, badge)


@browser_only
@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
@pytest.mark.parametrize("lang", LANGS)
def test_the_bar_names_the_declarers_and_the_badge_names_who_set_trump(
    server: str, browser: Any, play_state: dict[str, Any], lang: str, size: dict[str, int]
) -> None:
    st = copy.deepcopy(play_state)
    v = st["view"]
    v["declaring_team"] = 0
    v["declarer"] = 1  # a Team B seat's declaration stood; Team A declares (a later round)
    c = catalogue(lang)
    with new_page(browser, viewport=size) as page:
        set_lang(page, server, lang)
        open_table(page, server, st)
        bar = page.locator(".team-ib.team0 .decl-flag")
        assert bar.inner_text().strip().casefold() == c["info.declarers"].casefold()
        badge = page.locator(".seat[data-seat='1'] .badge-declarer")
        assert badge.inner_text().strip() == c["seat.declarer"]
        assert badge.get_attribute("title") == c["seat.declarer.hint"]
        assert page.locator(".team-ib.team1 .decl-flag").count() == 0


# ------------------------------------------------ item 4: "Team Team A won"


# The word for "team" in each language (and its synonyms), as the team names use it.
TEAM_WORDS = {"en": ["team"], "zh": ["队"], "vi": ["đội"], "th": ["ทีม"], "ko": ["팀"],
              "sq": ["skuadr", "ekip"], "mn": ["баг"]}


def test_no_message_puts_a_team_word_next_to_the_team_name() -> None:
    for lang in LANGS:
        c = catalogue(lang)
        assert TEAM_WORDS[lang][0] in c["team.0"].casefold(), lang
        for key, text in c.items():
            for w in TEAM_WORDS[lang]:
                near = re.compile(rf"{re.escape(w)}\w*\s*\{{team\}}|\{{team\}}\s*{re.escape(w)}")
                assert not near.search(text.casefold()), (lang, key, text)


FINISHED = [{
    "id": "done1", "name": "Friday", "status": "finished",
    "created": "2026-12-01T00:00:00+00:00", "finished": "2026-12-01T01:00:00+00:00",
    "seats": [{"name": "Ann", "kind": "human"}, {"name": "Random bot", "kind": "random"},
              {"name": "Bea", "kind": "human"}, {"name": "Random bot", "kind": "random"}],
    "result": {"winner": 1, "levels": ["8", "A"], "rounds": 11},
}]


@browser_only
@pytest.mark.timeout(90)
@pytest.mark.parametrize("lang", LANGS)
def test_the_lobby_says_which_team_won_once(server: str, browser: Any, lang: str) -> None:
    c = catalogue(lang)
    with new_page(browser, viewport=DESKTOP) as page:
        page.route("**/api/games", lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(FINISHED)))
        set_lang(page, server, lang)
        page.reload()
        item = page.locator("#finished-games .finished-item[data-table='done1']")
        item.wait_for()
        text = item.locator(".ti-result").inner_text()
        team = c["team.1"]
        assert text.startswith(c["lobby.result_won"].split("{team}")[0] + team), text
        # The team's name shows once, never with the team word again around it.
        said = text.casefold()
        assert sum(said.count(w) for w in TEAM_WORDS[lang]) == 1, text


# ------------------------------------------------ item 6: an idle table costs nothing

ANIM_JS = """() => {
  const seat = document.querySelector('.seat.turn');
  const me = getComputedStyle(seat);
  const glow = getComputedStyle(seat, '::after');
  const props = new Set();
  for (const sheet of document.styleSheets)
    for (const r of sheet.cssRules)
      if (r instanceof CSSKeyframesRule && r.name === glow.animationName)
        for (const k of r.cssRules) for (let i = 0; i < k.style.length; i++) props.add(k.style[i]);
  return {seatAnim: me.animationName, name: glow.animationName,
          count: glow.animationIterationCount, props: [...props],
          running: document.getAnimations().filter(a => a.playState === 'running').length};
}"""


@browser_only
@pytest.mark.timeout(60)
def test_the_acting_seat_glows_cheaply_and_not_at_all_for_reduced_motion(
    server: str, browser: Any, play_state: dict[str, Any]
) -> None:
    with new_page(browser, viewport=DESKTOP) as page:
        open_table(page, server, play_state)
        page.wait_for_selector(".seat.turn")
        a = page.evaluate(ANIM_JS)
        # No box-shadow repainted every frame on the seat: the glow is a pseudo-element
        # whose opacity alone changes, a few times, then the page is still.
        assert a["seatAnim"] == "none", a
        assert a["name"] != "none" and a["props"] == ["opacity"], a
        assert a["count"] != "infinite" and float(a["count"]) <= 5, a
    with new_page(browser, viewport=DESKTOP, reduced_motion="reduce") as page:
        open_table(page, server, play_state)
        page.wait_for_selector(".seat.turn")
        a = page.evaluate(ANIM_JS)
        assert a["seatAnim"] == "none" and a["name"] == "none", a
        assert a["running"] == 0, a


# ------------------------------------------------ item 5: the create form keeps the reason


def test_a_setting_below_the_servers_minimum_says_its_field_limits_and_unit() -> None:
    from shengji.server.schema import MAXIMA, PUBLIC_MINIMA, InputError, check_settings

    with pytest.raises(InputError) as e:
        check_settings({"bot_delay_ms": 20}, minima=PUBLIC_MINIMA)
    body = e.value.to_json()
    assert body["detail"] == "bot_delay_ms must be at least 100 on this server"  # kept
    assert (body["code"], body["field"]) == ("bad_setting", "bot_delay_ms")
    assert (body["min"], body["max"], body["unit"]) == (100, MAXIMA["bot_delay_ms"], "ms")
    with pytest.raises(InputError) as e:
        check_settings({"bot_timeout_s": 10**7}, minima=None)
    body = e.value.to_json()
    assert (body["min"], body["max"], body["unit"]) == (0, MAXIMA["bot_timeout_s"], "s")


def _refused_body(data: dict[str, Any]) -> str:
    from shengji.server.schema import PUBLIC_MINIMA, InputError, check_settings

    try:
        check_settings(data, minima=PUBLIC_MINIMA)
    except InputError as exc:
        return json.dumps(exc.to_json())
    raise AssertionError(f"{data} was accepted")


@browser_only
@pytest.mark.timeout(60)
@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_create_form_names_the_field_in_seconds_with_the_servers_limit(
    server: str, browser: Any, lang: str
) -> None:
    c = catalogue(lang)
    body = _refused_body({"bot_delay_ms": 20})

    def refuse(route: Any) -> None:
        if route.request.method == "POST":
            route.fulfill(status=422, content_type="application/json", body=body)
        else:
            route.continue_()

    # Not new_page: Chromium logs the expected HTTP 422 as a console error.
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.route("**/api/tables", refuse)
        set_lang(page, server, lang)
        page.reload()
        page.wait_for_selector("#create-form")
        fill_options(page, bot_delay_ms="0.02")
        page.click("#create-btn")
        err = page.locator("#create-form .error-text")
        err.wait_for()
        expect = c["lobby.timing_range"].format(field=c["timing.bot_delay_ms"], lo=0.1, hi=60)
        assert expect in err.inner_text()
        assert c["error.code.bad_setting"].split("{field}")[0] not in err.inner_text()
    finally:
        context.close()
    assert not errors


# ------------------------------------------------ item 8: the fold, game over, penalties


def waiting_state(filled: int = 4) -> dict[str, Any]:
    """The waiting room as the host sees it, `filled` seats taken (docs/WEB_PROTOCOL.md)."""
    from shengji import Game

    # The host and three bots, as a first game is usually set up.
    seats: list[Any] = [{"name": "Alice", "kind": "human", "connected": True}]
    seats += [{"name": "bot", "kind": k} for k in ("heuristic", "random", "expert")]
    seats = seats[:filled]
    st = state_of(Game(seed=1), 0, status="waiting", seats=seats + [None] * (4 - filled))
    st["is_host"] = True
    return st


def open_waiting(page: Any, base: str, state: dict[str, Any]) -> None:
    show_fake(page, base, FakeServer(state), "main.table-page[data-status='waiting']")


@browser_only
@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_start_game_is_on_screen_without_scrolling(
    server: str, browser: Any, size: dict[str, int]
) -> None:
    with new_page(browser, viewport=size) as page:
        open_waiting(page, server, waiting_state())
        btn = page.locator("#start-btn:not([disabled])")
        btn.wait_for()
        page.screenshot(path=str(ARTIFACTS / f"waiting-start-{size['width']}.png"))
        assert page.evaluate("window.scrollY") == 0
        b = btn.bounding_box()
        assert b and b["y"] >= 0 and b["y"] + b["height"] <= size["height"], (b, size)
        assert b["x"] >= 0 and b["x"] + b["width"] <= size["width"], (b, size)
        # Nothing covers it: a click at its centre reaches it.
        hit = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y)?.closest('#start-btn') !== null",
            [b["x"] + b["width"] / 2, b["y"] + b["height"] / 2])
        assert hit


@browser_only
@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_after_game_over_no_hand_toolbar_stands_over_an_empty_hand(
    server: str, browser: Any, play_state: dict[str, Any], size: dict[str, int]
) -> None:
    st = copy.deepcopy(play_state)
    assert st["view"]["hand"]
    with new_page(browser, viewport=size) as page:
        open_table(page, server, st)
        page.wait_for_selector("#sort-btn")  # mid-round the tools are there
    st["view"].update(game_over=True, winner=0, hand=[], to_act=None)
    st["table"]["status"] = "finished"
    with new_page(browser, viewport=size) as page:
        show_fake(page, server, FakeServer(st), "main.table-page[data-status='finished']")
        page.wait_for_selector("#prompt")
        assert page.locator(".hand-tools").count() == 0
        assert page.locator("#sort-btn, #reorder-btn, #autoplay-toggle").count() == 0


@pytest.fixture(scope="module")
def next_deal_state() -> dict[str, Any]:
    """The second round's deal, the first round's result in `last_result`."""
    g = _advance(7, lambda g: g.round_no >= 1)
    return state_of(g, 0)


@browser_only
@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
@pytest.mark.parametrize("sign", [-1, 1], ids=["opponents-threw", "declarers-threw"])
def test_the_summary_says_whose_failed_throw_cost_what_and_why(
    server: str, browser: Any, next_deal_state: dict[str, Any], size: dict[str, int], sign: int
) -> None:
    st = copy.deepcopy(next_deal_state)
    r = st["view"]["last_result"]
    assert r is not None
    r["penalties"] = 70 * sign  # on the opponents' points: -70 when they threw (RULES §6.4)
    decl = r["declaring_team"]
    thrower = decl if sign > 0 else 1 - decl
    en = catalogue("en")
    with new_page(browser, viewport=size) as page:
        open_table(page, server, st)
        line = page.locator("#summary #sum-penalties")
        line.wait_for()
        text = line.inner_text()
        assert en[f"team.{thrower}"] in text, text
        assert ("−70" if sign < 0 else "+70") in text, text
        assert line.locator("a.rule-link").get_attribute("href").endswith("6.4")  # type: ignore[union-attr]
        assert "Failed-throw penalties" not in text


# ------------------------------------------------ item 7: the summary never blocks the deal


@pytest.fixture(scope="module")
def declare_after_a_round() -> dict[str, Any]:
    """Round two's deal, the last round's result in the view, a seat able to declare."""
    def ready(g: Any) -> bool:
        return (g.round_no >= 1 and g.decision().phase == "deal"
                and any(g.legal_declarations(s) for s in range(4)))

    g = _advance(7, ready)
    seat = next(s for s in range(4) if g.legal_declarations(s))
    st = state_of(g, seat)
    assert st["view"]["last_result"] is not None
    return st


@browser_only
@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_a_declare_button_is_clickable_while_the_summary_shows(
    server: str, browser: Any, declare_after_a_round: dict[str, Any], size: dict[str, int]
) -> None:
    st = declare_after_a_round
    with new_page(browser, viewport=size) as page:
        fake = open_table(page, server, st)
        page.wait_for_selector("#summary")
        btn = page.locator(".decl-btn").first
        btn.wait_for()
        page.screenshot(path=str(ARTIFACTS / f"summary-docked-{size['width']}.png"))
        btn.scroll_into_view_if_needed()
        b = btn.bounding_box()
        assert b
        # The declare button is what a click at its centre reaches (nothing over it)...
        hit = page.evaluate(
            "([x, y]) => !!document.elementFromPoint(x, y)?.closest('.decl-btn')",
            [b["x"] + b["width"] / 2, b["y"] + b["height"] / 2])
        assert hit
        btn.click(timeout=5000)
        wait_until(page, lambda: any(a[0] == "declare" for a in fake.actions()))
        # ... and the summary is still there to read, until the player closes it.
        assert page.locator("#summary").is_visible()
        page.click("#summary-close")
        assert page.locator("#summary").count() == 0


# ------------------------------------------------ item 1: the throw question and the clock


class PushServer(FakeServer):
    """Answers hello with a state, records what the client sends, and pushes later states."""

    def answer(self, m: dict[str, Any]) -> None:
        """The state to hello and every check legal; no action is refused."""
        if m["type"] in ("hello", "check"):
            super().answer(m)


@browser_only
@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_the_throw_question_shows_the_clock_and_goes_when_the_turn_passes(
    server: str, browser: Any, size: dict[str, int]
) -> None:
    from browser_helpers import CORNER, _lead_state

    st, two = _lead_state(11)
    me = st["you"]
    st["table"]["clock"] = {"kind": "turn", "seat": me, "remaining_ms": 25_000, "total_ms": 30_000}
    fake = PushServer(st)
    with new_page(browser, viewport=size) as page:
        show_fake(page, server, fake)
        for c in two:
            page.locator(f"#hand .card[data-card='{c}']").first.click(position=CORNER)
        page.wait_for_selector("#play-btn:not([disabled])")
        page.click("#play-btn")
        page.wait_for_selector("#throw-confirm")
        # Not a modal over the table: the turn clock is in view next to the question, the
        # hand stays in reach, and Enter answers it (the focus is on "Throw").
        assert page.locator(".modal-back").count() == 0
        assert page.locator(".actions #throw-confirm").count() == 1
        clock = page.locator("#clock-mine")
        assert clock.is_visible() and int(clock.get_attribute("data-left") or "0") > 20
        box = clock.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box
        assert page.evaluate("document.activeElement?.id") == "throw-go"
        # The turn passes (the stand-in played at the deadline): the question goes with it.
        after = copy.deepcopy(st)
        after["seq"] = 2
        after["view"]["to_act"] = (me + 1) % 4
        after["table"]["clock"] = {"kind": "turn", "seat": (me + 1) % 4, "remaining_ms": 30_000,
                                   "total_ms": 30_000}
        fake.push(after)
        page.wait_for_function("() => !document.querySelector('#throw-confirm')")
        assert not fake.actions()


# ------------------------------------------------ item 13: a click reaches the card it aimed at

MARK_JS = """(card) => { const e = document.querySelector(`#hand .card[data-card='${card}']`);
  e.dataset.aimed = card; return e.dataset.index; }"""


@browser_only
@pytest.mark.timeout(60)
def test_a_hand_cards_element_stays_that_card_when_the_hand_changes(
    server: str, browser: Any, play_state: dict[str, Any]
) -> None:
    # A card's element is keyed by the card, not by its index: when a card before it
    # leaves the hand (indices shift), the element a click is landing on still shows the
    # card the player aimed at; keyed by index it would show the next card.
    st = copy.deepcopy(play_state)
    hand = st["view"]["hand"]
    single = [c for c in hand if hand.count(c) == 1]
    first, aimed = single[0], single[-1]
    assert hand.index(first) < hand.index(aimed)
    fake = PushServer(st)
    with new_page(browser, viewport=DESKTOP) as page:
        show_fake(page, server, fake, "#hand .card")
        before = int(page.evaluate(MARK_JS, aimed))
        after = copy.deepcopy(st)
        after["seq"] = 2
        after["view"]["hand"] = [c for c in hand if c != first]
        fake.push(after)
        page.wait_for_function(
            f"() => document.querySelectorAll('#hand .card').length === {len(hand) - 1}")
        marked = page.eval_on_selector_all(
            "#hand .card[data-aimed]", "els => els.map(e => [e.dataset.card, +e.dataset.index])")
        assert marked == [[aimed, before - 1]], marked


HAND_TOP_JS = "() => document.querySelector('#hand').getBoundingClientRect().top"


@browser_only
@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_the_hand_does_not_move_while_cards_are_chosen(
    server: str, browser: Any, size: dict[str, int]
) -> None:
    # A reason ("play 2 cards") or a note that appears in the action bar after a click
    # must not push the hand down under the next click (a lost click, issue #29 item 13).
    from browser_helpers import CORNER, _lead_state

    st, two = _lead_state(11)
    with new_page(browser, viewport=size) as page:
        show_fake(page, server, PushServer(st), "#hand .card")
        top = page.evaluate(HAND_TOP_JS)
        for c in two:
            page.locator(f"#hand .card[data-card='{c}']").first.click(position=CORNER)
        page.wait_for_selector("#note")  # two cards of a suit led: the throw note shows
        page.screenshot(path=str(ARTIFACTS / f"hand-note-{size['width']}.png"))
        assert page.evaluate(HAND_TOP_JS) == top
        page.click("#clear-btn")
        page.wait_for_function("() => !document.querySelector('#note')")
        assert page.evaluate(HAND_TOP_JS) == top

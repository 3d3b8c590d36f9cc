"""The table's clocks, stand-in marks and chat, in headless Chromium (issue 11).

As in test_browser_table.py, the page is served by the real server but its WebSocket
is answered by the test with real engine views, so each check is exact and quick.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from browser_helpers import (
    NAMES,
    FakeServer,
    _advance,
    _seat_to_act,
    add_bots,
    in_phase,
    new_page,
    open_lobby,
    open_table,
    show_fake,
    sit,
    state_of,
    submit_create,
)

browser_only = pytest.mark.browser


@browser_only
@pytest.mark.timeout(60)
def test_the_turn_clock_counts_down_from_the_servers_deadline(
    server: str, browser: Any, play_state: dict[str, Any]
) -> None:
    st = copy.deepcopy(play_state)
    me = st["you"]
    st["table"]["clock"] = {"kind": "turn", "seat": me, "remaining_ms": 7_500, "total_ms": 20_000}
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_table(page, server, st)
        mine = page.locator("#clock-mine")
        seat = page.locator(f"#clock-seat-{me}")
        assert mine.get_attribute("data-kind") == "turn"
        assert int(mine.get_attribute("data-left") or "0") in (7, 8)
        assert seat.count() == 1  # on the acting seat too, for everyone to see
        width = page.eval_on_selector("#clock-mine .clock-fill", "e => parseFloat(e.style.width)")
        assert 0 < width < 40  # less than 8 of 20 seconds left
        played = "async () => (await import('/static/js/feel.js')).played"
        assert "hurry" not in page.evaluate(played)
        # With 5 seconds left, one warning sound (not one per tick).
        page.wait_for_function("() => +document.querySelector('#clock-mine').dataset.left <= 4")
        assert page.evaluate(played).count("hurry") == 1


@browser_only
@pytest.mark.timeout(60)
def test_the_declaration_window_countdown_shows_for_a_spectator(
    server: str, browser: Any
) -> None:
    g = in_phase(2, "declare")
    st = state_of(g, 0)
    st["you"] = None
    st["view"] = g.view(None).to_json()
    st["table"]["clock"] = {"kind": "window", "seat": None, "remaining_ms": 7_000,
                            "total_ms": 10_000}
    with new_page(browser, viewport={"width": 390, "height": 844}) as page:
        open_table(page, server, st)
        clock = page.locator("#clock-window")
        assert clock.get_attribute("data-kind") == "window"
        assert int(clock.get_attribute("data-left") or "0") in (6, 7)


@browser_only
@pytest.mark.timeout(60)
def test_a_stand_ins_cards_carry_a_robot_mark_and_a_toast(
    server: str, browser: Any, play_state: dict[str, Any]
) -> None:
    g = _advance(5, lambda g: g.decision().phase == "play" and len(g.round.tricks) >= 5
                 and bool(g.view(None).to_json()["current_trick"]["plays"]))
    st = state_of(g, _seat_to_act(g))
    view = st["view"]
    trick = len(view["tricks"])
    seat = view["current_trick"]["plays"][0][0]
    st["table"]["standins"] = [{"seq": 9, "seat": seat, "round": view["round_no"], "trick": trick}]
    st["events"] = [{"type": "played", "seat": seat, "cards": [], "trick": trick, "lead": True,
                     "by": "standin"}]
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_table(page, server, st)
        mark = page.locator(f"#trick .slot[data-seat='{seat}'] .standin-mark")
        assert mark.count() == 1
        assert page.locator("#trick .standin-mark").count() == 1  # the others played themselves
        badge = page.locator(f".seat[data-seat='{seat}'] .badge-standin")
        assert badge.inner_text() == "Stand-in ×1"
        assert page.locator(".badge-standin").count() == 1
        page.wait_for_selector(".toast-info")
        assert "stand-in" in page.inner_text(".toast-info")


@browser_only
@pytest.mark.timeout(60)
def test_the_lobby_lists_finished_games_with_result_and_replay_link(
    server: str, browser: Any
) -> None:
    games = [{
        "id": "done1", "name": "Friday <b>night</b>", "status": "finished",
        "created": "2026-12-01T00:00:00+00:00", "finished": "2026-12-01T01:00:00+00:00",
        "seats": [{"name": "Ann", "kind": "human"}, {"name": "Random bot", "kind": "random"},
                  {"name": "Bea", "kind": "human"}, {"name": "Random bot", "kind": "random"}],
        "result": {"winner": 0, "levels": ["A", "8"], "rounds": 11},
    }]
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        page.route("**/api/games", lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(games)))
        page.goto(server + "/")
        item = page.locator("#finished-games .finished-item[data-table='done1']")
        item.wait_for()
        assert item.locator(".ti-name").inner_text() == "Friday <b>night</b>"  # text, not HTML
        text = item.locator(".ti-result").inner_text()
        assert "Ann & Bea" in text and "A–8" in text and "11 rounds" in text
        assert item.locator("a.replay-link").get_attribute("href") == "/games/done1"


class ChatServer(FakeServer):
    """Answers hello with a state and the chat history; echoes chat like the server does."""

    def __init__(self, state: dict[str, Any], history: list[dict[str, Any]]) -> None:
        super().__init__(state)
        self.history = history

    def answer(self, m: dict[str, Any]) -> None:
        """The state and the history to hello; a chat line or reaction echoed as the
        server's (nothing else is answered)."""
        if m["type"] == "hello":
            super().push(self.state)
            super().push({"type": "chat", "history": True, "messages": self.history})
        elif m["type"] == "chat" and "reaction" in m:
            self.push({"n": len(self.history), "at": "", "seat": self.state["you"],
                       "name": "me", "text": f":{m['reaction']}:",
                       "reaction": m["reaction"]})
        elif m["type"] == "chat":
            self.push({"n": len(self.history), "at": "", "seat": self.state["you"],
                       "name": "me", "text": m["text"]})

    def push(self, msg: dict[str, Any]) -> None:
        """Send one chat line (and keep it in the history)."""
        self.history.append(msg)
        super().push({"type": "chat", "messages": [msg]})


XSS = '<img src=x onerror="window.pwned=1"><b>bold</b>'


@browser_only
@pytest.mark.timeout(60)
def test_chat_renders_text_never_html_sends_and_hides(
    server: str, browser: Any, play_state: dict[str, Any]
) -> None:
    st = copy.deepcopy(play_state)
    history = [{"n": 0, "at": "", "seat": 1, "name": "Bao", "text": XSS},
               {"n": 1, "at": "", "seat": None, "name": "Spectator", "text": "gl"}]
    fake = ChatServer(st, history)
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        show_fake(page, server, fake, "#chat-list .chat-msg[data-n='1']")
        first = page.locator("#chat-list .chat-msg[data-n='0'] .chat-text")
        assert first.inner_text() == XSS  # shown as the text it is
        assert page.locator("#chat-list img, #chat-list .chat-text b").count() == 0
        assert page.evaluate("window.pwned") is None
        assert page.inner_text("#chat-list .chat-msg[data-n='1'] .chat-who") == "Spectator"
        page.fill("#chat-input", "nice trick!")
        page.press("#chat-input", "Enter")
        page.wait_for_selector("#chat-list .chat-msg[data-n='2'].mine")
        assert {"type": "chat", "text": "nice trick!"} in fake.sent
        assert page.input_value("#chat-input") == ""
        # A quick reaction goes as its key and is shown in the reader's language.
        page.click(".reaction-btn[data-reaction='gg']")
        page.wait_for_selector("#chat-list .chat-reaction[data-reaction='gg']")
        assert {"type": "chat", "reaction": "gg"} in fake.sent
        assert page.inner_text("#chat-list .chat-reaction") == "Good game!"
        # Hidden: no list, an unread count for what arrives meanwhile; remembered.
        page.click("#chat-toggle")
        assert page.locator("#chat-list").count() == 0
        fake.push({"n": 4, "at": "", "seat": 2, "name": "Chen", "text": "hi"})
        page.wait_for_selector("#chat-unread")
        assert page.inner_text("#chat-unread") == "1"
        assert page.evaluate("localStorage.getItem('shengji.chat')") == "false"
        page.click("#chat-toggle")
        page.wait_for_selector("#chat-list .chat-msg[data-n='4']")
        assert page.locator("#chat-unread").count() == 0


@browser_only
@pytest.mark.timeout(60)
def test_a_spectator_reads_the_chat_and_writes_only_where_the_host_allows_it(
    server: str, browser: Any
) -> None:
    """Issue 11: spectators are read-only in the chat unless the table allows them."""
    g = in_phase(5, "play", 5)
    for allowed in (False, True):
        st = state_of(g, None, settings={"spectator_chat": allowed})  # type: ignore[arg-type]
        fake = ChatServer(st, [{"n": 0, "at": "", "seat": 1, "name": "Bao", "text": "hi"}])
        with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
            show_fake(page, server, fake, "#chat-list .chat-msg[data-n='0']")
            assert page.locator("#chat-input").count() == (1 if allowed else 0)
            assert page.locator(".reaction-btn").count() == (6 if allowed else 0)
            assert page.locator("#chat-read-only").count() == (0 if allowed else 1)


@browser_only
@pytest.mark.timeout(60)
def test_the_table_narrates_from_the_servers_events(
    server: str, browser: Any, play_state: dict[str, Any]
) -> None:
    # Issue 8: sounds and the failed-throw announcement come from the events sent with a
    # state, not from comparing views (the view here is the same before and after).
    st = copy.deepcopy(play_state)
    me = st["you"]
    other = (me + 1) % 4
    st["events"] = [
        {"type": "throw_failed", "seat": other, "attempted": ["AS", "KS"], "forced": ["KS"],
         "blocker": me, "shown": ["AS"], "penalty": -10},
        {"type": "played", "seat": other, "cards": ["KS"], "trick": 5, "lead": True},
        {"type": "trick_won", "trick": 5, "winner": me, "points": 10, "opponents_points": 0},
    ]
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_table(page, server, st)
        page.wait_for_selector(".toast-info")
        text = page.inner_text(".toast-info")
        assert f"{NAMES[other]}'s throw failed" in text
        assert "penalty 10" in text
        played = page.evaluate("async () => (await import('/static/js/feel.js')).played")
        assert "fail" in played and "win" in played and "card" not in played


@browser_only
@pytest.mark.timeout(60)
def test_the_create_form_offers_presets_level_caps_stop_levels_and_the_turn_timer(
    server: str, browser: Any
) -> None:
    import urllib.request

    from shengji.options import PRESETS

    def create(page: Any) -> dict[str, Any]:
        table_id = submit_create(page)
        with urllib.request.urlopen(f"{server}/api/tables/{table_id}") as r:
            info: dict[str, Any] = json.load(r)
        return info

    with new_page(browser, viewport={"width": 1366, "height": 900}) as page:
        open_lobby(page, server, "select[name=preset]")
        assert page.input_value("select[name=preset]") == "seed"
        page.select_option("select[name=preset]", "common_online")
        page.select_option("select[name=turn_s]", "20")
        info = create(page)
        assert info["options"] == PRESETS["common_online"].to_json()
        assert info["settings"]["turn_s"] == 20

        open_lobby(page, server, "select[name=preset]")
        page.click("details.options summary")
        page.select_option("select[name=max_levels_per_round]", "2")
        for rank in ("K", "5", "10"):
            page.check(f"#opt-stop_levels input[value='{rank}']")
        assert page.input_value("select[name=preset]") == "custom"  # no longer a preset
        info = create(page)
        assert info["options"]["max_levels_per_round"] == 2
        assert info["options"]["stop_levels"] == ["5", "10", "K"]
        assert info["settings"]["turn_s"] == 0  # off unless chosen: a friends' table


def open_hosted_table(page: Any, server: str, body: dict[str, Any]) -> str:
    """POST a table from the page (its origin), keep the host token where the client
    looks for it and open the table's page as its host; returns the table's id."""
    page.goto(server + "/")
    made = page.evaluate(
        """async (body) => {
          const r = await fetch('/api/tables', {method: 'POST',
            headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
          return r.json();
        }""",
        body,
    )
    page.evaluate("([id, tok]) => localStorage.setItem('shengji.token.' + id, tok)",
                  [made["id"], made["host_token"]])
    page.goto(server + f"/t/{made['id']}")
    return str(made["id"])


@browser_only
@pytest.mark.timeout(120)
def test_a_real_table_counts_down_and_a_marked_stand_in_plays_at_timeout(
    server: str, browser: Any
) -> None:
    # End to end: a table with a 1.5 s turn timer (a private server's fast timings); the
    # player never acts, so the stand-in plays for them, marked on the cards and the seat.
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_hosted_table(page, server, {"name": "timer", "turn_s": 1.5, "deal_ms": 3,
                                         "window_ms": 800, "bot_delay_ms": 20,
                                         "round_pause_ms": 600})
        page.wait_for_selector("#timer-note")
        assert page.inner_text("#timer-note").startswith("Turn timer: 1.5 s per turn")
        sit(page, "Ann")
        add_bots(page, ((seat, "random") for seat in (1, 2, 3)))
        page.click("#start-btn")
        # The countdown runs on the seat to act, mine included, from the server's deadline.
        page.wait_for_selector("#clock-seat-0", timeout=60_000)
        page.wait_for_selector(".seat[data-seat='0'] .badge-standin", timeout=30_000)
        page.wait_for_selector(".toast-info:has-text('a stand-in played for you')")


@browser_only
@pytest.mark.timeout(180)
def test_a_finished_game_is_listed_in_the_lobby_and_opens_its_replay(
    server: str, browser: Any
) -> None:
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        tid = open_hosted_table(page, server, {"name": "all bots", "deal_ms": 0,
                                               "window_ms": 50, "bot_delay_ms": 0,
                                               "round_pause_ms": 0})
        add_bots(page, ((seat, "random") for seat in range(4)))
        page.click("#start-btn")
        page.wait_for_selector("main.table-page[data-status='finished']", timeout=150_000)
        # The replay link is on the table itself, not only in the game-over window.
        assert page.get_attribute("#head-replay", "href") == f"/games/{tid}"
        page.goto(server + "/")
        item = page.locator(f"#finished-games .finished-item[data-table='{tid}']")
        item.wait_for()
        assert "won" in item.locator(".ti-result").inner_text()
        item.locator("a.replay-link").click()
        page.wait_for_url(re.compile(rf".*/games/{tid}$"))
        page.wait_for_selector("#replay-pos")
        page.click("#replay-last")
        page.wait_for_selector("#replay-result")

"""The browser client at the tables of RULES §12 (issue 33), in headless Chromium.

A person creates a six-player friends table (找朋友) in the lobby, fills the other five
seats with heuristic bots and plays a whole round by clicking, at 1366×800 and at
390×844. The deal is seed 3 (the server's `seed_source`): seat 0 holds the three red
jokers, declares them (no one can overturn three of a kind, §12.1), leads the round and
calls two friends in the call dialog (§12.4): first a call the server refuses (the same
card and copy twice), whose reason the dialog shows; then, after a reload brings the
dialog back from the state, a good one. Every time it is the person's turn the friend
banner says what the view's `calls` say, nothing more (§11), and the round ends with
every player's level in the summary; the replay shows the six seats and their sides. An
eight-player teams round (§12.2) is played the same way, and a ten-seat table keeps its
seats apart and inside the felt at both sizes.

Legal plays come from the engine (`iter_follows`) reading the state the page received
over its WebSocket: the client's own check knows pairs only, the server decides at three
decks (§12.3). `SHENGJI_TABLE12_SCREENSHOTS=docs/screenshots` writes the README's
screenshots (table-6p-friends.png, table-10p-phone.png) there.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from browser_helpers import (
    ARTIFACTS,
    CORNER,
    add_bots,
    fill_options,
    new_page,
    open_lobby,
    sit,
    submit_create,
    wait_until,
)
from server_harness import live_server
from shengji import RuleOptions
from shengji.cards import CARDS, counts_of, parse_cards
from shengji.follow import iter_follows
from shengji.shapes import shape_of
from shengji.trump import Trump

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SEED = 3  # seat 0 is dealt all three red jokers at six players (RULES §12.1)
SIX = RuleOptions.from_json({"players": 6, "mode": "friends"})
DESKTOP = {"viewport": {"width": 1366, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}
SHOTS = os.environ.get("SHENGJI_TABLE12_SCREENSHOTS")

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


class Wire:
    """The `state` messages the page receives, across reloads (each new WebSocket)."""

    def __init__(self, page: Any) -> None:
        self.states: list[dict[str, Any]] = []
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload: Any) -> None:
        if isinstance(payload, bytes):
            payload = payload.decode("utf-8")
        with contextlib.suppress(ValueError):
            msg = json.loads(payload)
            if isinstance(msg, dict) and msg.get("type") == "state" and msg.get("view"):
                self.states.append(msg)

    def view(self) -> dict[str, Any]:
        return dict(self.states[-1]["view"]) if self.states else {}


def launch(playwright: Any) -> Any:
    """A fresh Chromium from the file's shared Playwright driver (conftest `_playwright`)
    for a test on its own seeded server (`live_server`), where the `browser` fixture's
    server is not wanted; skipped (or failed under CI=true) without Chromium."""
    from browser_helpers import CHROMIUM, CHROMIUM_ARGS
    from server_harness import skip_or_fail

    if not os.path.exists(CHROMIUM):
        skip_or_fail(f"{CHROMIUM} is missing")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def create_table(page: Any, base: str, players: int, mode: str, name: str = "Mei") -> str:
    """Lobby -> a table of `players` in `mode` (fast timings) -> seat 0 -> heuristic bots
    in every other seat. Returns the table id."""
    open_lobby(page, base)
    page.fill("input[name=table-name]", f"Family table of {players}")
    page.select_option("select[name=players]", str(players))
    page.select_option("select[name=mode]", mode)
    # a long last window (RULES §3.3): a busy machine's person still gets to declare
    fill_options(page, deal_ms="0.003", window_ms="2.5", bot_delay_ms="0.02",
                 round_pause_ms="600")
    table_id = submit_create(page)
    page.wait_for_selector(f".seat[data-seat='{players - 1}']")
    assert page.locator(".felt .seat").count() == players
    sit(page, name)
    # the searching bots play every table (issue 33): offered here, and seat 1 is the
    # expert's fast level
    assert page.locator(".seat[data-seat='1'] .bot-btn[data-kind='expert']").count() == 1
    add_bots(page, ((seat, "fast" if seat == 1 else "heuristic") for seat in range(1, players)))
    return table_id


def legal_play(view: dict[str, Any], table: RuleOptions = SIX) -> list[str]:
    """A legal play for the seat to act, from its view (RULES §6.1, §12.3): a single
    when leading, else the engine's first legal follow."""
    hand = parse_cards(" ".join(view["hand"]))
    if not view["lead"]:
        return [hand[0].text]
    opts = view.get("options") or table.to_json()  # sent once per connection (history delta)
    t = Trump(view["trump_rank"], view["trump_suit"], decks=table.n_decks,
              gap_tractors=opts["gap_tractors"] == "on",
              throw_tractors=opts["throw_tractors"] == "on")
    lead = [c.id for c in parse_cards(" ".join(view["lead"]))]
    ids = next(iter(iter_follows(counts_of(hand), shape_of(lead, t), t)))
    return [CARDS[i].text for i in ids]


def click_cards(page: Any, cards: list[str]) -> None:
    """Select these cards in the hand (copies of one card: its first, second… element)."""
    seen: Counter[str] = Counter()
    for c in cards:
        page.locator(f"#hand .card[data-card='{c}']").nth(seen[c]).click(position=CORNER)
        seen[c] += 1


def call_words(card: str, ordinal: int) -> str:
    return f"the {ORDINALS[ordinal]} {card[:-1]}{SUITS[card[-1]]}"


def expected_banner(view: dict[str, Any], names: list[str]) -> list[str]:
    """What the banner must say for each call (docs/WEB_PROTOCOL.md's `calls`)."""
    out = []
    for c in view.get("calls", []):  # none in teams mode
        head = f"Friend: {call_words(c['card'], c['ordinal'])} — "
        if c["played_by"] is not None and not c["spent"]:
            out.append(head + f"joined: {names[c['played_by']]}")
        elif c["played_by"] is not None:
            out.append(head + f"played by {names[c['played_by']]}: no new friend")
        elif c["spent"]:
            out.append(head + "never played (in the kitty)")
        else:
            out.append(head + "not yet played")
    return out


HAND_JS = "n => document.querySelectorAll('#hand .card').length === n"
PHASE_JS = "p => document.querySelector('main').dataset.phase !== p"  # the phase has moved on
PLAY_JS = "() => document.querySelector('main').dataset.phase === 'play'"

# What the person waits for: something to do (arg: the declaration already made).
READY_JS = """(declared) => {
  const m = document.querySelector('main.table-page');
  if (!m || !m.dataset.phase) return false;
  if (document.querySelector('#summary')) return 'summary';
  const btns = [...document.querySelectorAll('.decl-btn')];
  if (btns.length && btns[btns.length - 1].dataset.cards !== declared) return 'declare';
  const mine = m.dataset.me !== '' && m.dataset.toAct === m.dataset.me;
  if (!mine) return false;
  if (m.dataset.phase === 'declare' && document.querySelector('#pass-btn')) return 'pass';
  if (m.dataset.phase === 'kitty' && document.querySelector('#bury-btn')) return 'kitty';
  if (m.dataset.phase === 'call'
      && document.querySelector('#call-dialog #call-btn:not([disabled])')) return 'call';
  if (m.dataset.phase === 'play' && document.querySelector('#play-btn')
      && document.querySelectorAll('#hand .card.sel').length === 0) return 'play';
  return false;
}"""


def make_the_call(page: Any, wire: Wire) -> list[tuple[str, int]]:
    """The leader's call (RULES §12.4): a refused one first, a reload, then a good one."""
    dialog = page.locator("#call-dialog")
    assert dialog.locator(".call-row").count() == SIX.n_players // 2 - 1  # two friends
    # ordinals 1st..3rd at three decks; the ranks offered leave out the trump rank
    assert dialog.locator("select[name=call-ord-0] option").count() == SIX.n_decks
    rank = wire.view()["trump_rank"]
    offered = dialog.locator("select[name=call-rank-0] option").all_inner_texts()
    assert "A" in offered and (rank is None or rank not in offered)
    # the same card and copy twice: refused by the server, its reason in the dialog
    for i in (0, 1):
        page.select_option(f"select[name=call-rank-{i}]", "A")
        page.locator(f".call-row[data-call='{i}'] .call-suit[data-suit='S']").click()
        page.select_option(f"select[name=call-ord-{i}]", "1")
    page.click("#call-btn")
    err = page.locator("#call-error")
    err.wait_for()
    assert "called twice" in err.inner_text() and "12.4" in err.inner_text()
    assert wire.view()["phase"] == "call"  # nothing changed
    # a refresh brings the dialog back from the state
    page.reload()
    page.wait_for_selector("#call-dialog #call-btn:not([disabled])")
    calls = [("AS", 2), ("KH", 1)]
    for i, (card, j) in enumerate(calls):
        page.select_option(f"select[name=call-rank-{i}]", card[:-1])
        page.locator(f".call-row[data-call='{i}'] .call-suit[data-suit='{card[-1]}']").click()
        page.select_option(f"select[name=call-ord-{i}]", str(j))
        say = page.locator(f".call-row[data-call='{i}'] .call-say")
        assert say.inner_text() == call_words(card, j)
    page.click("#call-btn")
    page.wait_for_function(PLAY_JS)
    assert page.locator("#call-dialog").count() == 0
    return calls


def play_round(page: Any, wire: Wire, prefix: str, shot: Path | None,
               table: RuleOptions = SIX) -> dict[str, Any]:
    """Act for seat 0 at a table with `table`'s options until the round summary shows;
    returns what happened."""
    stats: dict[str, Any] = {"declared": "", "buried": 0, "calls": None, "plays": 0,
                             "cards": 0, "banner_checks": 0, "joined_seen": 0}
    deadline = time.monotonic() + 400
    while time.monotonic() < deadline:
        what = page.wait_for_function(READY_JS, arg=stats["declared"], timeout=120_000).json_value()
        if what == "summary":
            return stats
        if what == "declare":
            btn = page.locator(".decl-btn").last
            try:
                cards = btn.get_attribute("data-cards", timeout=2000) or ""
            except PlaywrightTimeout:  # the buttons went meanwhile (the deal moved on)
                continue
            stats["declared"] = cards  # asked once: the wire says what stood (below)
            with contextlib.suppress(Exception):  # the deal moves on: a missed click is no error
                btn.click(timeout=1000)
        elif what == "pass":
            with contextlib.suppress(Exception):
                page.locator("#pass-btn").click(timeout=1000)
            page.wait_for_function(
                "() => !document.querySelector('#pass-btn')", timeout=30_000)
        elif what == "kitty":
            k = table.n_kitty
            page.wait_for_function(HAND_JS, arg=table.n_hand + k)
            for i in range(k):
                page.locator(f"#hand .card[data-index='{i}']").click(position=CORNER)
            page.wait_for_selector("#bury-btn:not([disabled])")
            page.click("#bury-btn")
            page.wait_for_function(PHASE_JS, arg="kitty")
            stats["buried"] += 1
        elif what == "call":
            stats["calls"] = make_the_call(page, wire)
        elif what == "play":
            n_hand = page.locator("#hand .card").count()
            wait_until(page, lambda n=n_hand: (v := wire.view()).get("phase") == "play"
                       and v["to_act"] == 0 and len(v["hand"]) == n)
            view = wire.view()
            # the banner says what the view's calls say (RULES §12.4): the game waits for us
            names = page.locator(".felt .seat .seat-name").all_inner_texts()
            got = [x.strip() for x in page.locator("#friend-banner .fb-item").all_inner_texts()]
            assert got == expected_banner(view, names), (got, view["calls"])
            stats["banner_checks"] += 1
            stats["joined_seen"] = max(stats["joined_seen"], page.locator(".fb-joined").count())
            choice = legal_play(view, table)
            click_cards(page, choice)
            page.wait_for_selector("#play-btn:not([disabled])", timeout=10_000)
            if shot is not None and stats["plays"] == 12:
                page.screenshot(path=str(shot))
            if stats["plays"] == 4:
                page.screenshot(path=str(ARTIFACTS / f"{prefix}-play.png"))
            before = page.locator("#hand .card").count()
            page.click("#play-btn")
            page.wait_for_function(
                f"() => document.querySelectorAll('#hand .card').length < {before}"
                " || !!document.querySelector('#summary')")
            stats["plays"] += 1
            stats["cards"] += len(choice)
    raise AssertionError(f"the round did not end in time; {stats}")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_six_player_friends_round_with_the_call_dialog(
    tmp_path: Path, size: str, _playwright: Any
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = Path(SHOTS) / "table-6p-friends.png" if SHOTS and size == "desktop" else None
    with live_server(tmp_path / "db.sqlite", seed_source=lambda: SEED) as base:
        browser = launch(_playwright)
        try:
            with new_page(browser, **(DESKTOP if size == "desktop" else PHONE)) as page:
                wire = Wire(page)
                table_id = create_table(page, base, 6, "friends")
                page.goto(base + "/")  # the lobby lists it as a friends table
                item = page.locator(".table-item[data-players='6']").first
                item.wait_for()
                assert "6 players · friends" in item.inner_text()
                page.go_back()
                page.wait_for_selector("#start-btn:not([disabled])")
                page.click("#start-btn")
                page.wait_for_selector("main[data-status='playing']")
                stats = play_round(page, wire, f"table12-{size}", shot)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= (1366 if size == "desktop" else 390), width
                # seat 0's declaration stood (at last the three red jokers, §12.1): it led,
                # and the dialog was used
                played = next(m["view"] for m in wire.states if m["view"]["phase"] == "play")
                assert played["declarations"][-1][0] == 0, played["declarations"]
                assert stats["calls"] == [("AS", 2), ("KH", 1)], stats
                assert stats["cards"] == SIX.n_hand, stats  # every card, trick by trick
                assert stats["banner_checks"] >= 20, stats
                summary = page.locator("#summary")
                assert summary.is_visible()
                rows = page.locator("#sum-levels tbody tr")
                assert rows.count() == 6
                last = next(m["view"]["last_result"] for m in reversed(wire.states)
                            if m["view"].get("last_result"))
                assert last["leader"] == 0
                for seat in range(6):
                    row = page.locator(f"#sum-levels tr[data-seat='{seat}']")
                    assert row.locator("td b").inner_text() == last["levels_after"][seat]
                    assert (row.get_attribute("class") or "") == f"side-{last['sides'][seat]}"
                page.screenshot(path=str(ARTIFACTS / f"table12-{size}-summary.png"))
                page.click("#summary-close")
                # per-player levels in the bar (RULES §12.4)
                chips = page.locator("#levels-bar .lv-chip")
                assert chips.count() == 6
                levels = [chips.nth(i).get_attribute("data-level") for i in range(6)]
                assert levels == last["levels_after"]
                # the replay so far: six seats, the sides and levels of the round played
                page.goto(f"{base}/games/{table_id}")
                page.wait_for_selector("#replay .felt .seat[data-seat='5']")
                assert page.locator("#replay .felt .seat").count() == 6
                page.click("#replay-last")
                page.wait_for_selector("#replay-result")
                assert page.locator("#replay .seat.side-leader[data-seat='0']").count() == 1
                # the review plays §12 tables too (issue 33): any of the six seats
                assert page.locator("#review-panel").count() == 1
                assert page.locator("#review-seat option").count() == 6
                if size == "desktop":
                    page.click("#review-btn")
                    page.wait_for_selector("#review-body", timeout=120_000)
                page.screenshot(path=str(ARTIFACTS / f"table12-{size}-replay.png"), full_page=True)
        finally:
            browser.close()


def _boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return list(page.eval_on_selector_all(
        selector, "els => els.map(e => e.getBoundingClientRect().toJSON())"))


def _inside(a: dict[str, float], box: dict[str, float]) -> bool:
    return (a["x"] >= box["x"] - 0.5 and a["x"] + a["width"] <= box["x"] + box["width"] + 0.5
            and a["y"] >= box["y"] - 0.5
            and a["y"] + a["height"] <= box["y"] + box["height"] + 0.5)


def _apart(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] + a["width"] <= b["x"] + 0.5 or b["x"] + b["width"] <= a["x"] + 0.5
            or a["y"] + a["height"] <= b["y"] + 0.5 or b["y"] + b["height"] <= a["y"] + 0.5)


@pytest.mark.timeout(300)
def test_ten_seats_stay_apart_and_inside_the_felt(server: str, browser: Any) -> None:
    shot = Path(SHOTS) / "table-10p-phone.png" if SHOTS else None
    ten = RuleOptions.from_json({"players": 10, "mode": "friends"})
    with new_page(browser, **PHONE) as page:
        create_table(page, server, 10, "friends")
        # waiting: every seat's host buttons (five bot kinds, issue 33) stay in its seat
        page.screenshot(path=str(ARTIFACTS / "table12-10p-waiting.png"), full_page=True)
        seats = _boxes(page, ".felt .seat")
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                assert _apart(a, b), ("waiting", a, b)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.click("#start-btn")
        # the play under way (the seats drawn where they sit for the round): if the person
        # leads, they bury and call first; the view's defaults are a legal call (§12.4)
        under_way = ("() => { const m = document.querySelector('main');"
                     " if (m.dataset.phase === 'play') return document.querySelectorAll("
                     "'#trick .slot .card').length >= 2 || m.dataset.toAct === m.dataset.me;"
                     " return !!document.querySelector('#bury-btn, #call-btn:not([disabled])'); }")
        for _ in range(3):
            page.wait_for_function(under_way, timeout=120_000)
            if page.locator("#bury-btn").count():
                page.wait_for_function("k => document.querySelectorAll('#hand .card').length"
                                       " === k", arg=ten.n_hand + ten.n_kitty)
                for i in range(ten.n_kitty):
                    page.locator(f"#hand .card[data-index='{i}']").click(position=CORNER)
                page.click("#bury-btn:not([disabled])")
                page.wait_for_function(PHASE_JS, arg="kitty")
            elif page.locator("#call-btn").count():
                page.click("#call-btn")
                page.wait_for_function(PLAY_JS)
            else:
                break
        for w, h in ((390, 844), (1366, 800)):
            page.set_viewport_size({"width": w, "height": h})
            page.wait_for_function(f"() => window.innerWidth === {w}")
            page.screenshot(path=str(ARTIFACTS / f"table12-10p-{w}.png"))
            felt = _boxes(page, ".felt")[0]
            seats = _boxes(page, ".felt .seat")
            assert len(seats) == 10
            for i, a in enumerate(seats):
                assert _inside(a, felt), (w, a, felt)
                for b in seats[i + 1:]:
                    assert _apart(a, b), (w, a, b)
            assert page.evaluate("document.documentElement.scrollWidth") <= w
            # the own seat is at the bottom, the next seat to its right (RULES §12.1)
            own, nxt = seats[0], seats[1]
            assert own["y"] >= max(s["y"] for s in seats) - 0.5
            assert nxt["x"] > own["x"]
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_function("() => window.innerWidth === 390")
        page.screenshot(path=str(ARTIFACTS / "table12-10p-phone.png"))
        if shot is not None:
            page.screenshot(path=str(shot))


@pytest.mark.timeout(600)
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_an_eight_player_teams_round(tmp_path: Path, size: str, _playwright: Any) -> None:
    """Fixed teams at eight seats (RULES §12.2): four decks, the team of each seat by
    parity, the two teams' levels in the bar and the summary; a whole round by clicking."""
    eight = RuleOptions.from_json({"players": 8, "mode": "teams"})
    ARTIFACTS.mkdir(exist_ok=True)
    with live_server(tmp_path / "db.sqlite", seed_source=lambda: 25) as base:
        browser = launch(_playwright)
        try:
            with new_page(browser, **(DESKTOP if size == "desktop" else PHONE)) as page:
                wire = Wire(page)
                create_table(page, base, 8, "teams")
                page.click("#start-btn")
                page.wait_for_selector("main[data-status='playing']")
                for seat in range(8):  # partners every other seat
                    cls = page.locator(f".felt .seat[data-seat='{seat}']").get_attribute("class")
                    assert f"team{seat % 2}" in (cls or ""), (seat, cls)
                stats = play_round(page, wire, f"table12-8t-{size}", None, eight)
                assert stats["cards"] == eight.n_hand, stats
                assert stats["calls"] is None and page.locator("#friend-banner").count() == 0
                assert page.locator("#summary .levels-table tbody tr").count() == 2
                last = next(m["view"]["last_result"] for m in reversed(wire.states)
                            if m["view"].get("last_result"))
                after = page.locator("#summary .levels-table tbody td b").all_inner_texts()
                assert after == last["levels_after"]
                page.screenshot(path=str(ARTIFACTS / f"table12-8t-{size}-summary.png"))
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= (1366 if size == "desktop" else 390), width
        finally:
            browser.close()


@pytest.mark.timeout(120)
def test_the_create_form_offers_the_table_options_of_rules_12(server: str, browser: Any) -> None:
    """Players 4-10, the mode (an odd table plays friends, RULES §12.1) and the decks go
    to the server in `options`; four players at the defaults send none of them."""
    with new_page(browser, viewport={"width": 1366, "height": 800}) as page:
        open_lobby(page, server)
        sent: list[dict[str, Any]] = []
        page.on("request", lambda r: sent.append(json.loads(r.post_data or "{}"))
                if r.method == "POST" and r.url.endswith("/api/tables") else None)
        players = page.locator("select[name=players] option").all_inner_texts()
        assert players == [str(n) for n in range(4, 11)]
        page.select_option("select[name=players]", "7")
        modes = page.eval_on_selector(
            "select[name=mode]", "s => [...s.options].map(o => [o.value, o.disabled])")
        assert modes == [["teams", True], ["friends", False]]  # 7 cannot play teams
        assert page.input_value("select[name=mode]") == "friends"
        assert "Default (3)" in page.locator("select[name=decks]").inner_text()
        submit_create(page)
        page.wait_for_selector(".felt .seat[data-seat='6']")
        assert page.locator(".felt .seat").count() == 7
        assert sent[-1]["options"]["players"] == 7 and sent[-1]["options"]["mode"] == "friends"
        assert "decks" not in sent[-1]["options"]
        # eight players, teams, three decks: said so in the lobby
        open_lobby(page, server)
        page.select_option("select[name=players]", "8")
        page.select_option("select[name=mode]", "teams")
        page.select_option("select[name=decks]", "3")
        submit_create(page)
        page.wait_for_selector(".felt .seat[data-seat='7']")
        opts = sent[-1]["options"]
        assert (opts["players"], opts.get("mode", "teams"), opts["decks"]) == (8, "teams", 3)
        page.goto(server + "/")
        item = page.locator(".table-item[data-players='8']").first
        item.wait_for()
        assert "8 players · teams · 3 decks" in item.inner_text()
        seven = page.locator(".table-item[data-players='7']").first
        assert "7 players · friends" in seven.inner_text()
        # four players at the defaults: the options as before §12 (none of the new keys)
        submit_create(page)
        assert not {"players", "mode", "decks"} & set(sent[-1]["options"])
        page.wait_for_selector(".felt .seat[data-seat='3']")
        assert page.locator(".felt .seat").count() == 4
        assert page.locator(".felt.ring").count() == 0  # the four-seat table as always

"""End-to-end tests of the browser client (src/shengji/server/static) in headless Chromium.

The real server runs as a subprocess on 127.0.0.1; Playwright drives Debian's
Chromium. A person creates a table in the lobby, sits, fills three seats with
bots, starts and plays a whole round by clicking cards, then sees the round
summary. Screenshots go to test-artifacts/.

The catalogue tests at the end need no browser.
"""

from __future__ import annotations

import contextlib
import re
import time
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from browser_helpers import (
    ARTIFACTS,
    LANGS,
    STATE_JS,
    STATIC,
    catalogue,
    choose_play,
    create_table_and_sit,
    new_page,
    open_lobby,
    rules_catalogue,
    submit_create,
)

browser_only = pytest.mark.browser


def click_cards(page: Any, indices: list[int]) -> None:
    for i in indices:
        page.click(f"#hand .card[data-index='{i}']")


def play_round(page: Any, *, shot_prefix: str, timeout_s: float = 240) -> dict[str, int]:
    """Act for seat 0 by clicking until the round summary shows."""
    stats = {"plays": 0, "cards": 0, "declared": 0, "buried": 0, "refused_checked": 0}
    shots: set[str] = set()
    declared = False
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        st = page.evaluate(STATE_JS)
        if st is None:
            time.sleep(0.05)
            continue
        if st["summary"]:
            return stats
        phase, mine = st["phase"], st["toAct"] == st["me"] and st["me"] != ""
        if phase in ("deal", "declare"):
            # The buttons come and go with the deal: a missed click is not an error.
            if st["decl"] and not declared:
                with contextlib.suppress(PlaywrightTimeout):
                    page.locator(".decl-btn").first.click(timeout=1000)
                    declared = True
                    stats["declared"] += 1
            elif st["pass"]:
                with contextlib.suppress(PlaywrightTimeout):
                    page.locator("#pass-btn").click(timeout=1000)
            time.sleep(0.03)
        elif phase == "kitty" and mine and st["bury"]:
            if "kitty" not in shots:
                shots.add("kitty")
                page.screenshot(path=str(ARTIFACTS / f"{shot_prefix}-kitty.png"))
            click_cards(page, [h["i"] for h in st["hand"][:8]])
            page.wait_for_selector("#bury-btn:not([disabled])")
            page.click("#bury-btn")
            page.wait_for_function("() => document.querySelector('main').dataset.phase !== 'kitty'")
            stats["buried"] += 1
        elif phase == "play" and mine and st["play"] is not None:
            hand = st["hand"]
            # Once: a selection that does not follow suit is refused (Play disabled, a reason).
            if st["lead"] and not stats["refused_checked"]:
                led_n = len(st["lead"].split())
                in_suit = [h for h in hand if h["ps"] == st["leadSuit"]]
                off = [h for h in hand if h["ps"] != st["leadSuit"]]
                if led_n == 1 and in_suit and off:
                    click_cards(page, [off[0]["i"]])
                    page.wait_for_selector("#reason")
                    assert page.is_disabled("#play-btn")
                    page.screenshot(path=str(ARTIFACTS / f"{shot_prefix}-refused.png"))
                    page.click("#clear-btn")
                    stats["refused_checked"] += 1
            choice = choose_play(hand, st["lead"], st["leadSuit"])
            click_cards(page, choice)
            page.wait_for_selector("#play-btn:not([disabled])", timeout=5000)
            if stats["plays"] == 3 and "play" not in shots:
                shots.add("play")
                page.screenshot(path=str(ARTIFACTS / f"{shot_prefix}-play.png"))
            before = len(hand)
            page.click("#play-btn")
            page.wait_for_function(
                f"() => document.querySelectorAll('#hand .card').length < {before}"
                " || !!document.querySelector('#summary')"
            )
            stats["plays"] += 1
            stats["cards"] += len(choice)
        else:
            time.sleep(0.03)
    raise AssertionError(f"the round did not end in {timeout_s}s; stats {stats}")


@browser_only
@pytest.mark.timeout(400)
def test_play_a_whole_round(server: str, browser: Any) -> None:
    with new_page(browser, viewport={"width": 1366, "height": 900}) as page:
        table_id = create_table_and_sit(page, server)
        page.screenshot(path=str(ARTIFACTS / "desktop-waiting.png"))
        page.click("#start-btn")
        page.wait_for_selector("main[data-status='playing']")
        stats = play_round(page, shot_prefix="desktop")
        assert stats["cards"] == 25, stats  # every card of the hand, trick by trick
        assert page.inner_text("#round-no").strip() == "2"
        summary = page.locator("#summary")
        assert summary.is_visible()
        assert page.locator("#sum-points").inner_text().strip().lstrip("-").isdigit()
        assert page.locator("#summary .levels-table tbody tr").count() == 2
        assert page.locator("#summary [data-card]").count() == 8  # the kitty, shown to all
        page.screenshot(path=str(ARTIFACTS / "desktop-summary.png"))
        page.click("#summary-close")
        assert page.locator("#summary").count() == 0
        # The replay's controls are drawn (SVG), not font glyphs that may be missing.
        page.goto(f"{server}/games/{table_id}")
        page.wait_for_selector("#replay-first svg")
        assert page.locator(".replay-nav button svg").count() == 4
        assert "⏮" not in page.inner_text(".replay-nav")
        page.click("#replay-next")
        assert page.inner_text("#replay-pos").startswith("Trick 1 /")
        page.go_back()
        # Reload: the stored token brings the player back to seat 0.
        page.reload()
        page.wait_for_selector(".seat[data-seat='0'] .you")
        assert page.evaluate("document.querySelector('main').dataset.me") == "0"
        assert table_id in page.url


@browser_only
@pytest.mark.timeout(200)
def test_phone_viewport(server: str, browser: Any) -> None:
    phone = {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
    }
    with new_page(browser, **phone) as page:
        open_lobby(page, server)
        page.screenshot(path=str(ARTIFACTS / "phone-lobby.png"), full_page=True)
        create_table_and_sit(page, server, name="Bao")
        page.click("#start-btn")
        page.wait_for_function(
            "() => ['play'].includes(document.querySelector('main').dataset.phase)"
            " || !!document.querySelector('#bury-btn')",
            timeout=60000,
        )
        time.sleep(0.3)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
        # Every hand card shows at least its corner (rank and suit) and fits the screen.
        boxes = page.eval_on_selector_all(
            "#hand .card", "els => els.map(e => e.getBoundingClientRect().toJSON())"
        )
        assert len(boxes) >= 25
        page.screenshot(path=str(ARTIFACTS / "phone-table.png"))
        assert all(b["x"] >= 0 and b["x"] + b["width"] <= 390 + 0.5 for b in boxes), boxes
        page.screenshot(path=str(ARTIFACTS / "phone-table.png"))
        page.screenshot(path=str(ARTIFACTS / "phone-table-full.png"), full_page=True)


def wait_for_heading(page: Any, text: str) -> None:
    js = "t => document.querySelector('#create-form h2').textContent === t"
    page.wait_for_function(js, arg=text)


@browser_only
@pytest.mark.timeout(120)
def test_language_switcher(server: str, browser: Any) -> None:
    zh, en, vi = catalogue("zh"), catalogue("en"), catalogue("vi")
    with new_page(browser, viewport={"width": 1200, "height": 800}) as page:
        open_lobby(page, server, "#create-form h2")
        assert page.inner_text("#create-form h2") == en["lobby.create"]
        page.select_option("#lang-select", "zh")
        wait_for_heading(page, zh["lobby.create"])
        assert page.inner_text("#create-btn") == zh["lobby.create_btn"]
        assert page.evaluate("document.documentElement.lang") == "zh"
        page.screenshot(path=str(ARTIFACTS / "lang-zh.png"))
        page.reload()  # the choice is remembered
        page.wait_for_selector("#create-form h2")
        assert page.inner_text("#create-form h2") == zh["lobby.create"]
        page.select_option("#lang-select", "en")
        wait_for_heading(page, en["lobby.create"])
    # Without a stored choice the browser's language decides.
    with new_page(browser, locale="vi-VN") as page:
        open_lobby(page, server, "#create-form h2")
        assert page.inner_text("#create-form h2") == vi["lobby.create"]


# ---------------------------------------------------------------- catalogues (no browser)


def test_catalogues_have_the_same_keys_and_placeholders() -> None:
    en = catalogue("en")
    for lang in LANGS:
        cat = catalogue(lang)
        assert set(cat) == set(en), (lang, sorted(set(en) - set(cat)), sorted(set(cat) - set(en)))
        for key, text in cat.items():
            assert isinstance(text, str) and text.strip(), (lang, key)
            assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", en[key])), (
                lang,
                key,
            )
        if lang != "en":
            same = [k for k in en if cat[k] == en[k] and re.search(r"[a-z]{4}", en[k])]
            assert len(same) < len(en) * 0.1, (lang, "untranslated?", same)


def test_every_literal_key_used_by_the_client_is_in_the_catalogue() -> None:
    en = catalogue("en")
    used: set[str] = set()
    for path in (STATIC / "js").glob("*.js"):
        text = path.read_text("utf-8")
        used |= set(re.findall(r"""\bt\(\s*"([a-z_0-9]+\.[a-z_0-9.]+)\"""", text))
        used |= set(re.findall(r"""\"(reason\.[a-z_]+)\"""", text))
        # Counted messages (tn): every language has key.one and key.other (Intl.PluralRules).
        counted = re.findall(r"""\btn\(\s*"([a-z_0-9.]+)\"""", text)
        used |= {f"{k}.{c}" for k in counted for c in ("one", "other")}
    missing = sorted(k for k in used if k not in en)
    assert not missing, missing


# ---------------------------------------------------------------- client rules vs the engine


def _level_cases() -> list[dict[str, Any]]:
    """The engine's play suit and level of every card under five trumps (RULES §5.4).

    The client keeps its own card level only to sort and mark the hand; what is legal
    (declarations, follows, throws) it takes from the server."""
    from shengji.cards import CARDS
    from shengji.trump import Trump

    levels = []
    for rank, suit in (("2", "H"), ("A", "S"), ("10", "C"), ("7", None), (None, None)):
        tr = Trump(rank, suit)
        for c in CARDS:
            levels.append(
                {
                    "trump": {"rank": rank, "suit": suit},
                    "card": c.text,
                    "suit": tr.play_suit_of(c),
                    "level": tr.level_of(c),
                }
            )
    return levels


LOGIC_JS = """async (cases) => {
  const m = await import('/static/js/cards.js');
  const tr = (t) => ({rank: t.rank, suit: t.suit, final: true, noTrump: !t.suit});
  const bad = [];
  for (const c of cases) {
    const card = m.parseCard(c.card), t = tr(c.trump);
    const got = [m.playSuit(card, t), m.cardLevel(card, t)];
    if (got[0] !== c.suit || got[1] !== c.level) bad.push({level: c, got});
  }
  return {bad: bad.slice(0, 5), n: cases.length};
}"""


@browser_only
@pytest.mark.timeout(200)
def test_the_clients_card_levels_agree_with_the_engine(server: str, browser: Any) -> None:
    cases = _level_cases()
    with new_page(browser) as page:
        open_lobby(page, server)
        out = page.evaluate(LOGIC_JS, cases)
    assert out["n"] == 5 * 54
    assert not out["bad"], out


HISTORY_JS = """async () => {
  const net = await import('/static/js/net.js');
  const r = await fetch('/api/tables', {
    method: 'POST', headers: {'content-type': 'application/json'},
    body: JSON.stringify({name: 'history', deal_ms: 2, window_ms: 300, bot_delay_ms: 2,
                          round_pause_ms: 200})});
  const {id, host_token} = await r.json();
  const open = (hello) => new Promise((res) => {
    const ws = new WebSocket(`ws://${location.host}/ws/${id}`);
    ws.onopen = () => { ws.send(JSON.stringify(hello)); res(ws); };
  });
  const whole = [], grown = [];
  let held = null, continued = 0, refused = 0;
  const full = await open({type: 'hello', token: null, lang: 'en'});
  full.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === 'state') whole.push(m);
  };
  const delta = await open({type: 'hello', token: null, lang: 'en', history: 'delta'});
  delta.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type !== 'state') return;
    if (m.view && m.view.history_from && m.view.history_from.tricks > 0) continued++;
    held = net.mergeState(m, held);
    if (!held) refused++;
    grown.push(m);
  };
  const host = await open({type: 'hello', token: host_token, lang: 'en'});
  for (let s = 0; s < 4; s++) host.send(JSON.stringify({type: 'bot', seat: s, kind: 'random'}));
  host.send(JSON.stringify({type: 'start'}));
  await new Promise((res) => {
    const t = setInterval(() => {
      const v = whole.length && whole[whole.length - 1].view;
      if (v && v.round_no >= 1) { clearInterval(t); res(); }
    }, 20);
  });
  for (const ws of [full, delta, host]) ws.close();
  // the second connection's own messages: what a spectator's page rebuilds
  const probe = {view: {round_no: 0, tricks: [{leader: 1}], failed_throws: [],
                        history_from: {tricks: 2, failed_throws: 0}}, table: {}};
  return {whole, grown, continued, refused,
          gap: net.mergeState(probe, {round_no: 0, tricks: [{leader: 0}], failed_throws: [],
                                      options: {}, table_options: {}}),
          first: net.mergeState({view: {round_no: 0, tricks: [], failed_throws: [],
                                        history_from: {tricks: 0, failed_throws: 0}},
                                 table: {}}, null)};
}"""


@browser_only
@pytest.mark.timeout(120)
def test_the_client_rebuilds_whole_states_from_the_history_as_it_grows(
    server: str, browser: Any
) -> None:
    """docs/WEB_PROTOCOL.md, "The history as it grows": two spectators of a table of
    bots, one asking for whole views and one for the history as it grows, the latter
    rebuilt by the shipped client's `mergeState`; message for message they are the same."""
    with new_page(browser) as page:
        open_lobby(page, server)
        out = page.evaluate(HISTORY_JS)
    assert out["refused"] == 0 and out["continued"] > 20, out["continued"]
    # a view that skips tricks the client does not hold, or leaves out options it never
    # got, is not rebuilt (the client reconnects for a whole one)
    assert out["gap"] is None and out["first"] is None

    def last_per_seq(states: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
        return {m["seq"]: m for m in states}

    whole, grown = last_per_seq(out["whole"]), last_per_seq(out["grown"])
    seqs = sorted(whole.keys() & grown.keys())[:-1]  # the last one may be cut short
    assert len(seqs) > 100
    assert [grown[k] for k in seqs] == [whole[k] for k in seqs]


# ------------------------------------------------------- the rules for players (no browser)


def test_rules_text_has_the_same_sections_in_every_language() -> None:
    en = rules_catalogue("en")
    ids = [s["id"] for s in en["sections"]]
    # Every section a refusal can cite (RULES §1 .. §11) has a place on the page.
    refs = {r for s in en["sections"] for r in s["refs"]}
    assert {"1", "3.3", "4", "6.1", "6.2", "6.3", "6.4", "8.2", "9"} <= refs
    for lang in LANGS:
        r = rules_catalogue(lang)
        assert set(r) == set(en), lang
        assert [s["id"] for s in r["sections"]] == ids, lang
        for s, e in zip(r["sections"], en["sections"], strict=True):
            assert s["refs"] == e["refs"] and len(s["p"]) == len(e["p"]), (lang, s["id"])
            assert [x["cards"] for x in s.get("ex", [])] == [x["cards"] for x in e.get("ex", [])]
            if lang != "en":
                assert s["title"] != e["title"] and s["p"] != e["p"], (lang, s["id"])
        for key in ("levels_decl", "levels_opp"):
            assert "{n}" in r[key], (lang, key)


def test_rules_command_prints_the_rules_in_each_language() -> None:
    from typer.testing import CliRunner

    from shengji.cli import app

    runner = CliRunner()
    for lang in LANGS:
        out = runner.invoke(app, ["rules", "--lang", lang], env={"COLUMNS": "200"})
        assert out.exit_code == 0, out.output
        r = rules_catalogue(lang)
        assert r["title"] in out.output
        for s in r["sections"]:
            assert f"§{s['id']} {s['title']}" in out.output
        assert "A♥ A♥ Q♥" in out.output  # cards in the terminal's notation (RULES §6.4 example)
        assert r["levels_decl"].replace("{n}", "3") in out.output  # the level table (RULES §8.2)
    bad = runner.invoke(app, ["rules", "--lang", "xx"])
    assert bad.exit_code != 0 and "xx" in bad.output


@browser_only
def test_house_rules_chosen_in_the_create_form_are_stored_with_the_table(
    server: str, browser: Any
) -> None:
    """RULES §10: the create form offers the house rules, and the table keeps what was chosen."""
    import json

    with new_page(browser, viewport={"width": 1366, "height": 900}) as page:
        open_lobby(page, server)
        page.fill("input[name=table-name]", "house rules")
        page.click("details.options summary")
        page.select_option("select[name=kitty_multiplier]", "power")
        page.select_option("select[name=win_at_a]", "as_declarers")
        page.select_option("select[name=round1_no_declaration]", "flip")
        table_id = submit_create(page)
    with urllib.request.urlopen(f"{server}/api/tables/{table_id}") as r:
        options = json.load(r)["options"]
    assert options["kitty_multiplier"] == "power"
    assert options["win_at_a"] == "as_declarers"
    assert options["round1_no_declaration"] == "flip"
    assert options["throw_penalty"] == "returned"  # untouched choices keep the seed rules

"""Helpers for the browser tests (headless Chromium through Playwright): the paths,
a checked page, the lobby steps, and engine positions served to the client by a fake
WebSocket server. The `server` and `browser` fixtures are in conftest.py."""

from __future__ import annotations

import contextlib
import json
import random
import re
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from shengji import Game, IllegalAction, parse_cards

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src" / "shengji" / "server" / "static"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
F = TypeVar("F")  # a fake server: what answers the page's WebSocket
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
LANGS = ["en", "zh", "vi", "th", "ko", "sq", "mn"]
NAMES = ["Alice", "Bao", "Chen", "Dara"]
CORNER = {"x": 8, "y": 24}  # the corner index of a hand card: the part no neighbour covers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(page: Any, pred: Callable[[], Any], timeout_s: float = 20) -> None:
    """Let the page's event loop run (the WebSocket routed to the test) until `pred()`
    holds; fails the test after `timeout_s` seconds."""
    deadline = time.monotonic() + timeout_s
    while not pred():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        page.wait_for_timeout(20)


@contextlib.contextmanager
def new_page(browser: Any, **ctx: Any) -> Iterator[Any]:
    ctx.setdefault("locale", "en-US")
    context = browser.new_context(**ctx)
    page = context.new_page()
    # The fake tables (`show_fake`) exist only in the test: the round summary's accuracy
    # lines (issue 32) get no human seat there unless a test routes them itself (a route
    # registered later wins).
    page.route("**/api/tables/fake/accuracy**", lambda route: route.fulfill(
        status=200, content_type="application/json", body='{"round": 1, "seats": []}'))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"errors in the page: {errors}"


TABLE_URL = re.compile(r".*/t/[A-Za-z0-9_-]+$")  # a table's page, once it is made


def catalogue(lang: str) -> dict[str, str]:
    """The client's message catalogue for `lang` (static/i18n/<lang>.json)."""
    data = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def rules_catalogue(lang: str) -> dict[str, Any]:
    """The rules for players in `lang` (static/i18n/rules/<lang>.json)."""
    data = json.loads((STATIC / "i18n" / "rules" / f"{lang}.json").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def set_lang(page: Any, base: str, lang: str) -> None:
    """Open the lobby and keep `lang` as the player's language (the next load uses it)."""
    page.goto(base + "/")
    page.evaluate("l => localStorage.setItem('shengji.lang', l)", lang)


def open_lobby(page: Any, base: str, ready: str = "#create-form") -> None:
    """Open the lobby and wait until `ready` (the create form) is there."""
    page.goto(base + "/")
    page.wait_for_selector(ready)


def fill_options(page: Any, **inputs: str) -> None:
    """Open the create form's options and fill each named input (`deal_ms="0.003"`)."""
    page.click("details.options summary")
    for name, value in inputs.items():
        page.fill(f"input[name={name}]", value)


def submit_create(page: Any) -> str:
    """Click the create form's button and wait for the new table's page; returns its id."""
    page.click("#create-btn")
    page.wait_for_url(TABLE_URL)
    return str(page.url.rsplit("/", 1)[1])


def sit(page: Any, name: str, seat: int = 0) -> None:
    """Sit at `seat` under `name` on the table's page and wait until the seat is ours."""
    page.fill("#name-input", name)
    page.click(f".seat[data-seat='{seat}'] .sit-btn")
    page.wait_for_selector(f".seat[data-seat='{seat}'] .you")


def add_bots(page: Any, bots: Iterable[tuple[int, str]]) -> None:
    """As the host, put a bot of each (seat, kind) in its seat, waiting for each to show."""
    for seat, kind in bots:
        page.click(f".seat[data-seat='{seat}'] .bot-btn[data-kind='{kind}']")
        page.wait_for_selector(f".seat[data-seat='{seat}']:not(.empty)")


def create_and_sit(page: Any, base: str, name: str, title: str = "test table") -> str:
    """Lobby -> new table with fast timings -> sit at seat 0. Returns the table id."""
    open_lobby(page, base)
    page.fill("input[name=table-name]", f"{name}'s {title}")
    fill_options(page, deal_ms="0.003", window_ms="0.8", bot_delay_ms="0.02",
                 round_pause_ms="600")
    table_id = submit_create(page)
    page.wait_for_selector(".seat[data-seat='0'] .sit-btn")
    sit(page, name)
    return table_id


def create_table_and_sit(page: Any, base: str, name: str = "Alice") -> str:
    """Lobby -> new table (fast timings) -> sit at seat 0 -> three bots. Returns the table id."""
    table_id = create_and_sit(page, base, name)
    token = page.evaluate(f"localStorage.getItem('shengji.token.{table_id}')")
    assert token, "the seat token is kept in localStorage"
    add_bots(page, ((1, "heuristic"), (2, "random"), (3, "heuristic")))
    return table_id


STATE_JS = """() => {
  const m = document.querySelector('main.table-page');
  if (!m) return null;
  const hand = [...document.querySelectorAll('#hand .card')].map(e => ({
    i: Number(e.dataset.index), card: e.dataset.card, ps: e.dataset.ps,
    sel: e.classList.contains('sel')}));
  const q = (s) => document.querySelector(s);
  return {
    phase: m.dataset.phase, me: m.dataset.me, toAct: m.dataset.toAct,
    lead: m.dataset.lead, leadSuit: m.dataset.leadSuit, hand,
    summary: !!q('#summary'),
    decl: [...document.querySelectorAll('.decl-btn')].map(b => b.dataset.cards),
    pass: !!q('#pass-btn'), bury: !!q('#bury-btn'),
    play: q('#play-btn') ? !q('#play-btn').disabled : null,
  };
}"""


def choose_play(hand: list[dict[str, Any]], lead: str, lead_suit: str) -> list[int]:
    """A legal play from the DOM (RULES §6.2): follow suit and pairs as far as possible."""
    if not lead:
        return [hand[0]["i"]]  # a single is always a legal lead
    led = lead.split()
    n = len(led)
    need_pairs = sum(v // 2 for v in Counter(led).values())
    in_suit = [h for h in hand if h["ps"] == lead_suit]
    others = [h for h in hand if h["ps"] != lead_suit]
    chosen: list[int] = []
    by_card: dict[str, list[int]] = {}
    for h in in_suit:
        by_card.setdefault(h["card"], []).append(h["i"])
    for idx in by_card.values():
        if need_pairs and len(idx) >= 2 and len(chosen) + 2 <= n:
            chosen += idx[:2]
            need_pairs -= 1
    for h in in_suit + others:
        if len(chosen) == n:
            break
        if h["i"] not in chosen:
            chosen.append(h["i"])
    return chosen


# ---------------------------------------------------------------- positions for a fake server


def _advance(seed: int, stop: Callable[[Game], bool], limit: int = 5000) -> Game:
    """Random legal actions from a seeded game until `stop` holds."""
    g = Game(seed=seed)
    rng = random.Random(seed)
    for _ in range(limit):
        if stop(g):
            return g
        g.apply(g.random_action(rng))
    raise AssertionError("position not reached")


def _seat_to_act(g: Game) -> int:
    seat = g.decision().seat
    assert seat is not None
    return seat


def _leads(g: Game) -> bool:
    """The player to act leads a trick."""
    return g.decision().phase == "play" and not g.view(_seat_to_act(g)).lead


def in_phase(seed: int, phase: str, tricks: int = 0) -> Game:
    """A seeded random game's first position in `phase` with `tricks` tricks of the round
    played at least."""
    return _advance(seed, lambda g: g.decision().phase == phase and len(g.round.tricks) >= tricks)


def lead_position(seed: int) -> tuple[Game, int]:
    """A seeded random game's first position where a player leads, and that seat."""
    g = _advance(seed, _leads)
    return g, _seat_to_act(g)


def state_of(g: Game, you: int, **table: Any) -> dict[str, Any]:
    """A server `state` message (docs/WEB_PROTOCOL.md) for seat `you`."""
    v = g.view(you)
    view = v.to_json()
    view.update(v.play_help_json())  # as the server's private part (server.broadcast)
    return {
        "type": "state",
        "seq": 1,
        "table": {
            "id": "fake",
            "name": "Fake table",
            "host_seat": 0,
            "seats": [{"name": n, "kind": "human", "connected": True} for n in NAMES],
            "status": "playing",
            "options": view["options"],
            "settings": {},
            **table,
        },
        "you": you,
        "is_host": False,
        "view": view,
    }


def lead_reading(view: dict[str, Any], cards: str) -> dict[str, Any]:
    """A lead's `kind` and `units` (RULES §6.1, §12.3) as the server's `check` reply gives
    them, read by the engine from a view's JSON (its trump and the table's options)."""
    from shengji.cards import CARDS
    from shengji.shapes import shape_of
    from shengji.trump import Trump

    opts = view["options"]
    trump = Trump(view["trump_rank"], view["trump_suit"],
                  gap_tractors=opts.get("gap_tractors", "on") == "on",
                  throw_tractors=opts.get("throw_tractors", "on") == "on",
                  decks=opts.get("decks", 2))
    try:
        shape = shape_of([c.id for c in parse_cards(cards)], trump)
    except IllegalAction:  # not of one play suit: no reading (the server refuses it)
        return {}
    return {"kind": str(shape.kind), "units": [[CARDS[i].text for i in u.ids] for u in shape.units]}


class FakeServer:
    """Answers the client's WebSocket with one state; records what the client sends.

    A test's own fake overrides `answer` (what to reply to one client message) or
    `check`, and sends later messages with `push`.
    """

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state
        self.sent: list[dict[str, Any]] = []
        self.ws: Any = None

    def __call__(self, ws: Any) -> None:
        self.ws = ws

        def on_message(raw: str | bytes) -> None:
            m = json.loads(raw)
            self.sent.append(m)
            self.answer(m)

        ws.on_message(on_message)

    def push(self, msg: dict[str, Any]) -> None:
        """Send one server message to the client."""
        self.ws.send(json.dumps(msg))

    def answer(self, m: dict[str, Any]) -> None:
        """Reply to one client message: the state to hello, `check`'s verdict, and a
        refusal of the ace of spades citing its rule as a field."""
        if m["type"] == "hello":
            self.push(self.state)
        elif m["type"] == "check":
            self.push(self.check(m["cards"]))
        elif m["type"] == "action" and m["action"][0] == "play" and m["action"][2] == "AS":
            # The rule comes as a field (the engine's IllegalAction.rule), not in the text.
            self.push({"type": "error", "message": "follow the led suit", "rule": "6.2"})

    def check(self, cards: str) -> dict[str, Any]:
        """The answer to the client's `check` of `cards`: here always legal, and for a
        lead the engine's reading of it, as the server's reply has (`routing.check`)."""
        reply: dict[str, Any] = {"type": "check", "cards": cards, "legal": True,
                                 "reason": None}
        view = self.state["view"]
        trick = view.get("current_trick") or {}
        if view.get("phase") == "play" and not trick.get("plays"):
            reply.update(lead_reading(view, cards))
        return reply

    def actions(self) -> list[list[Any]]:
        return [m["action"] for m in self.sent if m["type"] == "action"]


def show_fake(page: Any, base: str, fake: F,
              ready: str = "main.table-page[data-status='playing']") -> F:
    """Route the page's WebSocket to `fake`, open the fake table and wait until `ready`
    shows (by default, a game in play); returns `fake`."""
    page.route_web_socket(re.compile(r".*/ws/.*"), fake)
    page.goto(base + "/t/fake")
    page.wait_for_selector(ready)
    return fake


def open_table(page: Any, base: str, state: dict[str, Any]) -> FakeServer:
    """The fake table answering with `state` (see `show_fake`)."""
    return show_fake(page, base, FakeServer(state))


def _lead_state(seed: int) -> tuple[dict[str, Any], list[str]]:
    """A position where the player to act leads and holds two different cards of a plain suit."""
    for s in range(seed, seed + 50):
        g = _advance(s, _leads)
        seat = _seat_to_act(g)
        view = g.view(seat)
        trump = view.trump
        assert trump is not None
        for suit in "SHDC":
            cards = sorted({c.text for c in view.hand if trump.play_suit_of(c) == suit})
            if len(cards) >= 2:
                return state_of(g, seat), cards[:2]
    raise AssertionError("no lead with two cards of one suit")

"""Hidden information over the network (RULES §11): every message one seat (and a spectator)
receives is checked against the true hands of the server's game."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from server_harness import Human, WSPlayer, freeze, host_table, serve
from shengji import CARDS, Game, action_from_json
from shengji.actions import Declare, Play

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning")]

CARD_RE = re.compile(r"^(10|[2-9JQKA])[SHDC]$|^[BR]J$")
ID_OF = {c.text: c.id for c in CARDS}


def cards_in(obj: Any) -> set[int]:
    """Every card (by id) named anywhere in a JSON value."""
    out: set[int] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            for tok in x.split():
                if CARD_RE.match(tok):
                    out.add(ID_OF[tok])
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return out


def merge_state(msg: dict[str, Any], held: dict[str, Any] | None) -> dict[str, Any]:
    """What a client that asked for the history as it grows (`hello`'s "history":
    "delta", docs/WEB_PROTOCOL.md) rebuilds: the view's `tricks` and `failed_throws`
    continue the held ones from `history_from`, and the view's and the table's rule
    options are the held ones where the message has none (as static/js/net.js's
    mergeState). Returns what to hold next; the message is made whole in place."""
    view, table = msg["view"], msg["table"]
    start = view.pop("history_from")
    if start["tricks"] or start["failed_throws"]:
        assert held is not None and held["round_no"] == view["round_no"]
        assert len(held["tricks"]) >= start["tricks"]
        assert len(held["failed_throws"]) >= start["failed_throws"]
        view["tricks"] = held["tricks"][: start["tricks"]] + view["tricks"]
        view["failed_throws"] = (
            held["failed_throws"][: start["failed_throws"]] + view["failed_throws"]
        )
    if "options" not in view:
        assert held is not None and "options" not in table
        view["options"], table["options"] = held["options"], held["table_options"]
    return {
        "round_no": view["round_no"], "tricks": view["tricks"],
        "failed_throws": view["failed_throws"], "options": view["options"],
        "table_options": table["options"],
    }


def check_messages(
    seed: int, options: Any, actions: list[Any], seat: int | None, raw: list[str],
    delta: bool = False,
) -> int:
    """Replay the log; check each message against the truth at its seq. Returns how many
    messages were sent while some card was hidden from `seat` (so the check was real).
    `delta`: the connection asked for the history as it grows; its views are rebuilt
    (`merge_state`) before they are compared with the engine's."""
    by_seq: dict[int, list[dict[str, Any]]] = defaultdict(list)
    held: dict[str, Any] | None = None
    continued = 0  # views that continued a held history
    for text in raw:
        msg = json.loads(text)
        if msg["type"] == "state":
            if delta:
                continued += msg["view"]["history_from"]["tricks"] > 0
                held = merge_state(msg, held)
            else:
                assert "history_from" not in msg["view"]
            by_seq[msg["seq"]].append(msg)
        else:  # errors, pongs, "seated": nothing about cards
            assert not cards_in(msg), msg
    if delta:
        assert continued > 20, "the history was not sent as it grew"
    g = Game(seed, options)
    revealed: set[int] = set()  # shown publicly in this round so far
    round_no = 0
    checked = 0
    events: list[dict[str, Any]] = []
    for k in range(len(actions) + 1):
        if k > 0:
            a = action_from_json(actions[k - 1], players=g.options.n_players)
            # The events a state message carries are exactly the engine's, as `seat` may
            # see them (RULES §11; the engine's redaction is tested in test_events.py).
            events = [e.for_seat(seat).to_json() for e in g.apply(a)]
            if g.round_no != round_no:
                round_no = g.round_no
                revealed = set()
            elif isinstance(a, Declare | Play):
                revealed |= {c.id for c in a.cards}
        r = g.round
        public = g.view(None)
        shown = set(revealed)
        shown |= {c.id for c in public.kitty_flip}
        # the leader's friend calls name cards, never where they are (RULES §12.4)
        shown |= {call[0].id for call in public.calls}
        for f in public.failed_throws:
            shown |= {c.id for c in f.shown} | {c.id for c in f.attempted}
        if g.results:
            shown |= {c.id for c in g.results[-1].kitty}  # the last round's kitty, shown
        if r.phase == "over":
            shown |= set(r.kitty)
        allowed = set(shown)
        own: list[int] = []
        if seat is not None:
            own = [i for i in range(54) for _ in range(r.hand_counts(seat)[i])]  # the true hand
            allowed |= set(own)
            if seat == r.starter and r.phase in ("kitty", "call", "play"):
                allowed |= set(r.kitty_taken) | set(r.kitty)
        # Everything hidden from `seat`: the other hands, the undrawn cards, the kitty.
        hidden: set[int] = set()
        for o in range(g.options.n_players):  # RULES §12.1: N seats
            if o != seat:
                hidden |= {i for i in range(54) if r.hand_counts(o)[i]}
        if r.phase in ("deal", "declare"):
            hidden |= set(r.deck[r.drawn :])
        else:
            hidden |= set(r.kitty)
        hidden -= allowed
        for msg in by_seq.pop(k, []):
            assert msg["you"] == seat
            view = msg["view"]
            truth = g.view(seat)
            expect = truth.to_json()
            expect.update(truth.play_help_json())  # the seat's own `forced` play, if any
            assert view == expect, f"not the engine's view at seq {k}"
            assert sorted(ID_OF[t] for t in view["hand"]) == sorted(own), f"hand at seq {k}"
            sent = msg.pop("events")
            assert sent in ([], events), f"events at seq {k}: {sent} != {events}"
            named = cards_in(msg)
            assert not (named & hidden), f"seq {k}: hidden cards {named & hidden} sent"
            assert named <= allowed, f"seq {k}: cards {named - allowed} not visible to {seat}"
            checked += bool(hidden)
    assert not by_seq, f"states for unknown seqs {sorted(by_seq)}"
    return checked


def state_sizes(raw: list[str]) -> dict[int, int]:
    """The length of the last `state` message each seq was sent in."""
    return {m["seq"]: len(t) for t in raw if (m := json.loads(t))["type"] == "state"}


def play_and_check(tmp_path: Path, rounds: int | None, seed: int) -> None:
    with serve(tmp_path / "db.sqlite", seed_source=lambda: seed, window_ms=2000) as client:
        p, table = host_table(client, {1: "heuristic", 2: "random", 3: "heuristic"})
        p.raw.clear()  # from here on, every message to seat 0 is checked
        watcher = WSPlayer(client, table.id)
        watcher.hello()
        # the same seat and a spectator again, asking for the history as it grows
        seat_d, watcher_d = WSPlayer(client, table.id), WSPlayer(client, table.id)
        for conn, token in ((seat_d, p.token), (watcher_d, None)):
            conn.send({"type": "hello", "token": token, "lang": "en", "history": "delta"})
            conn.until(lambda m: m["type"] == "state" and "history_from" in m["view"])
            del conn.raw[:-1]  # what it got before its hello: a spectator's whole views
        human = Human(p, table, seed=seed, declare=True)
        if rounds is None:
            human.play_until(lambda m: m["type"] == "state" and m["view"]["game_over"],
                             timeout=120)
        else:
            human.play_until(
                lambda m: m["type"] == "state" and m["view"]["round_no"] == rounds, timeout=60
            )
        freeze(p, table)
        actions = p.call(lambda: [a.to_json() for a in table.game.actions])
        for conn in (p, watcher, seat_d, watcher_d):
            conn.sync()
        starters = [r.starter for r in p.call(lambda: table.game.results)]
        assert check_messages(seed, table.options, actions, 0, p.raw) > 100
        assert check_messages(seed, table.options, actions, None, watcher.raw) > 100
        assert check_messages(seed, table.options, actions, 0, seat_d.raw, delta=True) > 100
        assert check_messages(
            seed, table.options, actions, None, watcher_d.raw, delta=True
        ) > 100
        for full, grown in ((p, seat_d), (watcher, watcher_d)):
            # rebuilt, the history as it grows is the whole state, message for message
            held: dict[str, Any] | None = None
            rebuilt = []
            for text in grown.raw:
                if (msg := json.loads(text))["type"] == "state":
                    held = merge_state(msg, held)
                    rebuilt.append(msg)
            whole = [m for t in full.raw if (m := json.loads(t))["type"] == "state"]
            assert len(rebuilt) > 100
            # (the first is the answer to its hello, sent to it alone)
            assert rebuilt[1:] == whole[len(whole) - len(rebuilt) + 1:]
            # and it is sent in about half the text
            sizes = [state_sizes(full.raw), state_sizes(grown.raw)]
            common = sizes[0].keys() & sizes[1].keys()
            assert len(common) > 100
            assert sum(sizes[1][k] for k in common) < 0.6 * sum(sizes[0][k] for k in common)
        # Seat 0 holds BJ BJ (seed 25) so it declares, becomes starter and buries the kitty.
        assert starters[0] == 0


@pytest.mark.timeout(60)
def test_a_seat_and_a_spectator_see_no_hidden_card_over_two_rounds(tmp_path: Path) -> None:
    play_and_check(tmp_path, rounds=2, seed=25)


@pytest.mark.timeout(120)
def test_a_seat_and_a_spectator_see_no_hidden_card_over_a_whole_game(tmp_path: Path) -> None:
    play_and_check(tmp_path, rounds=None, seed=25)

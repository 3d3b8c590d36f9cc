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


def check_messages(
    seed: int, options: Any, actions: list[Any], seat: int | None, raw: list[str]
) -> int:
    """Replay the log; check each message against the truth at its seq. Returns how many
    messages were sent while some card was hidden from `seat` (so the check was real)."""
    by_seq: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for text in raw:
        msg = json.loads(text)
        if msg["type"] == "state":
            by_seq[msg["seq"]].append(msg)
        else:  # errors, pongs, "seated": nothing about cards
            assert not cards_in(msg), msg
    g = Game(seed, options)
    revealed: set[int] = set()  # shown publicly in this round so far
    round_no = 0
    checked = 0
    events: list[dict[str, Any]] = []
    for k in range(len(actions) + 1):
        if k > 0:
            a = action_from_json(actions[k - 1])
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
            if seat == r.starter and r.phase in ("kitty", "play"):
                allowed |= set(r.kitty_taken) | set(r.kitty)
        # Everything hidden from `seat`: the other hands, the undrawn cards, the kitty.
        hidden: set[int] = set()
        for o in range(4):
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
            assert view == g.view(seat).to_json(), f"not the engine's view at seq {k}"
            assert sorted(ID_OF[t] for t in view["hand"]) == sorted(own), f"hand at seq {k}"
            sent = msg.pop("events")
            assert sent in ([], events), f"events at seq {k}: {sent} != {events}"
            named = cards_in(msg)
            assert not (named & hidden), f"seq {k}: hidden cards {named & hidden} sent"
            assert named <= allowed, f"seq {k}: cards {named - allowed} not visible to {seat}"
            checked += bool(hidden)
    assert not by_seq, f"states for unknown seqs {sorted(by_seq)}"
    return checked


def play_and_check(tmp_path: Path, rounds: int | None, seed: int) -> None:
    with serve(tmp_path / "db.sqlite", seed_source=lambda: seed, window_ms=2000) as client:
        p, table = host_table(client, {1: "heuristic", 2: "random", 3: "heuristic"})
        p.raw.clear()  # from here on, every message to seat 0 is checked
        watcher = WSPlayer(client, table.id)
        watcher.hello()
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
        p.sync()
        watcher.sync()
        starters = [r.starter for r in p.call(lambda: table.game.results)]
        assert check_messages(seed, table.options, actions, 0, p.raw) > 100
        assert check_messages(seed, table.options, actions, None, watcher.raw) > 100
        # Seat 0 holds BJ BJ (seed 25) so it declares, becomes starter and buries the kitty.
        assert starters[0] == 0


@pytest.mark.timeout(60)
def test_a_seat_and_a_spectator_see_no_hidden_card_over_two_rounds(tmp_path: Path) -> None:
    play_and_check(tmp_path, rounds=2, seed=25)


@pytest.mark.timeout(120)
def test_a_seat_and_a_spectator_see_no_hidden_card_over_a_whole_game(tmp_path: Path) -> None:
    play_and_check(tmp_path, rounds=None, seed=25)

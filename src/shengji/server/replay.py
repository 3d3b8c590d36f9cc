"""Replays for `/api/tables/{id}/replay`: public trick-by-trick steps; all hands once finished.

While a game is on, only what a spectator may see is given (RULES §11); once it is over
the full record is public, with every round's dealt hands and kitty.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from typing import Any

from shengji import Game, RuleOptions
from shengji.actions import action_from_json
from shengji.cards import Card
from shengji.events import Drew, KittyTaken, Played, Redealt, RoundOver
from shengji.views import View

_PUBLIC_KEYS = (
    "round_no",
    "phase",
    "trump_rank",
    "trump_suit",
    "trump_final",
    "declarations",
    "declarer",
    "kitty_flip",
    "starter",
    "declaring_team",
    "levels",
    "tricks",
    "current_trick",
    "failed_throws",
    "opponents_points",
    "point_cards",
    "kitty",
    "result",
)


def _public(view: View) -> dict[str, Any]:
    assert view.seat is None
    j = view.to_json()
    # friends mode (RULES §12.4): the calls, the joined friends and the sides, all public
    return {k: j[k] for k in (*_PUBLIC_KEYS, "calls", "friends", "sides") if k in j}


def _cards(cards: tuple[Card, ...] | None) -> list[str]:
    return [str(c) for c in sorted(cards or (), key=lambda c: c.id)]


def replay_payload(
    seed: int | str,
    options: RuleOptions,
    actions: list[Any],
    finished: bool,
    marks: dict[int, str] | None = None,
) -> dict[str, Any]:
    """Replay `actions` and summarise every round (public only unless `finished`).

    Built from the engine's events (`shengji.events`): `Drew` deals the hands (a
    `Redealt` starts them again), `KittyTaken` is the kitty the starter took, and
    `RoundOver` closes a round, whose summary is that round's public view. `marks`
    (seq -> "standin", the table's log) put each round's `standins`: the tricks and seats
    whose cards a stand-in bot played.
    """
    g = Game(seed, options)
    n = g.options.n_players  # RULES §12.1: N seats
    rounds: list[dict[str, Any]] = []
    hands: list[list[Card]] = [[] for _ in range(n)]
    kitty_taken: list[str] | None = None
    standins: list[dict[str, int]] = []
    marks = marks or {}
    for seq, a in enumerate(actions):
        rnd = g.round  # the round this action belongs to (a new one may start after it)
        for e in g.apply(action_from_json(a, players=n)):
            if isinstance(e, Played) and marks.get(seq) == "standin":
                standins.append({"trick": e.trick, "seat": e.seat})
            if isinstance(e, Redealt):
                hands = [[] for _ in range(n)]
            elif isinstance(e, Drew) and e.card is not None:
                hands[e.seat].append(e.card)
            elif isinstance(e, KittyTaken):
                kitty_taken = [str(c) for c in e.cards or ()]
            elif isinstance(e, RoundOver):
                step = _public(rnd.view(None))
                step["standins"] = standins
                if finished:
                    step["hands"] = [_cards(tuple(h)) for h in hands]
                    step["kitty_taken"] = kitty_taken
                rounds.append(step)
                hands, kitty_taken, standins = [[] for _ in range(n)], None, []
    if not g.is_over:
        rounds.append({**_public(g.view(None)), "standins": standins})
    return {
        "status": "finished" if g.is_over else "playing",
        "record": g.record.to_json() if finished and g.is_over else None,
        "winner": g.winner,
        "steps": rounds,
    }


class LruCache:
    """The last `size` JSON payloads by key; least recently used entries go first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()

    def get(self, key: tuple[Any, ...]) -> dict[str, Any] | None:
        """The payload stored under `key`, or None."""
        payload = self._items.get(key)
        if payload is not None:
            self._items.move_to_end(key)
        return payload

    def put(self, key: tuple[Any, ...], payload: dict[str, Any]) -> None:
        """Store `payload` under `key`, dropping the least recently used beyond `size`."""
        self._items[key] = payload
        while len(self._items) > self.size:
            self._items.popitem(last=False)


class ReplayCache(LruCache):
    """The last `size` replay payloads, keyed by (table id, log length, stand-in marks,
    finished): a table whose log has not grown is not replayed again (a 27-round game
    takes ~400 ms to replay)."""

    def __init__(self, size: int = 64) -> None:
        super().__init__(size)

    def put(self, key: tuple[Any, ...], payload: dict[str, Any]) -> None:
        """Store `payload` under `key` (an older payload of the same table is dropped)."""
        for old in [k for k in self._items if k[0] == key[0]]:
            del self._items[old]
        super().put(key, payload)


class WindowLimit:
    """At most `count` events per `window_s` seconds per key (a sliding window)."""

    def __init__(self, count: int, window_s: float = 60.0) -> None:
        self.count = count
        self.window_s = window_s
        self._seen: dict[str, deque[float]] = {}

    def admit(self, key: str, now: float | None = None) -> float:
        """0 if the event is admitted (and counted), else the seconds until it would be."""
        now = time.monotonic() if now is None else now
        recent = self._seen.setdefault(key, deque())
        while recent and now - recent[0] >= self.window_s:
            recent.popleft()
        if len(recent) >= self.count:
            return max(0.001, recent[0] + self.window_s - now)
        recent.append(now)
        if len(self._seen) > 10_000:  # forget addresses with nothing recent
            for k in [k for k, q in self._seen.items() if not q or now - q[-1] >= self.window_s]:
                del self._seen[k]
        return 0.0

"""Engine-side helpers for tests: drive rounds and snapshot state."""

from __future__ import annotations

import json
import random

from shengji import Draw, Game, Round


def snapshot(table: Game | Round) -> str:
    """Everything observable about a round or game: all four views, the spectator's, hands."""
    rnd = table.round if isinstance(table, Game) else table
    data = {
        "views": [table.view(s).to_json() for s in (0, 1, 2, 3, None)],
        "hands": [list(rnd.hand_counts(s)) for s in range(4)],
        "kitty": list(rnd.kitty),
        "actions": len(table.actions),
        "decision": repr(table.decision()),
    }
    return json.dumps(data, sort_keys=True)


def deal_all(rnd: Round) -> Round:
    """Draw all 100 cards without declaring."""
    while rnd.phase == "deal":
        rnd.apply(Draw())
    return rnd


def play_randomly(table: Game | Round, seed: int, stop=None) -> None:
    """Apply uniformly random legal actions until the end (or until stop(table))."""
    rng = random.Random(seed)
    while table.decision().phase != "over":
        if stop is not None and stop(table):
            return
        table.apply(table.random_action(rng))

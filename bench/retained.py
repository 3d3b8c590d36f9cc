"""Objects a table's round keeps alive, counted as a server's garbage collector sees them.

    PYTHONPATH=src python bench/retained.py [--tables 20] [--seed 0]

Drives `--tables` games as a server does (each action parsed from its JSON, applied, then
every seat's view built and encoded, and the events redacted for each seat) with random
legal actions, and stops each table near its round's end (between tricks, with 6 cards
or fewer left in all hands). Prints the live objects
the collector tracks, per table, that were not there before (by type): what a busy
worker's young passes have to scan (server/gcpolicy.py, issue 13). Deterministic for a
seed; the engine build (compiled or pure) is printed with it.
"""

from __future__ import annotations

import argparse
import collections
import gc
import random

from shengji._build import engine_build
from shengji.actions import action_from_json
from shengji.game import Game
from shengji.server.schema import dumps_events, dumps_view
from shengji.vocab import Phase


def tracked() -> collections.Counter[str]:
    """Live tracked objects by type name, after a full collection."""
    gc.collect()
    return collections.Counter(type(o).__qualname__ for o in gc.get_objects())


def near_the_end(g: Game) -> bool:
    """Between two tricks, with 6 cards or fewer left in all hands."""
    r = g.round
    return r.phase is Phase.PLAY and sum(r.hand_sizes) <= 6 and not r.current


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    gc.disable()
    games = [Game(args.seed + k) for k in range(args.tables)]
    before = tracked()
    rng = random.Random(args.seed)
    actions = 0
    playing = list(games)
    while playing:
        for g in list(playing):
            if near_the_end(g) or g.round.round_no > 0:
                playing.remove(g)
                continue
            action = action_from_json(g.round.random_action(rng).to_json())
            events = g.apply(action)
            actions += 1
            for seat in range(4):
                v = g.view(seat)
                dumps_view(v.public_json())
                dumps_view(v.private_json())
                dumps_events([e.for_seat(seat).to_json() for e in events])
    kept = tracked() - before
    n = args.tables
    print(f"{n} tables to near their round's end, {actions / n:.0f} actions each, "
          f"{engine_build()} engine:")
    print(f"tracked objects kept per table: {sum(kept.values()) / n:.1f}")
    for name, count in kept.most_common(12):
        print(f"  {count / n:8.1f}  {name}")


if __name__ == "__main__":
    main()

"""The expert's search at every table size of RULES §12 (issue 33): per-rollout CPU and
the decision time of the web's counted levels (`bots.level_iters`).

    python bench/search_tables.py            # 4, 6, 8 and 10 seats
    python bench/search_tables.py --rounds 2

For each table (four-player teams, six friends, eight teams, ten friends; the default
decks, players // 2) seeded rounds are played by heuristic seats, and at every play
decision of seat 1 an expert at the "expert" level's count for that table
(`level_iters("expert", options)`: `LEVEL_ITERS` at four seats, scaled by (108 / the
deck's cards)^2.5 elsewhere) is asked for its move and timed in CPU seconds of this process.
Printed: the count, the per-rollout CPU (decision CPU / rollouts done), the decision
medians and 95th percentiles, and each table's median over the four-player one's.
"""

from __future__ import annotations

import argparse
import statistics
import time

from shengji.bots import make_agent
from shengji.bots.base import level_iters
from shengji.bots.expert import ExpertAgent
from shengji.driver import step
from shengji.options import RuleOptions
from shengji.round import Round

TABLES = [(4, "teams"), (6, "friends"), (8, "teams"), (10, "friends")]


def measure(n: int, mode: str, rounds: int) -> dict[str, float]:
    """Decision CPU and per-rollout CPU of seat 1's expert over `rounds` seeded rounds."""
    options = RuleOptions(players=n, mode=mode)
    iters = level_iters("expert", options)
    times: list[float] = []
    per_rollout: list[float] = []
    for seed in range(rounds):
        extra = {} if mode == "friends" else {"declaring_team": seed % n % 2}
        rnd = Round(seed, options, trump_rank="2", starter=seed % n, **extra)
        bots = [make_agent("heuristic", 10 * seed + s, options=options) for s in range(n)]
        expert = ExpertAgent(seed, iters=iters)
        while not rnd.is_over:
            d = rnd.decision()
            if d.phase == "play" and d.seat == 1:
                view = rnd.view(1)
                t = time.process_time()
                action = expert.act(view)
                dt = time.process_time() - t
                searched = expert.last_search
                if searched is not None and searched["done"]:
                    times.append(dt)
                    per_rollout.append(dt / int(searched["done"]))
                rnd.apply(action)
            else:
                step(rnd, bots)
    times.sort()
    return {
        "iters": iters,
        "decisions": len(times),
        "rollout_ms": 1000 * statistics.median(per_rollout),
        "median_ms": 1000 * statistics.median(times),
        "p95_ms": 1000 * times[int(0.95 * (len(times) - 1))],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=1, help="seeded rounds per table")
    args = p.parse_args()
    base = None
    print(f"{'table':<12} {'iters':>5} {'decisions':>9} {'ms/rollout':>10} "
          f"{'median ms':>9} {'p95 ms':>7} {'× 4p':>5}")
    for n, mode in TABLES:
        r = measure(n, mode, args.rounds)
        base = base or r["median_ms"]
        print(f"{f'{n} {mode}':<12} {r['iters']:>5} {r['decisions']:>9} "
              f"{r['rollout_ms']:>10.3f} {r['median_ms']:>9.0f} {r['p95_ms']:>7.0f} "
              f"{r['median_ms'] / base:>5.2f}")


if __name__ == "__main__":
    main()

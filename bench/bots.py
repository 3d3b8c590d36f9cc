"""Decision time of the bots: median and p99 per decision, fixed seeds.

Run: `python bench/bots.py [--rounds N] [--kind heuristic]`. Each seat's agent
is timed on every decision it makes (declarations during the deal, the kitty,
every play) over N rounds of four agents of that kind; then the same rounds are
played untimed and the whole deal (engine, views and bots) is timed per round.
`--kind` takes any agent spec, e.g. `--kind expert:iters=60 --rounds 2` (the
search is slow: few rounds).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from shengji.actions import Action
from shengji.bots import Agent, make_agent
from shengji.driver import play_round
from shengji.options import RuleOptions
from shengji.round import Round
from shengji.views import View

CLOCK = time.perf_counter


class Timed:
    """Wraps an agent and records how long each `act` takes, by phase."""

    def __init__(self, agent: Agent, times: dict[str, list[float]]) -> None:
        self.agent = agent
        self.times = times

    def act(self, view: View) -> Action:
        t0 = CLOCK()
        action = self.agent.act(view)
        self.times[view.phase].append(CLOCK() - t0)
        return action


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--kind", default="heuristic")
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--option", action="append", default=[],
                    help="house rule name=value (RULES §10), e.g. strict_tractor_follow=true")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall time, or this process's CPU time (steadier on a busy machine)")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    options = RuleOptions.parse(args.option) if args.option else RuleOptions()
    times: dict[str, list[float]] = defaultdict(list)
    t0 = CLOCK()
    for r in range(args.rounds):
        rnd = Round(args.seed + r, options, trump_rank="2", starter=r % 4, declaring_team=r % 2)
        agents = [Timed(make_agent(args.kind, 1000 * r + s), times) for s in range(4)]
        play_round(rnd, agents)
    wall = CLOCK() - t0
    # The same deals untimed: the whole deal (engine, views and bots) per round.
    deal_ms: list[float] = []
    for r in range(args.rounds):
        rnd = Round(args.seed + r, options, trump_rank="2", starter=r % 4, declaring_team=r % 2)
        plain = [make_agent(args.kind, 1000 * r + s) for s in range(4)]
        t1 = CLOCK()
        play_round(rnd, plain)
        deal_ms.append(1e3 * (CLOCK() - t1))
    every = [x for xs in times.values() for x in xs]
    print(f"{args.kind} {' '.join(args.option)}: {args.rounds} rounds, {len(every)} decisions, "
          f"{wall:.1f}s {args.clock}")
    print(f"{'phase':<10}{'n':>8}{'median ms':>12}{'p99 ms':>10}{'max ms':>10}")
    for phase in ("deal", "declare", "kitty", "play"):
        xs = times.get(phase)
        if xs:
            print(
                f"{phase:<10}{len(xs):>8}{1e3 * statistics.median(xs):>12.3f}"
                f"{1e3 * pct(xs, 0.99):>10.3f}{1e3 * max(xs):>10.3f}"
            )
    print(
        f"{'all':<10}{len(every):>8}{1e3 * statistics.median(every):>12.3f}"
        f"{1e3 * pct(every, 0.99):>10.3f}{1e3 * max(every):>10.3f}"
    )
    bot_ms = 1e3 * sum(every) / args.rounds
    print(
        f"full deal, 4 x {args.kind} (deal, declarations, kitty, tricks, score): "
        f"median {statistics.median(deal_ms):.2f} ms, mean {statistics.mean(deal_ms):.2f} ms "
        f"(bot decisions {bot_ms:.2f} ms of it)"
    )
    if args.kind == "heuristic":
        ok = pct(every, 0.99) <= 1e-3
        print(f"goal (issue 9): heuristic decision p99 <= 1 ms: {'met' if ok else 'NOT met'}; "
              f"4-heuristic deal <= 1.2 ms (engine included)")


if __name__ == "__main__":
    main()

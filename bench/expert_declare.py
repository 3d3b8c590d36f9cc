"""The expert's declarations (issue 10): decision times by phase and what it declared.

Run: `python bench/expert_declare.py [--deals N] [--seed S] [--a expert:ms=250]`.
Plays the arena's deals (`shengji.arena.run.deal_seed`, `deal_round`: trump rank 2,
seat 0 starts, team 0 declares), each twice with A as either team against the
heuristic, and prints A's decision times per phase (median, p95; the arena's own
figures leave the deal and the window out), how many declaration decisions A made
per deal, and how often the search answered otherwise than the heuristic would have
from the same view (its own seed).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from shengji.actions import Action
from shengji.arena.run import deal_round, deal_seed
from shengji.bots import Agent, make_agent
from shengji.bots.heuristic import HeuristicAgent
from shengji.driver import play_round
from shengji.views import View


class Watched:
    """Times an agent's decisions by phase and compares its declarations with the
    heuristic's answer to the same view."""

    def __init__(self, agent: Agent, seed: int, log: dict[str, list[float]],
                 differ: list[int]) -> None:
        self.agent = agent
        self.heuristic = HeuristicAgent(seed)
        self.log = log
        self.differ = differ

    def act(self, view: View) -> Action:
        """The wrapped agent's action, timed."""
        t0 = time.perf_counter()
        action = self.agent.act(view)
        self.log[str(view.phase)].append(time.perf_counter() - t0)
        if view.phase in ("deal", "declare") and view.legal_declarations():
            self.differ[0] += 1
            self.differ[1] += action != self.heuristic.act(view)
        return action


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    """Parse the arguments, play the deals and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--a", default="expert:ms=250")
    args = ap.parse_args()
    log: dict[str, list[float]] = defaultdict(list)
    differ = [0, 0]  # declaration asks with a choice, answers unlike the heuristic's
    for i in range(args.deals):
        seed = deal_seed(args.seed, i)
        for a_team in (0, 1):
            rnd = deal_round(seed)
            agents: list[Agent] = [
                Watched(make_agent(args.a, seed + s), seed + s, log, differ)
                if s % 2 == a_team else make_agent("heuristic", seed + s)
                for s in range(4)
            ]
            play_round(rnd, agents)
    print(f"A = {args.a}, {args.deals} mirrored deals, seed {args.seed}")
    for phase in ("deal", "declare", "kitty", "play"):
        xs = log.get(phase, [])
        if xs:
            print(f"  {phase:8s} {len(xs):5d} decisions  median {statistics.median(xs) * 1000:7.1f}"
                  f" ms  p95 {_pct(xs, 0.95) * 1000:7.1f} ms")
    asks = len(log.get("deal", [])) + len(log.get("declare", []))
    print(f"  declaration decisions per played deal: {asks / (2 * args.deals):.1f}")
    print(f"  asks with a legal declaration: {differ[0]}, answered unlike the heuristic: "
          f"{differ[1]}")


if __name__ == "__main__":
    main()

"""The coach's review (issue 32): its speed and a calibration of its accuracy figure.

Run: `python bench/analysis.py [--rounds N] [--seed S] [--worlds W] [--rollouts R]
[--cal-worlds W] [--expert expert:iters=24] [--skip-timing] [--calibrate N] [--json PATH]`.

`--calibrate N`: the calibration only, over N deals, its figures also written as JSON
(`--json`, default `bench/results/analysis/calibration_n{N}_w{W}_s{S}.json`). The
issue's run is `python bench/analysis.py --calibrate 200` (the default budget: 8 worlds
per decision); bench/results/analysis/README.md says what was run here.

1. Timing: one seat's whole first round of a seeded game (heuristic bots) analysed at
   the given budget (default: the `shengji analyse` default, 8 worlds and 4 hindsight
   rollouts per decision), wall time printed with the time per decision (median, max);
   the issue's goal is <= 15 s on 2 cores. Then the Hint: `analysis.suggest` (the
   web table's hint, at its default budget) at each of seat 0's bury and plays in that
   round, the median and the max wall time printed; the goal is <= 1 s.
2. Calibration: over N seeded first rounds, seat 0 is played by the expert, by the
   heuristic and by the random bot (the other seats heuristic, the same deal for each),
   and seat 0's round is reviewed (knowledge reading, `--cal-worlds` worlds). Printed:
   each kind's mean accuracy with a 95% Student-t interval, and the paired differences
   (expert - heuristic, heuristic - random) per deal with their intervals. The goal is
   both gaps above 0. Deterministic for its flags (iteration budgets, no wall time).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from shengji import Game
from shengji.actions import Bury, Play, action_from_json
from shengji.analysis import Budget, review_round, suggest
from shengji.arena.stats import mean_ci
from shengji.bots import Agent, make_agent
from shengji.bots.heuristic import HeuristicAgent
from shengji.driver import step
from shengji.record import GameRecord


def first_round(seed: int, seat0: Agent) -> GameRecord:
    """A game's first round played to its end: `seat0` at seat 0, heuristics elsewhere."""
    g = Game(seed)
    bots: list[Agent] = [seat0] + [HeuristicAgent(seed * 4 + s) for s in range(1, 4)]
    while g.round_no == 0 and not g.is_over:
        step(g, bots)
    return g.record


def timing(seed: int, budget: Budget) -> None:
    """Print the wall time of one seat's whole round at `budget`."""
    rec = first_round(seed, HeuristicAgent(seed * 4))
    t0 = time.perf_counter()
    review = review_round(rec, 0, 0, budget, seed=seed)
    wall = time.perf_counter() - t0
    n = len(review.decisions)
    per = wall / n if n else 0.0
    print(f"timing: seed {seed}, seat 0, {n} decisions, worlds {budget.worlds}, rollouts "
          f"{budget.rollouts}, endgame {budget.endgame}, candidates {budget.candidates}: "
          f"{wall:.2f} s wall "
          f"({per:.2f} s per decision; goal <= 15 s per round); accuracy "
          f"{review.accuracy:.1f}, with hindsight {review.hindsight_accuracy:.1f}")
    t1 = time.perf_counter()
    knowledge_only = review_round(rec, 0, 0, budget, seed=seed, hindsight=False)
    wall_k = time.perf_counter() - t1
    print(f"        knowledge reading only: {wall_k:.2f} s "
          f"({wall_k / max(1, len(knowledge_only.decisions)):.2f} s per decision: a hint's cost)")


def hint_timing(seed: int) -> None:
    """Print the wall time of a hint (`suggest`) at each of seat 0's bury and plays."""
    rec = first_round(seed, HeuristicAgent(seed * 4))
    g = Game(rec.seed, rec.options)
    walls: list[float] = []
    for raw in rec.actions:
        a = action_from_json(raw)
        if g.round_no > 0:
            break
        if isinstance(a, Bury | Play) and a.seat == 0:
            t0 = time.perf_counter()
            suggest(g.view(0), seed=seed + len(walls))
            walls.append(time.perf_counter() - t0)
        g.apply(a)
    if walls:
        print(f"hint: seed {seed}, seat 0, {len(walls)} hints: median "
              f"{statistics.median(walls):.2f} s, max {max(walls):.2f} s (goal <= 1 s)")


RESULTS = Path(__file__).parent / "results" / "analysis"


def calibration(rounds: int, seed: int, budget: Budget, expert: str) -> dict[str, Any]:
    """Print each kind's accuracy over `rounds` deals and the paired gaps; return them
    (the per-deal accuracies too) for the JSON."""
    kinds = {"expert": expert, "heuristic": "heuristic", "random": "random"}
    acc: dict[str, list[float]] = {k: [] for k in kinds}
    t0 = time.perf_counter()
    for r in range(rounds):
        s = seed + r
        for name, spec in kinds.items():
            rec = first_round(s, make_agent(spec, s * 4))
            review = review_round(rec, 0, 0, budget, seed=s, hindsight=False)
            a = review.accuracy
            acc[name].append(100.0 if a is None else a)
    wall = time.perf_counter() - t0
    print(f"calibration: {rounds} seeded first rounds from seed {seed}, seat 0 reviewed "
          f"(knowledge reading, {budget.worlds} worlds, {budget.candidates} candidates), "
          f"{wall:.0f} s")
    out: dict[str, Any] = {
        "rounds": rounds, "seed": seed, "budget": {"worlds": budget.worlds,
                                                   "candidates": budget.candidates},
        "reading": "knowledge", "kinds": kinds, "seconds": round(wall, 1),
        "accuracy": {}, "gaps": {}, "per_deal": acc,
    }
    for name, spec in kinds.items():
        ci = mean_ci(acc[name])
        out["accuracy"][name] = {"value": ci.value, "lo": ci.lo, "hi": ci.hi}
        print(f"  {name:<10} {spec:<22} accuracy {ci.value:5.1f}  95% CI "
              f"[{ci.lo:5.1f}, {ci.hi:5.1f}]")
    for a, b in (("expert", "heuristic"), ("heuristic", "random")):
        d = [x - y for x, y in zip(acc[a], acc[b], strict=True)]
        ci = mean_ci(d) if len(d) > 1 else None
        text = f"{statistics.mean(d):+.1f}" if ci is None else (
            f"{ci.value:+.1f}  95% CI [{ci.lo:+.1f}, {ci.hi:+.1f}]"
            + ("  (above 0)" if ci.lo > 0 else "  (not above 0)"))
        print(f"  {a} - {b}: {text}")
        out["gaps"][f"{a}-{b}"] = {"value": statistics.mean(d),
                                   "lo": None if ci is None else ci.lo,
                                   "hi": None if ci is None else ci.hi,
                                   "above_0": ci is not None and ci.lo > 0}
    return out


def main() -> None:
    """Parse the flags and run both parts."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=4, help="calibration deals")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--worlds", type=int, default=Budget().worlds)
    p.add_argument("--rollouts", type=int, default=Budget().rollouts)
    p.add_argument("--endgame", type=int, default=Budget().endgame,
                   help="hindsight: cards a hand at which the rest is solved exactly")
    p.add_argument("--cal-worlds", type=int, default=Budget().worlds,
                   help="worlds per decision in the calibration")
    p.add_argument("--expert", default="expert:iters=24", help="the expert's spec")
    p.add_argument("--skip-timing", action="store_true")
    p.add_argument("--calibrate", type=int, default=None, metavar="N",
                   help="the calibration only, over N deals, written as JSON too")
    p.add_argument("--json", type=Path, default=None, help="where --calibrate writes")
    args = p.parse_args()
    if args.calibrate is not None:
        res = calibration(args.calibrate, args.seed, Budget(worlds=args.cal_worlds),
                          args.expert)
        path = args.json or RESULTS / (f"calibration_n{args.calibrate}_w{args.cal_worlds}"
                                       f"_s{args.seed}.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(res, indent=1) + "\n")
        print(f"written: {path}")
        return
    if not args.skip_timing:
        timing(args.seed, Budget(worlds=args.worlds, rollouts=args.rollouts, endgame=args.endgame))
        hint_timing(args.seed)
    if args.rounds > 0:
        calibration(args.rounds, args.seed, Budget(worlds=args.cal_worlds), args.expert)


if __name__ == "__main__":
    main()

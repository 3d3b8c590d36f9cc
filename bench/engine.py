"""Engine benchmark (issue 9): every figure the speed goals name, medians, fixed seeds.

Run: `python bench/engine.py [--deals N] [--repeats 5] [--pin]`. Prints which engine
build is loaded (mypyc-compiled or pure Python; `SHENGJI_PURE=1` forces pure), then one
line per figure with its goal beside it. Each deal figure is the median over `--repeats`
repetitions of the median time of a full deal over `--deals` fixed seeds; micro figures
are medians of batches. `--pin` pins the process to one core (Linux).

Figures:
- full deal, 4 heuristic bots (deal with declarations, kitty, tricks, score) via the driver;
- full deal, same simple policy on all seats via the driver and views (random declarations
  and bury; lead a random single; follow with a random legal single);
- full deal, uniformly random legal play (`Round.random_action`, applied with `Round.step`,
  which builds no events; and with `Round.apply` for comparison);
- a six-player friends deal (RULES §12: 3 decks), six heuristic bots and random legal play;
- public `is_legal_follow` from card lists; the same with hand counts and lead shape built;
- public `trick_winner`, 4 tractors;
- `Round.clone()` mid-trick and the round state's size;
- heuristic decision median/p99; the random bot's slowest decision under
  `strict_tractor_follow`.
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import statistics
import sys
import time
from collections.abc import Callable

from same_work import per_call_us  # bench/, this file's folder, is on the path
from shengji import Play, Round, RuleOptions, Trump, is_legal_follow, parse_cards, trick_winner
from shengji._build import engine_build
from shengji.actions import Action, Bury
from shengji.bots import make_agent
from shengji.cards import counts_of
from shengji.driver import Agent, play_round
from shengji.follow import follow_error
from shengji.shapes import shape_of
from shengji.views import View

HAND = "3S 3S 4S 4S 6S 9S JS QS KS 3D 5D 5D 8D 9D JD 4C 6C 6C 9C QC AC 3H 7H BJ RJ"


#: the clock: wall time (`perf_counter`), or this process's CPU time (`--clock cpu`), which
#: other processes on a shared machine disturb far less
clock = time.perf_counter


# ---------------------------------------------------------------- agents and deals


class SimplePolicy:
    """Random declarations and bury; lead a random single; follow with a random legal single."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, view: View) -> Action:
        seat = view.seat
        assert seat is not None
        if view.phase in ("deal", "declare"):
            return view.random_declaration_action(self.rng)
        if view.phase == "kitty":
            return Bury(seat, view.random_play(self.rng))
        rand = self.rng.random
        if view.lead is None:
            hand = view.hand
            return Play(seat, (hand[int(rand() * len(hand))],))
        singles = list(view.legal_plays())  # every lead is a single: so is every follow
        return Play(seat, singles[int(rand() * len(singles))])


def deal_ms(agents_for: Callable[[int], list[Agent]], seeds: range,
            options: RuleOptions | None = None) -> list[float]:
    """Milliseconds per full deal (a first round: declarations decide the starter)."""
    out = []
    for seed in seeds:
        agents = agents_for(seed)
        t0 = clock()
        play_round(Round(seed, options), agents)
        out.append((clock() - t0) * 1e3)
    return out


SIX_FRIENDS = RuleOptions(players=6, mode="friends")  # RULES §12: 3 decks, 6-card kitty


def random_deal(seed: int, events: bool = False, options: RuleOptions | None = None) -> Round:
    """A deal of uniformly random legal actions; `step` (no events) unless `events`."""
    rnd = Round(seed, options)
    rng = random.Random(seed)
    act = rnd.apply if events else rnd.step
    while not rnd.is_over:
        act(rnd.random_action(rng))
    return rnd


def random_deal_ms(seeds: range, events: bool = False,
                   options: RuleOptions | None = None) -> list[float]:
    out = []
    for seed in seeds:
        t0 = clock()
        random_deal(seed, events, options)
        out.append((clock() - t0) * 1e3)
    return out


class Timed:
    """An agent whose every decision is timed (seconds)."""

    def __init__(self, agent: Agent, times: list[float]) -> None:
        self.agent = agent
        self.times = times

    def act(self, view: View) -> Action:
        t0 = clock()
        a = self.agent.act(view)
        self.times.append(clock() - t0)
        return a


def decision_times(kind: str, seeds: range, options: RuleOptions | None = None) -> list[float]:
    times: list[float] = []
    for seed in seeds:
        play_round(Round(seed, options),
                   [Timed(make_agent(kind, 10 * seed + s), times) for s in range(4)])
    return times


# ---------------------------------------------------------------- micro figures


def public_follow_us() -> float:
    t = Trump("2", "H")
    hand, lead, play = parse_cards(HAND), parse_cards("7S 7S 8S 8S"), parse_cards("3S 3S 4S 4S")
    assert is_legal_follow(hand, lead, play, t)
    return per_call_us(lambda: is_legal_follow(hand, lead, play, t), 2000, clock=clock)


def built_follow_us() -> float:
    t = Trump("2", "H")
    hand = counts_of(parse_cards(HAND))
    shape = shape_of([c.id for c in parse_cards("7S 7S 8S 8S")], t)
    play = [c.id for c in parse_cards("3S 3S 4S 4S")]
    assert follow_error(hand, shape, play, t) is None
    return per_call_us(lambda: follow_error(hand, shape, play, t), 5000, clock=clock)


def public_trick_us() -> float:
    t = Trump("2", "H")
    plays = [parse_cards(p) for p in ("7S 7S 8S 8S", "3S 3S 9S 9S", "3H 3H 4H 4H",
                                      "QS QS KS KS")]
    assert trick_winner(plays, t) == 2
    return per_call_us(lambda: trick_winner(plays, t), 2000, clock=clock)


def mid_trick_round() -> Round:
    """Seed 7, random play up to the second card of the sixth trick."""
    rnd = Round(7)
    rng = random.Random(7)
    while not (rnd.phase == "play" and len(rnd.tricks) == 5 and len(rnd.current) == 1):
        rnd.apply(rnd.random_action(rng))
    return rnd


def clone_us() -> float:
    rnd = mid_trick_round()
    return per_call_us(rnd.clone, 2000, clock=clock)


def state_bytes() -> int:
    """The round's state as a self-contained pickle (its action history included)."""
    return len(pickle.dumps(mid_trick_round(), protocol=pickle.HIGHEST_PROTOCOL))


# ---------------------------------------------------------------- report


def median_of_medians(run: Callable[[], list[float]], repeats: int) -> float:
    return statistics.median(statistics.median(run()) for _ in range(repeats))


def line(name: str, value: float, unit: str, goal: float | None) -> str:
    if goal is None:  # a figure printed for comparison, with no goal of its own
        return f"{name:<58}{value:>9.3f} {unit:<3} (for comparison: no goal)"
    ok = "meets" if value <= goal else "MISSES"
    return f"{name:<58}{value:>9.3f} {unit:<3} goal <= {goal:g} {unit}  [{ok}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=100, help="seeds per deal figure")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--pin", action="store_true", help="pin to one core (Linux)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall time, or this process's CPU time (steadier on a busy machine)")
    args = ap.parse_args()
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    seeds = range(1, args.deals + 1)
    print(f"shengji engine: {engine_build()} (Python {sys.version.split()[0]}); "
          f"{args.deals} seeds x {args.repeats} repeats; medians of {args.clock} time")

    def heuristic_agents(seed: int) -> list[Agent]:
        return [make_agent("heuristic", 10 * seed + s) for s in range(4)]

    def simple_agents(seed: int) -> list[Agent]:
        return [SimplePolicy(10 * seed + s) for s in range(4)]

    # warm up caches (trump tables, imports) before timing
    deal_ms(heuristic_agents, range(1, 3))
    random_deal_ms(range(1, 3))
    rows = [
        line("full deal, 4 heuristic bots", median_of_medians(
            lambda: deal_ms(heuristic_agents, seeds), args.repeats), "ms", 1.2),
        line("full deal, same simple policy (views, driver)", median_of_medians(
            lambda: deal_ms(simple_agents, seeds), args.repeats), "ms", 0.9),
        line("full deal, uniformly random legal play (Round.step)", median_of_medians(
            lambda: random_deal_ms(range(1, 4 * args.deals + 1)), args.repeats), "ms", 0.40),
        line("  the same with every event built (Round.apply)", median_of_medians(
            lambda: random_deal_ms(range(1, 4 * args.deals + 1), True), args.repeats), "ms",
            None),
        line("six-player friends deal (3 decks), 6 heuristic bots", median_of_medians(
            lambda: deal_ms(lambda seed: [make_agent("heuristic", 10 * seed + s)
                                          for s in range(6)], seeds, SIX_FRIENDS),
            args.repeats), "ms", None),
        line("six-player friends deal, uniformly random legal play", median_of_medians(
            lambda: random_deal_ms(range(1, 4 * args.deals + 1), options=SIX_FRIENDS),
            args.repeats), "ms", None),
        line("is_legal_follow, public API from card lists", public_follow_us(), "µs", 3),
        line("follow check, hand counts + lead shape built", built_follow_us(), "µs", 1.7),
        line("trick_winner, 4 tractors, public API", public_trick_us(), "µs", 5),
        line("Round.clone() mid-trick", clone_us(), "µs", 20),
        line("round state (pickle, history included)", state_bytes() / 1024, "KB", 4),
    ]
    h = decision_times("heuristic", range(1, max(2, args.deals // 4) + 1))
    h.sort()
    rows.append(line("heuristic decision median", statistics.median(h) * 1e3, "ms", 1))
    rows.append(line("heuristic decision p99", h[int(0.99 * (len(h) - 1))] * 1e3, "ms", 1))
    strict = RuleOptions(strict_tractor_follow=True)
    r = decision_times("random", range(1, args.deals + 1), strict)
    rows.append(line("random bot slowest decision, strict_tractor_follow", max(r) * 1e3,
                     "ms", 5))
    print("\n".join(rows))


if __name__ == "__main__":
    main()

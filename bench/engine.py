"""Engine benchmark (fixed seeds, medians): follow check, trick resolution, random rounds.

Run: python bench/engine.py [--rounds N]
Targets (issue 2): follow check <= 15 µs median; full random round <= 2 ms median.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from shengji import Round, Trump, is_legal_follow, parse_cards
from shengji.cards import counts_of
from shengji.follow import follow_error
from shengji.shapes import shape_of
from shengji.trick import winner_index


def per_call_us(fn, calls: int, repeats: int = 15) -> list[float]:
    """Median-friendly timings: `repeats` batches of `calls` calls, µs per call each."""
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - t0) / calls * 1e6)
    return out


def bench_follow() -> list[float]:
    t = Trump("2", "H")
    hand = counts_of(parse_cards(
        "3S 3S 4S 4S 6S 9S JS QS KS 3D 5D 5D 8D 9D JD 4C 6C 6C 9C QC AC 3H 7H BJ RJ"
    ))
    shape = shape_of([c.id for c in parse_cards("7S 7S 8S 8S")], t)
    play = [c.id for c in parse_cards("3S 3S 4S 4S")]
    assert follow_error(hand, shape, play, t) is None
    return per_call_us(lambda: follow_error(hand, shape, play, t), 2000)


def bench_public_follow() -> list[float]:
    t = Trump("2", "H")
    hand = parse_cards(
        "3S 3S 4S 4S 6S 9S JS QS KS 3D 5D 5D 8D 9D JD 4C 6C 6C 9C QC AC 3H 7H BJ RJ"
    )
    lead = parse_cards("7S 7S 8S 8S")
    play = parse_cards("3S 3S 4S 4S")
    assert is_legal_follow(hand, lead, play, t)
    return per_call_us(lambda: is_legal_follow(hand, lead, play, t), 1000)


def bench_trick() -> list[float]:
    t = Trump("2", "H")
    plays = [[c.id for c in parse_cards(p)] for p in ("7S 7S 8S 8S", "3S 3S 9S 9S",
                                                       "3H 3H 4H 4H", "QS QS KS KS")]
    shape = shape_of(plays[0], t)
    assert winner_index(plays, shape, t) == 2
    return per_call_us(lambda: winner_index(plays, shape_of(plays[0], t), t), 2000)


def random_round(seed: int) -> Round:
    rnd = Round(seed)
    rng = random.Random(seed)
    while not rnd.is_over:
        rnd.apply(rnd.random_action(rng))
    return rnd


def bench_rounds(n: int) -> list[float]:
    out = []
    for seed in range(n):
        t0 = time.perf_counter()
        random_round(seed)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=1000)
    args = ap.parse_args()
    f = bench_follow()
    pf = bench_public_follow()
    tr = bench_trick()
    r = bench_rounds(args.rounds)
    print(f"follow check (tractor lead, 25-card hand): median {statistics.median(f):.2f} µs"
          f"  [target <= 15 µs]")
    print(f"public is_legal_follow(hand, lead, play, trump) with Card lists "
          f"(counts + lead shape built per call): median {statistics.median(pf):.2f} µs")
    print(f"trick resolution (4 tractors, incl. lead shape): median {statistics.median(tr):.2f} µs")
    med = statistics.median(r)
    print(f"full random round (deal, declare, kitty, tricks, score), {len(r)} seeds: "
          f"median {med:.3f} ms, p90 {statistics.quantiles(r, n=10)[-1]:.3f} ms "
          f"-> {1000 / med:.0f} rounds/s on one core  [target <= 2 ms]")


if __name__ == "__main__":
    main()

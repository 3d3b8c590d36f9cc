"""The differential fuzzer of RULES §12.3's follow rule: the engine against the slow,
obviously-correct reading in tests/reference12.py, at every table of §12.1.

Run: `python bench/fuzz12.py [--follows 500000] [--seed 1]`. For seeded random positions
(a trump context with d decks, a lead of one play suit, a hand a table of that size could
deal, biased to tuples and tractors) it compares the lead's `need_k`, the legality of every
play of the hand (`follow_error`) and the set `iter_follows` generates. Prints, per
(players, decks), the positions and plays compared and the disagreements (the first
ones in full), and how many leads held a triple or more and a tractor of triples or more.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from reference12 import TABLES, check_case, lead_units, random_case  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--follows", type=int, default=500_000, help="plays to compare")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    plays: Counter[tuple[int, int]] = Counter()
    positions: Counter[tuple[int, int]] = Counter()
    disagree: Counter[tuple[int, int]] = Counter()
    big_tuples = big_tractors = ambiguous = 0
    shown = 0
    t0 = time.perf_counter()
    i = 0
    while sum(plays.values()) < args.follows:
        table = TABLES[i % len(TABLES)]
        i += 1
        t, lead, hand = random_case(rng, *table)
        n, bad = check_case(t, lead, hand)
        if n == 0:
            ambiguous += 1
            continue
        positions[table] += 1
        plays[table] += n
        (units,) = lead_units(lead, t.level, t.decks)
        big_tuples += any(k >= 3 for k, _ in units)
        big_tractors += any(k >= 3 and length >= 2 for k, length in units)
        if bad:
            disagree[table] += 1
            if shown < 5:
                shown += 1
                print(f"DISAGREE {table}: trump {t.rank} {t.suit} gap={t.gap_tractors} "
                      f"lead {lead} hand {sorted(hand.items())}: {bad[:3]}")
    for table in TABLES:
        print(f"players {table[0]:2d} decks {table[1]}: {positions[table]:6d} positions "
              f"{plays[table]:8d} plays  {disagree[table]} disagreements")
    print(f"total: {sum(positions.values())} positions, {sum(plays.values())} plays, "
          f"{sum(disagree.values())} disagreements; {big_tuples} leads with a triple or "
          f"more, {big_tractors} with a tractor of triples or more; {ambiguous} leads whose "
          f"reading depends on ties (skipped); {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

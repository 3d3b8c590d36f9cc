"""The differential fuzzer of RULES §12.3's follow rule: the engine against the slow,
obviously-correct reading in tests/reference12.py, at every table of §12.1.

Run: `python bench/fuzz12.py [--follows 500000] [--tricks 100000] [--seed 1]`. For seeded
random positions (a trump context with d decks, a lead of one play suit, a hand a table of
that size could deal, biased to tuples and tractors) it compares the lead's `need_k`, the
legality of every play of the hand (`follow_error`) and the set `iter_follows` generates.
Prints, per
(players, decks), the positions and plays compared and the disagreements (the first
ones in full), and how many leads held a triple or more and a tractor of triples or more.
Then, for `--tricks` seeded tricks (a lead, then plays of its size: the lead moved along
its suit, the same in trump, or any cards), the engine's trick winner (§6.3, §12.3)
against the reading's; and for `--throws` seeded leads with the other seats' hands, the
engine's throw check (§6.1, §6.4: stands or fails, the forced unit, who stops it and
with what) against the reading's.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from reference12 import (  # noqa: E402
    TABLES,
    check_case,
    check_throw_case,
    check_trick,
    lead_units,
    random_case,
    random_throw,
    random_trick,
    trick_winner,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--follows", type=int, default=500_000, help="plays to compare")
    ap.add_argument("--tricks", type=int, default=100_000, help="tricks to compare")
    ap.add_argument("--throws", type=int, default=100_000, help="leads to judge as throws")
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
    tricks(rng, args.tricks)
    throws(rng, args.throws)


def throws(rng: random.Random, n: int) -> None:
    """The throw check: engine against the reading over `n` seeded leads and hands."""
    t0 = time.perf_counter()
    seen: Counter[str] = Counter()
    shown = 0
    for i in range(n):
        table = TABLES[i % len(TABLES)]
        t, lead, others = random_throw(rng, *table)
        what, bad = check_throw_case(t, lead, others)
        seen[what] += 1
        if bad:
            seen["disagreements"] += 1
            if shown < 5:
                shown += 1
                print(f"DISAGREE {table}: trump {t.rank} {t.suit} lead {lead} "
                      f"others {others}: {bad}")
    print(f"throws: {seen['fails']} failed and {seen['stands']} standing throws, "
          f"{seen['not a throw']} one-unit leads, {seen['disagreements']} disagreements; "
          f"{seen['ambiguous']} skipped (the reading or the forced unit depends on ties); "
          f"{time.perf_counter() - t0:.0f} s")


def tricks(rng: random.Random, n: int) -> None:
    """The trick winner: engine against the reading over `n` seeded tricks."""
    t0 = time.perf_counter()
    seen: Counter[str] = Counter()
    shown = 0
    for i in range(n):
        table = TABLES[i % len(TABLES)]
        t, plays = random_trick(rng, *table)
        compared, bad = check_trick(t, plays)
        if not compared:
            seen["ambiguous"] += 1
            continue
        seen["compared"] += 1
        winner, split = trick_winner(plays, t.play_suit, t.level, t.decks) or (0, False)
        seen["won by a follower"] += winner > 0
        seen["ruffed"] += t.play_suit[plays[winner][0]] == 4 != t.play_suit[plays[0][0]]
        seen["throw leads"] += len(lead_units(plays[0], t.level, t.decks).pop()) > 1
        seen["split ways"] += split
        if bad:
            seen["disagreements"] += 1
            if shown < 5:
                shown += 1
                print(f"DISAGREE {table}: trump {t.rank} {t.suit} plays {plays}: {bad}")
    print(f"tricks: {seen['compared']} compared, {seen['disagreements']} disagreements; "
          f"{seen['won by a follower']} won by a follower ({seen['ruffed']} ruffed), "
          f"{seen['throw leads']} throw leads, {seen['split ways']} with a play that splits "
          f"into the lead's units in ways with different deciding units (read at its best); "
          f"{seen['ambiguous']} skipped (the lead's reading depends on ties); "
          f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

"""Compare arena runs written with `shengji arena --json` on the same deals (issue 10).

Run: `python bench/arena_compare.py BEFORE.json AFTER.json [--labels before after]
[--plot out.png]`. Prints each run's levels per deal (95% CI) and the paired
difference AFTER - BEFORE per mirrored deal (the same seed plays the same deals, so
the pairing removes the deals' own luck), BEFORE's margin as a share of AFTER's (delta
method, paired by deal: the expert's share of `omniscient`'s, issue 31), and plots both
runs with the arena's plot.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path

from shengji.arena.results import DealOutcome, PairingResult
from shengji.arena.stats import ratio_ci


def load(path: str, label: str | None = None) -> PairingResult:
    """The first pairing of an arena JSON file, as a `PairingResult` (no decision times)."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))["pairings"][0]
    deals = [(DealOutcome(**x), DealOutcome(**y)) for x, y in doc["deal_results"]]
    a = doc["a"] if label is None else f"{doc['a']} ({label})"
    return PairingResult(a, doc["b"], deals, seed=doc["seed"], seconds=doc["seconds"])


def main() -> None:
    """Parse the arguments, print the comparison and write the plot."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs=2)
    ap.add_argument("--labels", nargs=2, default=["before", "after"])
    ap.add_argument("--plot", default=None)
    args = ap.parse_args()
    runs = [load(f, lab) for f, lab in zip(args.files, args.labels, strict=True)]
    for r in runs:
        ci = r.levels_per_deal()
        print(f"{r.a} vs {r.b}: {r.n_deals} mirrored deals, {ci.value:+.3f} levels/deal "
              f"[{ci.lo:+.3f}, {ci.hi:+.3f}], declaring side wins {r.declaring_win_rate():.1%}")
    n = min(r.n_deals for r in runs)
    diffs = [b - a for a, b in zip(runs[0].pair_levels()[:n], runs[1].pair_levels()[:n],
                                   strict=True)]
    if n > 1:
        d = statistics.fmean(diffs)
        se = statistics.stdev(diffs) / math.sqrt(n)
        print(f"paired {args.labels[1]} - {args.labels[0]} over {n} deals: {d:+.3f} "
              f"[{d - 1.96 * se:+.3f}, {d + 1.96 * se:+.3f}] levels/deal")
        share = ratio_ci(runs[0].pair_levels()[:n], runs[1].pair_levels()[:n])
        if share is not None:  # e.g. the expert's margin as a share of omniscient's
            print(f"{args.labels[0]}'s margin as a share of {args.labels[1]}'s over the same "
                  f"deals: {share.value:.1%} [{share.lo:.1%}, {share.hi:.1%}]")
    if args.plot:
        from shengji.arena.plot import plot_results

        plot_results(runs, args.plot)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()

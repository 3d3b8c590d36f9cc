"""A learning curve: each training snapshot against bots on mirrored deals, as a PNG.

    python -m shengji.learn.curve SNAPSHOT_DIR --deals 100 --out docs/dmc_curve.png

Every snapshot (written by `shengji train --snapshots DIR`) plays `--deals` mirrored
deals (arena seeds, RULES §8.2 leveling) against each opponent kind; the plot shows
A's leveling rate with 95% intervals against the deals seen in training.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from ..arena import PlotUnavailableError, require_matplotlib, run_pairing
from .model import load_checkpoint


def evaluate(
    snapshots: list[Path], opponents: list[str], deals: int, seed: int, workers: int
) -> list[dict[str, Any]]:
    """Leveling rate and levels/deal of every snapshot against every opponent kind."""
    rows = []
    for path in snapshots:
        data = load_checkpoint(path)
        row: dict[str, Any] = {"path": str(path), "deals": data["deals"],
                               "minutes": data["seconds"] / 60.0}
        for opp in opponents:
            res = run_pairing(f"dmc:{path}", opp, deals, seed=seed, workers=workers)
            rate = res.leveling_rate()
            lv = res.levels_per_deal()
            row[opp] = {
                "leveling_rate": None if rate is None else [rate.value, rate.lo, rate.hi],
                "levels_per_deal": [lv.value, lv.lo, lv.hi],
                "deal_win_rate": res.deal_win_rate().value,
            }
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def plot(rows: list[dict[str, Any]], opponents: list[str], out: Path, title: str) -> None:
    """Leveling rate against training deals, one line per opponent (extra `[plot]`)."""
    require_matplotlib("the learning curve")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    for opp in opponents:
        pts = [(r["deals"], r[opp]["leveling_rate"]) for r in rows if r[opp]["leveling_rate"]]
        xs = [p[0] for p in pts]
        ax.plot(xs, [p[1][0] for p in pts], marker="o", label=f"vs {opp}")
        ax.fill_between(xs, [p[1][1] for p in pts], [p[1][2] for p in pts], alpha=0.2)
        lv = [(r["deals"], r[opp]["levels_per_deal"]) for r in rows]
        xs = [p[0] for p in lv]
        bx.plot(xs, [p[1][0] for p in lv], marker="o", label=f"vs {opp}")
        bx.fill_between(xs, [p[1][1] for p in lv], [p[1][2] for p in lv], alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.axhline(0.9, color="green", lw=0.8, ls=":")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("self-play deals seen in training")
    ax.set_ylabel("leveling rate (levels won / all levels)")
    ax.legend(loc="center right")
    bx.axhline(0.0, color="grey", lw=0.8, ls="--")
    bx.set_xlabel("self-play deals seen in training")
    bx.set_ylabel("signed levels per deal")
    bx.legend(loc="center right")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main() -> None:
    """Command line: evaluate a snapshot directory and plot the curve."""
    p = argparse.ArgumentParser(description="Learning curve of DMC snapshots.")
    p.add_argument("snapshots", type=Path)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--opponents", default="random,heuristic")
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", type=Path, default=Path("docs/dmc_curve.png"))
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--rows", type=Path, nargs="*", default=[],
                   help="Plot these saved --json results too (no new games for them).")
    p.add_argument("--title", default="DMC learning curve (mirrored deals, 95% CI)")
    args = p.parse_args()
    try:
        require_matplotlib("the learning curve")
    except PlotUnavailableError as e:
        p.error(str(e))
    snaps = sorted(args.snapshots.glob("*.pt"), key=lambda q: load_checkpoint(q)["deals"])
    opps = [o for o in args.opponents.split(",") if o]
    rows = evaluate(snaps, opps, args.deals, args.seed, args.workers)
    for saved in args.rows:
        rows += json.loads(saved.read_text())
    rows.sort(key=lambda r: r["deals"])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    plot(rows, opps, args.out, args.title)
    print(f"plot written to {args.out}")


if __name__ == "__main__":
    main()

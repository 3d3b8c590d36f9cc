"""How a network trained with `shengji train --teacher expert:...` plays the teacher's
held-out decisions (issue 34): among the plays the expert searched, how often the
network's play differs from the heuristic's, and the search's own advantage (over the
heuristic's move, expert utility) of the plays it departs to; with a margin `delta`, it
departs only where its score gap over the heuristic's move is above `delta`.

    python bench/teacher_heldout.py taught.pt --cache cache/ --seed 1 --skip 60 --chunks 7

The chunks are those `shengji train --seed S --imitate-cache DIR` wrote, in the order it
draws them: `--skip` is how many the network was trained on (the first ones).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np
import torch

from shengji.learn.features import MARKED_COL
from shengji.learn.model import load_checkpoint, model_from_checkpoint
from shengji.learn.train import IMITATION_FIELDS


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint")
    p.add_argument("--cache", required=True, help="the --imitate-cache folder")
    p.add_argument("--seed", type=int, default=1, help="the training run's --seed")
    p.add_argument("--skip", type=int, required=True, help="chunks the network learned from")
    p.add_argument("--chunks", type=int, default=4, help="held-out chunks read")
    args = p.parse_args()
    rng = random.Random(args.seed)  # the chunk seeds, drawn as `train` draws them
    seeds = [rng.getrandbits(48) for _ in range(args.skip + args.chunks)][args.skip:]
    files = [f for s in seeds for f in sorted(Path(args.cache).glob(f"*-{s}-*.npz"))]
    if not files:
        raise SystemExit(f"no held-out chunks in {args.cache}")
    model = model_from_checkpoint(load_checkpoint(args.checkpoint))
    gaps: list[float] = []
    advs: list[float] = []
    for f in files:
        with np.load(f) as z:
            st, ac, gr, _tg, _ret, adv, _se, base = (z[k] for k in IMITATION_FIELDS)
        with torch.no_grad():
            q = model.score_groups(torch.from_numpy(st),
                                   torch.from_numpy(ac[:, :model.action_size]),
                                   torch.from_numpy(gr)).numpy()
        starts = np.searchsorted(gr, np.arange(len(base)))
        ends = np.searchsorted(gr, np.arange(len(base)), side="right")
        for d in np.flatnonzero(base >= 0):
            a, b = starts[d], ends[d]
            marked = np.flatnonzero(ac[a:b, MARKED_COL] == 1)
            m = a + (int(marked[0]) if len(marked) else int(base[d]))
            other = q[a:b].copy()
            other[m - a] = -np.inf
            j = a + int(np.argmax(other))
            gaps.append(float(q[j] - q[m]))
            advs.append(float(adv[j] - adv[m]))
    g, v = np.array(gaps), np.array(advs)
    print(f"{len(files)} held-out chunks, {len(g)} searched plays")
    for delta in (0.0, 0.05, 0.1, 0.2, 0.3):
        dep = g > delta
        picks = np.where(dep, v, 0.0)
        known = dep & ~np.isnan(v)
        print(f"margin {delta:4.2f}: departs {dep.mean():6.1%}; search's advantage of the "
              f"departures {np.mean(v[known]) if known.any() else 0.0:+.4f} "
              f"({np.isnan(v[dep]).mean() if dep.any() else 0.0:.0%} of them not searched), "
              f"of every play {np.nanmean(picks):+.4f}")


if __name__ == "__main__":
    main()

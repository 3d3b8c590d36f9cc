"""DMC actor throughput: learner play decisions per second of this thread's CPU time.

    PYTHONPATH=src python bench/dmc_actor.py [--deals 20] [--repeats 3] [--hidden 256,256,128]

Plays seeded self-play deals with `shengji.learn.train.play_deals` (all four seats the
learner, epsilon 0.1, a fixed random network) and prints rows (= learner play
decisions) per second of CPU time (`time.thread_time`, so other processes on a shared
machine do not count against it); the median of the repeats.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from shengji.learn.model import QNet
from shengji.learn.train import play_deals


def main() -> None:
    """Parse the arguments, run the repeats, print the rate."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--hidden", default="256,256,128")
    a = ap.parse_args()
    hidden = tuple(int(h) for h in a.hidden.split(","))
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = QNet(hidden)
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    rates = []
    for r in range(a.repeats):
        t0 = time.thread_time()
        x, _y, _ = play_deals(weights, hidden, 100 + r, a.deals, 0.1, 0.5, 0.0)
        dt = time.thread_time() - t0
        rates.append(len(x) / dt)
        print(f"repeat {r}: {len(x)} decisions in {dt:.2f} s CPU: {len(x) / dt:.0f}/s")
    print(f"median: {statistics.median(rates):.0f} learner decisions/s (CPU time)")


if __name__ == "__main__":
    main()

"""Environment throughput: full deals per second with random masked actions, one core.

    PYTHONPATH=src python bench/env.py [--deals 200] [--seed 0]

Prints, for the same seeded deals:
- engine: a random deal driven by `Round.random_action` (no env, no observations);
- masks: `Table` stepped with uniformly random masked actions, no observations;
- env: the PettingZoo AEC loop (`shengji_v0.raw_env`), `last()` building the acting
  agent's observation and mask at every step (what an RL loop pays);
and where the env's time goes (cProfile, top functions by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import time

import numpy as np

from shengji.actions import Draw
from shengji.env import Table, shengji_v0
from shengji.round import Round


def engine_deals(n: int, seed: int) -> float:
    start = time.perf_counter()
    for k in range(n):
        rng = random.Random(seed * 100_003 + k)
        rnd = Round(seed * 100_003 + k, trump_rank="2", starter=k % 4, declaring_team=k % 2)
        while not rnd.is_over:
            a = rnd.random_action(rng)
            rnd.apply(a if a is not None else Draw())
    return n / (time.perf_counter() - start)


def mask_deals(n: int, seed: int) -> tuple[float, float]:
    steps = 0
    start = time.perf_counter()
    for k in range(n):
        rng = np.random.default_rng(seed * 100_003 + k)
        t = Table(seed * 100_003 + k, starter=k % 4)
        while not t.is_over:
            assert t.seat is not None
            legal = np.flatnonzero(t.action_mask(t.seat))
            t.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return n / (time.perf_counter() - start), steps / n


def env_deals(n: int, seed: int) -> tuple[float, float]:
    env = shengji_v0.raw_env(starter=None)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    for k in range(n):
        env.reset(seed=seed * 100_003 + k)
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return n / (time.perf_counter() - start), steps / n


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    n, seed = args.deals, args.seed
    env_deals(5, seed + 1)  # warm the per-trump tables
    e = engine_deals(n, seed)
    m, m_steps = mask_deals(n, seed)
    v, v_steps = env_deals(n, seed)
    print(f"engine only (Round.random_action):       {e:8.1f} deals/s  {1000 / e:6.2f} ms/deal")
    print(f"Table, random masked actions, no obs:    {m:8.1f} deals/s  {1000 / m:6.2f} ms/deal"
          f"  ({m_steps:.0f} decisions/deal)")
    print(f"shengji_v0 AEC loop, obs+mask each step: {v:8.1f} deals/s  {1000 / v:6.2f} ms/deal"
          f"  ({v_steps:.0f} agent steps/deal)")
    print(f"goal 1,000 deals/s: {'met' if v >= 1000 else 'not met'}")
    prof = cProfile.Profile()
    prof.enable()
    env_deals(max(20, n // 5), seed + 7)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(12)
    print("\nwhere the env's time goes (cProfile, own time):")
    print("\n".join(out.getvalue().splitlines()[6:22]))


if __name__ == "__main__":
    main()

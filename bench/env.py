"""Environment throughput: full deals per second with random masked actions, one core.

    PYTHONPATH=src python bench/env.py [--deals 200] [--repeats 5] [--seed 0] [--pin] [--wall]

Prints, for the same seeded deals (each loop runs `--deals` deals per repeat, the loops
take turns, and each figure is the median of its repeats):
- engine: a random deal driven by `Round.random_action` and `Round.step` (no env, no
  observations, no events: the floor under every loop below);
- masks: `Table` stepped with uniformly random masked actions, no observations;
- table+obs: the same, with the acting seat's observation built at every step;
- table fast loop: `Table` without PettingZoo and without per-step arrays: the
  observation written into one preallocated buffer (`observation_into`), the random
  legal action drawn from the mask's bytes (`mask_bytes`), no numpy mask array;
- env: the PettingZoo AEC loop (`shengji_v0.raw_env`), `last()` building the acting
  agent's observation and mask at every step (what an RL loop pays; the goal's figure);
  and the same with `skip_forced=True` (decisions with one legal action taken for the
  agent: fewer agent steps);
and where the env's time goes (cProfile, top functions by own time).

Rates are per second of this thread's CPU time (`time.thread_time`), so that a shared,
loaded machine does not count other processes' time against ours, nor numpy's OpenBLAS
threads (they spin for ~0.1 s of CPU after import, which process time counted against the
first loop measured); `--wall` uses wall-clock time instead. Random choices use Python's
`random` (a masked choice costs ~0.3 µs; numpy's `Generator.integers` for one number
costs several µs).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import statistics
import time
from collections.abc import Callable

import numpy as np

from shengji._build import CYTHONIZED, engine_build
from shengji.actions import DRAW
from shengji.env import OBS_SIZE, Table, shengji_v0
from shengji.round import Round

clock: Callable[[], float] = time.thread_time
_DRAW = DRAW


def engine_deals(n: int, seed: int) -> float:
    start = clock()
    for k in range(n):
        rng = random.Random(seed * 100_003 + k)
        rnd = Round(seed * 100_003 + k, trump_rank="2", starter=k % 4, declaring_team=k % 2)
        while not rnd.is_over:
            a = rnd.random_action(rng)
            rnd.step(a if a is not None else _DRAW)
    return n / (clock() - start)


def table_deals(n: int, seed: int, observe: bool) -> tuple[float, float]:
    steps = 0
    start = clock()
    for k in range(n):
        rng = random.Random(seed * 100_003 + k)
        t = Table(seed * 100_003 + k, starter=k % 4)
        while t.seat is not None:
            seat = t.seat
            if observe:
                t.observation(seat)
            legal = t.action_mask(seat).nonzero()[0]
            t.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
    return n / (clock() - start), steps / n


def fast_deals(n: int, seed: int) -> float:
    """`Table` with no PettingZoo layer and no per-step allocation (see the docstring)."""
    out = np.empty(OBS_SIZE, dtype=np.float32)
    start = clock()
    for k in range(n):
        rng = random.Random(seed * 100_003 + k)
        t = Table(seed * 100_003 + k, starter=k % 4)
        seat = t.seat
        while seat is not None:
            t.observation_into(seat, out)
            legal = t.mask_bytes()
            pos = legal.index(1)
            for _ in range(int(rng.random() * legal.count(1))):
                pos = legal.index(1, pos + 1)
            t.step(pos)
            seat = t.seat
    return n / (clock() - start)


def env_deals(n: int, seed: int, skip_forced: bool = False) -> tuple[float, float]:
    env = shengji_v0.raw_env(starter=None, skip_forced=skip_forced)
    rng = random.Random(seed)
    steps = 0
    start = clock()
    for k in range(n):
        env.reset(seed=seed * 100_003 + k)
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
    return n / (clock() - start), steps / n


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=200, help="deals per repeat")
    p.add_argument("--repeats", type=int, default=5, help="rates are medians over repeats")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--wall", action="store_true", help="wall-clock rates, not CPU time")
    p.add_argument("--pin", action="store_true", help="pin the process to one core (Linux)")
    args = p.parse_args()
    global clock
    if args.wall:
        clock = time.perf_counter
    if args.pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    n, seed, reps = args.deals, args.seed, args.repeats
    env_deals(5, seed + 1)  # warm the per-trump tables
    # the loops take turns within each repeat, so a slow minute of a shared machine
    # falls on all of them; each figure is the median of its repeats
    runs: dict[str, list[float]] = {k: [] for k in ("e", "m", "o", "f", "v", "s")}
    m_steps = v_steps = s_steps = 0.0
    for r in range(reps):
        s = seed + 1000 * r
        runs["e"].append(engine_deals(n, s))
        m, m_steps = table_deals(n, s, False)
        runs["m"].append(m)
        runs["o"].append(table_deals(n, s, True)[0])
        runs["f"].append(fast_deals(n, s))
        v, v_steps = env_deals(n, s)
        runs["v"].append(v)
        sf, s_steps = env_deals(n, s, skip_forced=True)
        runs["s"].append(sf)
    e, m, o, f, v, sf = (statistics.median(runs[k]) for k in ("e", "m", "o", "f", "v", "s"))
    what = "wall-clock" if args.wall else "CPU time"
    print(f"{n} seeded deals x {reps} repeats, one process, medians of rates per second of"
          f" {what}, {engine_build()} engine, {engine_build(CYTHONIZED)} env table:")
    print(f"engine only (Round.random_action, step): {e:8.1f} deals/s  {1000 / e:6.2f} ms/deal")
    print(f"Table, random masked actions, no obs:    {m:8.1f} deals/s  {1000 / m:6.2f} ms/deal"
          f"  ({m_steps:.0f} decisions/deal)")
    print(f"Table, masked actions + obs each step:   {o:8.1f} deals/s  {1000 / o:6.2f} ms/deal")
    print(f"Table fast loop (obs into a buffer, mask bytes, no PettingZoo):"
          f" {f:8.1f} deals/s  {1000 / f:6.2f} ms/deal")
    print(f"shengji_v0 AEC loop, obs+mask each step: {v:8.1f} deals/s  {1000 / v:6.2f} ms/deal"
          f"  ({v_steps:.0f} agent steps/deal)")
    print(f"the same, skip_forced=True:              {sf:8.1f} deals/s  {1000 / sf:6.2f} ms/deal"
          f"  ({s_steps:.0f} agent steps/deal)")
    print("AEC loop, each repeat:", " ".join(f"{x:.0f}" for x in runs["v"]), "deals/s")
    print(f"goal 1,000 deals/s (the AEC loop): {'met' if v >= 1000 else 'not met'}")
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

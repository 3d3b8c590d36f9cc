"""Garbage-collector policy for long-running processes (the server's workers).

A worker holding hundreds of tables keeps ~100 tracked objects per open connection (the
ASGI stack's) and more per table. CPython's default thresholds (700, 10, 10) then run a
young collection every 700 net allocations and, each time the heap has grown by a
quarter, a full collection that walks every object. Measured on a worker with 500
tables in play (wall-clock, both cores busy): full passes took 0.5-1.5 s each (the
event loop stops meanwhile), all passes together 13% of the run.

`tune()` freezes what start-up built (modules, the app, the tables resumed from the
log: never scanned again, still freed by reference counting when dropped) and then:

- by default raises the young generation's threshold (a young pass every 100,000 net
  allocations, not 700; `THRESHOLDS`) and keeps the older generations' rules (a middle
  pass every 20 young ones; a full pass after 10 middle ones, once the heap grew by a
  quarter), so cyclic garbage is still collected and memory stays bounded. A young
  pass is long whatever the threshold: the young count is allocations minus
  deallocations of *any* generation, so when it reaches 100,000 the young list holds
  ~130,000 objects (each open connection's pending read, each table's objects of the
  round) at ~1 µs each. What a pass costs in all falls as the threshold rises (more of
  what lives a few seconds dies unscanned), and the share of actions that wait on a
  pass with it. Measured with bench/load.py, 1,000 tables on 2 workers with 0.7 s
  think time, per worker and run: 5,000 gave ~120 passes of 12-35 ms (p99 151 ms);
  50,000 15 passes, the longest 77-112 ms (p99 38-63 ms); 100,000 7 passes, the
  longest 94-171 ms, 0.51-0.77 s in all; 200,000 3 passes, the longest 150-208 ms,
  0.39-0.49 s in all. Five pairs of runs, one after the other (stop 24): p99 46.0,
  30.3, 47.1, 41.4, 59.7 ms at 200,000 (median 46.0) against 69.5, 69.1, 49.8, 60.9,
  50.7 ms at 100,000 (median 60.9), lower in 4 pairs of 5; hence 200,000 then. Stop 25
  halved what a table's round keeps alive (bench/retained.py: 303 objects per table, not
  555), and the trade moved back: four pairs, p99 38.0, 30.6, 43.5, 47.0 ms at 100,000
  (median 40.8; 4 young passes per worker, the longest 97-143 ms) against 46.6, 61.4,
  49.5, 42.2 ms at 200,000 (median 48.1; 2 passes of up to 191-206 ms), lower in 3 of 4
  and the longest latency 152-212 ms against 269-307; hence 100,000 again. At 200,000
  (stop 24) the price was where one process holds much more: one worker with all 1,000
  tables had 7 passes of up to 239 ms (p99 266 ms; with the pacer below 83 ms, 78 in stop 23),
  and with every bot answering at once (a saturated process) a single long pause backs
  everything up: p99 at 120 tables 67 ms at 50,000, 71 and 80 ms at 100,000, 75 and 123 ms at
  200,000;
- with `SHENGJI_GC="pace:MS"`, starts a `Pacer` (stop 23): automatic passes off, a
  young pass every MS milliseconds on the event loop's timer, its survivors frozen
  (no pass scans an object twice), and a full pass (unfreeze, collect, freeze) at most
  every 10 minutes, once the frozen heap has doubled (`FULL_GROWTH`, `FULL_MIN_S`).
  Its pauses are short (pace 100 ms: ~1,250 passes per worker and run, the longest
  11-45 ms) but it scans ~4x more objects in all (objects that live from a second to
  the next threshold pass die unscanned under thresholds): 2.7-4.3 s of passes per
  worker and run instead of 0.55-0.76 s, ~+0.06 ms of worker CPU per action. Where
  one process holds every connection that wins: 1,000 tables on 1 worker, p99 77.8 ms
  against 171.7 ms with the default. On 2 workers sharing 2 cores with the players it
  does not: p99 43.5-286 ms over 5 runs (median 101; 58 and 67 at a 300 ms pace, 77
  at 1 s) against the default's median 70, with p50 higher in most pairs (the extra
  CPU on saturated cores). `gc.get_freeze_count()` walks the whole frozen list: read
  at every tick (a first version) it cost the workers half again as much CPU, so the
  pacer reads it only when a full pass is due, at most every `check_s`. A process that
  holds thousands of connections alone (one worker for a whole busy site) should use
  it: `SHENGJI_GC=pace:100`.

Tried and not kept (docs/PERF_LOG.md): young passes every 100 ms on a timer
without the freeze (stop 21: everything that lived a second went to the middle
generation, whose first pass took 290-460 ms; p99 350-414 ms).

`SHENGJI_GC="t0,t1,t2"` sets other thresholds; `SHENGJI_GC=off` leaves CPython's
defaults. `PassTimer` times every pass of the process; the server starts one after
`tune`, and a worker's `/api/cluster` metrics (printed by bench/load.py) show it.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from typing import Any

#: the default policy's thresholds for CPython's automatic passes
THRESHOLDS = (100_000, 20, 10)

#: `Pacer`'s default pace: a young pass every this many seconds
PACE_S = 0.1

#: `Pacer`'s full pass comes once the frozen heap has grown by this fraction since the
#: last one (as CPython's own full passes wait for the heap to grow by a quarter)
FULL_GROWTH = 1.0

#: ... and not sooner than this many seconds after the last one (or the start)
FULL_MIN_S = 600.0

_NAMES = ("young", "middle", "full")


class PassTimer:
    """Counts and times the collector's passes (a `gc.callbacks` entry): per
    generation, how many, their total and their longest pause."""

    def __init__(self) -> None:
        self.passes = [0, 0, 0]
        self.total_s = [0.0, 0.0, 0.0]
        self.max_s = [0.0, 0.0, 0.0]
        self._started = 0.0
        gc.callbacks.append(self._on_pass)

    def _on_pass(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        g = info["generation"]
        took = time.perf_counter() - self._started
        self.passes[g] += 1
        self.total_s[g] += took
        self.max_s[g] = max(self.max_s[g], took)

    def close(self) -> None:
        """Stop timing."""
        if self._on_pass in gc.callbacks:
            gc.callbacks.remove(self._on_pass)

    def stats(self) -> dict[str, dict[str, float]]:
        """Per generation (young, middle, full): passes, total and longest pause (ms)."""
        return {
            name: {"passes": self.passes[g], "total_ms": round(1000 * self.total_s[g], 1),
                   "max_ms": round(1000 * self.max_s[g], 1)}
            for g, name in enumerate(_NAMES)
        }


class Pacer:
    """Young passes on the event loop's timer, their survivors frozen.

    Automatic passes are off. Every `interval_s` a young pass scans what was made since
    the last one and is still alive (a few milliseconds' worth), and `gc.freeze()` then
    moves the survivors out of the collector's sight: reference counting still frees
    them, no later pass scans them again. What the frozen objects hold in cycles is
    freed by a full pass (unfreeze, collect, freeze): once `full_min_s` has passed since
    the last one (or the start) and the frozen heap has grown by `growth` since then.
    (`gc.get_freeze_count()` walks the whole frozen list, so it is read only then, at
    most every `check_s`: read at every young pass it cost the workers half again as much
    CPU.)
    """

    def __init__(
        self, interval_s: float = PACE_S, growth: float = FULL_GROWTH,
        full_min_s: float = FULL_MIN_S, check_s: float = 10.0,
    ) -> None:
        self.interval_s = interval_s
        self.growth = growth
        self.full_min_s = full_min_s
        self.check_s = check_s
        self.full_passes = 0
        self._loop = asyncio.get_running_loop()  # (a Pacer lives on its process's loop)
        gc.disable()
        gc.freeze()  # what is alive now counts as the start-up heap
        self._full_at = int(gc.get_freeze_count() * (1 + growth))
        self._next_check = time.monotonic() + full_min_s
        self._handle = self._loop.call_later(interval_s, self._tick)

    def _tick(self) -> None:
        gc.collect(0)
        gc.freeze()
        now = time.monotonic()
        if now >= self._next_check:
            if gc.get_freeze_count() > self._full_at:
                self.full()
            else:
                self._next_check = now + self.check_s
        self._handle = self._loop.call_later(self.interval_s, self._tick)

    def full(self) -> int:
        """A full pass over every object, frozen ones included; returns how many
        unreachable objects it found (cyclic garbage)."""
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self.full_passes += 1
        self._full_at = int(gc.get_freeze_count() * (1 + self.growth))
        self._next_check = time.monotonic() + self.full_min_s
        return found

    def close(self) -> None:
        """Stop the timer and give the collector back its automatic passes."""
        self._handle.cancel()
        gc.enable()


def tune() -> Pacer | tuple[int, int, int] | None:
    """Freeze the objects alive now and set the process's policy: `THRESHOLDS` (or
    `SHENGJI_GC="t0,t1,t2"`'s), returned; with `SHENGJI_GC="pace:MS"` a `Pacer` (needs
    the running event loop), returned; `SHENGJI_GC=off` changes nothing (None)."""
    env = os.environ.get("SHENGJI_GC", "").strip()
    if env == "off":
        return None
    gc.collect()
    gc.freeze()
    if env.startswith("pace:"):
        return Pacer(float(env[5:]) / 1000.0)
    chosen = THRESHOLDS
    if env:
        t0, t1, t2 = (int(x) for x in env.split(","))
        chosen = (t0, t1, t2)
    gc.set_threshold(*chosen)
    return chosen


__all__ = ["FULL_GROWTH", "FULL_MIN_S", "PACE_S", "THRESHOLDS", "Pacer", "PassTimer", "tune"]

"""Garbage-collector settings for long-running processes (the server's workers).

A worker holding hundreds of tables keeps ~100 tracked objects per open connection (the
ASGI stack's) and more per table. CPython's default thresholds (700, 10, 10) then run a
young collection every 700 net allocations and, each time the heap has grown by a
quarter, a full collection that walks every object. Measured on a worker with 500
tables in play (wall-clock, both cores busy): full passes took 0.5-1.5 s each (the
event loop stops meanwhile), all passes together 13% of the run. `tune()`:

- freezes what start-up built (modules, the app, the tables resumed from the log):
  never scanned again, still freed by reference counting when dropped;
- raises the young generation's threshold (a young pass every 100,000 net
  allocations, not 700). What a young pass costs is set less by the threshold than by
  the connections: each open connection's pending read (a few coroutines and futures,
  made anew at every message; its writer runs only while it has something to write)
  is always young, so at 1,000 tables a young
  pass finds ~30,000 objects at a threshold of 5,000 and ~100,000 at 50,000, at ~1 µs
  each. Rarer passes scan those fewer times (cheaper in all, fewer actions caught by
  one) but each is longer. Measured with bench/load.py, 1,000 tables on 2 workers with
  0.7 s think time, per worker and run: 5,000 gave ~120 passes of 12-35 ms (p99 151
  ms); 50,000 15 passes, the longest 77-112 ms, 0.6-0.9 s in all (p99 38-63 ms, median
  48 over 5 runs); 100,000 7-8 passes, the longest ~127 ms, 0.63-0.66 s in all (p99
  31 ms); 200,000 3 passes, the longest 125-212 ms, 0.35-0.53 s in all (p99 25-76 ms,
  median 37 over 6 runs). But with one worker and every bot answering at once (120
  tables, no think time, a saturated process) a single long pause backs everything up:
  p99 67 ms at 50,000, 71 and 80 ms at 100,000, 123 ms at 200,000. 100,000 is the
  middle of that trade;
- keeps the older generations' rules (a middle pass every 20 young ones; a full pass
  after 10 middle ones, once the heap grew by a quarter), so cyclic garbage is still
  collected and memory stays bounded.

Tried and not kept (docs/ARCHITECTURE.md): young passes every 100 ms on a timer (each
scanned little, but objects that live a second were then scanned before they died: 4x
the collector's total time, and the middle passes came sooner; p99 350-414 ms).

`SHENGJI_GC="t0,t1,t2"` overrides the thresholds (`off` leaves CPython's defaults).
`PassTimer` times every pass of the process; the server starts one after `tune`, and a worker's
`/api/cluster` metrics (printed by bench/load.py) show it.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any

THRESHOLDS = (100_000, 20, 10)

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


def tune() -> tuple[int, int, int] | None:
    """Freeze the objects alive now and set the collector's thresholds (`THRESHOLDS`, or
    `SHENGJI_GC`'s); returns them (None when `SHENGJI_GC=off` left the defaults)."""
    env = os.environ.get("SHENGJI_GC", "").strip()
    if env == "off":
        return None
    chosen = THRESHOLDS
    if env:
        t0, t1, t2 = (int(x) for x in env.split(","))
        chosen = (t0, t1, t2)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*chosen)
    return chosen


__all__ = ["THRESHOLDS", "PassTimer", "tune"]

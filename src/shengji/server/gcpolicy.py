"""Garbage-collector settings for long-running processes (the server, load generators).

A server holding hundreds of tables keeps ~1,000 tracked objects per table. CPython's
default thresholds (700, 10, 10) then run a young collection every 700 net allocations
and, each time the heap has grown by a quarter, a full collection that walks every
object. Measured on a worker with 500 tables in play (wall-clock, both cores busy):
full passes took 0.5-1.5 s each (the event loop stops meanwhile), all passes together
13% of the run, and they made the worst action latencies. `tune()`:

- freezes what start-up built (modules, the app, the tables resumed from the log):
  never scanned again, still freed by reference counting when dropped;
- raises the young generations' thresholds (a young pass every 50,000 net allocations,
  not 700): passes are rarer, and most objects die young by reference counting before
  one comes. The oldest generation keeps CPython's rule (after 10 middle passes, once
  the heap grew by a quarter), so cyclic garbage is still collected and memory stays
  bounded. Measured with the same run: 3 full passes per worker of 27-78 ms, the
  same count as with a tenfold higher third threshold.

`SHENGJI_GC="t0,t1,t2"` overrides the thresholds (`off` leaves CPython's defaults).
"""

from __future__ import annotations

import gc
import os

THRESHOLDS = (50_000, 20, 10)


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


__all__ = ["THRESHOLDS", "tune"]

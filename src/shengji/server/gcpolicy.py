"""Garbage-collector settings for long-running processes (the server, load generators).

A server holding hundreds of tables keeps ~1,000 tracked objects per table. CPython's
default thresholds (700, 10, 10) then run a young collection every 700 net allocations
and, each time the heap has grown by a quarter, a full collection that walks every
object: measured on a worker with 500 tables in play, full passes took 0.5-1.5 s each
(the event loop stops meanwhile) and all passes together 13% of the run, which is what
the worst action latencies were made of. `tune()`:

- freezes what start-up built (modules, the app, the tables resumed from the log):
  never scanned again, still freed by reference counting when dropped;
- raises the thresholds so that young collections are rarer and full ones need many
  more middle-aged passes; cycles are still collected, just later.

`SHENGJI_GC="t0,t1,t2"` overrides the thresholds (`off` leaves CPython's defaults).
"""

from __future__ import annotations

import gc
import os

THRESHOLDS = (50_000, 20, 100)


def tune(thresholds: tuple[int, int, int] | None = None) -> tuple[int, int, int] | None:
    """Freeze the objects alive now and set the collector's thresholds; returns them
    (None when `SHENGJI_GC=off` left the defaults)."""
    env = os.environ.get("SHENGJI_GC", "").strip()
    if env == "off":
        return None
    if env:
        t0, t1, t2 = (int(x) for x in env.split(","))
        thresholds = (t0, t1, t2)
    chosen = thresholds or THRESHOLDS
    gc.collect()
    gc.freeze()
    gc.set_threshold(*chosen)
    return chosen


__all__ = ["THRESHOLDS", "tune"]

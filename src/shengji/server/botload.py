"""The bots' pool under load (issue 35): a searching bot's rollouts are shed, visibly, when
the pool's backlog would make a person wait past the bound.

A web table's expert searches a rollout count (`bots.LEVEL_ITERS`), the same strength
however busy the machine, and is asked for its move as its turn begins. When more
decisions are asked than the pool has CPUs, they queue, and the wait a person sees grows
with the queue though no decision is cut. `BotLoad` keeps the pool's backlog (the CPU
seconds of the decisions asked and not answered, predicted from the CPU per rollout the
pool reports) and gives each new decision the rollouts that finish within the bound
(`bot_wait_ms`, counted from the ask): all of them while the pool keeps up, fewer (down
to `MIN_SHARE` of the count) when it does not. A decision given fewer is *shed*: reported
as degraded in the table's `bots` (`shed` counts it) and in `/api/cluster`, never silent.

The prediction: a decision of `n` rollouts costs `n * used * per_rollout_s` CPU seconds,
`used` being the share of its count a decision spends (one candidate, or all alike, stops
a search early) and `per_rollout_s` the CPU per rollout, both running means of what the
pool reported; the backlog is served by `cpus` processes at once, so a new decision ends
about `backlog / cpus + its own cost` after it is asked.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

__all__ = ["MIN_SHARE", "BotLoad"]

#: the least share of its rollout count a shed decision keeps (the expert level: 100 of
#: its 400; bench/results/degraded/ measures what a half and a quarter cost)
MIN_SHARE = 0.25
#: how far each report moves the running means (about the last 20 decisions)
_EWMA = 0.05
#: the pool's CPUs are read again after this long (a Ray cluster grows and shrinks)
_CPUS_EVERY_S = 5.0


class BotLoad:
    """The backlog of searching decisions on the bots' pool, and the rollouts a new one
    can be given within `bound_s` (see the module's text)."""

    def __init__(self, bound_s: float, min_share: float = MIN_SHARE,
                 per_rollout_s: float = 3e-4) -> None:
        self.bound_s = bound_s
        self.min_share = min_share
        self.per_rollout_s = per_rollout_s  # CPU s per rollout (a running mean)
        self.used = 0.6  # the share of the asked rollouts a decision does (a running mean)
        self.shed = 0  # decisions given fewer rollouts than their count
        self._cost: dict[int, float] = {}  # ticket -> predicted CPU s, while in flight
        self._tickets = itertools.count()
        self._cpus = 1.0
        self._cpus_at = -_CPUS_EVERY_S

    def backlog_s(self) -> float:
        """Predicted CPU seconds of the decisions asked and not yet answered."""
        return sum(self._cost.values())

    def in_flight(self) -> int:
        """Searching decisions asked and not yet answered."""
        return len(self._cost)

    def json(self) -> dict[str, float | int]:
        """`/api/bots`' and `/api/cluster`'s `load`: the searching decisions on the pool
        now, their predicted CPU seconds, the CPU per rollout seen (ms), those shed."""
        return {"in_flight": self.in_flight(), "backlog_s": round(self.backlog_s(), 3),
                "rollout_ms": round(1000 * self.per_rollout_s, 4), "shed": self.shed}

    def cpus(self, read: Callable[[], float | None]) -> float:
        """The pool's CPUs, read through `read()` (a pool's `cpus`) every few seconds
        (1 while unknown)."""
        now = time.monotonic()
        if now - self._cpus_at >= _CPUS_EVERY_S:
            got = read()
            self._cpus = 1.0 if got is None else max(1.0, got)
            self._cpus_at = now
        return self._cpus

    def plan(self, asked: int, cpus: float) -> int:
        """The rollouts to give a decision whose count is `asked`, on `cpus` processes."""
        per = self.per_rollout_s * self.used
        room = self.bound_s - self.backlog_s() / max(cpus, 1.0)
        fit = int(room / per) if per > 0 else asked
        floor = max(1, round(asked * self.min_share))
        return max(floor, min(asked, fit))

    def start(self, rollouts: int) -> int:
        """A decision of `rollouts` is asked: its ticket (for `done`)."""
        ticket = next(self._tickets)
        self._cost[ticket] = rollouts * self.used * self.per_rollout_s
        return ticket

    def done(self, ticket: int, asked: int, done: int | None, cpu_s: float | None) -> None:
        """The decision of `ticket` is answered (or failed: `done` None): it leaves the
        backlog, and what it spent (`done` rollouts in `cpu_s` CPU seconds) moves the
        means."""
        self._cost.pop(ticket, None)
        if done is None or cpu_s is None or asked <= 0:
            return
        self.used += _EWMA * (min(1.0, done / asked) - self.used)
        if done > 0 and cpu_s > 0:
            self.per_rollout_s += _EWMA * (cpu_s / done - self.per_rollout_s)

"""A deliberately slow bot for load tests: the random bot, after `SLOW_BOT_S` of "thought".

Offered only by a server started with test bots (`--test-bots`); it shows that a bot
thinking for a second stalls no other table (bots think in a process pool).
"""

from __future__ import annotations

import os
import time

from shengji.actions import Action
from shengji.bots import make_agent
from shengji.views import View

SLOW_BOT_S = 1.0  # SHENGJI_SLOW_BOT_S overrides it (read when the bot is made)


class SlowAgent:
    """Plays like the random bot, but takes `SLOW_BOT_S` seconds (blocking) for each move."""

    def __init__(self, seed: int, delay_s: float | None = None) -> None:
        self.inner = make_agent("random", seed)
        if delay_s is None:
            delay_s = float(os.environ.get("SHENGJI_SLOW_BOT_S", SLOW_BOT_S))
        self.delay_s = delay_s
        self.pids: list[int] = []  # the processes that computed its moves (tests)

    def act(self, view: View) -> Action:
        """The random bot's action, after a blocking sleep (as a CPU-bound search would)."""
        time.sleep(self.delay_s)
        if len(self.pids) < 64:
            self.pids.append(os.getpid())
        return self.inner.act(view)

"""A deliberately slow bot for load tests: the random bot, after `SLOW_BOT_S` of "thought".

Offered only by a server started with test bots (`--test-bots`); it shows that a bot
thinking for a second stalls no other table (bots think in a process pool).
"""

from __future__ import annotations

import time

from shengji.actions import Action
from shengji.bots import make_agent
from shengji.views import View

SLOW_BOT_S = 1.0


class SlowAgent:
    """Plays like the random bot, but takes `SLOW_BOT_S` seconds (blocking) for each move."""

    def __init__(self, seed: int, delay_s: float = SLOW_BOT_S) -> None:
        self.inner = make_agent("random", seed)
        self.delay_s = delay_s

    def act(self, view: View) -> Action:
        """The random bot's action, after a blocking sleep (as a CPU-bound search would)."""
        time.sleep(self.delay_s)
        return self.inner.act(view)

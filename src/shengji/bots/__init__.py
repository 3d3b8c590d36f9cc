"""Bots: the `Agent` protocol and `make_agent(kind, seed)` for "random" and "heuristic".

An agent sees only its own seat's `View` (RULES §11) and returns an action:
`Declare`/`Pass` while cards are drawn and in the final window, `Bury` as the
starter in the kitty exchange, `Play` on its turn.
"""

from __future__ import annotations

from .base import AGENT_KINDS, Agent, make_agent
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent

__all__ = ["AGENT_KINDS", "Agent", "HeuristicAgent", "RandomAgent", "make_agent"]

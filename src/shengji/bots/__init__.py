"""Bots: the `Agent` protocol and `make_agent(spec, seed)` for "random", "heuristic" and
"expert" (search; `expert:ms=300` or `expert:iters=200`; named levels "fast" and
"master"), and the arena's research bot "omniscient" (sees every hand).

An agent sees only its own seat's `View` (RULES §11) and returns an action:
`Declare`/`Pass` while cards are drawn and in the final window, `Bury` as the
starter in the kitty exchange, `Play` on its turn.
"""

from __future__ import annotations

from .base import (
    AGENT_KINDS,
    ANY_TABLE_KINDS,
    LEVEL_ITERS,
    LEVELS,
    RESEARCH_KINDS,
    Agent,
    agent_label,
    agent_spec_error,
    make_agent,
    parse_agent_spec,
    table_kind_error,
    table_spec_error,
)
from .expert import ExpertAgent
from .heuristic import HeuristicAgent
from .omniscient import OmniscientAgent
from .random_agent import RandomAgent

__all__ = [
    "AGENT_KINDS", "ANY_TABLE_KINDS", "LEVEL_ITERS", "LEVELS", "RESEARCH_KINDS", "Agent",
    "ExpertAgent", "HeuristicAgent", "OmniscientAgent", "RandomAgent", "agent_label",
    "agent_spec_error", "make_agent", "parse_agent_spec", "table_kind_error",
    "table_spec_error",
]

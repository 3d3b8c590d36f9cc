"""The agent factory; the `Agent` protocol itself lives with the engine's driver."""

from __future__ import annotations

from ..driver import Agent

__all__ = ["AGENT_KINDS", "Agent", "make_agent"]

AGENT_KINDS: tuple[str, ...] = ("random", "heuristic")


def make_agent(kind: str, seed: int) -> Agent:
    """An agent of the given kind ("random" or "heuristic"), deterministic given `seed`."""
    if kind == "random":
        from .random_agent import RandomAgent

        return RandomAgent(seed)
    if kind == "heuristic":
        from .heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    raise ValueError(f"unknown agent kind {kind!r}; choose one of {', '.join(AGENT_KINDS)}")

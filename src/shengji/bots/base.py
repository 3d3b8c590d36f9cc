"""The agent factory; the `Agent` protocol itself lives with the engine's driver."""

from __future__ import annotations

from ..driver import Agent

__all__ = ["AGENT_KINDS", "Agent", "is_agent_kind", "make_agent"]

AGENT_KINDS: tuple[str, ...] = ("random", "heuristic")


def make_agent(kind: str, seed: int) -> Agent:
    """An agent of the given kind ("random" or "heuristic"), deterministic given `seed`."""
    if kind == "random":
        from .random_agent import RandomAgent

        return RandomAgent(seed)
    if kind == "heuristic":
        from .heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    if kind.startswith("dmc:") and len(kind) > 4:  # a trained checkpoint (shengji.learn)
        from ..learn.agent import DMCAgent

        return DMCAgent(kind[4:], seed)
    raise ValueError(
        f"unknown agent kind {kind!r}; choose one of {', '.join(AGENT_KINDS)} or dmc:CHECKPOINT"
    )


def is_agent_kind(kind: str) -> bool:
    """Whether `make_agent` knows this kind: a name of AGENT_KINDS or `dmc:CHECKPOINT`."""
    return kind in AGENT_KINDS or (kind.startswith("dmc:") and len(kind) > 4)

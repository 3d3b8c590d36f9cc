"""The `Agent` protocol and the agent factory."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..actions import Action
from ..views import View

AGENT_KINDS: tuple[str, ...] = ("random", "heuristic")


@runtime_checkable
class Agent(Protocol):
    """A player: given its seat's view, returns the action it takes (RULES §11).

    Phase "deal" (asked after its own draw) and "declare" (the final window):
    `Declare(seat, cards)` or `Pass(seat)`; phase "kitty": `Bury(seat, 8 cards)`;
    phase "play": `Play(seat, cards)`.
    """

    def act(self, view: View) -> Action: ...


def make_agent(kind: str, seed: int) -> Agent:
    """An agent of the given kind ("random" or "heuristic"), deterministic given `seed`."""
    if kind == "random":
        from .random_agent import RandomAgent

        return RandomAgent(seed)
    if kind == "heuristic":
        from .heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    raise ValueError(f"unknown agent kind {kind!r}; choose one of {', '.join(AGENT_KINDS)}")

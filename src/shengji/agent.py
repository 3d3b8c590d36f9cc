"""The `Agent` protocol: what the driver, the arena, the server and the terminal ask.

Kept in its own (interpreted) module: the driver is compiled with mypyc, and a compiled
class is no `Protocol` at run time, so `isinstance(x, Agent)` needs this one.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .actions import Action
from .views import View


@runtime_checkable
class Agent(Protocol):
    """A player: given its seat's view, returns the action it takes (RULES §11).

    Phase "deal" (asked after its own draw, when it holds a legal declaration) and
    "declare" (the final window):
    `Declare(seat, cards)` or `Pass(seat)`; phase "kitty": `Bury(seat, 8 cards)`;
    phase "play": `Play(seat, cards)`.
    """

    def act(self, view: View) -> Action:
        """The action this agent takes, given its seat's view (RULES §11)."""
        ...

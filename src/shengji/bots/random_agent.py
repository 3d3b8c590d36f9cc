"""The random agent: a uniformly random legal action, seeded."""

from __future__ import annotations

import random

from ..actions import Action, Bury, Play
from ..views import View


class RandomAgent:
    """Plays a uniformly random distinct legal play (`view.random_play`).

    While cards are drawn and in the final window it picks uniformly among
    passing and each legal declaration; as the starter it buries a random kitty (8 cards
    at four players, RULES §12.1 elsewhere), and as the leader in friends mode it makes a
    uniformly random legal call (§12.4).
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, view: View) -> Action:
        """A uniformly random legal action for the seat's view (RULES §3.3, §4, §6)."""
        seat = view.seat
        assert seat is not None, "an agent plays a seat"
        phase = view.phase
        if phase in ("deal", "declare"):
            return view.random_declaration_action(self.rng)  # pass or a declaration, uniformly
        if phase == "kitty":
            return Bury(seat, view.random_play(self.rng))  # uniform over distinct 8-card sets
        if phase == "play":
            return Play(seat, tuple(view.random_play(self.rng)))
        if phase == "call":  # friends mode (RULES §12.4): a uniformly random legal call
            return view.random_call_action(self.rng)
        raise ValueError(f"nothing to do in phase {phase!r}")

"""The engine's vocabulary as types: phases, lead kinds and the round's gainer (RULES §3-§8).

`Phase` and `LeadKind` are string enums: each member equals its lowercase name
(`Phase.PLAY == "play"`), so JSON, records and older code that compare with the
strings keep working, while the engine and type checkers use the members.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class Phase(StrEnum):
    """What a round is doing: dealing (§3.1), the final declaration window (§3.3), the
    kitty (§4), tricks (§6) or over (§8); in friends mode the leader's call of friends
    comes between the kitty and the tricks (§12.4; last, so the others keep their order)."""

    DEAL = "deal"
    DECLARE = "declare"
    KITTY = "kitty"
    PLAY = "play"
    OVER = "over"
    CALL = "call"


class LeadKind(StrEnum):
    """The kind of a lead (§6.1): one unit (single, pair, tractor) or a throw of several;
    with more decks (§12.3) a lone k-tuple of k ≥ 3 (triple, quadruple…) is a `TUPLE`
    (last, so the others keep their order) and a tractor may be of any k-tuples."""

    SINGLE = "single"
    PAIR = "pair"
    TRACTOR = "tractor"
    THROW = "throw"
    TUPLE = "tuple"


#: who gains levels at the end of a round (§8.2): the declaring team kept the deal, or
#: the opponents took it
Gainer = Literal["declarers", "opponents"]

__all__ = ["Gainer", "LeadKind", "Phase"]

"""`omniscient`: a research bot that cheats, the ceiling the expert is measured against.

It searches exactly as the expert does (`ExpertAgent`: the same candidates, budget,
pruning and heuristic rollouts) but over the one true world instead of worlds sampled
from its view: every hand, the kitty and the undealt deck are read from the real
round. Its margin over the heuristic is an upper bound for a search of this kind; the
expert's margin as a share of it says how much the hidden information costs (issue 31).

It breaks RULES §11 on purpose, so it plays only where the whole round is at hand: the
arena and the benchmarks attach the round (`attach`) before it acts. Web tables and
`shengji play` refuse it (`bots.base.table_spec_error`), and an unattached one refuses to
act. Wherever its name prints it carries `CHEAT_LABEL`.
"""

from __future__ import annotations

from ..actions import Action
from ..game import Game
from ..round import Round
from ..views import View
from .expert import ExpertAgent

__all__ = ["CHEAT_LABEL", "OmniscientAgent"]

#: printed after the bot's name wherever it appears (arena tables, reprs)
CHEAT_LABEL = "(cheating: sees all hands)"


class OmniscientAgent(ExpertAgent):
    """The expert's search over the true deal (`attach` a `Round` or a `Game` first)."""

    sees_all = True  # the arena attaches the round to agents that say so

    def __init__(self, seed: int, **settings: int) -> None:
        super().__init__(seed, **settings)
        self._table: Round | Game | None = None

    def __repr__(self) -> str:
        return super().__repr__().replace("ExpertAgent", "OmniscientAgent") + " " + CHEAT_LABEL

    def attach(self, table: Round | Game) -> None:
        """Let the bot read the real round (a game's current round) from now on."""
        self._table = table

    def _round(self) -> Round:
        if self._table is None:
            raise RuntimeError(
                "omniscient sees every hand (cheating): it plays only in the arena and the "
                "benchmarks, which attach the real round; web tables and `shengji play` refuse it"
            )
        return self._table.round if isinstance(self._table, Game) else self._table

    def act(self, view: View) -> Action:
        """The expert's decision, searched over the real round this view belongs to."""
        rnd = self._round()
        seat = view.seat
        if seat is None or _position(rnd.view(seat)) != _position(view):
            raise RuntimeError("omniscient: the attached round is not the one this view shows")
        return super().act(view)

    def _true_world(self, view: View) -> tuple[Round, list[list[int]], list[int]]:
        rnd = self._round()
        hands = [list(rnd.hand_counts(s)) for s in range(rnd.n_players)]
        kitty = list(rnd.kitty) if rnd.kitty else list(rnd.kitty_taken)
        return rnd.clone(), hands, kitty


def _position(v: View) -> tuple[object, ...]:
    """What a round's view and a game's view of the same moment share (a game's view adds
    the game's round number and levels)."""
    return (v.phase, v.to_act, v.hand, v.hand_sizes, v.declarations, v.cards_left,
            v.tricks, v.current_trick, v.kitty_taken)

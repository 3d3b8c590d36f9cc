"""A hint: the play (or bury, or declaration) the search suggests from one seat's view.

`suggest` reads only the seat's `View` (RULES §11: nothing hidden goes in). It takes the
heuristic's move as the reference, measures it against the other candidates with
`knowledge_reading` (worlds sampled exactly as the expert samples them), and suggests
the candidate with the most points for the seat's side (then levels). The reason quotes
what was measured for the suggestion: the chance the seat's side wins the current trick
and the points in it (plays), and how many points it keeps over the next best candidate.
Every figure is a mean over sampled worlds, so no other seat's card is in it.
Deterministic for a view, a budget and a seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..actions import Bury, Declare, Play
from ..bots.heuristic import HeuristicAgent
from ..cards import CARDS
from ..errors import IllegalAction
from ..views import View
from ..vocab import Phase
from .review import Budget, candidates, knowledge_reading

__all__ = ["HINT_BUDGET", "HINTS_EN", "Hint", "hint_kind", "suggest"]

#: a hint's search: the knowledge reading at the review's default budget (bench/analysis.py
#: times it; the goal is <= 1 s)
HINT_BUDGET = Budget()

HINTS_EN = {
    "hint.reason.play": "your side wins the trick {win:.0%} of the time "
    "({trick_points:.0f} points in it); {margin:.1f} points better than the next option",
    "hint.reason.bury": "the best bury found: {margin:.1f} points better than the next "
    "option",
    "hint.reason.declare": "the best choice found: {margin:.1f} points better than the next "
    "option",
    "hint.reason.declare_pass": "not declaring ends best: {margin:.1f} points better than "
    "declaring",
    "hint.reason.only": "the only legal choice",
}


@dataclass
class Hint:
    """A suggestion: the cards (empty: pass / do not declare now) and the measured reason."""

    kind: str  # "play", "bury" or "declare"
    cards: list[str]
    key: str
    figures: dict[str, float]

    @property
    def text(self) -> str:
        """The reason in English (clients translate `key` with `figures`)."""
        return HINTS_EN[self.key].format(**self.figures)

    def to_json(self) -> dict[str, Any]:
        """The `hint` message's body: cards and reason {key, figures, text}."""
        return {"kind": self.kind, "cards": self.cards,
                "reason": {"key": self.key, "figures": self.figures, "text": self.text}}


def hint_kind(view: View) -> str | None:
    """What the seat has to decide now: "play" (its turn, §6), "bury" (the starter in
    the kitty exchange, §4), "declare" (a declaration it could make, §3), or None."""
    seat = view.seat
    if seat is None:
        return None
    if view.phase is Phase.PLAY and view.to_act == seat:
        return "play"
    if view.phase is Phase.KITTY and view.starter == seat:
        return "bury"
    if view.phase in (Phase.DEAL, Phase.DECLARE) and view.legal_declarations():
        return "declare"
    return None


def suggest(view: View, budget: Budget = HINT_BUDGET, seed: int = 0) -> Hint:
    """The search's suggestion for the seat of `view` (see the module docstring); raises
    `IllegalAction` when the seat has nothing to decide."""
    kind = hint_kind(view)
    if kind is None:
        raise IllegalAction("nothing to decide now: a hint is for your turn, your bury or "
                            "a declaration you can make")
    action = HeuristicAgent(seed).act(view)
    played: tuple[int, ...] = ()
    if isinstance(action, Play | Bury | Declare):
        played = tuple(sorted(c.id for c in action.cards))
    cands = candidates(view, kind, played, budget, seed)
    if len(cands) < 2:
        return Hint(kind, [str(CARDS[i]) for i in cands[0]], "hint.reason.only", {})
    r = knowledge_reading(view, kind, played, budget, seed, cands)
    best = r.candidates[r.best]
    rest = [c.points for j, c in enumerate(r.candidates) if j != r.best]
    figures = {
        "margin": round(max(0.0, best.points - max(rest)), 1),
        "points": round(best.points, 1),
        "levels": round(best.levels, 3),
        "win": round(best.trick_win, 3),
        "trick_points": round(best.trick_points, 1),
    }
    key = f"hint.reason.{kind}"
    if kind == "declare" and not best.ids:
        key = "hint.reason.declare_pass"
    return Hint(kind, list(best.cards), key, figures)

"""Replays for `/api/tables/{id}/replay`: public trick-by-trick steps; all hands once finished.

While a game is on, only what a spectator may see is given (RULES §11); once it is over
the full record is public, with every round's dealt hands and kitty.
"""

from __future__ import annotations

from typing import Any

from shengji import Game, RuleOptions
from shengji.actions import action_from_json
from shengji.round import Round
from shengji.views import View

_PUBLIC_KEYS = (
    "round_no",
    "phase",
    "trump_rank",
    "trump_suit",
    "trump_final",
    "declarations",
    "declarer",
    "kitty_flip",
    "starter",
    "declaring_team",
    "levels",
    "tricks",
    "current_trick",
    "failed_throws",
    "opponents_points",
    "point_cards",
    "kitty",
    "result",
)


def _public(view: View) -> dict[str, Any]:
    assert view.seat is None
    j = view.to_json()
    return {k: j[k] for k in _PUBLIC_KEYS}


def _cards(cards: tuple[Any, ...]) -> list[str]:
    return [str(c) for c in cards]


def replay_payload(
    seed: int | str, options: RuleOptions, actions: list[Any], finished: bool
) -> dict[str, Any]:
    """Replay `actions` and summarise every round (public only unless `finished`)."""
    g = Game(seed, options)
    rounds: list[dict[str, Any]] = []
    hands: list[list[str]] | None = None
    kitty_taken: list[str] | None = None

    def close(r: Round) -> None:
        step = _public(r.view(None))
        if finished:
            step["hands"] = hands
            step["kitty_taken"] = kitty_taken
        rounds.append(step)

    for a in actions:
        r = g.round
        phase = r.phase
        g.apply(action_from_json(a))
        if finished and r.phase != phase:
            if r.phase == "declare":  # the deal just ended: the dealt hands
                hands = [_cards(r.view(s).hand) for s in range(4)]
            elif r.phase == "kitty" and r.starter is not None:
                kitty_taken = _cards(r.view(r.starter).kitty_taken or ())
        if g.round is not r or (g.is_over and r.is_over):
            close(r)
            hands, kitty_taken = None, None
    if not g.is_over:
        rounds.append(_public(g.view(None)))
    return {
        "status": "finished" if g.is_over else "playing",
        "record": g.record.to_json() if finished and g.is_over else None,
        "winner": g.winner,
        "steps": rounds,
    }

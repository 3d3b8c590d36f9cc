"""Turn-based driving of a game or round by agents (bots, terminal play, simulations).

The deal asks the seat that just drew whether to declare (RULES §3.3), then the
final window asks seats in play order; kitty and tricks ask the seat to act.
Agents see only their seat's view (§11).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .actions import Action, Declare, Draw, Pass
from .agent import Agent as Agent  # re-exported: agents were always `driver.Agent`
from .errors import IllegalAction
from .events import Event
from .game import Game
from .round import Decision, Round


def advance(table: Game | Round, agents: Sequence[Agent]) -> list[tuple[Action, list[Event]]]:
    """Ask whoever must act now and apply their action; returns each action applied with
    the events it caused (`shengji.events`).

    In the deal phase this draws the next card and then offers the seat that drew
    it a declaration if it has one to make (an agent answering `Pass` declines,
    RULES §3.3).
    """
    done: list[tuple[Action, list[Event]]] = []
    d = table.decision()
    if d.phase == "deal":
        done.append((_DRAW, table.apply(_DRAW)))
        answer = _declaration_after_draw(table, agents)
        if answer is not None:
            done.append((answer, table.apply(answer)))
        return done
    action = _asked(table, agents, d)
    return [(action, table.apply(action))]


def step(table: Game | Round, agents: Sequence[Agent]) -> list[Action]:
    """Like `advance`, returning only the actions applied (no events are built): the
    loop of simulations and bot matches, so it asks and applies without a generator."""
    d = table.decision()
    if d.phase == "deal":
        table.step(_DRAW)
        answer = _declaration_after_draw(table, agents)
        if answer is None:
            return [_DRAW]
        table.step(answer)
        return [_DRAW, answer]
    action = _asked(table, agents, d)
    table.step(action)
    return [action]


def _asked(table: Game | Round, agents: Sequence[Agent], d: Decision) -> Action:
    """The action of the seat a (non-deal) decision waits for."""
    if d.phase == "over":
        raise IllegalAction("RULES §9: the game is over")
    assert d.seat is not None
    return agents[d.seat].act(table.view(d.seat))


def _declaration_after_draw(table: Game | Round, agents: Sequence[Agent]) -> Declare | None:
    """The declaration the seat that just drew makes, if any (RULES §3.3). Only a seat
    that can declare is asked: for the others the only answer is a pass."""
    after = table.decision()
    seat = after.last_drawer
    if after.phase != "deal" or seat is None or not table.has_declaration(seat):
        return None
    action = agents[seat].act(table.view(seat))
    if isinstance(action, Declare):
        return action
    if not isinstance(action, Pass):
        raise IllegalAction("RULES §3.3: during the deal answer a declaration or a pass")
    return None


_DRAW = Draw()


def play_round(
    rnd: Round, agents: Sequence[Agent], on_action: Callable[[Action], None] | None = None
) -> Round:
    """Play a round to its end with these agents (index = seat)."""
    while not rnd.is_over:
        for a in step(rnd, agents):
            if on_action:
                on_action(a)
    return rnd


def play_game(
    game: Game,
    agents: Sequence[Agent],
    on_action: Callable[[Action], None] | None = None,
    max_rounds: int | None = None,
) -> Game:
    """Play a game until a team passes A (or `max_rounds` rounds are finished)."""
    while not game.is_over and (max_rounds is None or game.round_no < max_rounds):
        for a in step(game, agents):
            if on_action:
                on_action(a)
    return game

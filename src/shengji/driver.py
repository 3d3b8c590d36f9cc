"""Turn-based driving of a game or round by agents (bots, terminal play, simulations).

The deal asks the seat that just drew whether to declare (RULES §3.3), then the
final window asks seats in play order; kitty and tricks ask the seat to act.
Agents see only their seat's view (§11).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, runtime_checkable

from .actions import Action, Declare, Draw, Pass
from .errors import IllegalAction
from .events import Event
from .game import Game
from .round import Round
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


def advance(table: Game | Round, agents: Sequence[Agent]) -> list[tuple[Action, list[Event]]]:
    """Ask whoever must act now and apply their action; returns each action applied with
    the events it caused (`shengji.events`).

    In the deal phase this draws the next card and then offers the seat that drew
    it a declaration if it has one to make (an agent answering `Pass` declines,
    RULES §3.3).
    """
    done: list[tuple[Action, list[Event]]] = []
    for action in _ask(table, agents):
        done.append((action, table.apply(action)))
    return done


def step(table: Game | Round, agents: Sequence[Agent]) -> list[Action]:
    """Like `advance`, returning only the actions applied (no events are built)."""
    done = []
    for action in _ask(table, agents):
        table.step(action)
        done.append(action)
    return done


def _ask(table: Game | Round, agents: Sequence[Agent]) -> Iterator[Action]:
    """The actions to apply now, in order; each is applied before the next is asked for."""
    d = table.decision()
    if d.phase == "over":
        raise IllegalAction("RULES §9: the game is over")
    if d.phase == "deal":
        yield _DRAW
        after = table.decision()
        seat = after.last_drawer
        # Only a seat that can declare is asked: for the others the only answer is a pass.
        if after.phase == "deal" and seat is not None and table.has_declaration(seat):
            action = agents[seat].act(table.view(seat))
            if isinstance(action, Declare):
                yield action
            elif not isinstance(action, Pass):
                raise IllegalAction("RULES §3.3: during the deal answer a declaration or a pass")
        return
    assert d.seat is not None
    yield agents[d.seat].act(table.view(d.seat))


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
    while not game.is_over and (max_rounds is None or len(game.results) < max_rounds):
        for a in step(game, agents):
            if on_action:
                on_action(a)
    return game

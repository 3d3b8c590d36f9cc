"""Actions: the only way anything changes a round or a game.

Each action is a small frozen dataclass with a compact JSON form, e.g.
`["play", 2, "AS AS"]`; records are lists of these (RULES §3, §4, §6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import CARDS, N_IDS, Card, as_cards, format_cards
from .errors import IllegalAction, MalformedAction


@dataclass(frozen=True, slots=True)
class Draw:
    """System action: the next card of the deal goes to the next drawer (§3.1)."""

    def to_json(self) -> list[Any]:
        """The compact JSON form, `["draw"]`."""
        return ["draw"]


#: the one `Draw` the server and parsers use: it has no fields, and a table's log holds
#: a hundred draws a round, so sharing it keeps them out of the garbage collector's
#: young generation (a worker with 500 tables made ~18,000 of them between two passes)
DRAW = Draw()


@dataclass(frozen=True, slots=True)
class Declare:
    """Reveal one trump-rank card, two identical trump-rank cards or two identical jokers (§3.3)."""

    seat: int
    cards: tuple[Card, ...]

    def to_json(self) -> list[Any]:
        """The compact JSON form, e.g. `["declare", 0, "2H"]`."""
        return ["declare", self.seat, format_cards(self.cards)]


@dataclass(frozen=True, slots=True)
class Pass:
    """The asked seat declines to declare in the final window (§3.3)."""

    seat: int

    def to_json(self) -> list[Any]:
        """The compact JSON form, e.g. `["pass", 1]`."""
        return ["pass", self.seat]


@dataclass(frozen=True, slots=True)
class CloseWindow:
    """System action: a real-time server closes the final declaration window (§3.3)."""

    def to_json(self) -> list[Any]:
        """The compact JSON form, `["close"]`."""
        return ["close"]


@dataclass(frozen=True, slots=True)
class Bury:
    """The starter puts 8 cards back as the kitty (§4)."""

    seat: int
    cards: tuple[Card, ...]

    def to_json(self) -> list[Any]:
        """The compact JSON form, e.g. `["bury", 0, "3C 3C 4D ..."]`."""
        return ["bury", self.seat, format_cards(self.cards)]


@dataclass(frozen=True, slots=True)
class Play:
    """Lead or follow in the current trick (§6)."""

    seat: int
    cards: tuple[Card, ...]

    def to_json(self) -> list[Any]:
        """The compact JSON form, e.g. `["play", 2, "AS AS"]`."""
        return ["play", self.seat, format_cards(self.cards)]


Action = Draw | Declare | Pass | CloseWindow | Bury | Play

#: `SINGLE_PLAYS[seat][card_id]`: the one `Play` of that card alone by that seat (actions
#: are immutable). Most plays are of one card, and a server's tables keep every action
#: they were sent: shared, they stay out of the garbage collector's young generation.
SINGLE_PLAYS: tuple[tuple[Play, ...], ...] = tuple(
    tuple(Play(s, (CARDS[i],)) for i in range(N_IDS)) for s in range(4)
)


def _seat(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise MalformedAction(f"RULES §1: seat must be 0-3, not {value!r}")
    return value


def check_well_formed(action: object) -> None:
    """Raise `MalformedAction` unless `action` is one of the action types with a seat 0-3
    (where it has one) and cards given as a list or tuple of `Card`s (RULES §1)."""
    if not isinstance(action, Draw | Declare | Pass | CloseWindow | Bury | Play):
        raise MalformedAction(f"malformed action: {action!r} is not an action")
    if isinstance(action, Draw | CloseWindow):
        return
    _seat(action.seat)
    if isinstance(action, Pass):
        return
    cards = action.cards
    if not isinstance(cards, tuple | list) or not all(isinstance(c, Card) for c in cards):
        raise MalformedAction(
            f"RULES §1: {type(action).__name__.lower()} needs a list of cards, not {cards!r}"
        )


def cards_of(action: Declare | Bury | Play) -> tuple[Card, ...]:
    """The action's cards as a tuple (a hand-built action may hold a list, RULES §1)."""
    return tuple(action.cards)


def _cards(value: Any) -> tuple[Card, ...]:
    if isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    ):
        try:
            return tuple(as_cards(value))
        except MalformedAction:
            raise
        except IllegalAction as e:
            raise MalformedAction(e.message) from None
    raise MalformedAction("RULES §1: cards must be notation text such as '10H 10H'")


def action_from_json(obj: Any) -> Action:
    """Parse an action from its JSON list form; raises `MalformedAction` if malformed."""
    if not isinstance(obj, list) or not obj or not isinstance(obj[0], str):
        raise MalformedAction("malformed action: expected a list like ['play', 0, 'AS']")
    kind, args = obj[0], obj[1:]
    arity = {"draw": 0, "close": 0, "pass": 1, "declare": 2, "bury": 2, "play": 2}
    if kind not in arity:
        raise MalformedAction(f"malformed action: unknown action {kind!r}")
    if len(args) != arity[kind]:
        raise MalformedAction(f"malformed action: {kind!r} takes {arity[kind]} argument(s)")
    if kind == "draw":
        return DRAW
    if kind == "close":
        return CloseWindow()
    if kind == "pass":
        return Pass(_seat(args[0]))
    seat, cards = _seat(args[0]), _cards(args[1])
    if kind == "declare":
        return Declare(seat, cards)
    if kind == "bury":
        return Bury(seat, cards)
    if len(cards) == 1:
        return SINGLE_PLAYS[seat][cards[0].id]
    return Play(seat, cards)


"""Actions: the only way anything changes a round or a game.

Each action is a small frozen dataclass with a compact JSON form, e.g.
`["play", 2, "AS AS"]`; records are lists of these (RULES §3, §4, §6).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import BJ_ID, CARDS, N_IDS, Card, as_cards, below, format_cards
from .errors import IllegalAction, MalformedAction
from .options import RuleOptions


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


@dataclass(frozen=True, slots=True)
class Call:
    """The leader calls friends after the kitty exchange (RULES §12.4): each call is a
    card and an ordinal j, "the j-th copy of this card to be played this round"."""

    seat: int
    calls: tuple[tuple[Card, int], ...]

    def to_json(self) -> list[Any]:
        """The compact JSON form, e.g. `["call", 0, [["AS", 2], ["KH", 1]]]`."""
        return ["call", self.seat, [[c.text, j] for c, j in self.calls]]


Action = Draw | Declare | Pass | CloseWindow | Bury | Play | Call

#: the most seats a table has (RULES §12: 4 to 10 players); a round checks its own count
MAX_SEATS = 10

#: `SINGLE_PLAYS[seat][card_id]`: the one `Play` of that card alone by that seat (actions
#: are immutable). Most plays are of one card, and a server's tables keep every action
#: they were sent: shared, they stay out of the garbage collector's young generation.
SINGLE_PLAYS: tuple[tuple[Play, ...], ...] = tuple(
    tuple(Play(s, (CARDS[i],)) for i in range(N_IDS)) for s in range(MAX_SEATS)
)


def _seat(value: Any, players: int = MAX_SEATS) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise MalformedAction(f"RULES §1: seat must be 0-{players - 1}, not {value!r}")
    return value


def check_well_formed(action: object) -> None:
    """Raise `MalformedAction` unless `action` is one of the action types with a seat 0-9
    (where it has one; a round checks its own seat count) and cards given as a list or
    tuple of `Card`s (RULES §1), a `Call`'s calls as (Card, int) pairs (§12.4)."""
    if not isinstance(action, Draw | Declare | Pass | CloseWindow | Bury | Play | Call):
        raise MalformedAction(f"malformed action: {action!r} is not an action")
    if isinstance(action, Draw | CloseWindow):
        return
    _seat(action.seat)
    if isinstance(action, Pass):
        return
    if isinstance(action, Call):
        calls = action.calls
        if not isinstance(calls, tuple | list) or not all(
            isinstance(c, tuple | list) and len(c) == 2 and isinstance(c[0], Card)
            and type(c[1]) is int
            for c in calls
        ):
            raise MalformedAction(
                f"RULES §12.4: a call is a list of (card, ordinal) pairs, not {calls!r}"
            )
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


def _calls(value: Any) -> tuple[tuple[Card, int], ...]:
    """A call's JSON `[["AS", 2], ["KH", 1]]` as (card, ordinal) pairs (RULES §12.4)."""
    if not isinstance(value, list):
        raise MalformedAction("RULES §12.4: calls must be a list like [[\"AS\", 2]]")
    out: list[tuple[Card, int]] = []
    for item in value:
        if (
            not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str)
            or type(item[1]) is not int
        ):
            raise MalformedAction(
                f"RULES §12.4: a call is [card, ordinal] such as [\"AS\", 2], not {item!r}"
            )
        cards = _cards(item[0])
        if len(cards) != 1:
            raise MalformedAction(f"RULES §12.4: a call names one card, not {item[0]!r}")
        out.append((cards[0], item[1]))
    return tuple(out)


def action_from_json(obj: Any, players: int = 4) -> Action:
    """Parse an action from its JSON list form at a table of `players` seats (RULES
    §12.1; four unless told); raises `MalformedAction` if malformed."""
    if not isinstance(obj, list) or not obj or not isinstance(obj[0], str):
        raise MalformedAction("malformed action: expected a list like ['play', 0, 'AS']")
    kind, args = obj[0], obj[1:]
    arity = {"draw": 0, "close": 0, "pass": 1, "declare": 2, "bury": 2, "play": 2, "call": 2}
    if kind not in arity:
        raise MalformedAction(f"malformed action: unknown action {kind!r}")
    if len(args) != arity[kind]:
        raise MalformedAction(f"malformed action: {kind!r} takes {arity[kind]} argument(s)")
    if kind == "draw":
        return DRAW
    if kind == "close":
        return CloseWindow()
    if kind == "pass":
        return Pass(_seat(args[0], players))
    if kind == "call":
        return Call(_seat(args[0], players), _calls(args[1]))
    seat, cards = _seat(args[0], players), _cards(args[1])
    if kind == "declare":
        return Declare(seat, cards)
    if kind == "bury":
        return Bury(seat, cards)
    if len(cards) == 1:
        return SINGLE_PLAYS[seat][cards[0].id]
    return Play(seat, cards)


#: (players, decks, kitty, hand, friends mode) of a table (RULES §12.1, §12.4)
Table = tuple[int, int, int, int, bool]
#: the four-player table (RULES §1, §3.1, §4)
FOUR: Final[Table] = (4, 2, 8, 25, False)


def table_of(options: RuleOptions) -> Table:
    """(players, decks, kitty size, hand size, friends mode) under `options` (RULES §12.1,
    §12.4): the resolved `n_players`, `n_decks`, `n_kitty`, `n_hand` and `mode`; the
    four-player game's one shared tuple when they are the defaults."""
    n = options.players
    if n == 4 and options.decks is None and options.kitty_size is None and (
        options.mode == "teams"
    ):
        return FOUR
    return (n, options.n_decks, options.n_kitty, options.n_hand, options.mode == "friends")


def n_calls(players: int) -> int:
    """How many friends the leader calls (RULES §12.4): `N // 2 - 1`."""
    return players // 2 - 1


def call_error(
    calls: Sequence[tuple[Card, int]], trump_rank: str | None, players: int, decks: int
) -> str | None:
    """Why these calls are not a legal call of friends (RULES §12.4), or None: exactly
    `N // 2 - 1` calls, each a card that is neither a joker nor of the trump rank and an
    ordinal 1..d, no two the same. `trump_rank` is the rank in force (None in a round
    with no trump rank, §5.3: then the cards of the leader's level are plain cards and
    may be called)."""
    f = n_calls(players)
    if len(calls) != f:
        return (
            f"RULES §12.4: with {players} players the leader calls {f} "
            f"friend{'s' if f != 1 else ''}, not {len(calls)}"
        )
    seen: set[tuple[int, int]] = set()
    for card, j in calls:
        if card.id >= BJ_ID:
            return f"RULES §12.4: a called card may not be a joker ({card})"
        if card.rank == trump_rank:
            return f"RULES §12.4: a called card may not be of the trump rank {trump_rank} ({card})"
        if isinstance(j, bool) or not isinstance(j, int) or not 1 <= j <= decks:
            return (
                f"RULES §12.4: the ordinal of a call is 1..{decks} (the copy of {card} "
                f"to be played), not {j!r}"
            )
        if (card.id, j) in seen:
            return f"RULES §12.4: {card} #{j} is called twice"
        seen.add((card.id, j))
    return None


def random_calls(
    trump_rank: str | None, players: int, decks: int, rng: random.Random
) -> tuple[tuple[Card, int], ...]:
    """A uniformly random legal call of friends (RULES §12.4): `N // 2 - 1` distinct
    (card, ordinal) pairs among the non-joker cards not of the trump rank."""
    pool = [(i, j) for i in range(BJ_ID) if CARDS[i].rank != trump_rank
            for j in range(1, decks + 1)]
    out: list[tuple[Card, int]] = []
    for _ in range(n_calls(players)):
        k = below(rng, len(pool))
        i, j = pool.pop(k)
        out.append((CARDS[i], j))
    return tuple(out)

"""Events: what an action caused, as typed records, redacted per seat (RULES §11).

`Round.apply` and `Game.apply` return the events an action caused, in order.
Clients, narrators and replays build on these and on views; nobody needs to
compare a state before and after an action. Most events are public. The ones
that hold hidden cards (`Drew`, `KittyTaken`, `KittyBuried`) say who may see
them: `event.for_seat(seat)` gives the event as that seat may see it (the
hidden cards replaced by `None`) and `for_spectator()` as anyone may.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from .cards import Card
from .results import RoundResult, result_json


class Event:
    """Base of every event: a frozen record with a `kind` name and a JSON form."""

    __slots__ = ()
    kind: ClassVar[str] = "event"
    #: the field that holds hidden cards, if any, and the field naming the one seat who may
    #: see them (RULES §11)
    _hidden: ClassVar[str | None] = None
    _owner: ClassVar[str] = "seat"

    def for_seat(self, seat: int | None) -> Event:
        """This event as `seat` may see it (None: a spectator); hidden cards become None."""
        if self._hidden is None or (seat is not None and getattr(self, self._owner) == seat):
            return self
        return replace(self, **{self._hidden: None})  # type: ignore[type-var]

    def for_spectator(self) -> Event:
        """This event as a spectator (or any other seat) may see it."""
        return self.for_seat(None)

    @property
    def is_redacted(self) -> bool:
        """True if this copy had its hidden cards removed."""
        return self._hidden is not None and getattr(self, self._hidden) is None

    def to_json(self) -> dict[str, Any]:
        """A JSON object: `{"type": kind, ...fields}`, cards as notation strings."""
        out: dict[str, Any] = {"type": self.kind}
        for f in fields(self):  # type: ignore[arg-type]
            out[f.name] = _json_value(getattr(self, f.name))
        return out


def _json_value(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, tuple):
        return [_json_value(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """`seat` drew a card in the deal (§3.1); only that seat sees which one."""

    kind: ClassVar[str] = "drew"
    _hidden: ClassVar[str | None] = "card"
    seat: int
    card: Card | None
    hand_size: int


@dataclass(frozen=True, slots=True)
class Declared(Event):
    """`seat` revealed `cards` to declare (§3.3); `overturns` the seat whose declaration it beat."""

    kind: ClassVar[str] = "declared"
    seat: int
    cards: tuple[Card, ...]
    strength: int
    overturns: int | None


@dataclass(frozen=True, slots=True)
class Passed(Event):
    """`seat` declined to declare in the final window (§3.3)."""

    kind: ClassVar[str] = "passed"
    seat: int


@dataclass(frozen=True, slots=True)
class Redealt(Event):
    """Nobody declared in the first round: all cards are reshuffled, deal `attempt` (§3.5)."""

    kind: ClassVar[str] = "redealt"
    attempt: int


@dataclass(frozen=True, slots=True)
class KittyFlipped(Event):
    """Nobody declared: the kitty cards turned up, in order, chose trump `suit` (§3.5)."""

    kind: ClassVar[str] = "kitty_flipped"
    cards: tuple[Card, ...]
    suit: str


@dataclass(frozen=True, slots=True)
class TrumpFixed(Event):
    """The trump is final (§3.2): rank (None: no trump rank) and suit (None: no trump suit).

    `declarer` is the seat whose declaration stands (None if the kitty chose, §3.5).
    """

    kind: ClassVar[str] = "trump_fixed"
    rank: str | None
    suit: str | None
    declarer: int | None
    starter: int
    declaring_team: int  # -1 in friends mode: no fixed team (§12.4)


@dataclass(frozen=True, slots=True)
class _KittyCards(Event):
    """The kitty's cards moving to or from the starter's hand (§4): only they see them."""

    _hidden: ClassVar[str | None] = "cards"
    seat: int
    cards: tuple[Card, ...] | None


@dataclass(frozen=True, slots=True)
class KittyTaken(_KittyCards):
    """The starter took the kitty cards into their hand (§4); only they see them."""

    kind: ClassVar[str] = "kitty_taken"


@dataclass(frozen=True, slots=True)
class KittyBuried(_KittyCards):
    """The starter put as many cards back as the kitty (§4); only they see which."""

    kind: ClassVar[str] = "kitty_buried"


@dataclass(frozen=True, slots=True)
class ThrowFailed(Event):
    """`seat`'s throw failed (§6.4): `blocker` showed `shown`; `forced` is led instead.

    `penalty` is signed as its effect on the opponents' points.
    """

    kind: ClassVar[str] = "throw_failed"
    seat: int
    attempted: tuple[Card, ...]
    forced: tuple[Card, ...]
    blocker: int
    shown: tuple[Card, ...]
    penalty: int


@dataclass(frozen=True, slots=True)
class Played(Event):
    """`seat` played `cards` to trick number `trick` (0-based); `lead` if it led it (§6)."""

    kind: ClassVar[str] = "played"
    seat: int
    cards: tuple[Card, ...]
    trick: int
    lead: bool


@dataclass(frozen=True, slots=True)
class TrickWon(Event):
    """Trick number `trick` went to `winner` with `points` in it (§6.3, §7)."""

    kind: ClassVar[str] = "trick_won"
    trick: int
    winner: int
    points: int
    opponents_points: int


@dataclass(frozen=True, slots=True)
class Called(Event):
    """The leader `seat` called friends (§12.4): each call a card and an ordinal j, the
    j-th copy of that card to be played. Public at once."""

    kind: ClassVar[str] = "called"
    seat: int
    calls: tuple[tuple[Card, int], ...]


@dataclass(frozen=True, slots=True)
class FriendJoined(Event):
    """`seat` played the called copy of call number `call` (`card`, `ordinal`) in trick
    `trick` and joins the leader's side now that the trick has ended (§12.4)."""

    kind: ClassVar[str] = "friend_joined"
    seat: int
    call: int
    card: Card
    ordinal: int
    trick: int


@dataclass(frozen=True, slots=True)
class CallSpent(Event):
    """Call number `call` is spent (§12.4): the leader played the called copy, or the
    seat that played it was already on the leader's side (`seat` played it in `trick`)."""

    kind: ClassVar[str] = "call_spent"
    seat: int
    call: int
    card: Card
    ordinal: int
    trick: int


@dataclass(frozen=True, slots=True)
class RoundOver(Event):
    """The round ended (§8); the kitty is shown to everyone now (§11)."""

    kind: ClassVar[str] = "round_over"
    result: RoundResult

    def to_json(self) -> dict[str, Any]:
        """`{"type": "round_over", "result": ...}` with the result as plain JSON."""
        return {"type": self.kind, "result": result_json(self.result)}


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A new round of the game begins (§8.3): its number, trump rank, starter and levels.

    `starter` and `declaring_team` are None in the first round (§3.4).
    """

    kind: ClassVar[str] = "round_started"
    round_no: int
    trump_rank: str
    starter: int | None
    declaring_team: int | None
    levels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """A team's level passed A: the game is over and `winner` (team 0 or 1) won (§9)."""

    kind: ClassVar[str] = "game_over"
    winner: int
    levels: tuple[str, ...]


EVENT_TYPES: tuple[type[Event], ...] = (
    Drew, Declared, Passed, Redealt, KittyFlipped, TrumpFixed, KittyTaken, KittyBuried,
    ThrowFailed, Played, TrickWon, RoundOver, RoundStarted, GameOver,
    Called, FriendJoined, CallSpent,
)

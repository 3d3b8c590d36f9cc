"""Seats: who sits where, tokens, bots in seats, kicks, seat links, swaps, the start.

Each function handles one client message for a table (see `routing.HANDLERS`); a refusal
is a `ClientError` and changes nothing. Seat changes are stored before they are shown
(`Table.set_seat`), and a connection that held one seat of a game never takes another.

A seat taken mid-game shows its hand to whoever takes it, so it never rests on the host's
word alone (docs/WEB_PROTOCOL.md, "Seats mid-game"): a claim with a seat link waits
(`Claim`) until a connected human of the team the host does not sit on accepts it (the
team opposite the claimed seat when the host has no seat), or, while no such player is
connected, until the round ends. Every mid-game seat change is announced in the chat
log by the table (`announce`), naming who made it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from shengji.bots import RESEARCH_KINDS, table_kind_error, table_spec_error

from . import hints
from .chat import SYSTEM, chat_json
from .connection import Client, ClientError, clean_name, dumps
from .security import hash_token, new_token, token_matches
from .status import ERROR, ERROR_MESSAGE, FINISHED, PLAYING, WAITING
from .storage import ChatRow, is_write_failure

if TYPE_CHECKING:
    from .tables import Table

log = logging.getLogger(__name__)


@dataclass
class Claim:
    """A seat link used mid-game, waiting: by `client`, for `name`, made for `seat`."""

    client: Client
    name: str
    seat: int


#: what a `SeatMap` stores through: the seats' JSON and the host's seat
SaveSeats = Callable[[list[dict[str, Any] | None], int | None], Awaitable[None]]

#: a seat keeps this many of the token hashes that held it (`Seat.former`)
KEEP_FORMER = 16


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits in one seat: a person (`kind` "human", an external program too) or a bot
    of `kind`, and the secrets that hold it.

    `token_hash`: the hash of the seat's token (None for a bot or a vacant seat);
    `former`: the hashes that held it before, oldest first (their connections may watch,
    never take another seat of the game); `vacant`: kicked mid-game, its player gone (a
    stand-in plays it until a bot or a seat link fills it); `external`: a program plays
    it with a bot link (docs/BOT_PROTOCOL.md); `link_hash`: a one-time seat link's.
    Stored as the JSON `to_json` writes, which is what the seats were stored as before
    they were typed: a stored table of any age loads (`from_json`)."""

    name: str
    kind: str
    token_hash: str | None = None
    former: tuple[str, ...] = ()
    vacant: bool = False
    external: bool = False
    link_hash: str | None = None

    @property
    def human(self) -> bool:
        """A person's seat (an external program's too), taken or vacant."""
        return self.kind == "human"

    @property
    def player(self) -> bool:
        """A person sits here now (a human seat that is not vacant)."""
        return self.kind == "human" and not self.vacant

    def holders(self) -> tuple[str, ...]:
        """The token hashes that held this seat, its current one last (`former` of the
        seat that replaces it)."""
        out = self.former + ((self.token_hash,) if self.token_hash else ())
        return out[-KEEP_FORMER:]

    def held_by(self, token: str) -> bool:
        """`token` is the seat's current token."""
        return token_matches(token, self.token_hash)

    def held_before_by(self, token: str) -> bool:
        """`token` held this seat before (a former holder)."""
        return any(token_matches(token, h) for h in self.former)

    def to_json(self) -> dict[str, Any]:
        """The stored JSON: name, kind and token_hash, and each other field when set."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind,
                               "token_hash": self.token_hash}
        if self.former:
            out["former"] = list(self.former)
        if self.vacant:
            out["vacant"] = True
        if self.external:
            out["external"] = True
        if self.link_hash is not None:
            out["link_hash"] = self.link_hash
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        """A stored seat (`to_json`; older rows lack the keys of fields not set)."""
        return cls(
            name=str(data["name"]), kind=str(data["kind"]),
            token_hash=data.get("token_hash"),
            former=tuple(data.get("former") or ()),
            vacant=bool(data.get("vacant")), external=bool(data.get("external")),
            link_hash=data.get("link_hash"),
        )

    def public_json(self, connected: bool) -> dict[str, Any]:
        """The seat as everyone may see it (no secrets): `connected` is asked of humans."""
        entry: dict[str, Any] = {"name": self.name, "kind": self.kind,
                                 "connected": connected if self.human else True}
        if self.vacant:
            entry["vacant"] = True
        if self.external:  # a program plays it (docs/BOT_PROTOCOL.md)
            entry["external"] = True
        return entry


class SeatMap:
    """The seats of one table and the host's seat: the one owner of who sits where.

    Its size is the table's number of players (RULES §12: 4 to 10; 4 unless the rule
    options say otherwise). Every change (`sit`, `put_bot`, `kick`, `link`, `unlink`,
    `bot_link`, `give`, `swap`) checks the seats, stores the new seats through the `save`
    callback and only then shows them: a refused or failed change leaves them as they
    were. A refusal is a `ClientError`. Reading: `seats[i]` (a `Seat` or None), `len`,
    iteration, `host`."""

    def __init__(self, stored: Sequence[dict[str, Any] | None], host: int | None,
                 n_players: int, save: SaveSeats) -> None:
        seats = [None if s is None else Seat.from_json(s) for s in stored[:n_players]]
        self._seats: tuple[Seat | None, ...] = tuple(seats + [None] * (n_players - len(seats)))
        self._host = host
        self._save = save

    def __len__(self) -> int:
        return len(self._seats)

    def __iter__(self) -> Iterator[Seat | None]:
        return iter(self._seats)

    def __getitem__(self, seat: int) -> Seat | None:
        return self._seats[seat]

    @property
    def host(self) -> int | None:
        """The host's seat, or None (the host watches, or has not sat down)."""
        return self._host

    @property
    def full(self) -> bool:
        """Every seat is taken (by a person or a bot)."""
        return all(s is not None for s in self._seats)

    def json(self) -> list[dict[str, Any] | None]:
        """The seats as stored (`Seat.to_json`)."""
        return [None if s is None else s.to_json() for s in self._seats]

    def index(self, value: Any, key: str = "seat") -> int:
        """`value` (a message's `key`) as a seat number, or a refusal."""
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(self):
            raise ClientError(f"malformed message: {key} must be a seat 0-{len(self) - 1}")
        return value

    def by_token(self, token: str) -> tuple[int | None, set[int]]:
        """The seat `token` holds (None: none), and the seats it held before."""
        held: set[int] = set()
        for i, s in enumerate(self._seats):
            if s is None:
                continue
            if s.held_by(token):
                return i, held
            if s.held_before_by(token):
                held.add(i)  # a former holder of seat i: spectator only
        return None, held

    def by_link(self, code: str) -> int | None:
        """The seat a one-time seat link `code` was made for, or None."""
        return next((i for i, s in enumerate(self._seats)
                     if s is not None and token_matches(code, s.link_hash)), None)

    async def _commit(self, seats: tuple[Seat | None, ...], host: int | None) -> None:
        await self._save([None if s is None else s.to_json() for s in seats], host)
        self._seats, self._host = seats, host

    async def _put(self, seat: int, new: Seat | None) -> None:
        seats = list(self._seats)
        seats[seat] = new
        await self._commit(tuple(seats), self._host)

    async def sit(self, seat: int, name: str, host: bool) -> str:
        """A person takes the free `seat` (before the start); `host`: the host's
        connection, whose seat it becomes. Returns the seat's token."""
        if self._seats[seat] is not None:
            raise ClientError(f"seat {seat} is taken")
        token = new_token()
        seats = list(self._seats)
        seats[seat] = Seat(name, "human", hash_token(token))
        await self._commit(tuple(seats), seat if host else self._host)
        return token

    async def put_bot(self, seat: int, kind: str) -> Seat:
        """A bot of `kind` takes `seat`: free, a bot's, or vacant (never a player's)."""
        current = self._seats[seat]
        if current is not None and current.player:
            raise ClientError(f"seat {seat} has a player: kick them first")
        new = Seat(f"{kind.capitalize()} bot", kind,
                   former=current.holders() if current is not None else ())
        await self._put(seat, new)
        return new

    async def kick(self, seat: int, mid_game: bool) -> Seat:
        """Empty `seat` before the start, or (`mid_game`) leave it vacant: its player's
        token no longer holds it. Returns who sat there."""
        old = self._seats[seat]
        if old is None:
            raise ClientError(f"seat {seat} is empty")
        if seat == self._host:
            raise ClientError("the host cannot kick their own seat")
        if not mid_game:
            await self._put(seat, None)
        elif old.vacant:
            raise ClientError(f"seat {seat} is already vacant")
        else:  # the seat stays in the game: vacant, played by a stand-in
            await self._put(seat, Seat(old.name, "human", former=old.holders(), vacant=True))
        return old

    async def link(self, seat: int) -> str:
        """A one-time seat link for a vacant or bot seat (a new link replaces the last);
        returns its code."""
        current = self._seats[seat]
        if current is None or current.player:
            raise ClientError(f"seat {seat} has a player: kick them first")
        code = new_token()
        await self._put(seat, replace(current, link_hash=hash_token(code)))
        return code

    async def unlink(self, seat: int) -> None:
        """The seat's link is used up (its claim was refused)."""
        current = self._seats[seat]
        assert current is not None
        await self._put(seat, replace(current, link_hash=None))

    async def bot_link(self, seat: int, name: str) -> str:
        """Before the start: `seat` goes to an external program (docs/BOT_PROTOCOL.md);
        returns its bot token."""
        current = self._seats[seat]
        if seat == self._host:
            raise ClientError("the host's own seat cannot go to a bot")
        if current is not None and current.human and not current.external:
            raise ClientError(f"seat {seat} has a player: kick them first")
        token = new_token()
        await self._put(seat, Seat(name, "human", hash_token(token), external=True))
        return token

    async def give(self, seat: int, name: str) -> str:
        """A granted claim: `name` takes `seat` (its link used up); returns its token."""
        old = self._seats[seat]
        assert old is not None
        token = new_token()
        await self._put(seat, Seat(name, "human", hash_token(token), former=old.holders()))
        return token

    async def swap(self, a: int, b: int) -> None:
        """Exchange two seats (before the start); the host's seat moves with its player."""
        if a == b:
            raise ClientError("swap needs two different seats")
        seats = list(self._seats)
        seats[a], seats[b] = seats[b], seats[a]
        host = self._host
        if host in (a, b):
            host = b if host == a else a
        await self._commit(tuple(seats), host)


def who(table: Table, client: Client) -> str:
    """How an announcement names the connection that made a change."""
    entry = table.seats[client.seat] if client.seat is not None else None
    if entry is not None:
        return f"{entry.name} (seat {client.seat})"
    return "the host" if client.host_token_ok else "a spectator"


async def announce(table: Table, text: str) -> None:
    """Tell the table (and keep in its chat log) a seat change, as the table's own line."""
    row: ChatRow = table.chat.add(None, SYSTEM, text)
    try:
        await table.store.append_chat(table.id, row)
    except Exception as exc:  # the change stands; its line is shown even if it was not kept
        if not is_write_failure(exc):  # (the store logged that one, rate limited)
            log.exception("table %s: could not store an announcement", table.id)
    out = dumps({"type": "chat", "messages": [chat_json(row)]})
    for c in list(table.clients):
        c.push(out)


def accepting_team(table: Table, seat: int) -> int:
    """The team (seat parity) whose seated humans may accept a claim of `seat`: the team
    the host does not sit on, or with no host seat the team opposite `seat`."""
    host = table.host_seat
    return (seat + 1) % 2 if host is None else (host + 1) % 2


def accepters(table: Table, seat: int) -> list[Client]:
    """The connections that may accept a claim of `seat`: seated humans of the team the
    host does not sit on (with no host seat: the team opposite `seat`), connected."""
    team = accepting_team(table, seat)
    return [c for c in table.clients
            if c.seat is not None and c.seat % 2 == team and c.seat != seat
            and (e := table.seats[c.seat]) is not None and e.player]


def drop_claims(table: Table, seat: int | None = None, client: Client | None = None,
                why: str = "") -> None:
    """Forget the waiting claims of `seat` or by `client`, telling each claimant `why`."""
    for s, c in list(table.claims.items()):
        if s == seat or c.client is client:
            del table.claims[s]
            if why and c.client is not client:
                c.client.error(why)




def bind(table: Table, client: Client, seat: int | None) -> None:
    """Bind a connection to `seat` (None: a spectator); the clocks learn who is absent."""
    old = client.seat
    client.seat = seat
    if seat is not None and table.status != WAITING:
        client.held.add(seat)
    if old is not None and old != seat and not table.connected(old):
        table.clock.absent(old)
    if seat is not None:
        table.clock.present(seat)


async def hello(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """The first message: a seat token binds the connection to its seat (else a
    spectator); the state and the chat history go back to it."""
    token = msg.get("token")
    lang = msg.get("lang")
    if isinstance(lang, str) and len(lang) <= 16:
        client.lang = lang
    if token is not None and not isinstance(token, str):
        raise ClientError("malformed message: token must be a string or null")
    history = msg.get("history", "full")
    if history not in ("full", "delta"):
        raise ClientError('malformed message: history must be "full" or "delta"')
    client.history_delta = history == "delta"
    client.history = None  # the next state carries the whole history
    was = client.seat
    client.greeted = True
    client.host_token_ok = False
    seat: int | None = None
    bad = False
    if token:
        if token_matches(token, table.host_token_hash):
            client.host_token_ok = True
            seat = table.host_seat
        else:
            seat, held = table.seats.by_token(token)
            client.held |= held  # a former holder of those seats: spectator only
            bad = seat is None
    if seat is not None and table.status != WAITING and client.held - {seat}:
        other = min(client.held - {seat})
        seat, bad = None, False
        client.host_token_ok = False
        client.error(
            f"this connection has held seat {other} of this game: it cannot take "
            "another seat; you are watching as a spectator"
        )
    arrives = seat is not None and seat != was and not table.connected(seat)
    bind(table, client, seat)
    if bad:
        client.error("invalid token: you are watching as a spectator")
    # Everyone is sent a state only where the seats' presence changed (a seat's first
    # connection, or the last one left it): a seat's other connections saying hello,
    # with its token or without, change nothing the others see (issue 28 item 5).
    leaves = was is not None and was != seat and not table.connected(was)
    if arrives and table.paused() == "idle":  # a seated player is back: deal again
        table.resume()
    if arrives or leaves:  # at most one state per window for everyone (`broadcast_presence`)
        table.broadcast_presence(client)
        table.wake.set()
    else:
        table.send_state(client)
    if table.chat.rows:
        client.send(table.chat.history())


async def sit(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Before the start: take a free seat with a name; the seat's token goes back."""
    seat = table.seats.index(msg.get("seat"))
    name = clean_name(msg.get("name"))
    async with table.lock:
        if table.status != WAITING:
            raise ClientError(
                "the game is on: a free seat is taken with a one-time seat link from "
                "the host"
            )
        if client.seat is not None:
            raise ClientError("you already have a seat")
        token = await table.seats.sit(seat, name, host=client.host_token_ok)
        bind(table, client, seat)
        client.send({"type": "seated", "seat": seat, "token": token})
        table.broadcast()
    table.wake.set()


def require_host(table: Table, client: Client) -> None:
    """Refuse anyone but the host."""
    if not table.is_host(client):
        raise ClientError("only the host may do that")


async def bot(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Host: a bot of the given kind plays `seat` (refused for a seat with a player)."""
    require_host(table, client)
    seat = table.seats.index(msg.get("seat"))
    kind = msg.get("kind")
    kinds = table.manager.bot_kinds
    if isinstance(kind, str) and kind in RESEARCH_KINDS:
        raise ClientError(table_spec_error(kind) or "that bot cannot play at a table")
    if kind not in kinds:
        raise ClientError(f"bot kind must be one of: {', '.join(kinds)}")
    refused = table_kind_error(kind, table.options)
    if refused is not None:
        raise ClientError(refused)
    async with table.lock:
        if table.status == FINISHED:
            raise ClientError("the game is over")
        if table.status == ERROR:
            raise ClientError(ERROR_MESSAGE)
        bot_name = (await table.seats.put_bot(seat, kind)).name
        if table.status == PLAYING:
            table.bots.seat_bot(seat, kind)
            drop_claims(table, seat=seat, why=f"seat {seat} went to a bot: your claim "
                        "was withdrawn")
            await announce(table, f"{who(table, client)} put a {bot_name} in seat {seat}")
        table.broadcast()
    table.wake.set()


async def kick(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Host: empty a seat before the start, or leave it vacant (a stand-in plays it)."""
    require_host(table, client)
    seat = table.seats.index(msg.get("seat"))
    async with table.lock:
        # mid-game the seat stays in the game: vacant, played by a stand-in after
        # bot_timeout_s until a bot or a seat link fills it
        old = await table.seats.kick(seat, mid_game=table.status != WAITING)
        table.bots.leave(seat)
        for c in table.clients:
            if c.seat == seat:
                c.seat = None
        table.clock.absent(seat)
        if table.status != WAITING:
            await announce(table, f"{who(table, client)} kicked {old.name} from seat "
                           f"{seat}")
        table.broadcast()
    table.wake.set()


async def seat_link(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Host: a one-time code with which a new player takes a vacant (or bot) seat."""
    require_host(table, client)
    seat = table.seats.index(msg.get("seat"))
    async with table.lock:
        if table.status != PLAYING:
            raise ClientError("seat links are for a game in progress: before the start, "
                              "players simply sit down")
        code = await table.seats.link(seat)
        drop_claims(table, seat=seat, why=f"a new link was made for seat {seat}: your "
                    "claim was withdrawn")
    client.send({"type": "seat_link", "seat": seat, "code": code})


async def bot_link(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Host, before the start: a bot token for `seat`, with which an external bot (any
    program, docs/BOT_PROTOCOL.md) connects over the WebSocket and plays that seat with
    the ordinary web protocol. The seat shows `external: true` and `name` (default
    "External bot"). Only before the start: mid-game a seat shows its hand to whoever
    takes it, so a program takes a seat then as a person does, with a seat link and a
    claim the other team accepts ("Seats mid-game")."""
    require_host(table, client)
    seat = table.seats.index(msg.get("seat"))
    name = clean_name(msg.get("name", "External bot"))
    async with table.lock:
        if table.status != WAITING:
            raise ClientError("bot links are made before the start; mid-game a program "
                              "takes a seat with a seat link, as a person does")
        token = await table.seats.bot_link(seat, name)
        for c in table.clients:  # a former token of the seat no longer holds it
            if c.seat == seat:
                c.seat = None
        table.broadcast()
    client.send({"type": "bot_link", "seat": seat, "token": token})
    table.wake.set()


async def claim(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Ask for the seat a one-time seat link (`code`) was made for: the claim waits for
    a player of the other team to accept it, or for the round's end (module docstring)."""
    code = msg.get("code")
    if not isinstance(code, str) or not code:
        raise ClientError("malformed message: code must be a string")
    name = clean_name(msg.get("name"))
    async with table.lock:
        if table.status != PLAYING:
            raise ClientError("the game is not being played")
        seat = table.seats.by_link(code)
        if seat is None:
            raise ClientError("this seat link is not valid (already used or replaced)")
        if client.seat is not None or client.host_token_ok:
            raise ClientError("you already have a seat in this game")
        if client.held - {seat}:
            raise ClientError(
                f"this connection has held seat {min(client.held)} of this game: it "
                "cannot take another seat"
            )
        if any(c.client is client for c in table.claims.values()):
            raise ClientError("you already have a claim waiting")
        if seat in table.claims:
            raise ClientError(f"someone else's claim of seat {seat} is waiting")
        table.claims[seat] = Claim(client, name, seat)
        ask = accepters(table, seat)
        waiting = "acceptance" if ask else "round_end"
        client.send({"type": "claim_pending", "seat": seat, "waiting_for": waiting})
        await announce(table, f"{name} asks for seat {seat} with a seat link; "
                       + ("a player of the other team must accept"
                          if ask else "granted when the round ends"))
        table.broadcast()


async def accept_claim(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """A player of the other team accepts (`accept`: true) or refuses a waiting claim."""
    seat = table.seats.index(msg.get("seat"))
    yes = msg.get("accept")
    if not isinstance(yes, bool):
        raise ClientError("malformed message: accept must be true or false")
    async with table.lock:
        pending = table.claims.get(seat)
        if pending is None:
            raise ClientError(f"no claim of seat {seat} is waiting")
        if client not in accepters(table, seat):
            raise ClientError("only a seated player of the team the host does not sit "
                              "on may accept or refuse a claim")
        if yes:
            await grant(table, pending, f"accepted by {who(table, client)}")
        else:
            del table.claims[seat]
            await table.seats.unlink(seat)
            pending.client.error(f"your claim of seat {seat} was refused")
            await announce(table, f"{who(table, client)} refused {pending.name}'s claim "
                           f"of seat {seat}")
            table.broadcast()
    table.wake.set()


async def grant(table: Table, pending: Claim, how: str) -> None:
    """Seat a waiting claimant (the table's lock is held): its token goes back to it."""
    seat, client = pending.seat, pending.client
    token = await table.seats.give(seat, pending.name)
    table.claims.pop(seat, None)
    table.bots.leave(seat)
    bind(table, client, seat)
    client.send({"type": "seated", "seat": seat, "token": token})
    await announce(table, f"{pending.name} took seat {seat} ({how})")
    table.broadcast()


async def round_ended(table: Table) -> None:
    """A round ended (the table's lock is held): grant the claims no connected player of
    the other team could answer."""
    for pending in list(table.claims.values()):
        if table.status == PLAYING and not accepters(table, pending.seat):
            await grant(table, pending, "the round ended with no player of the other "
                        "team to ask")


async def swap(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Host, before the start: exchange two seats."""
    require_host(table, client)
    a, b = table.seats.index(msg.get("a"), "a"), table.seats.index(msg.get("b"), "b")
    if a == b:
        raise ClientError("swap needs two different seats")
    async with table.lock:
        if table.status != WAITING:
            raise ClientError("seats can only be swapped before the game starts")
        await table.seats.swap(a, b)
        for c in table.clients:
            if c.seat in (a, b):
                c.seat = b if c.seat == a else a
        for s in (a, b):
            if table.connected(s):
                table.clock.present(s)
            else:
                table.clock.absent(s)
        table.broadcast()


async def start(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Host: start the game once every seat is filled."""
    require_host(table, client)
    async with table.lock:
        if table.status != WAITING:
            raise ClientError("the game has already started")
        if not table.seats.full:
            n = len(table.seats)
            raise ClientError(f"all {'four' if n == 4 else n} seats must be filled (players "
                              "or bots)")
        await hints.freeze(table)
        await table.store.update_table(table.id, status=PLAYING)
        table.status = PLAYING
        for c in table.clients:
            c.held = set() if c.seat is None else {c.seat}
        table.bots.make_agents()
        table.broadcast()
    table.start_driver()

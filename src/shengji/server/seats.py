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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from shengji.bots import RESEARCH_KINDS, table_spec_error

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


def who(table: Table, client: Client) -> str:
    """How an announcement names the connection that made a change."""
    if client.seat is not None and table.seats[client.seat] is not None:
        entry = table.seats[client.seat]
        assert entry is not None
        return f"{entry['name']} (seat {client.seat})"
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
            and (e := table.seats[c.seat]) is not None and e["kind"] == "human"
            and not e.get("vacant")]


def drop_claims(table: Table, seat: int | None = None, client: Client | None = None,
                why: str = "") -> None:
    """Forget the waiting claims of `seat` or by `client`, telling each claimant `why`."""
    for s, c in list(table.claims.items()):
        if s == seat or c.client is client:
            del table.claims[s]
            if why and c.client is not client:
                c.client.error(why)



def _former(seat: dict[str, Any] | None) -> list[str]:
    """The token hashes that held `seat` (its current one included), newest last."""
    if seat is None:
        return []
    out = list(seat.get("former", ()))
    if seat.get("token_hash"):
        out.append(seat["token_hash"])
    return out[-16:]


def _seat_arg(msg: dict[str, Any], key: str = "seat") -> int:
    value = msg.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise ClientError(f"malformed message: {key} must be a seat 0-3")
    return value


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
            for i, s in enumerate(table.seats):
                if s is None:
                    continue
                if token_matches(token, s.get("token_hash")):
                    seat = i
                    break
                if any(token_matches(token, h) for h in s.get("former", ())):
                    client.held.add(i)  # a former holder of seat i: spectator only
            else:
                bad = True
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
    seat = _seat_arg(msg)
    name = clean_name(msg.get("name"))
    async with table.lock:
        if table.status != WAITING:
            raise ClientError(
                "the game is on: a free seat is taken with a one-time seat link from "
                "the host"
            )
        if client.seat is not None:
            raise ClientError("you already have a seat")
        if table.seats[seat] is not None:
            raise ClientError(f"seat {seat} is taken")
        token = new_token()
        table.seats[seat] = {"name": name, "kind": "human", "token_hash": hash_token(token)}
        host_seat = table.host_seat
        if client.host_token_ok:
            table.host_seat = seat
        try:
            await table.save_seats()
        except Exception:
            table.seats[seat] = None
            table.host_seat = host_seat
            raise
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
    seat = _seat_arg(msg)
    kind = msg.get("kind")
    kinds = table.manager.bot_kinds
    if isinstance(kind, str) and kind in RESEARCH_KINDS:
        raise ClientError(table_spec_error(kind) or "that bot cannot play at a table")
    if kind not in kinds:
        raise ClientError(f"bot kind must be one of: {', '.join(kinds)}")
    async with table.lock:
        if table.status == FINISHED:
            raise ClientError("the game is over")
        if table.status == ERROR:
            raise ClientError(ERROR_MESSAGE)
        current = table.seats[seat]
        if current is not None and current["kind"] == "human" and not current.get("vacant"):
            raise ClientError(f"seat {seat} has a player: kick them first")
        bot_name = f"{kind.capitalize()} bot"
        await table.set_seat(seat, {"name": bot_name, "kind": kind, "token_hash": None,
                                    "former": _former(current)})
        if table.status == PLAYING:
            table.bots.agents[seat] = table.manager.make_agent(
                kind, table.bots.agent_seed(seat)
            )
            drop_claims(table, seat=seat, why=f"seat {seat} went to a bot: your claim "
                        "was withdrawn")
            await announce(table, f"{who(table, client)} put a {bot_name} in seat {seat}")
        table.broadcast()
    table.wake.set()


async def kick(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Host: empty a seat before the start, or leave it vacant (a stand-in plays it)."""
    require_host(table, client)
    seat = _seat_arg(msg)
    async with table.lock:
        if table.seats[seat] is None:
            raise ClientError(f"seat {seat} is empty")
        if seat == table.host_seat:
            raise ClientError("the host cannot kick their own seat")
        old = table.seats[seat]
        if table.status == WAITING:
            await table.set_seat(seat, None)
        elif old is not None and old.get("vacant"):
            raise ClientError(f"seat {seat} is already vacant")
        else:  # mid-game the seat stays in the game: vacant, played by a stand-in
            # after bot_timeout_s until a bot or a seat link fills it
            assert old is not None
            await table.set_seat(seat, {"name": old["name"], "kind": "human",
                                        "token_hash": None, "former": _former(old),
                                        "vacant": True})
        table.bots.agents.pop(seat, None)
        for c in table.clients:
            if c.seat == seat:
                c.seat = None
        table.clock.absent(seat)
        if table.status != WAITING:
            assert old is not None
            await announce(table, f"{who(table, client)} kicked {old['name']} from seat "
                           f"{seat}")
        table.broadcast()
    table.wake.set()


async def seat_link(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Host: a one-time code with which a new player takes a vacant (or bot) seat."""
    require_host(table, client)
    seat = _seat_arg(msg)
    async with table.lock:
        if table.status != PLAYING:
            raise ClientError("seat links are for a game in progress: before the start, "
                              "players simply sit down")
        current = table.seats[seat]
        if current is None or (current["kind"] == "human" and not current.get("vacant")):
            raise ClientError(f"seat {seat} has a player: kick them first")
        code = new_token()
        await table.set_seat(seat, {**current, "link_hash": hash_token(code)})
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
    seat = _seat_arg(msg)
    name = clean_name(msg.get("name", "External bot"))
    async with table.lock:
        if table.status != WAITING:
            raise ClientError("bot links are made before the start; mid-game a program "
                              "takes a seat with a seat link, as a person does")
        current = table.seats[seat]
        if seat == table.host_seat:
            raise ClientError("the host's own seat cannot go to a bot")
        if current is not None and current["kind"] == "human" and not current.get("external"):
            raise ClientError(f"seat {seat} has a player: kick them first")
        token = new_token()
        await table.set_seat(seat, {"name": name, "kind": "human", "external": True,
                                    "token_hash": hash_token(token)})
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
        seat = next(
            (i for i, s in enumerate(table.seats)
             if s is not None and token_matches(code, s.get("link_hash"))),
            None,
        )
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
    seat = _seat_arg(msg)
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
            entry = table.seats[seat]
            assert entry is not None
            await table.set_seat(seat, {k: v for k, v in entry.items() if k != "link_hash"})
            pending.client.error(f"your claim of seat {seat} was refused")
            await announce(table, f"{who(table, client)} refused {pending.name}'s claim "
                           f"of seat {seat}")
            table.broadcast()
    table.wake.set()


async def grant(table: Table, pending: Claim, how: str) -> None:
    """Seat a waiting claimant (the table's lock is held): its token goes back to it."""
    seat, client = pending.seat, pending.client
    old = table.seats[seat]
    assert old is not None
    token = new_token()
    await table.set_seat(seat, {"name": pending.name, "kind": "human",
                                "token_hash": hash_token(token), "former": _former(old)})
    table.claims.pop(seat, None)
    table.bots.agents.pop(seat, None)
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
    a, b = _seat_arg(msg, "a"), _seat_arg(msg, "b")
    if a == b:
        raise ClientError("swap needs two different seats")
    async with table.lock:
        if table.status != WAITING:
            raise ClientError("seats can only be swapped before the game starts")
        seats, host_seat = list(table.seats), table.host_seat
        table.seats[a], table.seats[b] = table.seats[b], table.seats[a]
        if table.host_seat in (a, b):
            table.host_seat = b if table.host_seat == a else a
        try:
            await table.save_seats()
        except Exception:
            table.seats, table.host_seat = seats, host_seat
            raise
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
    """Host: start the game once all four seats are filled."""
    require_host(table, client)
    async with table.lock:
        if table.status != WAITING:
            raise ClientError("the game has already started")
        if any(s is None for s in table.seats):
            raise ClientError("all four seats must be filled (players or bots)")
        await hints.freeze(table)
        await table.store.update_table(table.id, status=PLAYING)
        table.status = PLAYING
        for c in table.clients:
            c.held = set() if c.seat is None else {c.seat}
        table.bots.make_agents()
        table.broadcast()
    table.start_driver()

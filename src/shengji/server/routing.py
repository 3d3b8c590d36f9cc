"""Routing: one client message to its handler, with the checks every message passes.

A message is at most `MAX_MESSAGE_BYTES`, within the connection's rate, strict JSON
(no NaN), an object with a known `type`, and comes after `hello`. Refusals go back to
the sender only (`ClientError`: its text and the rule it breaks) and change nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson

from shengji import IllegalAction, parse_cards
from shengji.actions import Action, Bury, CloseWindow, Declare, Draw, Play, action_from_json
from shengji.cards import CARDS, Card
from shengji.shapes import shape_of

from . import hints, seats
from .chat import SPECTATOR, ChatError, chat_json, chat_text
from .connection import Client, ClientError, dumps, frame_refusal
from .status import PLAYING, STORAGE_MESSAGE
from .storage import is_write_failure

if TYPE_CHECKING:
    from .tables import Table

log = logging.getLogger(__name__)


async def handle(table: Table, client: Client, text: str) -> None:
    """One message from a client; refusals go back to it as an error and change nothing."""
    try:
        refused = frame_refusal(client, text)
        if refused is not None:
            raise ClientError(refused)
        try:
            msg = orjson.loads(text)  # strict: no NaN/Infinity, depth-limited, valid UTF-8
        except ValueError:
            raise ClientError("malformed message: not JSON") from None
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            raise ClientError("malformed message: expected an object with a \"type\"")
        kind = msg["type"]
        handler = HANDLERS.get(kind)
        if handler is None:
            raise ClientError(f"unknown message type {kind[:40]!r}")
        if not client.greeted and kind not in ("hello", "ping"):
            raise ClientError("say hello first")
        await handler(table, client, msg)
    except ClientError as exc:
        client.error(exc)
    except Exception as exc:
        if is_write_failure(exc):  # logged by the store (once, then rate limited)
            client.error(f"server error: the change could not be saved; {STORAGE_MESSAGE}",
                         code="storage")
            return
        log.exception("table %s: error handling a message", table.id)
        client.error("internal error")


async def action(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """A seat's action: checked by the engine, stored, applied, broadcast."""
    if client.seat is None:
        raise ClientError("spectators cannot act: take a seat first")
    try:
        act = action_from_json(msg.get("action"), players=table.options.n_players)
    except IllegalAction as exc:
        raise ClientError.of(exc) from None
    if isinstance(act, Draw | CloseWindow):
        raise ClientError("malformed action: draw and close are the server's")
    if act.seat != client.seat:
        raise ClientError(
            f"you sit at seat {client.seat}: you cannot act for seat {act.seat}"
        )
    if table.status != PLAYING:
        raise ClientError("the game is not being played")
    err = await table.submit(act)
    if err is not None:
        raise ClientError(err.message, err.rule, err.code, err.facts)
    table.resume()  # a seated human acted


async def resume(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """A seated player asks a table paused after idle redeals to deal again."""
    if client.seat is None:
        raise ClientError("spectators cannot resume the table: take a seat first")
    table.resume()


async def check(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Would these cards be legal for the asking seat now? (no change)"""
    cards_text = msg.get("cards")
    if not isinstance(cards_text, str):
        raise ClientError("malformed message: cards must be notation text")
    legal, reason, rule, code = False, None, None, None
    lead: dict[str, Any] | None = None
    facts: dict[str, int | str] = {}
    seat = client.seat
    if seat is None:
        reason = "spectators cannot act"
    elif table.status != PLAYING:
        reason = "the game is not being played"
    else:
        try:
            cards = tuple(parse_cards(cards_text))
            phase = table.game.decision().phase
            probe: Action
            if phase == "play":
                probe = Play(seat, cards)
            elif phase == "kitty":
                probe = Bury(seat, cards)
            else:
                probe = Declare(seat, cards)
            table.game.check(probe)
            legal = True
            if phase == "play":
                lead = _lead_units(table, seat, cards)
        except IllegalAction as exc:
            reason, rule, code, facts = exc.message, exc.rule, exc.code, exc.facts
    reply: dict[str, Any] = {"type": "check", "cards": cards_text, "legal": legal,
                             "reason": reason, "rule": rule, "code": code, "facts": facts}
    if lead is not None:
        reply.update(lead)
    client.send(reply)


def _lead_units(table: Table, seat: int, cards: tuple[Card, ...]) -> dict[str, Any] | None:
    """For a legal lead, the engine's reading of it (RULES §6.1, §12.3): its `kind`
    ("throw" when it is several units, which the browser asks to confirm, §6.4) and its
    `units`, each unit's cards; None when the cards follow a lead. The browser keeps no
    copy of the decomposition (issue 30)."""
    view = table.game.view(seat)
    if view.lead is not None or view.trump is None:
        return None
    shape = shape_of([c.id for c in cards], view.trump)
    return {"kind": str(shape.kind),
            "units": [[CARDS[i].text for i in u.ids] for u in shape.units]}


async def chat(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """A chat message from a seat or a spectator, to everyone at the table."""
    try:
        text = chat_text(msg)
    except ChatError as exc:
        raise ClientError(str(exc)) from None
    seat = client.seat
    if seat is None and not table.settings.spectator_chat:
        raise ClientError("spectators read this table's chat but do not write in it "
                          "(the host can allow it when creating the table)")
    if not table.chat.limiter.allow(client.chat_bucket, seat, client.addr):
        raise ClientError("too many chat messages: wait a moment")
    entry = table.seats[seat] if seat is not None else None
    name = entry.name if entry is not None else SPECTATOR
    row = table.chat.add(seat, name, text)
    try:
        await table.store.append_chat(table.id, row)
    except Exception as exc:
        table.chat.drop(row)
        if not is_write_failure(exc):  # (the store logged that one, rate limited)
            log.exception("table %s: could not store a chat message", table.id)
        raise ClientError("server error: the message could not be saved; try again",
                          code="storage" if is_write_failure(exc) else None) from None
    out = dumps({"type": "chat", "messages": [chat_json(row)]})
    for c in list(table.clients):
        c.push(out)


async def ping(table: Table, client: Client, msg: dict[str, Any]) -> None:
    """Answer with a pong (clients use it to flush what is queued for them)."""
    client.send({"type": "pong"})


Handler = Callable[["Table", Client, dict[str, Any]], Awaitable[None]]

HANDLERS: dict[str, Handler] = {
    "hello": seats.hello,
    "sit": seats.sit,
    "bot": seats.bot,
    "kick": seats.kick,
    "seat_link": seats.seat_link,
    "bot_link": seats.bot_link,
    "claim": seats.claim,
    "accept_claim": seats.accept_claim,
    "swap": seats.swap,
    "start": seats.start,
    "action": action,
    "check": check,
    "chat": chat,
    "ping": ping,
    "resume": resume,
    "hint": hints.hint,
}

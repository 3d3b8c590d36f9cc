"""Live tables: seats, connections, the engine's `Game` and the task that drives it in real time.

Every accepted action is checked by the engine, committed to the table's action log and
only then applied and broadcast. Each connection only ever receives its own seat's view
(spectators: the public view), RULES §11.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import math
import os
import random
import re
import time
import traceback
import unicodedata
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from shengji import Game, IllegalAction, RuleOptions, parse_cards
from shengji.actions import (
    Action,
    Bury,
    CloseWindow,
    Declare,
    Draw,
    Pass,
    Play,
    action_from_json,
)
from shengji.bots import AGENT_KINDS, Agent, make_agent
from shengji.events import Event, Played
from shengji.views import View

from .chat import KEEP_CHAT, SPECTATOR, ChatError, ChatLog, chat_json, clean_chat, new_bucket
from .schema import (
    KITTY_TURNS,
    RATE_LIMITED,
    TOO_MANY_TABLES,
    InputError,
    TableSettings,
    check_options,
    check_settings,
    clamp_settings,
    dumps_strict,
)
from .security import TokenBucket, hash_token, new_table_id, new_token, token_matches
from .storage import Store, TableRow

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4096
MAX_NAME = 24
STANDIN_KIND = "heuristic"  # plays for an absent human once bot_timeout_s has passed
STANDIN = "standin"  # the mark of an action a stand-in bot made for a human's seat
SLOW_KIND = "slow"  # a test-only bot that thinks for 1 s (bench/load.py --slow-tables)
WAITING, PLAYING, FINISHED, ERROR = "waiting", "playing", "finished", "error"
ERROR_MESSAGE = "this table hit an internal error"
TABLE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


@dataclass(frozen=True)
class Refusal:
    """Why an action was not applied: the text for its sender and the rule it breaks
    (the engine's `IllegalAction.rule`, e.g. "6.2"; None for the server's own refusals)."""

    message: str
    rule: str | None = None

    @classmethod
    def of(cls, exc: IllegalAction) -> Refusal:
        """The engine's refusal, its rule taken from the exception (never parsed)."""
        return cls(exc.message, exc.rule)

    def log_text(self) -> str:
        """What a log may say: the rule only (the text may name a seat's cards)."""
        return f"RULES §{self.rule}" if self.rule else self.message.split(":", 1)[0]


def dumps(obj: Any) -> str:
    """Compact, strict JSON text (never NaN or Infinity: browsers cannot parse them)."""
    return dumps_strict(obj)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class ClientError(Exception):
    """A message refused: its text (and the rule it breaks, if any) goes back to the sender
    only, nothing changes."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule


def clean_name(raw: Any, *, limit: int = MAX_NAME) -> str:
    if not isinstance(raw, str):
        raise ClientError("malformed message: name must be a string")
    name = " ".join(raw.split())
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ClientError("name has control characters")
    if not 1 <= len(name) <= limit:
        raise ClientError(f"name must be 1-{limit} characters")
    return name


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


class Client:
    """One WebSocket connection: its seat (None for a spectator), host right, outbound queue."""

    def __init__(
        self, *, rate: float, burst: float, max_queue: int = 2048, addr: str = ""
    ) -> None:
        self.addr = addr  # the peer's address (per-address limits)
        self.held: set[int] = set()  # seats this connection held while the game was on
        self.seat: int | None = None
        self.host_token_ok = False
        self.greeted = False
        self.lang = "en"
        self.bucket = TokenBucket(rate, burst)
        self.chat_bucket = new_bucket()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(max_queue)
        self.too_slow = False

    def push(self, text: str) -> None:
        """Queue a message; a client that stops reading is cut off rather than buffered."""
        if self.too_slow:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.too_slow = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)

    def send(self, msg: dict[str, Any]) -> None:
        self.push(dumps(msg))

    def error(self, message: str, rule: str | None = None) -> None:
        """Tell this connection why its message was refused (`rule`: the RULES section)."""
        self.send({"type": "error", "message": message, "rule": rule})

    def close(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)

    async def pump(self, send: Callable[[str], Awaitable[None]]) -> None:
        """Write queued messages to the socket until `close()` (or too slow)."""
        while True:
            text = await self.queue.get()
            if text is None:
                return
            await send(text)


class Table:
    """One table: seats, the game, its connections and its driver task."""

    def __init__(self, manager: Manager, row: TableRow) -> None:
        self.manager = manager
        self.store = manager.store
        self.id = row.id
        self.name = row.name
        self.options_json = row.options
        self.seed = row.seed
        self.host_token_hash = row.host_token_hash
        self.seats: list[dict[str, Any] | None] = list(row.seats)
        self.host_seat = row.host_seat
        self.status = row.status
        self.created = row.created
        self.result: dict[str, Any] | None = row.result  # a finished game's (lobby)
        self.finished: dt.datetime | None = row.finished
        self.creator = ""  # the creator's address (this process only)
        self.error: str | None = None  # why the table is in the `error` state
        self.options = RuleOptions()
        self.settings = manager.defaults
        try:
            self.options = check_options(row.options)
            stored = check_settings(row.settings, minima=None)
            self.settings = clamp_settings(stored, manager.minima)
        except InputError as exc:
            self._damaged(f"stored options or settings are invalid: {exc}")
        self.game = Game(seed=self.seed, options=self.options)
        self.seq = 0
        self.clients: list[Client] = []
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.driver: asyncio.Task[None] | None = None
        self.agents: dict[int, Agent] = {}
        self.standin_agents: dict[int, Agent] = {}
        self.rng = random.Random(self.seed ^ 0x5EED)
        now = time.monotonic()
        self.idle_since = now  # when the last connection left (eviction)
        self.absent_since: dict[int, float] = {s: now for s in range(4)}
        self.turn_seq = -1
        self.turn_started = now
        self.pause_until = 0.0
        self.next_draw_at = 0.0
        self.window_deadline: float | None = None
        self.paused_at: float | None = None  # when the last connection left (clocks stop)
        self.marks: dict[int, str] = {}  # seq -> who made it, when not the seat's player
        self.standins: list[dict[str, Any]] = []  # this round's stand-in actions (for the UI)
        self.last_error: str | None = None
        self.chat = ChatLog()

    # -- persistence -----------------------------------------------------------------
    def _damaged(self, reason: str) -> None:
        """Mark the table as damaged (visible `error` state); nothing more is played."""
        log.error("table %s is damaged: %s", self.id, reason)
        self.status = ERROR
        self.error = reason

    def replay_log(self, actions: list[Any]) -> None:
        """Rebuild the game from its stored log (exact same state).

        A log that does not replay leaves the table in the `error` state (listed as
        damaged, its record exportable by the host), never silently dropped.
        """
        if self.status == ERROR:
            self.seq = len(actions)
            return
        for i, a in enumerate(actions):
            try:
                events = self.game.apply(action_from_json(a))
                self._note_standin(i, events, self.marks.get(i))
            except Exception as exc:  # noqa: BLE001 - IllegalAction or an engine bug
                self.seq = len(actions)
                self._damaged(f"stored action {i} does not replay: {exc}")
                log.error("table %s: replay failed\n%s", self.id, traceback.format_exc())
                return
        self.seq = len(actions)

    async def _save_seats(self) -> None:
        await self.store.update_table(self.id, seats=self.seats, host_seat=self.host_seat)

    async def _set_seat(self, seat: int, new: dict[str, Any] | None) -> None:
        """Put `new` in `seat` and store the seats; if storing fails, the seat is as before."""
        old = self.seats[seat]
        self.seats[seat] = new
        try:
            await self._save_seats()
        except Exception:
            self.seats[seat] = old
            raise

    # -- info ------------------------------------------------------------------------
    def connected(self, seat: int) -> bool:
        return any(c.seat == seat for c in self.clients)

    def public_seats(self) -> list[dict[str, Any] | None]:
        out: list[dict[str, Any] | None] = []
        for i, s in enumerate(self.seats):
            if s is None:
                out.append(None)
            else:
                human = s["kind"] == "human"
                entry = {
                    "name": s["name"],
                    "kind": s["kind"],
                    "connected": self.connected(i) if human else True,
                }
                if s.get("vacant"):
                    entry["vacant"] = True
                out.append(entry)
        return out

    def lobby_entry(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "seats": [
                None if s is None else {"name": s["name"], "kind": s["kind"]} for s in self.seats
            ],
            "status": self.status,
            "created": self.created.isoformat(),
        }

    def result_json(self) -> dict[str, Any] | None:
        """A finished game's result for the lobby: the winning team, levels, rounds."""
        g = self.game
        if not g.is_over:
            return None
        levels = list(g.view(None).to_json()["levels"])  # as the table shows them
        return {"winner": g.winner, "levels": levels, "rounds": len(g.results)}

    def finished_entry(self) -> dict[str, Any]:
        """This finished table as the lobby's "finished" list shows it."""
        entry = self.lobby_entry()
        entry["result"] = self.result if self.result is not None else self.result_json()
        entry["finished"] = None if self.finished is None else self.finished.isoformat()
        return entry

    def table_info(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "host_seat": self.host_seat,
            "seats": self.public_seats(),
            "status": self.status,
            "error": ERROR_MESSAGE if self.status == ERROR else None,
            "options": self.options_json if self.status != ERROR else {},
            "result": self.result if self.status == FINISHED else None,
            "settings": {
                "deal_ms": self.settings.deal_ms,
                "window_ms": self.settings.window_ms,
                "bot_timeout_s": self.settings.bot_timeout_s,
                "turn_s": self.settings.turn_s,
            },
            "clock": self.clock_json(),
            "standins": self.standins,
        }

    # -- the clock -------------------------------------------------------------------
    def deadline(self) -> tuple[str, int | None, float, float] | None:
        """The running countdown: (kind, seat, due, total seconds), or None.

        Kinds: ``"window"`` (the declaration window, RULES §3.3), ``"turn"`` (the table's
        turn timer, `turn_s`) and ``"absent"`` (an absent player's seat goes to a stand-in
        after `bot_timeout_s`); the earliest one that applies. Bots' turns have none.
        """
        if self.status != PLAYING or self.game.is_over:
            return None
        d = self.game.decision()
        if d.phase == "declare" and self.window_deadline is not None:
            return ("window", None, self.window_deadline, self.settings.window_ms / 1000)
        seat = d.seat
        if d.phase not in ("declare", "kitty", "play") or seat is None or seat in self.agents:
            return None
        best: tuple[str, int | None, float, float] | None = None
        turn = self.settings.turn_s * (KITTY_TURNS if d.phase == "kitty" else 1)
        if turn > 0 and d.phase != "declare":
            best = ("turn", seat, self.turn_started + turn, turn)
        timeout = self.settings.bot_timeout_s
        if timeout is not None and not self.connected(seat):
            since = max(self.turn_started, self.absent_since.get(seat, self.turn_started))
            if best is None or since + timeout < best[2]:
                best = ("absent", seat, since + timeout, timeout)
        return best

    def clock_json(self) -> dict[str, Any] | None:
        """The countdown for clients: they count down from `remaining_ms` as received."""
        dl = self.deadline()
        if dl is None:
            return None
        kind, seat, due, total = dl
        now = self.paused_at if self.paused_at is not None else time.monotonic()
        return {
            "kind": kind,
            "seat": seat,
            "remaining_ms": max(0, round((due - now) * 1000)),
            "total_ms": round(total * 1000),
        }

    def _pause_clocks(self) -> None:
        """Nobody is connected: every countdown stops where it is."""
        if self.paused_at is None:
            self.paused_at = time.monotonic()

    def _resume_clocks(self) -> None:
        """Someone connected again: the countdowns go on from where they stopped."""
        if self.paused_at is None:
            return
        shift = time.monotonic() - self.paused_at
        self.paused_at = None
        self.turn_started += shift
        if self.window_deadline is not None:
            self.window_deadline += shift
        self.pause_until += shift
        self.next_draw_at += shift
        for seat in self.absent_since:
            self.absent_since[seat] += shift

    def _note_standin(self, seq: int, events: list[Event], by: str | None) -> None:
        """Keep this round's stand-in actions (their seat, and trick for a play) for the UI."""
        if by is not None:
            self.marks[seq] = by
        if any(e.kind == "round_started" for e in events):
            self.standins = []  # a new round: its marks start afresh
            return
        if by != STANDIN:
            return
        actions = self.game.actions
        seat = getattr(actions[seq], "seat", None) if seq < len(actions) else None
        played = next((e for e in events if isinstance(e, Played)), None)
        self.standins.append({
            "seq": seq,
            "seat": seat,
            "round": self.game.round_no,
            "trick": None if played is None else played.trick,
        })

    def is_host(self, client: Client) -> bool:
        return client.host_token_ok or (
            client.seat is not None and client.seat == self.host_seat
        )

    def view_text(self, seat: int | None, views: dict[int | None, str]) -> str:
        """The JSON of `seat`'s view (cached in `views` for one broadcast). A view that
        cannot be built (an engine bug) puts the table in `error` and is sent as null."""
        view = views.get(seat)
        if view is None:
            try:
                view = dumps(self.game.view(seat).to_json())
            except Exception:  # an engine bug or a damaged table: no view, never a crash
                if self.status != ERROR:
                    log.exception("table %s: view of seat %s failed", self.id, seat)
                    self._damaged("a view could not be built")
                view = "null"
            views[seat] = view
        return view

    def state_text(
        self,
        client: Client,
        info: str,
        views: dict[int | None, str],
        events: dict[int | None, str] | None = None,
    ) -> str:
        """The `state` message for one connection, as JSON text: its own seat's view only.

        `info` is the table's JSON; `views` caches each seat's view JSON for one broadcast;
        `events` each seat's redacted JSON of the events of the action just applied
        (absent: none, e.g. on connecting).
        """
        seat = client.seat
        view = self.view_text(seat, views)
        you = "null" if seat is None else str(seat)
        host = "true" if self.is_host(client) else "false"
        evs = "[]" if events is None else events.get(seat, events.get(None, "[]"))
        return (
            f'{{"type":"state","table":{info},"you":{you},"is_host":{host},'
            f'"seq":{self.seq},"events":{evs},"view":{view}}}'
        )

    def broadcast(self, events: list[Event] | None = None, by: str | None = None) -> None:
        """Send every connection its own state (its seat's view only) and, after an action,
        the events it caused as that seat may see them (RULES §11), marked with `by`."""
        views: dict[int | None, str] = {}
        for c in self.clients:  # build the views first: one may put the table in `error`
            self.view_text(c.seat, views)
        info = dumps(self.table_info())
        texts: dict[int | None, str] | None = None
        if events:
            texts = {}
            for c in self.clients:
                if c.seat not in texts:
                    texts[c.seat] = dumps([
                        {**e.for_seat(c.seat).to_json(), **({"by": by} if by else {})}
                        for e in events
                    ])
        for c in list(self.clients):
            c.push(self.state_text(c, info, views, texts))

    def send_state(self, client: Client) -> None:
        views: dict[int | None, str] = {}
        self.view_text(client.seat, views)
        client.push(self.state_text(client, dumps(self.table_info()), views))

    # -- connections -----------------------------------------------------------------
    def attach(self, client: Client) -> None:
        """A new connection: a paused table resumes (its driver is woken)."""
        self.clients.append(client)
        self._resume_clocks()
        self.wake.set()

    def detach(self, client: Client) -> None:
        if client in self.clients:
            self.clients.remove(client)
        client.close()
        if not self.clients:
            self.idle_since = time.monotonic()
            self._pause_clocks()
        seat = client.seat
        if seat is not None and not self.connected(seat):
            self.absent_since[seat] = time.monotonic()
            self.broadcast()
            self.wake.set()

    def _bind(self, client: Client, seat: int | None) -> None:
        old = client.seat
        client.seat = seat
        if seat is not None and self.status != WAITING:
            client.held.add(seat)
        if old is not None and old != seat and not self.connected(old):
            self.absent_since[old] = time.monotonic()
        if seat is not None:
            self.absent_since.pop(seat, None)

    async def handle(self, client: Client, text: str) -> None:
        """One message from a client; refusals go back to it as an error and change nothing."""
        try:
            if len(text) > MAX_MESSAGE_BYTES or len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
                raise ClientError(f"message too large (limit {MAX_MESSAGE_BYTES} bytes)")
            if not client.bucket.allow():
                raise ClientError("too many messages: slow down")
            try:
                msg = json.loads(text, parse_constant=_no_constant)
            except (ValueError, RecursionError):
                raise ClientError("malformed message: not JSON") from None
            if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
                raise ClientError("malformed message: expected an object with a \"type\"")
            kind = msg["type"]
            handler = self._handlers.get(kind)
            if handler is None:
                raise ClientError(f"unknown message type {kind[:40]!r}")
            if not client.greeted and kind not in ("hello", "ping"):
                raise ClientError("say hello first")
            await handler(self, client, msg)
        except ClientError as exc:
            client.error(str(exc), exc.rule)
        except Exception:
            log.exception("table %s: error handling a message", self.id)
            client.error("internal error")

    async def _hello(self, client: Client, msg: dict[str, Any]) -> None:
        token = msg.get("token")
        lang = msg.get("lang")
        if isinstance(lang, str) and len(lang) <= 16:
            client.lang = lang
        if token is not None and not isinstance(token, str):
            raise ClientError("malformed message: token must be a string or null")
        was = client.seat
        client.greeted = True
        client.host_token_ok = False
        seat: int | None = None
        bad = False
        if token:
            if token_matches(token, self.host_token_hash):
                client.host_token_ok = True
                seat = self.host_seat
            else:
                for i, s in enumerate(self.seats):
                    if s is None:
                        continue
                    if token_matches(token, s.get("token_hash")):
                        seat = i
                        break
                    if any(token_matches(token, h) for h in s.get("former", ())):
                        client.held.add(i)  # a former holder of seat i: spectator only
                else:
                    bad = True
        if seat is not None and self.status != WAITING and client.held - {seat}:
            other = min(client.held - {seat})
            seat, bad = None, False
            client.host_token_ok = False
            client.error(
                f"this connection has held seat {other} of this game: it cannot take "
                "another seat; you are watching as a spectator"
            )
        self._bind(client, seat)
        if bad:
            client.error("invalid token: you are watching as a spectator")
        if seat != was:
            self.broadcast()
            self.wake.set()
        else:
            self.send_state(client)
        if self.chat.rows:
            client.send(self.chat.history())

    async def _chat(self, client: Client, msg: dict[str, Any]) -> None:
        """A chat message from a seat or a spectator, to everyone at the table."""
        try:
            text = clean_chat(msg.get("text"))
        except ChatError as exc:
            raise ClientError(str(exc)) from None
        if not client.chat_bucket.allow():
            raise ClientError("too many chat messages: wait a moment")
        seat = client.seat
        entry = self.seats[seat] if seat is not None else None
        name = entry["name"] if entry is not None else SPECTATOR
        row = self.chat.add(seat, name, text)
        try:
            await self.store.append_chat(self.id, row)
        except Exception:
            self.chat.drop(row)
            log.exception("table %s: could not store a chat message", self.id)
            raise ClientError("server error: the message could not be saved; try again") \
                from None
        out = dumps({"type": "chat", "messages": [chat_json(row)]})
        for c in list(self.clients):
            c.push(out)

    async def _sit(self, client: Client, msg: dict[str, Any]) -> None:
        seat = _seat_arg(msg)
        name = clean_name(msg.get("name"))
        async with self.lock:
            if self.status != WAITING:
                raise ClientError(
                    "the game is on: a free seat is taken with a one-time seat link from "
                    "the host"
                )
            if client.seat is not None:
                raise ClientError("you already have a seat")
            if self.seats[seat] is not None:
                raise ClientError(f"seat {seat} is taken")
            token = new_token()
            self.seats[seat] = {"name": name, "kind": "human", "token_hash": hash_token(token)}
            host_seat = self.host_seat
            if client.host_token_ok:
                self.host_seat = seat
            try:
                await self._save_seats()
            except Exception:
                self.seats[seat] = None
                self.host_seat = host_seat
                raise
            self._bind(client, seat)
            client.send({"type": "seated", "seat": seat, "token": token})
            self.broadcast()
        self.wake.set()

    def _require_host(self, client: Client) -> None:
        if not self.is_host(client):
            raise ClientError("only the host may do that")

    async def _bot(self, client: Client, msg: dict[str, Any]) -> None:
        self._require_host(client)
        seat = _seat_arg(msg)
        kind = msg.get("kind")
        kinds = self.manager.bot_kinds
        if kind not in kinds:
            raise ClientError(f"bot kind must be one of: {', '.join(kinds)}")
        async with self.lock:
            if self.status == FINISHED:
                raise ClientError("the game is over")
            if self.status == ERROR:
                raise ClientError(ERROR_MESSAGE)
            current = self.seats[seat]
            if current is not None and current["kind"] == "human" and not current.get("vacant"):
                raise ClientError(f"seat {seat} has a player: kick them first")
            bot_name = f"{kind.capitalize()} bot"
            await self._set_seat(seat, {"name": bot_name, "kind": kind, "token_hash": None,
                                        "former": _former(current)})
            if self.status == PLAYING:
                self.agents[seat] = self.manager.make_agent(kind, self._agent_seed(seat))
            self.broadcast()
        self.wake.set()

    async def _kick(self, client: Client, msg: dict[str, Any]) -> None:
        self._require_host(client)
        seat = _seat_arg(msg)
        async with self.lock:
            if self.seats[seat] is None:
                raise ClientError(f"seat {seat} is empty")
            if seat == self.host_seat:
                raise ClientError("the host cannot kick their own seat")
            old = self.seats[seat]
            if self.status == WAITING:
                await self._set_seat(seat, None)
            elif old is not None and old.get("vacant"):
                raise ClientError(f"seat {seat} is already vacant")
            else:  # mid-game the seat stays in the game: vacant, played by a stand-in
                # after bot_timeout_s until a bot or a seat link fills it
                assert old is not None
                await self._set_seat(seat, {"name": old["name"], "kind": "human",
                                            "token_hash": None, "former": _former(old),
                                            "vacant": True})
            self.agents.pop(seat, None)
            for c in self.clients:
                if c.seat == seat:
                    c.seat = None
            self.absent_since[seat] = time.monotonic()
            self.broadcast()
        self.wake.set()

    async def _seat_link(self, client: Client, msg: dict[str, Any]) -> None:
        """Host: a one-time code with which a new player takes a vacant (or bot) seat."""
        self._require_host(client)
        seat = _seat_arg(msg)
        async with self.lock:
            if self.status != PLAYING:
                raise ClientError("seat links are for a game in progress: before the start, "
                                  "players simply sit down")
            current = self.seats[seat]
            if current is None or (current["kind"] == "human" and not current.get("vacant")):
                raise ClientError(f"seat {seat} has a player: kick them first")
            code = new_token()
            await self._set_seat(seat, {**current, "link_hash": hash_token(code)})
        client.send({"type": "seat_link", "seat": seat, "code": code})

    async def _claim(self, client: Client, msg: dict[str, Any]) -> None:
        """Take the seat a one-time seat link (`code`) was made for."""
        code = msg.get("code")
        if not isinstance(code, str) or not code:
            raise ClientError("malformed message: code must be a string")
        name = clean_name(msg.get("name"))
        async with self.lock:
            if self.status != PLAYING:
                raise ClientError("the game is not being played")
            seat = next(
                (i for i, s in enumerate(self.seats)
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
            old = self.seats[seat]
            assert old is not None
            token = new_token()
            await self._set_seat(seat, {"name": name, "kind": "human",
                                        "token_hash": hash_token(token), "former": _former(old)})
            self.agents.pop(seat, None)
            self._bind(client, seat)
            client.send({"type": "seated", "seat": seat, "token": token})
            self.broadcast()
        self.wake.set()

    async def _swap(self, client: Client, msg: dict[str, Any]) -> None:
        self._require_host(client)
        a, b = _seat_arg(msg, "a"), _seat_arg(msg, "b")
        if a == b:
            raise ClientError("swap needs two different seats")
        async with self.lock:
            if self.status != WAITING:
                raise ClientError("seats can only be swapped before the game starts")
            seats, host_seat = list(self.seats), self.host_seat
            self.seats[a], self.seats[b] = self.seats[b], self.seats[a]
            if self.host_seat in (a, b):
                self.host_seat = b if self.host_seat == a else a
            try:
                await self._save_seats()
            except Exception:
                self.seats, self.host_seat = seats, host_seat
                raise
            for c in self.clients:
                if c.seat in (a, b):
                    c.seat = b if c.seat == a else a
            now = time.monotonic()
            for s in (a, b):
                if self.connected(s):
                    self.absent_since.pop(s, None)
                else:
                    self.absent_since[s] = now
            self.broadcast()

    async def _start(self, client: Client, msg: dict[str, Any]) -> None:
        self._require_host(client)
        async with self.lock:
            if self.status != WAITING:
                raise ClientError("the game has already started")
            if any(s is None for s in self.seats):
                raise ClientError("all four seats must be filled (players or bots)")
            await self.store.update_table(self.id, status=PLAYING)
            self.status = PLAYING
            for c in self.clients:
                c.held = set() if c.seat is None else {c.seat}
            self._make_agents()
            self.broadcast()
        self.start_driver()

    async def _action(self, client: Client, msg: dict[str, Any]) -> None:
        if client.seat is None:
            raise ClientError("spectators cannot act: take a seat first")
        try:
            action = action_from_json(msg.get("action"))
        except IllegalAction as exc:
            raise ClientError(exc.message, exc.rule) from None
        if isinstance(action, Draw | CloseWindow):
            raise ClientError("malformed action: draw and close are the server's")
        if action.seat != client.seat:
            raise ClientError(
                f"you sit at seat {client.seat}: you cannot act for seat {action.seat}"
            )
        if self.status != PLAYING:
            raise ClientError("the game is not being played")
        err = await self.submit(action)
        if err is not None:
            raise ClientError(err.message, err.rule)

    async def _check(self, client: Client, msg: dict[str, Any]) -> None:
        cards_text = msg.get("cards")
        if not isinstance(cards_text, str):
            raise ClientError("malformed message: cards must be notation text")
        legal, reason, rule = False, None, None
        seat = client.seat
        if seat is None:
            reason = "spectators cannot act"
        elif self.status != PLAYING:
            reason = "the game is not being played"
        else:
            try:
                cards = tuple(parse_cards(cards_text))
                phase = self.game.decision().phase
                action: Action
                if phase == "play":
                    action = Play(seat, cards)
                elif phase == "kitty":
                    action = Bury(seat, cards)
                else:
                    action = Declare(seat, cards)
                self.game.check(action)
                legal = True
            except IllegalAction as exc:
                reason, rule = exc.message, exc.rule
        client.send({"type": "check", "cards": cards_text, "legal": legal, "reason": reason,
                     "rule": rule})

    async def _ping(self, client: Client, msg: dict[str, Any]) -> None:
        client.send({"type": "pong"})

    _handlers: dict[str, Callable[[Table, Client, dict[str, Any]], Awaitable[None]]] = {
        "hello": _hello,
        "sit": _sit,
        "bot": _bot,
        "kick": _kick,
        "seat_link": _seat_link,
        "claim": _claim,
        "swap": _swap,
        "start": _start,
        "action": _action,
        "check": _check,
        "chat": _chat,
        "ping": _ping,
    }

    # -- the game --------------------------------------------------------------------
    def _agent_seed(self, seat: int) -> int:
        return (self.seed * 4 + seat) & 0x7FFF_FFFF_FFFF_FFFF

    def _make_agents(self) -> None:
        self.agents = {
            i: self.manager.make_agent(s["kind"], self._agent_seed(i))
            for i, s in enumerate(self.seats)
            if s is not None and s["kind"] != "human"
        }

    async def submit(self, action: Action, by: str | None = None) -> Refusal | None:
        """Check, commit, apply and broadcast one action. Returns the refusal, or None.

        `by` marks an action made for a seat by someone other than its player (`STANDIN`):
        stored with the action and shown with its events.

        One code path: the engine checks the action, it is stored, then applied. An
        engine exception other than a refusal (a bug) puts the table in the visible
        `error` state with its traceback logged; it never freezes silently.
        """
        async with self.lock:
            if self.status != PLAYING:
                return Refusal("the game is not being played")
            try:
                self.game.check(action)
            except IllegalAction as exc:
                return Refusal.of(exc)
            except Exception:
                self._fail(f"the engine failed checking action {self.seq}")
                return Refusal(ERROR_MESSAGE)
            seq = self.seq
            try:
                await self.store.append_action(self.id, seq, action.to_json(), by)
            except Exception as exc:
                if type(exc).__name__ == "IntegrityError":  # our log and the database's differ
                    self._fail(f"action {seq} is already in the database (another writer?)")
                    return Refusal(ERROR_MESSAGE)
                log.exception("table %s: could not store action %d", self.id, seq)
                return Refusal("server error: the action could not be saved; try again")
            rounds = len(self.game.results)
            try:
                events = self.game.apply(action)
            except Exception:
                self.seq = seq + 1
                self._fail(f"the engine failed applying stored action {seq}")
                return Refusal(ERROR_MESSAGE)
            self.seq = seq + 1
            self._note_standin(seq, events, by)
            now = time.monotonic()
            if len(self.game.results) > rounds:
                self.pause_until = now + self.settings.round_pause_ms / 1000
            phase = self.game.decision().phase
            if phase != "declare":
                self.window_deadline = None
            elif self.window_deadline is None or isinstance(action, Declare):
                self.window_deadline = now + self.settings.window_ms / 1000
            self.turn_seq, self.turn_started = self.seq, now  # a new turn's clock starts
            if self.game.is_over:
                self.status = FINISHED
                self.result = self.result_json()
                self.finished = dt.datetime.now(dt.UTC)
                await self.store.update_table(
                    self.id, status=FINISHED, result=self.result, finished=self.finished
                )
            self.broadcast(events, by)
        self.wake.set()
        return None

    def _fail(self, reason: str) -> None:
        """An unexpected engine error: log it, show the `error` state to everyone, stop."""
        log.error("table %s: %s\n%s", self.id, reason, traceback.format_exc())
        self._damaged(reason)
        self.agents.clear()
        self.broadcast()
        self.wake.set()

    def export(self, actions: list[Any]) -> dict[str, Any]:
        """The table's record for its host: seed, options and the stored action log."""
        return {
            "format": "shengji-export/1",
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "error": self.error,
            "seed": self.seed,
            "options": self.options_json,
            "settings": self.settings.model_dump(),
            "actions": actions,
        }

    def start_driver(self) -> None:
        if self.driver is None and self.status == PLAYING:
            self._make_agents()
            self.driver = asyncio.create_task(self._drive(), name=f"shengji-table-{self.id}")

    async def stop_driver(self) -> None:
        task, self.driver = self.driver, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _drive(self) -> None:
        """The table's clock: deals, closes the window, asks bots and stand-ins to move."""
        failures = 0
        while self.status == PLAYING:
            self.wake.clear()
            try:
                wait = await self._step()
                failures = 0
            except Exception:  # a bug must not freeze the table: log it, retry shortly
                failures += 1
                if failures >= 3:
                    self._fail("the table's driver failed three times in a row")
                    return
                log.exception("table %s: driver step failed", self.id)
                wait = 1.0
            if wait is None:
                await asyncio.sleep(0)
                continue
            if wait <= 0:
                wait = 0.001
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), None if math.isinf(wait) else wait)

    async def _step(self) -> float | None:
        """Do what is due now (return None) or say how long to wait (seconds; inf: until woken)."""
        g = self.game
        if g.is_over or not self.clients:  # nobody watches: paused until someone connects
            return math.inf
        now = time.monotonic()
        if self.turn_seq != self.seq:
            self.turn_seq, self.turn_started = self.seq, now
        d = g.decision()
        if d.phase != "declare":
            self.window_deadline = None
        if d.phase == "deal":
            due = max(self.pause_until, self.next_draw_at)
            if now < due:
                return due - now
            err = await self.submit(Draw())
            self.next_draw_at = time.monotonic() + self.settings.deal_ms / 1000
            if err is not None:
                log.error("table %s: draw refused: %s", self.id, err.log_text())
                return 1.0
            drawer = g.decision().last_drawer
            if drawer is not None and drawer in self.agents:
                await self._bot_act(drawer, self.agents[drawer], deal=True)
            return None
        if d.phase == "declare":
            if self.window_deadline is None:
                self.window_deadline = now + self.settings.window_ms / 1000
            if now >= self.window_deadline:
                await self.submit(CloseWindow())
                return None
            wait = await self._turn(d.seat, now)
            if wait is None:
                return None
            return min(wait, self.window_deadline - now)
        if d.phase in ("kitty", "play"):
            return await self._turn(d.seat, now)
        return math.inf

    async def _turn(self, seat: int | None, now: float) -> float | None:
        """A seat's turn: a bot moves after `bot_delay_ms`; for a human, a stand-in bot
        moves once the clock (`deadline`: turn timer or absence) runs out."""
        if seat is None:
            return math.inf
        if seat in self.agents:
            due = self.turn_started + self.settings.bot_delay_ms / 1000
            if now < due:
                return due - now
            await self._bot_act(seat, self.agents[seat])
            return None
        dl = self.deadline()
        if dl is None or dl[0] == "window" or dl[1] != seat:
            return math.inf
        due = dl[2]
        if now < due:
            return due - now
        agent = self.standin_agents.get(seat)
        if agent is None:
            agent = self.standin_agents[seat] = self.manager.make_agent(
                STANDIN_KIND, self._agent_seed(seat) + 7
            )
        await self._bot_act(seat, agent, by=STANDIN)
        return None

    async def _bot_act(
        self, seat: int, agent: Agent, *, deal: bool = False, by: str | None = None
    ) -> None:
        view = self.game.view(seat)
        seq = self.seq
        action: Action | None
        try:
            action, thought = await self.manager.think(agent, view)
        except Exception:
            log.exception("table %s: bot at seat %d failed", self.id, seat)
            action, thought = None, agent
        for agents in (self.agents, self.standin_agents):  # keep the agent's new state
            if agents.get(seat) is agent:
                agents[seat] = thought
        if self.status != PLAYING:
            return
        if deal:
            if isinstance(action, Declare) and action.seat == seat:
                await self.submit(action)
            return
        if action is not None and getattr(action, "seat", None) == seat:
            err = await self.submit(action, by)
            if err is None:
                return
            log.warning("table %s: bot at seat %d refused: %s", self.id, seat, err.log_text())
        if self.seq != seq:  # something else happened meanwhile: ask again later
            return
        fallback = self._fallback(seat)
        if fallback is not None:
            err = await self.submit(fallback, by)
            if err is not None:
                log.error(
                    "table %s: fallback at seat %d refused: %s", self.id, seat, err.log_text()
                )

    def _fallback(self, seat: int) -> Action | None:
        phase = self.game.decision().phase
        if phase == "declare":
            return Pass(seat)
        if phase == "kitty":
            return Bury(seat, tuple(self.game.view(seat).hand[-8:]))
        if phase == "play":
            return Play(seat, self.game.random_play(seat, self.rng))
        return None


def _watch_server(server_pid: int) -> None:
    """Pool worker initializer: exit once the server process is gone (even after a
    SIGKILL, which leaves the pool no chance to shut its workers down)."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(server_pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:  # the pid was reused by another user's process
                os._exit(0)

    threading.Thread(target=watch, name="shengji-watch-server", daemon=True).start()


def _think(agent: Agent, view: View) -> tuple[Action | None, Agent]:
    """A bot's move, computed in a worker process: the action and the agent's new state."""
    return agent.act(view), agent


@dataclass
class Limits:
    """Per-address limits of one server (a public server's defaults)."""

    create_per_min: int = 10  # tables created per client address per minute
    open_per_addr: int = 20  # open (waiting or playing) tables per creator address
    conns_per_addr: int = 32  # WebSocket connections per client address
    evict_after_s: float = 300.0  # a finished/damaged table nobody watches leaves memory
    abandon_after_s: float = 1800.0  # so does an open table nobody watches


class Manager:
    """All live tables of one server process, the bots' worker pool and per-address limits."""

    def __init__(
        self,
        store: Store,
        defaults: TableSettings,
        *,
        minima: dict[str, float] | None = None,
        rate: float = 10.0,
        burst: float = 30.0,
        seed_source: Callable[[], int] | None = None,
        bot_workers: int | None = None,
        bot_kinds: tuple[str, ...] = AGENT_KINDS,
        limits: Limits | None = None,
        sweep_s: float = 30.0,
    ) -> None:
        self.store = store
        self.seed_source = seed_source or (lambda: random.SystemRandom().getrandbits(62))
        self.defaults = defaults
        self.minima = minima
        self.rate = rate
        self.burst = burst
        self.bot_kinds = bot_kinds
        self.limits = limits or Limits()
        self.sweep_s = sweep_s
        self.tables: dict[str, Table] = {}
        self.bot_workers = (os.cpu_count() or 1) if bot_workers is None else bot_workers
        self.pool: Executor | None = None
        self.created_by: dict[str, deque[float]] = {}
        self.conns: Counter[str] = Counter()
        self._sweeper: asyncio.Task[None] | None = None

    def make_agent(self, kind: str, seed: int) -> Agent:
        """An agent of any kind this server offers (`shengji.bots` kinds; "slow" when the
        server runs with test bots)."""
        if kind == SLOW_KIND:
            from .slowbot import SlowAgent

            return SlowAgent(seed)
        return make_agent(kind, seed)

    async def think(self, agent: Agent, view: View) -> tuple[Action | None, Agent]:
        """Ask `agent` for its move off the event loop (a process pool sized to the machine;
        `bot_workers=0` computes it on the loop, as a baseline for benchmarks)."""
        if self.bot_workers <= 0:
            return _think(agent, view)
        if self.pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            ctx = multiprocessing.get_context("forkserver")
            self.pool = ProcessPoolExecutor(
                self.bot_workers, mp_context=ctx, initializer=_watch_server,
                initargs=(os.getpid(),),
            )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, _think, agent, view)

    async def start(self) -> None:
        """Restore every unfinished table by replaying its log; resume their drivers.

        A table that cannot be restored is kept, in the `error` state (damaged), so that
        it shows in the lobby and its host can export its record: never dropped.
        """
        for row in await self.store.tables_with_status([WAITING, PLAYING, ERROR]):
            await self._load(row)
        self._sweeper = asyncio.create_task(self._sweep(), name="shengji-sweeper")

    async def _load(self, row: TableRow) -> Table | None:
        if not await self.store.own_table(row.id):
            log.warning("table %s is owned by another server process", row.id)
            return None
        table = Table(self, row)
        try:
            actions = await self.store.load_actions(row.id)
            table.marks = await self.store.load_marks(row.id)
        except Exception as exc:  # noqa: BLE001 - a gap or an unreadable row
            table._damaged(f"the action log cannot be read: {exc}")
            actions = []
        table.replay_log(actions)
        try:
            table.chat = ChatLog(await self.store.load_chat(row.id, KEEP_CHAT))
        except Exception:  # noqa: BLE001 - the game matters more than its chat
            log.exception("table %s: its chat cannot be read", row.id)
        if row.id in self.tables:  # loaded concurrently
            return self.tables[row.id]
        self.tables[row.id] = table
        table.start_driver()
        return table

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for t in list(self.tables.values()):
            await t.stop_driver()
            for c in t.clients:
                c.close()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_s)
            await self.evict_idle()

    async def evict_idle(self, now: float | None = None) -> list[str]:
        """Drop from memory the tables nobody watches past their grace period; they load
        again from the database on demand. Returns their ids."""
        now = time.monotonic() if now is None else now
        out: list[str] = []
        for tid, t in list(self.tables.items()):
            if t.clients:
                continue
            grace = (
                self.limits.evict_after_s
                if t.status in (FINISHED, ERROR)
                else self.limits.abandon_after_s
            )
            if now - t.idle_since >= grace:
                await t.stop_driver()
                if self.tables.get(tid) is t and not t.clients:
                    del self.tables[tid]
                    await self.store.disown_table(tid)
                    out.append(tid)
        return out

    def new_client(self, addr: str = "") -> Client:
        return Client(rate=self.rate, burst=self.burst, addr=addr)

    def connect(self, addr: str) -> bool:
        """Count a new connection from `addr`; False if that address has too many."""
        if self.conns[addr] >= self.limits.conns_per_addr:
            return False
        self.conns[addr] += 1
        return True

    def disconnect(self, addr: str) -> None:
        self.conns[addr] -= 1
        if self.conns[addr] <= 0:
            del self.conns[addr]

    def _check_create_limits(self, addr: str) -> None:
        now = time.monotonic()
        recent = self.created_by.setdefault(addr, deque())
        while recent and now - recent[0] > 60:
            recent.popleft()
        if len(recent) >= self.limits.create_per_min:
            raise InputError(
                f"too many new tables from your address (limit "
                f"{self.limits.create_per_min} a minute): try again later",
                code=RATE_LIMITED,
            )
        mine = sum(
            1 for t in self.tables.values() if t.creator == addr and t.status in (WAITING, PLAYING)
        )
        if mine >= self.limits.open_per_addr:
            raise InputError(
                f"too many open tables from your address (limit {self.limits.open_per_addr})",
                code=TOO_MANY_TABLES,
            )

    async def create(
        self, name: str, options: Any, settings: dict[str, Any], addr: str = ""
    ) -> tuple[Table, str]:
        """A new table (status waiting); returns it and the host's token.

        Raises `InputError` (naming the field) for bad options or settings and when the
        address is over its limits; nothing is stored then.
        """
        opts = check_options(options)
        st = check_settings(settings, self.defaults, minima=self.minima)
        self._check_create_limits(addr)
        self.created_by[addr].append(time.monotonic())
        host_token = new_token()
        row = TableRow(
            id=new_table_id(),
            name=name,
            options=opts.to_json(),
            seed=self.seed_source(),
            host_token_hash=hash_token(host_token),
            seats=[None, None, None, None],
            host_seat=None,
            status=WAITING,
            settings=st.model_dump(),
        )
        await self.store.own_table(row.id)
        await self.store.create_table(row)
        table = Table(self, row)
        table.creator = addr
        self.tables[row.id] = table
        return table, host_token

    async def get(self, table_id: str) -> Table | None:
        """A live table, or one loaded from the database (finished, evicted or damaged)."""
        if not TABLE_ID_RE.match(table_id):
            return None
        table = self.tables.get(table_id)
        if table is not None:
            return table
        row = await self.store.get_table(table_id)
        if row is None:
            return None
        return await self._load(row)

    async def finished(self, limit: int = 30) -> list[dict[str, Any]]:
        """The most recently finished games (from the database), newest first, with their
        results (a game that finished before results were stored has a null result)."""
        out = []
        for row in await self.store.finished_tables(limit):
            live = self.tables.get(row.id)
            if live is not None:
                out.append(live.finished_entry())
                continue
            entry = {
                "id": row.id, "name": row.name, "status": row.status,
                "created": row.created.isoformat(),
                "seats": [None if s is None else {"name": s["name"], "kind": s["kind"]}
                          for s in row.seats],
                "result": row.result,
                "finished": None if row.finished is None else row.finished.isoformat(),
            }
            out.append(entry)
        return out

    def lobby(self) -> list[dict[str, Any]]:
        """Open and damaged tables in memory, newest first (at most 200)."""
        open_tables = [t for t in self.tables.values() if t.status != FINISHED]
        open_tables.sort(key=lambda t: t.created, reverse=True)
        return [t.lobby_entry() for t in open_tables[:200]]

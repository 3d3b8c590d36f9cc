"""Live tables: seats, connections, the engine's `Game` and the task that drives it in real time.

Every accepted action is checked by the engine, committed to the table's action log and
only then applied and broadcast. Each connection only ever receives its own seat's view
(spectators: the public view), RULES §11.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import random
import re
import time
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, fields
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

from .security import TokenBucket, hash_token, new_table_id, new_token, token_matches
from .storage import Store, TableRow

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4096
MAX_NAME = 24
STANDIN_KIND = "heuristic"  # plays for an absent human once bot_timeout_s has passed
WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
TABLE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


@dataclass
class Settings:
    """Per-table timing. Milliseconds except `bot_timeout_s`; None there means never."""

    deal_ms: int = 150  # pause between two cards of the deal
    window_ms: int = 10_000  # the final declaration window closes after this (§3.3)
    bot_delay_ms: int = 700  # a bot waits this long before it moves
    round_pause_ms: int = 6_000  # pause on a round's summary before the next deal
    bot_timeout_s: float | None = None  # an absent human's turn goes to a bot after this

    LIMITS = {
        "deal_ms": (0, 10_000),
        "window_ms": (0, 600_000),
        "bot_delay_ms": (0, 60_000),
        "round_pause_ms": (0, 600_000),
        "bot_timeout_s": (0, 86_400),
    }

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any], base: Settings | None = None) -> Settings:
        """Settings from JSON over `base` (defaults); raises ValueError on bad values."""
        out = cls(**asdict(base)) if base is not None else cls()
        names = {f.name for f in fields(cls)}
        for key, value in data.items():
            if key not in names:
                raise ValueError(f"unknown setting {key!r}")
            if value is None and key == "bot_timeout_s":
                out.bot_timeout_s = None
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{key} must be a number")
            lo, hi = cls.LIMITS[key]
            if not lo <= value <= hi or math.isnan(value):
                raise ValueError(f"{key} must be between {lo} and {hi}")
            setattr(out, key, float(value) if key == "bot_timeout_s" else int(value))
        return out


def _rule(message: str) -> str:
    """The rule a refusal cites, without its details (which may name a seat's cards)."""
    return message.split(":", 1)[0]


def dumps(obj: Any) -> str:
    """Compact JSON text."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class ClientError(Exception):
    """A message refused: its text goes back to the sender only, nothing changes."""


def clean_name(raw: Any, *, limit: int = MAX_NAME) -> str:
    if not isinstance(raw, str):
        raise ClientError("malformed message: name must be a string")
    name = " ".join(raw.split())
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ClientError("name has control characters")
    if not 1 <= len(name) <= limit:
        raise ClientError(f"name must be 1-{limit} characters")
    return name


def _seat_arg(msg: dict[str, Any], key: str = "seat") -> int:
    value = msg.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise ClientError(f"malformed message: {key} must be a seat 0-3")
    return value


class Client:
    """One WebSocket connection: its seat (None for a spectator), host right, outbound queue."""

    def __init__(self, *, rate: float, burst: float, max_queue: int = 2048) -> None:
        self.seat: int | None = None
        self.host_token_ok = False
        self.greeted = False
        self.lang = "en"
        self.bucket = TokenBucket(rate, burst)
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

    def error(self, message: str) -> None:
        self.send({"type": "error", "message": message})

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
        self.options = RuleOptions.from_json(row.options)
        self.seed = row.seed
        self.host_token_hash = row.host_token_hash
        self.seats: list[dict[str, Any] | None] = list(row.seats)
        self.host_seat = row.host_seat
        self.status = row.status
        self.settings = Settings.from_json(row.settings)
        self.created = row.created
        self.game = Game(seed=self.seed, options=self.options)
        self.seq = 0
        self.clients: list[Client] = []
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.driver: asyncio.Task[None] | None = None
        self.agents: dict[int, Agent] = {}
        self.standins: dict[int, Agent] = {}
        self.rng = random.Random(self.seed ^ 0x5EED)
        now = time.monotonic()
        self.absent_since: dict[int, float] = {s: now for s in range(4)}
        self.turn_seq = -1
        self.turn_started = now
        self.pause_until = 0.0
        self.next_draw_at = 0.0
        self.window_deadline: float | None = None
        self.last_error: str | None = None

    # -- persistence -----------------------------------------------------------------
    def replay_log(self, actions: list[Any]) -> None:
        """Rebuild the game from its stored log (exact same state)."""
        for i, a in enumerate(actions):
            try:
                self.game.apply(action_from_json(a))
            except IllegalAction as exc:
                raise RuntimeError(f"table {self.id}: stored action {i} refused: {exc}") from exc
        self.seq = len(actions)

    async def _save_seats(self) -> None:
        await self.store.update_table(self.id, seats=self.seats, host_seat=self.host_seat)

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
                out.append(
                    {
                        "name": s["name"],
                        "kind": s["kind"],
                        "connected": self.connected(i) if human else True,
                    }
                )
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

    def table_info(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "host_seat": self.host_seat,
            "seats": self.public_seats(),
            "status": self.status,
            "options": self.options_json,
            "settings": {
                "deal_ms": self.settings.deal_ms,
                "window_ms": self.settings.window_ms,
                "bot_timeout_s": self.settings.bot_timeout_s,
            },
        }

    def is_host(self, client: Client) -> bool:
        return client.host_token_ok or (
            client.seat is not None and client.seat == self.host_seat
        )

    def state_text(self, client: Client, info: str, views: dict[int | None, str]) -> str:
        """The `state` message for one connection, as JSON text: its own seat's view only.

        `info` is the table's JSON; `views` caches each seat's view JSON for one broadcast.
        """
        seat = client.seat
        view = views.get(seat)
        if view is None:
            view = views[seat] = dumps(self.game.view(seat).to_json())
        you = "null" if seat is None else str(seat)
        host = "true" if self.is_host(client) else "false"
        return (
            f'{{"type":"state","table":{info},"you":{you},"is_host":{host},'
            f'"seq":{self.seq},"view":{view}}}'
        )

    def broadcast(self) -> None:
        """Send every connection its own state (its seat's view only)."""
        info = dumps(self.table_info())
        views: dict[int | None, str] = {}
        for c in list(self.clients):
            c.push(self.state_text(c, info, views))

    def send_state(self, client: Client) -> None:
        client.push(self.state_text(client, dumps(self.table_info()), {}))

    # -- connections -----------------------------------------------------------------
    def attach(self, client: Client) -> None:
        self.clients.append(client)

    def detach(self, client: Client) -> None:
        if client in self.clients:
            self.clients.remove(client)
        client.close()
        seat = client.seat
        if seat is not None and not self.connected(seat):
            self.absent_since[seat] = time.monotonic()
            self.broadcast()
            self.wake.set()

    def _bind(self, client: Client, seat: int | None) -> None:
        old = client.seat
        client.seat = seat
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
                msg = json.loads(text)
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
            client.error(str(exc))
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
                    if s is not None and token_matches(token, s.get("token_hash")):
                        seat = i
                        break
                else:
                    bad = True
        self._bind(client, seat)
        if bad:
            client.error("invalid token: you are watching as a spectator")
        if seat != was:
            self.broadcast()
            self.wake.set()
        else:
            self.send_state(client)

    async def _sit(self, client: Client, msg: dict[str, Any]) -> None:
        seat = _seat_arg(msg)
        name = clean_name(msg.get("name"))
        async with self.lock:
            if self.status == FINISHED:
                raise ClientError("the game is over")
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
        if kind not in AGENT_KINDS:
            raise ClientError(f"bot kind must be one of: {', '.join(AGENT_KINDS)}")
        async with self.lock:
            if self.status == FINISHED:
                raise ClientError("the game is over")
            current = self.seats[seat]
            if current is not None and current["kind"] == "human":
                raise ClientError(f"seat {seat} has a player: kick them first")
            old = self.seats[seat]
            bot_name = f"{kind.capitalize()} bot"
            self.seats[seat] = {"name": bot_name, "kind": kind, "token_hash": None}
            try:
                await self._save_seats()
            except Exception:
                self.seats[seat] = old
                raise
            if self.status == PLAYING:
                self.agents[seat] = make_agent(kind, self._agent_seed(seat))
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
            self.seats[seat] = None
            try:
                await self._save_seats()
            except Exception:
                self.seats[seat] = old
                raise
            self.agents.pop(seat, None)
            for c in self.clients:
                if c.seat == seat:
                    c.seat = None
            self.absent_since[seat] = time.monotonic()
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
            self._make_agents()
            self.broadcast()
        self.start_driver()

    async def _action(self, client: Client, msg: dict[str, Any]) -> None:
        if client.seat is None:
            raise ClientError("spectators cannot act: take a seat first")
        try:
            action = action_from_json(msg.get("action"))
        except IllegalAction as exc:
            raise ClientError(str(exc)) from None
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
            raise ClientError(err)

    async def _check(self, client: Client, msg: dict[str, Any]) -> None:
        cards_text = msg.get("cards")
        if not isinstance(cards_text, str):
            raise ClientError("malformed message: cards must be notation text")
        legal, reason = False, None
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
                reason = str(exc)
        client.send({"type": "check", "cards": cards_text, "legal": legal, "reason": reason})

    async def _ping(self, client: Client, msg: dict[str, Any]) -> None:
        client.send({"type": "pong"})

    _handlers: dict[str, Callable[[Table, Client, dict[str, Any]], Awaitable[None]]] = {
        "hello": _hello,
        "sit": _sit,
        "bot": _bot,
        "kick": _kick,
        "swap": _swap,
        "start": _start,
        "action": _action,
        "check": _check,
        "ping": _ping,
    }

    # -- the game --------------------------------------------------------------------
    def _agent_seed(self, seat: int) -> int:
        return (self.seed * 4 + seat) & 0x7FFF_FFFF_FFFF_FFFF

    def _make_agents(self) -> None:
        self.agents = {
            i: make_agent(s["kind"], self._agent_seed(i))
            for i, s in enumerate(self.seats)
            if s is not None and s["kind"] != "human"
        }

    async def submit(self, action: Action) -> str | None:
        """Check, commit, apply and broadcast one action. Returns the refusal, or None."""
        async with self.lock:
            if self.status != PLAYING:
                return "the game is not being played"
            try:
                self.game.check(action)
            except IllegalAction as exc:
                return str(exc)
            seq = self.seq
            try:
                await self.store.append_action(self.id, seq, action.to_json())
            except Exception:
                log.exception("table %s: could not store action %d", self.id, seq)
                return "server error: the action could not be saved; try again"
            rounds = len(self.game.results)
            self.game.apply(action)
            self.seq = seq + 1
            now = time.monotonic()
            if len(self.game.results) > rounds:
                self.pause_until = now + self.settings.round_pause_ms / 1000
            if isinstance(action, Declare) and self.game.decision().phase == "declare":
                self.window_deadline = now + self.settings.window_ms / 1000
            if self.game.is_over:
                self.status = FINISHED
                await self.store.update_table(self.id, status=FINISHED)
            self.broadcast()
        self.wake.set()
        return None

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
        while self.status == PLAYING:
            self.wake.clear()
            try:
                wait = await self._step()
            except Exception:  # a bug must not freeze the table: log it, retry shortly
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
        if g.is_over:
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
                log.error("table %s: draw refused: %s", self.id, _rule(err))
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
        if seat is None:
            return math.inf
        if seat in self.agents:
            due = self.turn_started + self.settings.bot_delay_ms / 1000
            if now < due:
                return due - now
            await self._bot_act(seat, self.agents[seat])
            return None
        timeout = self.settings.bot_timeout_s
        if timeout is None or self.connected(seat):
            return math.inf
        since = max(self.turn_started, self.absent_since.get(seat, self.turn_started))
        due = since + timeout
        if now < due:
            return due - now
        agent = self.standins.get(seat)
        if agent is None:
            agent = self.standins[seat] = make_agent(STANDIN_KIND, self._agent_seed(seat) + 7)
        await self._bot_act(seat, agent)
        return None

    async def _bot_act(self, seat: int, agent: Agent, *, deal: bool = False) -> None:
        view = self.game.view(seat)
        seq = self.seq
        action: Action | None
        try:
            action = agent.act(view)
        except Exception:
            log.exception("table %s: bot at seat %d failed", self.id, seat)
            action = None
        if deal:
            if isinstance(action, Declare) and action.seat == seat:
                await self.submit(action)
            return
        if action is not None and getattr(action, "seat", None) == seat:
            err = await self.submit(action)
            if err is None:
                return
            log.warning("table %s: bot at seat %d refused: %s", self.id, seat, _rule(err))
        if self.seq != seq:  # something else happened meanwhile: ask again later
            return
        fallback = self._fallback(seat)
        if fallback is not None:
            err = await self.submit(fallback)
            if err is not None:
                log.error(
                    "table %s: fallback at seat %d refused: %s", self.id, seat, _rule(err)
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


class Manager:
    """All live tables of one server process."""

    def __init__(
        self,
        store: Store,
        defaults: Settings,
        *,
        rate: float = 10.0,
        burst: float = 30.0,
        seed_source: Callable[[], int] | None = None,
    ) -> None:
        self.store = store
        self.seed_source = seed_source or (lambda: random.SystemRandom().getrandbits(62))
        self.defaults = defaults
        self.rate = rate
        self.burst = burst
        self.tables: dict[str, Table] = {}

    async def start(self) -> None:
        """Restore every unfinished table by replaying its log; resume their drivers."""
        for row in await self.store.tables_with_status([WAITING, PLAYING]):
            try:
                table = Table(self, row)
                table.replay_log(await self.store.load_actions(row.id))
            except Exception:
                log.exception("table %s could not be restored", row.id)
                continue
            self.tables[row.id] = table
            table.start_driver()

    async def stop(self) -> None:
        for t in list(self.tables.values()):
            await t.stop_driver()
            for c in t.clients:
                c.close()

    def new_client(self) -> Client:
        return Client(rate=self.rate, burst=self.burst)

    async def create(
        self, name: str, options: dict[str, Any], settings: dict[str, Any]
    ) -> tuple[Table, str]:
        """A new table (status waiting); returns it and the host's token."""
        opts = RuleOptions.from_json(options)
        st = Settings.from_json(settings, self.defaults)
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
            settings=st.to_json(),
        )
        await self.store.create_table(row)
        table = Table(self, row)
        self.tables[row.id] = table
        return table, host_token

    async def get(self, table_id: str) -> Table | None:
        """A live table, or a finished one loaded from the database."""
        if not TABLE_ID_RE.match(table_id):
            return None
        table = self.tables.get(table_id)
        if table is not None:
            return table
        row = await self.store.get_table(table_id)
        if row is None:
            return None
        try:
            table = Table(self, row)
            table.replay_log(await self.store.load_actions(row.id))
        except Exception:
            log.exception("table %s could not be loaded", table_id)
            return None
        if table_id in self.tables:  # loaded concurrently
            return self.tables[table_id]
        self.tables[table_id] = table
        table.start_driver()
        return table

    def lobby(self) -> list[dict[str, Any]]:
        open_tables = [t for t in self.tables.values() if t.status != FINISHED]
        open_tables.sort(key=lambda t: t.created, reverse=True)
        return [t.lobby_entry() for t in open_tables[:200]]

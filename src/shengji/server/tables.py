"""Live tables: seats, connections, the engine's `Game`, stand-in marks, broadcasts.

Every accepted action is checked by the engine, committed to the table's action log and
only then applied and broadcast (`Table.submit`). Each connection only ever receives its
own seat's view (spectators: the public view) and the events as its seat may see them,
RULES §11. The table's other jobs live in their own modules: `connection` (a client),
`routing` and `seats` (its messages; `seats.SeatMap` owns who sits where), `clock` (its
countdowns), `botdriver` (its bots and real-time loop), `broadcast` (its states' JSON),
`chat`, and `manager` (all tables of a server).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
import time
import traceback
from typing import TYPE_CHECKING, Any

from shengji import Game, IllegalAction, RuleOptions
from shengji.actions import Action, Draw, action_from_json
from shengji.events import Event, Played

from . import hints, routing, seats
from .botdriver import STANDIN, STANDIN_KIND, BotDriver
from .broadcast import Encoded, events_text
from .chat import ChatLog
from .clock import TableClock
from .connection import Client, ClientError, Refusal, clean_name, dumps
from .schema import (
    InputError,
    Limits,
    check_options,
    check_settings,
    clamp_settings,
)
from .status import ERROR, ERROR_MESSAGE, FINISHED, PLAYING, STORAGE_MESSAGE, WAITING
from .storage import TableRow

if TYPE_CHECKING:
    from .manager import Manager

log = logging.getLogger(__name__)

SLOW_KIND = "slow"  # a test-only bot that thinks for 1 s (bench/load.py --slow-tables)
TABLE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
#: presence changes (a seat's first connection arrives, its last one leaves) send
#: everyone a state at most once per this window; more within it are coalesced into
#: one state at its end (issue 28 item 5: a seat's 31 connections flipping `hello` made
#: the table send every client 100+ states a second)
PRESENCE_WINDOW_S = 0.2
#: a table whose last write failed (a full disk) is paused: its driver tries again this
#: often (the store logs the failures, `storage.WriteTrouble`)
STORAGE_RETRY_S = 5.0
#: RULES §3.5 redeals in a row with no seated human acting (all left while spectators
#: watch, or all idle): the table then pauses before the next deal ("paused": "idle")
#: until a seated human arrives, acts or sends `resume` (stand-ins do not declare, so it
#: would redeal for ever: 16 stored actions a second)
MAX_IDLE_REDEALS = 3

__all__ = [
    "ERROR", "ERROR_MESSAGE", "FINISHED", "PLAYING", "SLOW_KIND", "STANDIN", "STANDIN_KIND",
    "TABLE_ID_RE", "WAITING", "Client", "ClientError", "Limits", "Refusal", "Table", "clean_name",
    "dumps",
]

class Table:
    """One table: seats, the game, its connections, its bots and driver task (`bots`),
    its countdowns (`clock`), its chat (`chat`) and the stand-in marks of its log."""

    def __init__(self, manager: Manager, row: TableRow) -> None:
        self.manager = manager
        self.store = manager.store
        self.id = row.id
        self.name = row.name
        self.options_json = row.options
        self.seed = row.seed
        self.host_token_hash = row.host_token_hash
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
            self.damage(f"stored options or settings are invalid: {exc}")
        # who sits where: as many seats as the rules have players (RULES §12; 4 until
        # the options say otherwise), stored through `save_seats`
        n_players = getattr(self.options, "n_players", 4)
        try:
            self.seats = seats.SeatMap(row.seats, row.host_seat, n_players, self.save_seats)
        except (KeyError, TypeError, ValueError) as exc:  # a seat's JSON lacks its name
            self.damage(f"stored seats are invalid: {exc!r}")
            self.seats = seats.SeatMap([], None, n_players, self.save_seats)
        self.game = Game(seed=self.seed, options=self.options)
        self.seq = 0
        self.clients: list[Client] = []
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.bots = BotDriver(self)  # its bots, stand-ins and driver task
        self.clock = TableClock(self, len(self.seats))  # its countdowns
        self.idle_since = time.monotonic()  # when the last connection left (eviction)
        self.marks: dict[int, str] = {}  # seq -> who made it, when not the seat's player
        self.standins: list[dict[str, Any]] = []  # this round's stand-in actions (for the UI)
        self.last_error: str | None = None
        self.chat = ChatLog()
        self.claims: dict[int, seats.Claim] = {}  # seat -> a seat link's waiting claim
        self._presence_at = -PRESENCE_WINDOW_S  # loop time of the last presence broadcast
        self.storage_failing = False  # the last write of an action failed (paused)
        self.idle_redeals = 0  # RULES §3.5 redeals since a seated human last acted
        self.storage_retry_at = 0.0  # monotonic time the driver next tries to write
        self._presence_timer: asyncio.TimerHandle | None = None
        self.hints_in_flight: set[int] = set()  # seats whose hint is being worked out
        self.hint_cache: dict[int, tuple[int, dict[str, Any]]] = {}  # seat -> (seq, hint)
        self.hint_tasks: set[asyncio.Task[None]] = set()  # (`hints`: kept till done)

    # -- persistence -----------------------------------------------------------------
    def damage(self, reason: str) -> None:
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
                action = action_from_json(a, players=self.options.n_players)
                events = self.game.apply(action)
                self._note_standin(i, events, self.marks.get(i))
                self._replay_idle(action, events, self.marks.get(i))
            except Exception as exc:  # noqa: BLE001 - IllegalAction or an engine bug
                self.seq = len(actions)
                self.damage(f"stored action {i} does not replay: {exc}")
                log.error("table %s: replay failed\n%s", self.id, traceback.format_exc())
                return
        self.seq = len(actions)

    async def save_seats(self, seats: list[dict[str, Any] | None], host_seat: int | None) -> None:
        """Store the seats and the host's seat (the `SeatMap`'s one way to the store)."""
        await self.store.update_table(self.id, seats=seats, host_seat=host_seat)

    @property
    def host_seat(self) -> int | None:
        """The host's seat, or None (`seats.SeatMap.host`)."""
        return self.seats.host

    # -- info ------------------------------------------------------------------------
    def connected(self, seat: int) -> bool:
        """True if some connection sits at `seat`."""
        return any(c.seat == seat for c in self.clients)

    def bot_plays(self, seat: int) -> bool:
        """True if a bot plays `seat` now (not a stand-in: a human's seat has a clock)."""
        return self.bots.plays(seat)

    def public_seats(self) -> list[dict[str, Any] | None]:
        """The seats as everyone may see them: names, kinds, who is connected (no tokens)."""
        return [None if s is None else s.public_json(s.human and self.connected(i))
                for i, s in enumerate(self.seats)]

    def lobby_entry(self) -> dict[str, Any]:
        """This table as the lobby's list shows it."""
        return {
            "id": self.id,
            "name": self.name,
            "seats": [
                None if s is None else {"name": s.name, "kind": s.kind} for s in self.seats
            ],
            "status": self.status,
            "created": self.created.isoformat(),
            **self._shape_json(),
        }

    def _shape_json(self) -> dict[str, Any]:
        """The lobby's "6 players · friends" (RULES §12): the mode and a deck count that
        is not the default; nothing at a four-player teams table, so its entry is as
        before (the seat count is the length of `seats`)."""
        opts = self.options
        if getattr(opts, "n_players", 4) == 4 and getattr(opts, "mode", "teams") == "teams":
            return {}
        return {"mode": opts.mode, "decks": opts.n_decks}

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
        """The table's public JSON (the `table` of a `state` message): seats, status,
        options, settings, the running countdown, this round's stand-in actions and the bots'
        search budgets as played (`bots`, `BotDriver.budget_json`)."""
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
                "spectator_chat": self.settings.spectator_chat,
                "hints": hints.resolve(self),
                "card_counter": self.settings.card_counter,
            },
            "clock": self.clock.json(),
            "standins": self.standins,
            "claims": [{"seat": c.seat, "name": c.name, "team": seats.accepting_team(self, c.seat)}
                       for c in self.claims.values()],
            "paused": self.paused(),
            # only once a searching bot has decided: a table of people and heuristic
            # bots does not pay for it in every state (bench/load.py's message size)
            **({"bots": self.bots.budget_json()} if self.bots.budgets else {}),
        }

    def paused(self) -> str | None:
        """Why the table does not go on by itself, or None: "storage" (its last write
        failed, `storage_failed`) or "idle" (`MAX_IDLE_REDEALS` redeals in a row with no
        seated human acting; `resume` ends it)."""
        if self.storage_failing:
            return "storage"
        return "idle" if self.idle_redeals >= MAX_IDLE_REDEALS else None

    def resume(self) -> None:
        """A seated human is here (arrived, acted, or asked to go on): the count of idle
        redeals starts again, and an idle pause ends (everyone gets a state)."""
        was = self.idle_redeals >= MAX_IDLE_REDEALS
        self.idle_redeals = 0
        if was:
            log.info("table %s: a seated player is back: dealing again", self.id)
            self.broadcast()
            self.wake.set()

    def _note_redeal(self, events: list[Event]) -> None:
        """Count a RULES §3.5 redeal (one with a seat no bot plays: a bots-only table
        never pauses, its bots declare)."""
        if not any(e.kind == "redealt" for e in events):
            return
        if all(s is not None and not s.human for s in self.seats):
            return
        self.idle_redeals += 1
        if self.idle_redeals == MAX_IDLE_REDEALS:
            log.info("table %s: %d redeals with no seated player acting: paused until one "
                     "is back", self.id, self.idle_redeals)

    def _replay_idle(self, action: Action, events: list[Event], by: str | None) -> None:
        """The idle-redeal count as the log gives it (`replay_log`): a redeal counts as it
        did live (`_note_redeal`), and a seated human's own action (no stand-in mark)
        starts it again, as `resume` did. So a table paused before a restart is still
        paused after it, and one that was counting goes on from where it was (an arrival
        is not in the log: the players who reconnect after a restart resume it)."""
        self._note_redeal(events)
        seat = getattr(action, "seat", None)
        s = self.seats[seat] if isinstance(seat, int) else None
        if by is None and s is not None and s.human:
            self.idle_redeals = 0

    def storage_failed(self) -> None:
        """A write of this table's failed (the store logged it): pause the driver for
        `STORAGE_RETRY_S`; the first failure tells everyone at the table (an `error` with
        code "storage", and a state whose `table.paused` is "storage")."""
        self.storage_retry_at = time.monotonic() + STORAGE_RETRY_S
        if self.storage_failing:
            return
        self.storage_failing = True
        for c in list(self.clients):
            c.send({"type": "error", "code": "storage", "message": STORAGE_MESSAGE})
        self.broadcast()

    def storage_recovered(self) -> None:
        """A write succeeded again: the table goes on (everyone gets a state)."""
        if self.storage_failing:
            self.storage_failing = False
            self.storage_retry_at = 0.0
            self.broadcast()
            self.wake.set()

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
        """True for the host: by the host token, or sitting at the host seat."""
        return client.host_token_ok or (
            client.seat is not None and client.seat == self.host_seat
        )

    def encoder(self) -> Encoded:
        """A fresh `broadcast.Encoded` of the table's game for one broadcast (a view that
        cannot be built puts the table in `error`)."""
        return Encoded(self.game, self.settings.card_counter, self._view_failed)

    def _view_failed(self, seat: int | None) -> None:
        if self.status != ERROR:
            log.exception("table %s: view of seat %s failed", self.id, seat)
            self.damage("a view could not be built")

    def state_text(
        self,
        client: Client,
        info: dict[str, Any],
        enc: Encoded,
        events: dict[int | None, str] | None = None,
    ) -> str:
        """The `state` message for one connection (`broadcast.Encoded.state_text`)."""
        return enc.state_text(client, info, self.seq, self.is_host(client), events)

    def broadcast(
        self, events: list[Event] | None = None, by: str | None = None,
        seat: int | None = None,
    ) -> None:
        """Send every connection its own state (its seat's view only) and, after an action,
        the events it caused as that seat may see them (RULES §11), marked with `by`.

        `seat`: only that seat's connections and the spectators are sent the state (a
        draw in the deal, see `submit`); the others' views are unchanged but for counts."""
        clients = self.clients
        if seat is not None:
            clients = [c for c in clients if c.seat is None or c.seat == seat]
        enc = self.encoder()
        for c in clients:  # build the views first: one may put the table in `error`
            enc.own_text(c.seat)
        info = self.table_info()
        texts: dict[int | None, str] | None = None
        if events:
            public = [e.for_spectator() for e in events]  # what anyone may see
            texts = {None: events_text(public, by)}
            for c in clients:
                if c.seat is None or c.seat in texts:
                    continue
                seen = [e.for_seat(c.seat) for e in events]
                # Most events are public: a seat that sees no more shares the spectators' text.
                texts[c.seat] = texts[None] if seen == public else events_text(seen, by)
        for c in list(clients):
            c.push(self.state_text(c, info, enc, texts))

    def broadcast_presence(self, client: Client | None = None) -> None:
        """A seat's presence changed: send everyone a state, at once if no presence
        broadcast went out in the last `PRESENCE_WINDOW_S`, else once at the end of that
        window (however many changes come meanwhile). `client`, the connection whose
        hello changed it, gets its own state now in any case."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._presence_timer is None and now - self._presence_at >= PRESENCE_WINDOW_S:
            self._presence_at = now
            self.broadcast()
            return
        if client is not None:
            self.send_state(client)
        if self._presence_timer is None:
            self._presence_timer = loop.call_later(
                max(0.0, self._presence_at + PRESENCE_WINDOW_S - now), self._presence_due)

    def _presence_due(self) -> None:
        self._presence_timer = None
        self._presence_at = asyncio.get_running_loop().time()
        if self.clients:
            self.broadcast()

    def send_state(self, client: Client) -> None:
        """Send one connection its state (e.g. on connecting)."""
        enc = self.encoder()
        enc.own_text(client.seat)  # first: it may put the table in `error`
        client.push(self.state_text(client, self.table_info(), enc))

    # -- connections -----------------------------------------------------------------
    def attach(self, client: Client) -> None:
        """A new connection: a paused table resumes (its driver is woken)."""
        self.clients.append(client)
        self.clock.resume()
        self.wake.set()

    def detach(self, client: Client) -> None:
        """A connection closed: its seat counts as absent; with nobody left the table
        pauses (clocks stop)."""
        if client in self.clients:
            self.clients.remove(client)
        client.close()
        if any(c.client is client for c in self.claims.values()):
            seats.drop_claims(self, client=client)
            self.broadcast()
        if not self.clients:
            self.idle_since = time.monotonic()
            self.clock.pause()
        seat = client.seat
        if seat is not None and not self.connected(seat):
            self.clock.absent(seat)
            self.broadcast_presence()
            self.wake.set()

    async def handle(self, client: Client, text: str) -> None:
        """One message from a client (see `routing.handle`)."""
        await routing.handle(self, client, text)

    # -- the game --------------------------------------------------------------------
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
                self.fail(f"the engine failed checking action {self.seq}")
                return Refusal(ERROR_MESSAGE)
            seq = self.seq
            try:
                await self.store.append_action(self.id, seq, action.to_json(), by)
            except Exception as exc:
                if type(exc).__name__ == "IntegrityError":  # our log and the database's differ
                    self.fail(f"action {seq} is already in the database (another writer?)")
                    return Refusal(ERROR_MESSAGE)
                self.storage_failed()  # (the store logs it, rate limited)
                return Refusal(f"server error: the action could not be saved; {STORAGE_MESSAGE}",
                               code="storage")
            if self.storage_failing:
                self.storage_recovered()
            rounds = len(self.game.results)
            try:
                events = self.game.apply(action)
            except Exception:
                self.seq = seq + 1
                self.fail(f"the engine failed applying stored action {seq}")
                return Refusal(ERROR_MESSAGE)
            self.seq = seq + 1
            self._note_standin(seq, events, by)
            self._note_redeal(events)
            self.clock.after_action(action, len(self.game.results) > rounds)
            sent = False
            if len(self.game.results) > rounds and self.claims:
                self.broadcast(events, by, self._drawer_only(action))
                sent = True  # the claimants are seated for the next round
                await seats.round_ended(self)
            if self.game.is_over:
                self.status = FINISHED
                self.result = self.result_json()
                self.finished = dt.datetime.now(dt.UTC)
                await self.store.update_table(
                    self.id, status=FINISHED, result=self.result, finished=self.finished
                )
                self.store.compact_soon()  # (SQLite: the WAL's space is given back)
                if self.manager.cluster is not None:  # no longer open for its creator
                    self.manager.cluster.table_closed(self)
            if not sent:
                self.broadcast(events, by, self._drawer_only(action))
        self.wake.set()
        return None

    def _drawer_only(self, action: Action) -> int | None:
        """After a draw that did not end the deal: the seat that drew, the only player
        whose view changed beyond the public counts (its new card, its declarations,
        RULES §3.1, §3.3). The other seats are sent the deal's progress with their own
        next card, a declaration, or the deal's end (everyone), so a deal sends each
        seat a quarter of the states; spectators still see every card drawn. None: send
        everyone."""
        if type(action) is not Draw:
            return None
        d = self.game.decision()
        return d.last_drawer if d.phase == "deal" else None

    def fail(self, reason: str) -> None:
        """An unexpected engine (or driver) error: log it, show the `error` state to
        everyone, stop."""
        log.error("table %s: %s\n%s", self.id, reason, traceback.format_exc())
        self.damage(reason)
        self.bots.clear()
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
        """Start the table's driver task (a playing table; see `botdriver.BotDriver`)."""
        self.bots.start()

    async def stop_driver(self) -> None:
        """Stop the driver task and wait for it (and a coalesced presence broadcast)."""
        if self._presence_timer is not None:
            self._presence_timer.cancel()
            self._presence_timer = None
        await self.bots.stop()

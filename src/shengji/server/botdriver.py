"""Bot driving: a table's real-time loop (deal, declaration window, turns) and its bots.

`BotDriver` owns a playing table's asyncio task. Each step does what is due (the next
draw, closing the declaration window, a bot's move after `bot_delay_ms`, a stand-in's
move once a human's clock runs out, see `clock.TableClock.deadline`) or sleeps until
then, or until the table's `wake` event. Bots think in a process pool (`Manager.think`);
a bot that fails or answers with an illegal move is replaced by a legal fallback, so a
table never freezes. Each searching bot's decisions are counted (`BotBudget`): rollouts
done against those asked, and the degraded ones, cut short by the wall-clock cap (the
table's `bots`, docs/WEB_PROTOCOL.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import random
import statistics
import time
from collections import deque
from collections.abc import Iterator
from typing import Any, Protocol

from shengji.actions import DRAW, Action, Bury, CloseWindow, Declare, Pass, Play
from shengji.bots import ANY_TABLE_KINDS, Agent
from shengji.game import Game
from shengji.options import RuleOptions
from shengji.views import View

from .clock import TableClock
from .connection import Refusal
from .schema import TableSettings, classic
from .status import PLAYING

log = logging.getLogger(__name__)

STANDIN_KIND = "heuristic"  # plays for an absent human once bot_timeout_s has passed
# which bots play which tables (RULES §12) is the bots' own knowledge:
# `bots.ANY_TABLE_KINDS` and `bots.table_kind_error`, used here and by the arena


def standin_kind(options: RuleOptions) -> str:
    """The stand-in for an absent human at a table with `options`: the heuristic, or,
    should it not play a larger or friends table (RULES §12), a bot that does."""
    if classic(options) or STANDIN_KIND in ANY_TABLE_KINDS:
        return STANDIN_KIND
    return ANY_TABLE_KINDS[0]


#: how long `BotDriver.stop` waits before cancelling a driver again (seconds)
STOP_AGAIN_S = 0.1
#: the phases in which a bot's decision is asked as its turn begins (`BotDriver._early`):
#: nobody else acts before it there (in the declaration window others may declare)
EARLY_PHASES = ("kitty", "call", "play")
STANDIN = "standin"  # the mark of an action a stand-in bot made for a human's seat


KEEP_DECISIONS = 200  # the recent decisions a seat's median of rollouts done is taken over


class BotSeat(Protocol):
    """What the driver reads of a seat (`seats.Seat` is one)."""

    @property
    def kind(self) -> str:
        """"human" or the kind of the bot that plays it."""

    @property
    def human(self) -> bool:
        """A person's seat (taken or vacant)."""


class BotSeats(Protocol):
    """What the driver reads of a table's seats (`seats.SeatMap` is one)."""

    def __iter__(self) -> Iterator[BotSeat | None]:
        """Each seat in order (None: empty)."""

    def __getitem__(self, seat: int) -> BotSeat | None:
        """One seat (None: empty)."""


class Thinker(Protocol):
    """Where bots are made and think (`manager.Manager` is one)."""

    def make_agent(self, kind: str, seed: int, options: RuleOptions | None = None) -> Agent:
        """A bot of `kind` with `seed`, for a table of `options`."""

    async def think(self, agent: Agent, view: View) -> tuple[Action | None, Agent]:
        """`agent`'s move for `view` (off the event loop) and its new state."""


class Driven(Protocol):
    """What the driver needs of its table (`tables.Table` is one), not the whole table:
    its game, seats, clock and settings to read, `submit` to act and `fail` to stop."""

    id: str
    seed: int
    status: str
    seq: int
    game: Game
    settings: TableSettings
    clock: TableClock
    wake: asyncio.Event
    storage_failing: bool
    storage_retry_at: float

    @property
    def seats(self) -> BotSeats:
        """Who sits where."""

    @property
    def manager(self) -> Thinker:
        """The server's bots."""

    @property
    def clients(self) -> list[Any]:
        """The table's connections (nobody watching: the table waits)."""

    def paused(self) -> str | None:
        """Why the table does not go on by itself, or None (`Table.paused`)."""

    async def submit(self, action: Action, by: str | None = None) -> Refusal | None:
        """Check, commit, apply and broadcast one action; the refusal or None."""

    def fail(self, reason: str) -> None:
        """An unexpected error: the table goes to its `error` state."""


class BotBudget:
    """One bot seat's search budget as played: its decisions, the rollouts asked and done
    (`ExpertAgent.last_search`) and how many the wall-clock cap cut short (degraded)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.decisions = 0
        self.degraded = 0  # cut short by the cap, or shed (`shed`)
        self.shed = 0  # given fewer rollouts than its count: the pool was behind (botload)
        self.asked: int | None = None  # the last decision's (None: a time budget)
        self.share_sum = 0.0  # sum of done/asked over counted decisions
        self.done_sum = 0  # rollouts done over all its decisions
        self.counted = 0  # decisions with a rollout count asked
        self.done: deque[int] = deque(maxlen=KEEP_DECISIONS)

    def record(self, search: dict[str, Any]) -> None:
        """Count one searched decision (`ExpertAgent.last_search`)."""
        asked, done = search.get("asked"), int(search.get("done") or 0)
        self.decisions += 1
        self.degraded += bool(search.get("degraded"))
        self.shed += bool(search.get("shed"))
        self.asked = asked if isinstance(asked, int) else None
        self.done.append(done)
        self.done_sum += done
        if self.asked:
            self.counted += 1
            self.share_sum += min(1.0, done / self.asked)

    def json(self, seat: int) -> dict[str, Any]:
        """This seat's entry of the table's `bots.seats`."""
        return {
            "seat": seat, "level": self.kind, "decisions": self.decisions,
            "degraded": self.degraded, "shed": self.shed, "rollouts_asked": self.asked,
            "rollouts_done_median": statistics.median(self.done) if self.done else None,
        }


class BotDriver:
    """The bots of one table (by seat), the stand-ins for its humans, and its driver task."""

    def __init__(self, table: Driven) -> None:
        self.table = table
        self.agents: dict[int, Agent] = {}  # seats played by a bot
        self.standin_agents: dict[int, Agent] = {}  # stand-ins for humans, made on demand
        self.budgets: dict[int, BotBudget] = {}  # searching bots' decisions, by seat
        self.rng = random.Random(table.seed ^ 0x5EED)  # the fallbacks' random plays
        self.task: asyncio.Task[None] | None = None
        # while the task sleeps: until when (time.monotonic(); inf: no timer, only a
        # wake-up, a connection or an action, moves the table); None while it runs.
        # Tests wait on it rather than on a clock.
        self.asleep_until: float | None = None
        # a bot's decision asked as its turn begins, while `bot_delay_ms` runs (`_early`):
        # (seat, seq, agent, task); the move still shows at the delay's end, or when the
        # search ends if that is later, so a person waits max(delay, search), not both
        self.early: tuple[int, int, Agent, asyncio.Task[tuple[Action | None, Agent]]] | None
        self.early = None

    @property
    def parked(self) -> bool:
        """The task sleeps with no timer set (a paused table): only a wake-up moves it."""
        return self.asleep_until is not None and math.isinf(self.asleep_until)

    def agent_seed(self, seat: int) -> int:
        """The seed of the bot at `seat` (fixed by the table's seed: restarts agree)."""
        t = self.table
        return (t.seed * t.game.options.n_players + seat) & 0x7FFF_FFFF_FFFF_FFFF

    def make_agents(self) -> None:
        """A fresh bot for every seat the table gives to one."""
        t = self.table
        self.agents = {
            i: t.manager.make_agent(s.kind, self.agent_seed(i), t.game.options)
            for i, s in enumerate(t.seats)
            if s is not None and not s.human
        }

    def plays(self, seat: int) -> bool:
        """A bot (not a stand-in) plays `seat`."""
        return seat in self.agents

    def seat_bot(self, seat: int, kind: str) -> None:
        """A bot of `kind` now plays `seat` (a playing table's seat went to a bot)."""
        self.agents[seat] = self.table.manager.make_agent(kind, self.agent_seed(seat),
                                                          self.table.game.options)

    def leave(self, seat: int) -> None:
        """No bot plays `seat` any more (kicked, or a person took it)."""
        self.agents.pop(seat, None)

    def clear(self) -> None:
        """No bot plays any more (the table stopped in its `error` state)."""
        self.agents.clear()

    def start(self) -> None:
        """Start the task of a playing table (if not running)."""
        t = self.table
        if self.task is None and t.status == PLAYING:
            self.make_agents()
            self.task = asyncio.create_task(self._drive(), name=f"shengji-table-{t.id}")

    async def stop(self) -> None:
        """Cancel the task and wait for it to end.

        A cancellation can be lost: Python 3.11's `asyncio.wait_for` returns the result of
        an inner wait that ended in the same turn of the loop as the cancellation (a wake-up
        as the last client leaves, a bot's answer) and drops the cancellation, and the
        driver then sleeps on. So the task is cancelled again until it has ended (a test
        server's shutdown once hung for good, most likely on this)."""
        self._drop_early()
        task, self.task = self.task, None
        if task is None:
            return
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=STOP_AGAIN_S)
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _drive(self) -> None:
        """The table's clock: deals, closes the window, asks bots and stand-ins to move."""
        t = self.table
        failures = 0
        while t.status == PLAYING:
            t.wake.clear()
            try:
                wait = await self._step()
                failures = 0
            except Exception:  # a bug must not freeze the table: log it, retry shortly
                failures += 1
                if failures >= 3:
                    t.fail("the table's driver failed three times in a row")
                    return
                log.exception("table %s: driver step failed", t.id)
                wait = 1.0
            if wait is None:
                await asyncio.sleep(0)
                continue
            if wait <= 0:
                wait = 0.001
            self.asleep_until = time.monotonic() + wait
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(t.wake.wait(), None if math.isinf(wait) else wait)
            finally:
                self.asleep_until = None

    async def _step(self) -> float | None:
        """Do what is due now (return None) or say how long to wait (seconds; inf: until woken)."""
        t, tc = self.table, self.table.clock
        g = t.game
        if g.is_over or not t.clients:  # nobody watches: paused until someone connects
            return math.inf
        now = time.monotonic()
        if t.storage_failing and now < t.storage_retry_at:  # paused: writes fail (full disk)
            return t.storage_retry_at - now
        tc.catch_up(now)  # (the clock owns its deadlines: it is asked, never set here)
        d = g.decision()
        if d.phase == "deal":
            if t.paused() == "idle" and d.last_drawer is None:  # until a seated player is back
                return math.inf
            due = tc.draw_due()
            if now < due:
                return due - now
            err = await t.submit(DRAW)
            tc.drew()
            if err is not None:
                if err.code == "storage":  # paused (see above); the store logged it
                    return None
                log.error("table %s: draw refused: %s", t.id, err.log_text())
                return 1.0
            drawer = g.decision().last_drawer
            # a bot that cannot declare has nothing to answer (RULES §3.3): not asked
            if drawer is not None and drawer in self.agents and g.has_declaration(drawer):
                await self._bot_act(drawer, self.agents[drawer], deal=True)
            return None
        if d.phase == "declare":
            closes = tc.window_due()
            assert closes is not None  # opened by `catch_up`
            if now >= closes:
                await t.submit(CloseWindow())
                return None
            wait = await self._turn(d.seat, now)
            if wait is None:
                return None
            return min(wait, closes - now)
        if d.phase in ("kitty", "call", "play"):  # call: friends mode (RULES §12.4)
            return await self._turn(d.seat, now)
        return math.inf

    async def _turn(self, seat: int | None, now: float) -> float | None:
        """A seat's turn: a bot moves after `bot_delay_ms`; for a human, a stand-in bot
        moves once the clock (`deadline`: turn timer or absence) runs out."""
        t, tc = self.table, self.table.clock
        if seat is None:
            return math.inf
        if seat in self.agents:
            due = tc.bot_due()
            if now < due:
                if t.game.decision().phase in EARLY_PHASES:
                    self._early(seat, self.agents[seat])
                return due - now
            await self._bot_act(seat, self.agents[seat])
            return None
        dl = tc.deadline()
        if dl is None or dl[0] == "window" or dl[1] != seat:
            return math.inf
        due = dl[2]
        if now < due:
            return due - now
        agent = self.standin_agents.get(seat)
        if agent is None:
            agent = self.standin_agents[seat] = t.manager.make_agent(
                standin_kind(t.game.options), self.agent_seed(seat) + 7, t.game.options
            )
        await self._bot_act(seat, agent, by=STANDIN)
        return None

    def _early(self, seat: int, agent: Agent) -> None:
        """Ask the bot at `seat` now, its move to be made at the delay's end (`_bot_act`).
        Only where nobody else can act before it (EARLY_PHASES): the view it is asked
        about is the one it will move in, unless a seat changes hands meanwhile (then
        the answer is dropped and it is asked again)."""
        t = self.table
        if self.early is not None and self.early[:3] == (seat, t.seq, agent):
            return
        self._drop_early()
        task = asyncio.create_task(t.manager.think(agent, t.game.view(seat)))
        self.early = (seat, t.seq, agent, task)

    def _drop_early(self) -> None:
        if self.early is not None:
            self.early[3].cancel()  # (a pool's computation runs on; its answer is dropped)
            self.early = None

    def _take_early(self, seat: int, seq: int, agent: Agent
                    ) -> asyncio.Task[tuple[Action | None, Agent]] | None:
        """The early decision for this very turn (seat, seq and agent), if one is asked."""
        early, self.early = self.early, None
        if early is not None and early[:3] == (seat, seq, agent):
            return early[3]
        if early is not None:
            early[3].cancel()
        return None

    async def _bot_act(
        self, seat: int, agent: Agent, *, deal: bool = False, by: str | None = None
    ) -> None:
        t = self.table
        view = t.game.view(seat)
        seq = t.seq
        action: Action | None
        early = self._take_early(seat, seq, agent) if not deal and by is None else None
        try:
            if early is not None:
                action, thought = await early
            else:
                action, thought = await t.manager.think(agent, view)
        except Exception:
            log.exception("table %s: bot at seat %d failed", t.id, seat)
            action, thought = None, agent
        for agents in (self.agents, self.standin_agents):  # keep the agent's new state
            if agents.get(seat) is agent:
                agents[seat] = thought
        search = getattr(thought, "last_search", None) if by is None else None
        if isinstance(search, dict) and self.agents.get(seat) is thought:
            seat_info = t.seats[seat]
            budget = self.budgets.get(seat)
            kind = seat_info.kind if seat_info is not None else "?"
            if budget is None or budget.kind != kind:
                budget = self.budgets[seat] = BotBudget(kind)
            budget.record(search)
            if search.get("shed"):  # (counted in /api/cluster: a line each would flood)
                log.debug("table %s: bot at seat %d: shed to %s of its %s rollouts (the "
                          "pool was behind)", t.id, seat, search.get("asked"), search["shed"])
            elif search.get("degraded"):
                log.info("table %s: bot at seat %d: degraded decision (%s of %s rollouts "
                         "within the cap)", t.id, seat, search.get("done"), search.get("asked"))
        if t.status != PLAYING:
            return
        if deal:
            if isinstance(action, Declare) and action.seat == seat:
                await t.submit(action)
            return
        if action is not None and getattr(action, "seat", None) == seat:
            err = await t.submit(action, by)
            if err is None or err.code == "storage":  # (the store logs that, rate limited)
                return
            log.warning("table %s: bot at seat %d refused: %s", t.id, seat, err.log_text())
        if t.seq != seq:  # something else happened meanwhile: ask again later
            return
        fallback = self._fallback(seat)
        if fallback is not None:
            err = await t.submit(fallback, by)
            if err is not None:
                log.error(
                    "table %s: fallback at seat %d refused: %s", t.id, seat, err.log_text()
                )

    def budget_json(self) -> dict[str, Any]:
        """The table's `bots`: decisions searched, degraded ones, the mean share of the
        rollouts asked that were done, and each searching seat's entry (`BotBudget`)."""
        bs = self.budgets
        counted = sum(b.counted for b in bs.values())
        return {
            "decisions": sum(b.decisions for b in bs.values()),
            "degraded": sum(b.degraded for b in bs.values()),
            "shed": sum(b.shed for b in bs.values()),
            "rollouts_done_mean": (round(sum(b.done_sum for b in bs.values()) / decided, 1)
                                   if (decided := sum(b.decisions for b in bs.values()))
                                   else None),
            "rollouts_share": (round(sum(b.share_sum for b in bs.values()) / counted, 4)
                               if counted else None),
            "seats": [bs[s].json(s) for s in sorted(bs)],
        }

    def _fallback(self, seat: int) -> Action | None:
        t = self.table
        phase = t.game.decision().phase
        if phase == "declare":
            return Pass(seat)
        if phase == "kitty":
            return Bury(seat, tuple(t.game.view(seat).hand[-t.game.options.n_kitty:]))
        if phase == "call":  # friends mode (RULES §12.4)
            return t.game.view(seat).random_call_action(self.rng)
        if phase == "play":
            return Play(seat, t.game.random_play(seat, self.rng))
        return None



def watch_server(server_pid: int) -> None:
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


def think_in_pool(agent: Agent, view: View, rollouts: int | None = None
                  ) -> tuple[Action | None, Agent, float]:
    """A bot's move, computed in a worker process: the action, the agent's new state and
    the CPU seconds it took. `rollouts`: fewer than a searching bot's count, for this
    decision only (the pool is behind, `botload`); its record then says it was shed."""
    t0 = time.process_time()
    full = getattr(agent, "iters", None)
    if rollouts is None or not isinstance(full, int) or rollouts >= full:
        return agent.act(view), agent, time.process_time() - t0
    setattr(agent, "iters", rollouts)  # noqa: B010 (the Agent protocol has no iters)
    try:
        action = agent.act(view)
    finally:
        setattr(agent, "iters", full)  # noqa: B010
    search = getattr(agent, "last_search", None)
    if isinstance(search, dict):
        search["degraded"] = True
        search["shed"] = full  # the count it had, `asked` being what it was given
    return action, agent, time.process_time() - t0

"""The server's live tables: loading, creating, evicting; per-address limits; the bots' pool."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import random
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from shengji.actions import Action
from shengji.bots import AGENT_KINDS, RESEARCH_KINDS, Agent, make_agent, table_spec_error
from shengji.options import RuleOptions
from shengji.views import View

from .botdriver import standin_kind, think_in_pool, watch_server
from .botload import BotLoad
from .botpool import BotPool, make_pool
from .chat import KEEP_CHAT, ChatLog
from .config import ServerConfig
from .connection import Client
from .schema import (
    RATE_LIMITED,
    TOO_MANY_TABLES,
    InputError,
    check_options,
    check_settings,
    server_minima,
    server_table_defaults,
)
from .security import hash_token, new_table_id, new_token
from .storage import Store, TableRow
from .tables import ERROR, FINISHED, PLAYING, SLOW_KIND, TABLE_ID_RE, WAITING, Table

if TYPE_CHECKING:
    from .gcpolicy import PassTimer

log = logging.getLogger(__name__)

#: how long `Manager.stop` waits for a bot pool still starting (joining Ray) to finish, so
#: that it closes it; past it the start closes its own pool when it ends (`_pool`)
POOL_STOP_S = 60.0


class ClusterLink(Protocol):
    """What the manager (and its tables) ask of the cluster this process is a worker of
    (`cluster.Cluster`): it depends on this, not on the cluster's modules, which depend
    on it (so no import circle joins the two)."""

    id: str

    async def registered(self, table_id: str) -> None:
        """This worker now drives `table_id`."""

    async def unregistered(self, table_id: str) -> None:
        """This worker let `table_id` go."""

    def table_closed(self, table: Table) -> None:
        """`table` no longer counts as open for its creator."""

    async def admit(self, kind: str, addr: str, member: str, limit: int) -> bool:
        """Hold one of `addr`'s `limit` slots of `kind` across every worker (True if held)."""

    async def release(self, kind: str, addr: str, member: str) -> None:
        """Give back a slot `admit` took."""

    async def open_table(self, addr: str, table_id: str, open_limit: int,
                         per_min: int) -> None:
        """Count a new table against `addr`'s limits across every worker."""

    async def lobby(self) -> list[dict[str, Any]]:
        """Every worker's open and damaged tables, newest first."""


class Manager:
    """All live tables of one server process, the bots' worker pool and per-address limits."""

    def __init__(
        self,
        store: Store,
        config: ServerConfig,
        *,
        seed_source: Callable[[], int] | None = None,
        bot_kinds: tuple[str, ...] = AGENT_KINDS,
        sweep_s: float = 30.0,
    ) -> None:
        """`config`: the server's settings (its table defaults, minima, rate limits,
        per-address limits, bot processes); `seed_source` (tests): where new tables'
        shuffle seeds come from; `bot_kinds`: the bots this server offers."""
        self.store = store
        self.config = config
        self.seed_source = seed_source or (lambda: random.SystemRandom().getrandbits(62))
        self.defaults = server_table_defaults(config)
        self.minima = server_minima(config)
        self.rate = config.rate_per_s
        self.burst = config.burst
        self.bot_kinds = bot_kinds
        self.limits = config.limits
        self.sweep_s = sweep_s
        self.tables: dict[str, Table] = {}
        bot_workers = config.bot_workers
        self.bot_workers = (os.cpu_count() or 1) if bot_workers is None else bot_workers
        self.pool: BotPool | None = None  # where bots think (`--bots`, started on first use)
        self._pool_lock = asyncio.Lock()  # one start at a time (`_pool`)
        self.pool_fallbacks = 0  # decisions the pool failed or overran: the heuristic's
        # the pool's backlog: a decision that would wait past bot_wait_ms is shed (issue 35)
        self.bot_load = BotLoad(config.bot_wait_ms / 1000)
        self._pool_failures = 0  # failures in a row (not overruns): 3 rebuild the pool
        self.created_by: dict[str, deque[float]] = {}
        self.conns: Counter[str] = Counter()
        self._sweeper: asyncio.Task[None] | None = None
        self._warm: asyncio.Task[None] | None = None  # the pool joined at start (`_warm_pool`)
        self._stopping = False  # `stop` began: a pool built after it is closed, not kept
        self.cluster: ClusterLink | None = None  # several processes (`cluster.Cluster`)
        self.gc_timer: PassTimer | None = None  # this process's GC passes (`gcpolicy`)
        self._conn_ids = itertools.count()

    def make_agent(self, kind: str, seed: int, options: RuleOptions | None = None) -> Agent:
        """An agent of any kind this server offers (`shengji.bots` kinds; "slow" when the
        server runs with test bots); the expert's levels by rollout count
        (`bots.level_iters`: `LEVEL_ITERS` at four seats, fewer at the larger tables of
        `options`, RULES §12) under the `bot_cap_ms` safety cap."""
        if kind == SLOW_KIND:
            from .slowbot import SlowAgent

            return SlowAgent(seed)
        err = table_spec_error(kind)
        if err is not None and kind.partition(":")[0] in RESEARCH_KINDS:
            raise ValueError(err)  # a bot that sees every hand never plays at a table (§11)
        # the honest budget (issue 35): a named level searches its rollout count, its
        # strength the same however busy the pool; the cap bounds a person's wait
        return make_agent(kind, seed, counted=True, cap_ms=self.config.bot_cap_ms,
                          options=options)

    async def think(self, agent: Agent, view: View) -> tuple[Action | None, Agent]:
        """Ask `agent` for its move off the event loop (a process pool sized to the machine;
        `bot_workers=0` computes it on the loop, as a baseline for benchmarks)."""
        if self.bot_workers <= 0 and self.config.bots == "local":
            action, thought, _ = think_in_pool(agent, view)
            return action, thought
        count = getattr(agent, "iters", None)  # a searching bot's rollouts (botload)
        ticket: int | None = None
        asked, done, cpu_s = 0, None, None  # what the decision did, for `bot_load.done`
        try:
            # (the bound holds while a pool starts too: joining Ray again after its workers
            # died may take long, and the table must not wait on it)
            pool = await asyncio.wait_for(asyncio.shield(self._pool()),
                                          self.decision_bound_s())
            rollouts: int | None = None
            if isinstance(count, int) and count > 0:
                load = self.bot_load
                rollouts = load.plan(count, load.cpus(pool.cpus))
                if rollouts < count:
                    load.shed += 1
                ticket = load.start(rollouts)
            action, thought, cpu_s = await asyncio.wait_for(
                pool.run(think_in_pool, agent, view, rollouts), self.decision_bound_s())
            search = getattr(thought, "last_search", None)
            if isinstance(search, dict) and isinstance(search.get("asked"), int):
                asked, done = search["asked"], int(search.get("done") or 0)
            self._pool_failures = 0
            return action, thought
        except Exception as e:
            # a lost worker Ray could not rerun, a dead pool, or a decision past the bound:
            # the turn is answered at once by the heuristic here, and counted (issue 35)
            self.pool_fallbacks += 1
            if not isinstance(e, TimeoutError):
                self._pool_failures += 1
                if self._pool_failures >= 3 and self.pool is not None:
                    # a pool that keeps failing (a dead local Ray, a broken process pool)
                    # is rebuilt on the next decision
                    pool, self.pool, self._pool_failures = self.pool, None, 0
                    pool.close()
            log.warning("bot pool (%s): %s; the stand-in answers this decision",
                        self.config.bots, repr(e)[:300])
            stand_in = make_agent(standin_kind(view.options),
                                  view.round_no * 4 + (view.seat or 0))
            return await asyncio.to_thread(stand_in.act, view), agent
        finally:
            if ticket is not None:
                self.bot_load.done(ticket, asked, done, cpu_s)

    def decision_bound_s(self) -> float:
        """The longest a person waits on the pool for one bot decision (s): three expert
        caps, at least 5 s; past it the heuristic answers (`think`)."""
        return max(5.0, 3 * self.config.bot_cap_ms / 1000)

    def bot_budgets(self) -> dict[str, Any]:
        """The searching bots' budgets over this process's live tables (`/api/cluster`'s
        `bots`): decisions, degraded ones (cut by `bot_cap_ms`, or shed: given fewer
        rollouts because the pool was behind, `botload`), the mean share of the rollouts
        asked that were done and the tables with a degraded decision (the pool's load is
        `pool_status`'s)."""
        decisions = degraded = shed = counted = 0
        share = 0.0
        hit: list[str] = []
        for tid, t in self.tables.items():
            for b in t.bots.budgets.values():
                decisions += b.decisions
                degraded += b.degraded
                shed += b.shed
                counted += b.counted
                share += b.share_sum
            if any(b.degraded for b in t.bots.budgets.values()):
                hit.append(tid)
        return {"decisions": decisions, "degraded": degraded, "shed": shed,
                "rollouts_share": round(share / counted, 4) if counted else None,
                "cap_ms": self.config.bot_cap_ms, "wait_ms": self.config.bot_wait_ms,
                "degraded_tables": hit}

    async def _pool(self) -> BotPool:
        """The bots' pool (`--bots`: this machine's processes or a Ray cluster), started
        on first use. Joining Ray takes seconds: that runs in a thread, never on the
        event loop (every table would stop meanwhile), and once for concurrent askers."""
        if self.pool is not None:
            return self.pool
        async with self._pool_lock:
            if self.pool is None:
                def build() -> BotPool:
                    return make_pool(self.config.bots, max(1, self.bot_workers),
                                     watch_server, (os.getpid(),))

                if self._stopping:
                    raise RuntimeError("the server is stopping: no bot pool is started")
                pool = build() if self.config.bots == "local" else (
                    await asyncio.to_thread(build))
                if self._stopping:  # the thread joined Ray after `stop` gave up waiting
                    pool.close()
                    raise RuntimeError("the server stopped while its bot pool started")
                self.pool = pool
            return self.pool

    def pool_status(self) -> dict[str, Any]:
        """`/api/cluster`'s `pool` (and `/api/bots`): its kind, its CPUs now, the
        decisions it failed, and its load (`botload.BotLoad.json`: this process's
        searching decisions in flight, their predicted CPU seconds, the CPU per rollout
        seen, the decisions shed)."""
        pool = self.pool
        return {"kind": self.config.bots, "started": pool is not None,
                "cpus": pool.cpus() if pool is not None else None,
                "fallbacks": self.pool_fallbacks, "load": self.bot_load.json()}

    async def hint(self, view: View, seed: int) -> dict[str, Any]:
        """A hint's JSON for `view` (`hints.compute`), worked out in the bots' pool; with
        `bot_workers=0` in a thread: never on the event loop."""
        from .hints import compute

        if self.bot_workers <= 0 and self.config.bots == "local":
            return await asyncio.to_thread(compute, view, seed)
        result: dict[str, Any] = await (await self._pool()).run(compute, view, seed)
        return result

    async def review(self, *args: Any) -> dict[str, Any]:
        """A round review's JSON (`reviews.compute(*args)`), worked out in the bots' pool;
        with `bot_workers=0` in a thread: never on the event loop."""
        from .reviews import compute

        if self.bot_workers <= 0 and self.config.bots == "local":
            return await asyncio.to_thread(compute, *args)
        result: dict[str, Any] = await (await self._pool()).run(compute, *args)
        return result

    async def start(self) -> None:
        """Restore every unfinished table by replaying its log; resume their drivers.

        A table that cannot be restored is kept, in the `error` state (damaged), so that
        it shows in the lobby and its host can export its record: never dropped.
        """
        if self.cluster is None:  # in a cluster, the tables nobody owns are claimed
            for row in await self.store.tables_with_status([WAITING, PLAYING, ERROR]):
                await self._load(row)
        self._sweeper = asyncio.create_task(self._sweep(), name="shengji-sweeper")
        if self.config.bots != "local":  # join Ray now, before the first bot's turn
            self._warm = asyncio.create_task(self._warm_pool(), name="shengji-pool")

    async def _warm_pool(self) -> None:
        try:
            await self._pool()
        except Exception:  # noqa: BLE001 - logged; the first decision tries again
            log.exception("bot pool (%s) could not be started", self.config.bots)

    async def _load(self, row: TableRow) -> Table | None:
        if not await self.store.own_table(row.id):
            log.warning("table %s is owned by another server process", row.id)
            return None
        if self.cluster is not None:
            await self.cluster.registered(row.id)
        table = Table(self, row)
        try:
            actions = await self.store.load_actions(row.id)
            table.marks = await self.store.load_marks(row.id)
        except Exception as exc:  # noqa: BLE001 - a gap or an unreadable row
            table.damage(f"the action log cannot be read: {exc}")
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
        """Stop every driver and the bots' pool; close every connection."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for t in list(self.tables.values()):
            await t.stop_driver()
            for c in t.clients:
                c.close()
        # A thread joining Ray cannot be cancelled: cancelling the task that awaits it
        # left the pool it built unclosed (a leaked local Ray instance, which the next
        # pool of this process then reused). So wait for the start (bounded), then close
        # what it built; a start still running past the bound closes its own pool.
        self._stopping = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._close_pool(), POOL_STOP_S)

    async def _close_pool(self) -> None:
        if self._warm is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._warm)
        async with self._pool_lock:
            if self.pool is not None:
                self.pool.close()
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
                    if self.cluster is not None:
                        self.cluster.table_closed(t)
                        await self.cluster.unregistered(tid)
                    out.append(tid)
        return out

    async def admit_conn(self, addr: str) -> str | None:
        """Count a new connection from `addr` (across every worker of a cluster); returns
        its slot for `release_conn`, or None if that address has too many."""
        if self.cluster is None:
            return "" if self.connect(addr) else None
        lease = f"{self.cluster.id}:c{next(self._conn_ids)}"
        try:
            ok = await self.cluster.admit("conns", addr, lease, self.limits.conns_per_addr)
        except Exception:  # noqa: BLE001 - Redis away: this worker's own count decides
            log.warning("connection limit: Redis unreachable, counting locally")
            return "" if self.connect(addr) else None
        return lease if ok else None

    async def release_conn(self, addr: str, lease: str) -> None:
        """A connection counted by `admit_conn` closed."""
        if not lease:
            self.disconnect(addr)
        elif self.cluster is not None:
            with contextlib.suppress(Exception):  # unreleased, it expires by itself
                await self.cluster.release("conns", addr, lease)

    def new_client(self, addr: str = "") -> Client:
        """A new connection object with this server's message rate limit."""
        return Client(rate=self.rate, burst=self.burst, addr=addr)

    def connect(self, addr: str) -> bool:
        """Count a new connection from `addr`; False if that address has too many."""
        if self.conns[addr] >= self.limits.conns_per_addr:
            return False
        self.conns[addr] += 1
        return True

    def disconnect(self, addr: str) -> None:
        """A connection from `addr` closed."""
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
        if self.cluster is not None:  # counted across workers, in Redis (see `create`)
            return
        mine = sum(
            1 for t in self.tables.values() if t.creator == addr and t.status in (WAITING, PLAYING)
        )
        if mine >= self.limits.open_per_addr:
            raise self._too_many_open()

    def _too_many_open(self) -> InputError:
        return InputError(
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
        table_id = new_table_id()
        if self.cluster is not None:  # the limits count every process's tables
            await self.cluster.open_table(
                addr, table_id, self.limits.open_per_addr, self.limits.create_per_min)
        self.created_by[addr].append(time.monotonic())
        host_token = new_token()
        row = TableRow(
            id=table_id,
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
        if self.cluster is not None:
            await self.cluster.registered(row.id)
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

    async def read(self, table_id: str) -> Table | None:
        """`get()`, or in a cluster a read-only copy (rebuilt from the log, never driven)
        of a table another process owns: for the HTTP API's table, replay and export."""
        table = await self.get(table_id)
        if table is not None or self.cluster is None or not TABLE_ID_RE.match(table_id):
            return table
        row = await self.store.get_table(table_id)
        if row is None:
            return None
        table = Table(self, row)
        table.marks = await self.store.load_marks(row.id)
        table.replay_log(await self.store.load_actions(row.id))
        return table

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

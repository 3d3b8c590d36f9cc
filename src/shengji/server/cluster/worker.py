"""This worker's part in the cluster: joining and leaving it, presence and failover
(alive keys, claiming a dead or stalled worker's tables), routing a WebSocket to its
table's owner, the lobby across processes, and its figures; the relay and the
per-address limits are `Relay` and `Limits`."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..status import ERROR, PLAYING, WAITING
from .keys import (
    ALIVE_MS,
    BEAT_S,
    CLOSE_RESTART,
    LAG_SAMPLE_S,
    ORPHAN_SCAN_S,
    WORKERS_KEY,
    alive_key,
    limit_key,
    owner_key,
    session_name,
    tables_key,
)
from .limits import Limits
from .relay import Relay
from .store import ClusterStore

if TYPE_CHECKING:

    from ..manager import Manager
    from ..tables import Table

log = logging.getLogger(__name__)


async def _every(period_s: float, step: Callable[[], Awaitable[None]], what: str,
                 at_once: bool = False) -> None:
    """Run `step` every `period_s` (the first time at once when `at_once`) until the task
    is cancelled; a step that fails is logged and the next one runs on time."""
    if not at_once:
        await asyncio.sleep(period_s)
    while True:
        try:
            await step()
        except Exception:  # (a cancellation is not an Exception: it ends the loop)
            log.exception("cluster: %s failed", what)
        await asyncio.sleep(period_s)


class Cluster(Relay, Limits):
    """This worker's part in the cluster: presence and failover here, the relay (`Relay`)
    and the per-address limits (`Limits`) from their modules."""

    def __init__(self, manager: Manager, redis_url: str, *, hello_timeout_s: float = 10.0) -> None:
        import redis.asyncio as aioredis

        store = manager.store
        if not isinstance(store, ClusterStore):
            raise TypeError("a cluster needs a ClusterStore")
        self.manager = manager
        self.store: ClusterStore = store
        # A bounded pool that waits for a free connection (bursts of connects and creates).
        pool = aioredis.BlockingConnectionPool.from_url(
            redis_url, max_connections=64, timeout=10, decode_responses=True)
        self.redis: Any = aioredis.Redis(connection_pool=pool)
        self.id = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.hello_timeout_s = hello_timeout_s
        self._tasks: list[asyncio.Task[None]] = []
        self._bg: set[asyncio.Task[None]] = set()
        self.orphan_scans = 0  # orphan scans completed (tests wait on it, not on a clock)
        # tables claimed from others: (table, time.monotonic() then, its seq then)
        self.takeovers: list[tuple[str, float, int]] = []
        self._init_relay()
        self._init_limits()
        self.lags: collections.deque[float] = collections.deque(maxlen=20_000)

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> None:
        """Announce this worker, subscribe to its channels, start the loops."""
        await self.store.name_session(session_name(self.id))
        await self.redis.set(alive_key(self.id), "1", px=ALIVE_MS)
        await self.redis.sadd(WORKERS_KEY, self.id)
        await self._subscribe()
        for coro, name in (
            (self._publisher(), "publisher"), (self._listen(), "listen"),
            (_every(BEAT_S, self._beat, "heartbeat"), "beat"),
            (_every(BEAT_S, self._session_beat, "owner session heartbeat"), "session"),
            (_every(BEAT_S, self._keepalive, "alive key refresh"), "alive"),
            (_every(ORPHAN_SCAN_S, self._orphans, "orphan scan", at_once=True), "orphans"),
            (self._leases_loop(), "limits"), (self._lag_loop(), "lag"),
        ):
            self._tasks.append(asyncio.create_task(coro, name=f"shengji-cluster-{name}"))

    async def stop(self) -> None:
        """Leave the cluster (the tables' locks go with the store's owner session)."""
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        for conn, (client, _, _) in list(self._relayed.items()):
            client.close(CLOSE_RESTART)
            self._relayed.pop(conn, None)
        with contextlib.suppress(Exception):
            await self._flush_out()
            await self.redis.delete(alive_key(self.id))
            pipe = self.redis.pipeline(transaction=False)
            for (kind, addr), members in self._leases.items():
                if kind == "conns" and members:  # (open tables: their next owner counts them)
                    pipe.zrem(limit_key(kind, addr), *members)
            await pipe.execute()
            if self._pubsub is not None:
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
            await self.redis.connection_pool.disconnect()

    async def _reannounce(self) -> None:
        """After Redis came back (perhaps empty: it keeps nothing on disk), say again who
        this worker is and which tables it owns, so other workers route to it."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(alive_key(self.id), "1", px=ALIVE_MS)
        pipe.sadd(WORKERS_KEY, self.id)
        for tid in list(self.manager.tables):
            if self.store.owns(tid):
                pipe.set(owner_key(tid), self.id)
                pipe.sadd(tables_key(self.id), tid)
        await pipe.execute()

    # -- presence and failover -----------------------------------------------------------
    async def _keepalive(self) -> None:
        """Refresh this worker's alive key (every `BEAT_S`, in a task of its own): the
        heartbeat's database round trips (`_beat`) wait behind the owner session's writes
        on a busy worker, and must not let the key lapse (the others would take a live
        worker for dead)."""
        if self.listening:  # no relay: let the key lapse until resubscribed
            await self.redis.set(alive_key(self.id), "1", px=ALIVE_MS)

    async def _session_beat(self) -> None:
        """Ping the owner session (every `BEAT_S`, in a task of its own): its lease must not
        depend on Redis answering (a Redis outage never costs the tables' locks)."""
        if not await self.store.ping():
            await self._lost()

    async def _beat(self) -> None:
        """Say this worker is alive, close relays to dead workers, take their tables."""
        dead = await self._announce()
        await self._close_dead_relays()
        if dead:
            await self._claim_from_dead()

    async def _lost(self) -> None:
        """The owner session ended (stalled past the lease): drop every table, close their
        connections (they reconnect, to the new owner), start a fresh session."""
        m = self.manager
        for tid, t in list(m.tables.items()):
            await t.stop_driver()
            for c in list(t.clients):
                c.close(CLOSE_RESTART)
            t.clients.clear()
            m.tables.pop(tid, None)
            with contextlib.suppress(Exception):
                if await self.redis.get(owner_key(tid)) == self.id:
                    await self.redis.delete(owner_key(tid))
        for conn in list(self._remote):
            self._remote.pop(conn).close(CLOSE_RESTART)
        with contextlib.suppress(Exception):  # Redis may be away too: the session first
            await self.redis.delete(tables_key(self.id))
        await self.store.renew()
        log.warning("cluster: rejoined with a fresh owner session")

    async def registered(self, table_id: str) -> None:
        """This worker now owns `table_id` (called by the manager)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(owner_key(table_id), self.id)
        pipe.sadd(tables_key(self.id), table_id)
        await pipe.execute()

    async def unregistered(self, table_id: str) -> None:
        """This worker let `table_id` go (evicted)."""
        if await self.redis.get(owner_key(table_id)) == self.id:
            await self.redis.delete(owner_key(table_id))
        await self.redis.srem(tables_key(self.id), table_id)

    async def alive(self, worker: str) -> bool:
        """Is `worker` heard from within `ALIVE_MS`?"""
        return worker == self.id or bool(await self.redis.exists(alive_key(worker)))

    async def gone(self, worker: str) -> bool:
        """Is `worker` dead: not heard from within `ALIVE_MS`, and its owner session gone
        from PostgreSQL (so its tables' locks are free)? A worker that is only late (a long
        pause, a busy machine, a stalled process before its lease runs out) still holds
        its locks: taking its tables over would fail table by table, a database round trip
        each, and closing its relays would only send their players reconnecting."""
        if await self.alive(worker):
            return False
        return not await self.store.session_alive(session_name(worker))

    async def _announce(self) -> set[str]:
        """The workers registered but not alive (one round trip for the set, one for their
        keys; this worker's own key is `_keepalive`'s)."""
        others = {w for w in await self.redis.smembers(WORKERS_KEY) if w != self.id}
        return others - await self._alive_among(others)

    async def _alive_among(self, workers: set[str]) -> set[str]:
        """Those of `workers` heard from within `ALIVE_MS` (one round trip for all; this
        worker counts as alive)."""
        others = sorted(workers - {self.id})
        up = workers & {self.id}
        if others:
            pipe = self.redis.pipeline(transaction=False)
            for w in others:
                pipe.exists(alive_key(w))
            up |= {w for w, alive in zip(others, await pipe.execute(), strict=True) if alive}
        return up

    async def _claim(self, table_id: str) -> bool:
        if table_id in self.manager.tables:
            return True
        if not await self.store.own_table(table_id):
            return False
        table = await self.manager.get(table_id)
        if table is None:
            await self.store.disown_table(table_id)
            return False
        self._took(table)
        return True

    def _took(self, table: Table) -> None:
        self.takeovers.append((table.id, time.monotonic(), table.seq))
        task = asyncio.create_task(self.restore_creator(table))
        self._bg.add(task)
        task.add_done_callback(self._bg.discard)
        log.info("cluster: took over table %s at seq %d", table.id, table.seq)

    async def _claim_from_dead(self) -> None:
        for worker in await self.redis.smembers(WORKERS_KEY):
            if worker == self.id or not await self.gone(worker):
                continue
            left = 0
            for tid in await self.redis.smembers(tables_key(worker)):
                owner = await self.redis.get(owner_key(tid))
                if owner not in (None, worker) and await self.alive(owner):
                    await self.redis.srem(tables_key(worker), tid)  # someone has it
                elif await self._claim(tid):
                    await self.redis.srem(tables_key(worker), tid)
                else:
                    left += 1  # its lease has not run out yet
            if not left:
                await self.redis.srem(WORKERS_KEY, worker)

    async def _orphans(self) -> None:
        await self.claim_orphans()
        self.orphan_scans += 1

    async def claim_orphans(self) -> int:
        """Claim open tables that no live worker owns (a cold start, a lost registry)."""
        ids = [t for t in await self.store.table_ids_with_status([WAITING, PLAYING, ERROR])
               if t not in self.manager.tables]
        if not ids:
            return 0
        # two round trips for the whole scan (the owners, then whether each is alive), not
        # two per table: with 1,000 tables the scan was a burst of ~1,000 round trips and
        # ~1,000 rows decoded every 5 s in every worker
        owners = await self.redis.mget([owner_key(t) for t in ids])
        up = await self._alive_among({o for o in owners if o is not None})
        n = 0
        for tid, owner in zip(ids, owners, strict=True):
            if owner is not None and owner in up:
                continue
            if await self._claim(tid):
                n += 1
        return n

    # -- routing a WebSocket -------------------------------------------------------------
    async def locate(self, table_id: str, wait_s: float = 4.0) -> Table | str | None:
        """The live table if this worker owns (or can take) it; the owner's id if another
        live worker does; None if there is no such table. Waits up to `wait_s` for a
        stalled owner's lease to run out."""
        deadline = time.monotonic() + wait_s
        while True:
            local = self.manager.tables.get(table_id)
            if local is not None and self.store.owns(table_id):
                return local
            owner = await self.redis.get(owner_key(table_id))
            if owner is not None and owner != self.id and await self.alive(owner):
                return str(owner)
            if await self.store.own_table(table_id):
                table = await self.manager.get(table_id)
                if table is None:
                    await self.store.disown_table(table_id)
                else:
                    self._took(table)
                return table
            if await self.store.get_table(table_id) is None:
                return None
            if time.monotonic() >= deadline:
                raise TimeoutError(f"table {table_id}: its owner cannot be reached")
            await asyncio.sleep(BEAT_S)

    async def _close_dead_relays(self) -> None:
        owners = {owner for _, owner, _ in self._relayed.values()}
        for owner in owners:
            if not await self.gone(owner):
                continue
            for conn, (client, o, _) in list(self._relayed.items()):
                if o == owner:
                    client.close(CLOSE_RESTART)
                    self._relayed.pop(conn, None)


    # -- the lobby across processes ------------------------------------------------------
    async def lobby(self) -> list[dict[str, Any]]:
        """Open and damaged tables of every worker (from the database), newest first."""
        rows = await self.store.tables_with_status([WAITING, PLAYING, ERROR])
        rows.sort(key=lambda r: r.created, reverse=True)
        out = []
        for r in rows[:200]:
            live = self.manager.tables.get(r.id)
            if live is not None:
                out.append(live.lobby_entry())
                continue
            out.append({
                "id": r.id, "name": r.name, "status": r.status, "created": r.created.isoformat(),
                "seats": [None if s is None else {"name": s["name"], "kind": s["kind"]}
                          for s in r.seats],
                # RULES §12, as Table.lobby_entry: the mode of a larger or friends table
                **({"mode": r.options.get("mode", "teams"), "decks": r.options.get("decks")}
                   if len(r.seats) != 4 or r.options.get("mode", "teams") != "teams" else {}),
            })
        return out

    async def _lag_loop(self) -> None:
        """Sample how late the event loop wakes a 20 ms sleep (its lag, for `info`)."""
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(LAG_SAMPLE_S)
            self.lags.append(time.perf_counter() - t0 - LAG_SAMPLE_S)

    def metrics(self) -> dict[str, Any]:
        """Figures of the last writes and of the event loop (ms): the write batches'
        count, mean size and time (queue for the owner session + round trip + commit),
        how late the loop ran its timers, and the collector's passes (`gcpolicy`)."""
        times = sorted(self.store.batch_s)
        ops = sum(self.store.batch_ops)
        lags = sorted(self.lags)

        def pct(xs: list[float], p: float) -> float | None:
            return round(1000 * xs[min(len(xs) - 1, int(p / 100 * len(xs)))], 2) if xs else None

        return {
            "batches": len(times), "mean_batch": round(ops / len(times), 2) if times else None,
            "batch_p50_ms": pct(times, 50), "batch_p99_ms": pct(times, 99),
            "loop_lag_p50_ms": pct(lags, 50), "loop_lag_p99_ms": pct(lags, 99),
            "gc": None if self.manager.gc_timer is None else self.manager.gc_timer.stats(),
        }

    def info(self) -> dict[str, Any]:
        """This worker's cluster state (the /api/cluster endpoint; tests, operators)."""
        return {
            "worker": self.id,
            "pid": os.getpid(),
            "tables": {tid: {"seq": t.seq, "status": t.status, "owned": self.store.owns(tid)}
                       for tid, t in self.manager.tables.items()},
            "fenced": self.store.fenced,
            "lost": self.store.generation,
            "takeovers": [list(t) for t in self.takeovers],
            "orphan_scans": self.orphan_scans,
            "relayed": len(self._relayed),
            "remote": len(self._remote),
            "metrics": self.metrics(),
            "bots": self.manager.bot_budgets(),
            "pool": self.manager.pool_status(),
        }


"""Many server processes, one game world (PostgreSQL + Redis). See docs/ARCHITECTURE.md,
"Many processes".

- **Ownership and fencing** (`ClusterStore`): a table is driven by the one process whose
  *owner session* (one PostgreSQL connection) holds the table's advisory lock. That session
  runs with `idle_session_timeout` = the lease, and the process pings it every lease/4: a
  process that dies (kill -9) drops the session and its locks at once; one that stalls
  (SIGSTOP, a partition) loses them when the lease runs out, *on the database's clock*.
  Every write of the process goes through that same session, after checking that the
  table is still in the set this session locked, so a process that lost its session
  cannot write anything (the fence is the session itself: its locks and its writes
  live and die together). The `(table_id, seq)` primary key still refuses a second
  action at the same number.
- **Presence** (Redis): `shengji:alive:<worker>` (a short TTL, refreshed), the set of
  workers, each worker's tables, and `shengji:owner:<table>`.
- **Relay** (Redis pub/sub): a WebSocket may reach any worker. A worker that does not own
  the table forwards the connection's frames to the owner's inbox channel; the owner keeps
  a `RemoteClient` in the table's clients (seat, rate limits and hello checks all happen
  there, as for a local one) and publishes what it sends to the hosting worker's channel.
- **Failover**: each worker watches for dead workers (their alive key gone) and claims
  their tables (the advisory lock decides who gets each), replaying the log; a hosting
  worker closes the relayed connections of a dead owner (code 1012) and the browser
  client reconnects by itself, to any worker.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import itertools
import json
import logging
import os
import socket
import time
import uuid
from typing import TYPE_CHECKING, Any

import orjson
import sqlalchemy as sa

from .connection import Client, frame_refusal
from .status import ERROR, PLAYING, WAITING
from .storage import _INSERT_ACTION, ChatRow, Store, WriteOp, _lock_key

if TYPE_CHECKING:
    from fastapi import WebSocket

    from .manager import Manager
    from .tables import Table

log = logging.getLogger(__name__)

LEASE_MS = 3000  # a stalled owner loses its tables after this (PostgreSQL's clock)
ALIVE_MS = 1000  # a worker whose alive key is older than this is presumed dead
BEAT_S = 0.25  # heartbeat and dead-worker scan period
ORPHAN_SCAN_S = 5.0  # the full scan for unowned open tables
MIGRATE_LOCK = _lock_key("migrations")  # held while a worker brings the schema up to date
LAG_SAMPLE_S = 0.02  # the event loop's lag is sampled this often (`Cluster.metrics`)
CLOSE_RESTART = 1012  # WebSocket close code: the server moved this table; reconnect
# frames of one relayed connection waiting to be published (holding worker) or read by
# its table (owner) beyond which the connection is cut off (close 1013) rather than queued
RELAY_MAX_UNPUBLISHED = 256


class OwnershipLost(RuntimeError):
    """This process no longer owns the table (its owner session ended): nothing written."""


class ClusterStore(Store):
    """A PostgreSQL `Store` whose writes are fenced by the owner session (see the module)."""

    def __init__(self, url: str, *, lease_ms: int = LEASE_MS) -> None:
        super().__init__(url)
        if self.is_sqlite:
            raise ValueError("--redis (several processes) needs a PostgreSQL --db")
        self.lease_ms = lease_ms
        self._olock = asyncio.Lock()
        self.lost = False
        self.generation = 0  # +1 each time the owner session is lost
        self._gen_of: dict[int, int] = {}  # id(op) -> the generation it was queued in
        self.fenced = 0  # writes refused because ownership was lost (tests, metrics)
        self._pid: Any = None  # the owner session's backend pid
        #: the owner session's `application_name` (set by the cluster: `name_session`)
        self.session_name: str | None = None
        self._raw: Any = None  # that session's asyncpg connection (the actions' fast path)
        self.fast_batches = 0  # batches of actions written in one statement (benchmarks)
        # the last batches written: seconds from taking the session to commit, and ops (two
        # rings of plain numbers: a (time, ops) tuple per batch would be one more object for
        # every young GC pass to scan, thousands a minute on a busy worker)
        self.batch_s: collections.deque[float] = collections.deque(maxlen=20_000)
        self.batch_ops: collections.deque[int] = collections.deque(maxlen=20_000)

    async def start(self) -> None:
        """Start the store (one worker at a time runs the migrations: workers that start
        together would race to create the schema) and give the owner session its lease."""
        async with self.engine.connect() as gate:
            await gate.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATE_LOCK})
            await gate.commit()
            try:
                await super().start()
            finally:
                await gate.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATE_LOCK})
                await gate.commit()
        await self._arm()

    async def _arm(self) -> None:
        conn = self._owner_conn
        assert conn is not None
        self._pid = (await conn.execute(sa.text("SELECT pg_backend_pid()"))).scalar()
        self._raw = (await conn.get_raw_connection()).driver_connection
        if self.session_name is not None:
            await _set_session_name(conn, self.session_name)
        await conn.execute(sa.text(f"SET idle_session_timeout = {int(self.lease_ms)}"))
        await conn.execute(
            sa.text(f"SET idle_in_transaction_session_timeout = {int(self.lease_ms)}")
        )
        await conn.commit()

    # -- the fence ---------------------------------------------------------------------
    def _fence(self, table_id: str) -> None:
        if self.lost or table_id not in self._owned:
            self.fenced += 1
            raise OwnershipLost(f"this process does not own table {table_id}")

    async def _write(self, op: WriteOp) -> None:
        self._gen_of[id(op)] = self.generation
        try:
            await super()._write(op)
        finally:
            self._gen_of.pop(id(op), None)

    async def _run(self, ops: list[WriteOp]) -> None:
        t0 = time.perf_counter()
        await self._run_fenced(ops)
        self.batch_s.append(time.perf_counter() - t0)
        self.batch_ops.append(len(ops))

    async def _run_fenced(self, ops: list[WriteOp]) -> None:
        async with self._olock:
            conn = self._owner_conn
            if conn is not None and conn.invalidated:
                self._mark_lost()
            if self.lost or conn is None or any(
                self._gen_of.get(id(op), self.generation) != self.generation for op in ops
            ):
                self.fenced += 1
                raise OwnershipLost("the owner session was lost: nothing written")
            try:
                if all(stmt is _INSERT_ACTION for stmt, _ in ops):
                    await self._insert_actions([p for _, p in ops])
                else:
                    for stmt, params in _grouped(ops):
                        await conn.execute(stmt, params)
                    await conn.commit()
            except Exception as exc:
                if conn.invalidated:  # the session is gone (never reconnect it: see _alive)
                    self._mark_lost()
                with contextlib.suppress(Exception):
                    await conn.rollback()
                if type(exc).__name__ != "IntegrityError" and not await self._alive(conn):
                    self._mark_lost()
                raise

    async def _insert_actions(self, rows: list[dict[str, Any] | None]) -> None:
        """The hot path: a batch of actions (of any tables) in one statement, one round
        trip, on the owner session itself (its own transaction: all or none). SQLAlchemy's
        path takes three (BEGIN, INSERT, COMMIT) and far more CPU per batch."""
        import asyncpg  # type: ignore[import-untyped]

        raw = self._raw
        if raw is None or raw.is_closed():
            raise OwnershipLost("the owner session was lost: nothing written")
        vals: list[tuple[Any, ...]] = []
        for r in rows:
            assert r is not None
            # (orjson: an action holds no float; stdlib json was ~1% of a busy worker)
            vals.append((r["table_id"], r["seq"], orjson.dumps(r["action"]).decode(), r["by"]))
        if len(vals) <= _VALUES_MAX:
            # most batches hold one or two actions: a VALUES list (one prepared statement
            # per row count) costs PostgreSQL about half the time of unnest's arrays, and
            # this process a quarter less
            sql, args = _insert_values_sql(len(vals)), [x for v in vals for x in v]
        else:
            sql, args = _INSERT_ACTIONS_SQL, [list(col) for col in zip(*vals, strict=True)]
        try:
            await raw.execute(sql, *args)
        except asyncpg.UniqueViolationError as exc:  # as SQLAlchemy reports it (tables.py)
            raise sa.exc.IntegrityError(sql, None, exc) from exc
        self.fast_batches += 1

    async def _alive(self, conn: Any) -> bool:
        """Is the owner session the one that took the locks, and alive? SQLAlchemy would
        silently reconnect an invalidated connection: a new session holds no lock, so any
        sign of one (invalidated, another backend pid) counts as the session lost."""
        if conn.invalidated:
            return False
        try:
            raw = self._raw
            if raw is not None and not conn.in_transaction():  # one round trip
                if (await conn.get_raw_connection()).driver_connection is not raw:
                    return False
                pid = await asyncio.wait_for(
                    raw.fetchval("SELECT pg_backend_pid()"), self.lease_ms / 2000)
            else:
                pid = (await asyncio.wait_for(
                    conn.execute(sa.text("SELECT pg_backend_pid()")), self.lease_ms / 2000
                )).scalar()
                await conn.commit()
        except Exception:  # noqa: BLE001 - any failure means the session is gone
            return False
        return bool(pid == self._pid)

    def _mark_lost(self) -> None:
        if not self.lost:
            log.error("the owner session was lost: this process no longer owns its tables")
        self.lost = True
        self.generation += 1

    async def ping(self) -> bool:
        """Keep the owner session (and so its locks) alive; False once it is lost."""
        async with self._olock:
            if self.lost or self._owner_conn is None:
                return False
            if not await self._alive(self._owner_conn):
                self._mark_lost()
                return False
            return True

    async def name_session(self, name: str) -> None:
        """Name the owner session (PostgreSQL's `application_name`), now and after a renew,
        so that other workers can tell whether it is still connected (`session_alive`)."""
        async with self._olock:
            self.session_name = name
            if self._owner_conn is not None and not self.lost:
                await _set_session_name(self._owner_conn, name)
                await self._owner_conn.commit()

    async def session_alive(self, name: str) -> bool:
        """Is a session named `name` connected to PostgreSQL? While a worker's owner session
        is, that session holds its tables' locks: none of them can be taken over, whatever
        Redis says of the worker (one query, on a pooled connection)."""
        async with self.engine.connect() as conn:
            return bool((await conn.execute(
                sa.text(
                    "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = :n)"
                ),
                {"n": name},
            )).scalar())

    async def renew(self) -> None:
        """After a loss: a fresh owner session that owns nothing yet."""
        async with self._olock:
            old, self._owner_conn = self._owner_conn, None
            if old is not None:
                with contextlib.suppress(Exception):
                    await old.close()
            self._owned.clear()
            self._owner_conn = await self.engine.connect()
            await self._arm()
            self.lost = False

    # -- ownership ---------------------------------------------------------------------
    async def own_table(self, table_id: str) -> bool:
        """Take the table's advisory lock on the owner session (False: another holds it)."""
        async with self._olock:
            if self.lost or self._owner_conn is None:
                return False
            if table_id in self._owned:
                return True
            if self._owner_conn.invalidated:
                self._mark_lost()
                return False
            try:
                got = (await self._owner_conn.execute(
                    sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": _lock_key(table_id)}
                )).scalar()
                await self._owner_conn.commit()
            except Exception:
                if not await self._alive(self._owner_conn):
                    self._mark_lost()
                raise
            if got:
                self._owned.add(table_id)
            return bool(got)

    async def disown_table(self, table_id: str) -> None:
        """Release the table's lock."""
        async with self._olock:
            if self.lost or self._owner_conn is None or table_id not in self._owned:
                self._owned.discard(table_id)
                return
            self._owned.discard(table_id)
            await self._owner_conn.execute(
                sa.text("SELECT pg_advisory_unlock(:k)"), {"k": _lock_key(table_id)}
            )
            await self._owner_conn.commit()

    def owns(self, table_id: str) -> bool:
        """True while this process's owner session holds the table."""
        return not self.lost and table_id in self._owned

    # -- fenced writes -----------------------------------------------------------------
    async def append_action(
        self, table_id: str, seq: int, action: Any, by: str | None = None
    ) -> None:
        """Append an action, only while this process owns the table."""
        self._fence(table_id)
        await super().append_action(table_id, seq, action, by)

    async def append_chat(self, table_id: str, row: ChatRow) -> None:
        """Store a chat message, only while this process owns the table."""
        self._fence(table_id)
        await super().append_chat(table_id, row)

    async def update_table(self, table_id: str, **values: Any) -> None:
        """Update a table's row, only while this process owns the table."""
        self._fence(table_id)
        await super().update_table(table_id, **values)


_INSERT_ACTIONS_SQL = (
    'INSERT INTO actions (table_id, seq, action, "by") '
    "SELECT * FROM unnest($1::varchar[], $2::int[], $3::json[], $4::varchar[])"
)
#: batches up to this many actions are written as a VALUES list (larger ones: unnest)
_VALUES_MAX = 32


@functools.cache
def _insert_values_sql(n: int) -> str:
    """One INSERT of `n` actions as a VALUES list (asyncpg prepares each row count once)."""
    rows = ",".join(f"(${4 * i + 1},${4 * i + 2},${4 * i + 3},${4 * i + 4})" for i in range(n))
    return f'INSERT INTO actions (table_id, seq, action, "by") VALUES {rows}'


def _grouped(ops: list[WriteOp]) -> list[tuple[Any, Any]]:
    """Consecutive inserts of the same statement as one executemany (one round trip)."""
    out: list[tuple[Any, Any]] = []
    for stmt, params in ops:
        if params is not None and out and out[-1][0] is stmt and isinstance(out[-1][1], list):
            out[-1][1].append(params)
        else:
            out.append((stmt, [params] if params is not None else None))
    return [(stmt, ps[0] if isinstance(ps, list) and len(ps) == 1 else ps) for stmt, ps in out]


class RemoteClient(Client):
    """A connection held by another worker: what the table sends it is published there."""

    def __init__(self, cluster: Cluster, conn: str, host: str, *, addr: str) -> None:
        super().__init__(rate=cluster.manager.rate, burst=cluster.manager.burst, addr=addr)
        self.cluster = cluster
        self.conn = conn
        self.host = host
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False

    # the holding worker counted each frame against the rate before publishing it
    # (`Cluster._relay_refusal`): counting it again here, after Redis may have bunched
    # frames together, would refuse frames a direct connection would have had applied
    rate_checked_here = False

    def push(self, text: str) -> None:
        """Publish one message to the worker holding the connection."""
        if not self.closed:
            self.cluster.publish(_out(self.host), {"c": self.conn, "x": text})

    def close(self, code: int | None = None) -> None:
        """Ask the hosting worker to close the WebSocket."""
        if not self.closed:
            self.closed = True
            self.cluster.publish(_out(self.host), {"c": self.conn, "k": "close", "code": code})


def _in(worker: str) -> str:
    return f"shengji:in:{worker}"


def _out(worker: str) -> str:
    return f"shengji:out:{worker}"


async def _set_session_name(conn: Any, name: str) -> None:
    """Set a session's `application_name` (SET takes no bound parameter; set_config does)."""
    await conn.execute(sa.text("SELECT set_config('application_name', :n, false)"), {"n": name})


def _session_name(worker: str) -> str:
    """The `application_name` of `worker`'s owner session (PostgreSQL keeps 63 bytes: the
    id's end, its pid and random part, is what tells workers apart)."""
    return "shengji " + worker[-50:]


def _alive_key(worker: str) -> str:
    return f"shengji:alive:{worker}"


def _owner_key(table_id: str) -> str:
    return f"shengji:owner:{table_id}"


def _tables_key(worker: str) -> str:
    return f"shengji:tables:{worker}"


def _limit_key(kind: str, addr: str) -> str:
    return f"shengji:{kind}:{addr}"


def _creator_key(table_id: str) -> str:
    return f"shengji:creator:{table_id}"


WORKERS_KEY = "shengji:workers"
LIMIT_TTL_MS = 30_000  # a per-address slot (connection, open table) lives this long ...
LIMIT_RENEW_S = 10.0  # ... unless its worker renews it (every this often)
CREATOR_TTL_S = 7 * 24 * 3600  # who created a table, for the worker that takes it over
# A slot of an address (KEYS[1]: a sorted set, member -> expiry on Redis's clock, ms):
# drop the expired ones, then take (or renew) ARGV[2] if fewer than ARGV[1] are held.
_ADMIT_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[2])
    or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
"""
# Renew slots ARGV[2..] of KEYS[1] for ARGV[1] ms more (re-adding any that expired).
_RENEW_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ttl)
return #ARGV - 1
"""
_CREATE_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, tonumber(ARGV[1]) - 60)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
  redis.call('EXPIRE', KEYS[1], 120)
  return 1
end
return 0
"""


class Cluster:
    """This worker's part in the cluster: presence, the relay, failover (see the module)."""

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
        self._outq: asyncio.Queue[tuple[str, str, str | None]] = asyncio.Queue()
        # relayed connection -> its frames queued here and not yet published (`relay`)
        self._unpublished: collections.Counter[str] = collections.Counter()
        self._tasks: list[asyncio.Task[None]] = []
        self._remote: dict[str, RemoteClient] = {}  # owner side: conn -> its client
        self._relayed: dict[str, tuple[Client, str, str]] = {}  # conn -> client, owner, table
        self._ids = itertools.count()
        self._pubsub: Any = None
        # the relay's listener is subscribed (`_listen`); while it is not, this worker
        # does not advertise itself (no alive key) and holds no relayed connection
        self.listening = False
        self.resubscribed = 0  # times the listener came back after losing Redis
        self.orphan_scans = 0  # orphan scans completed (tests wait on it, not on a clock)
        # tables claimed from others: (table, time.monotonic() then, its seq then)
        self.takeovers: list[tuple[str, float, int]] = []
        self._create_script = self.redis.register_script(_CREATE_LUA)
        self._admit_script = self.redis.register_script(_ADMIT_LUA)
        self._renew_script = self.redis.register_script(_RENEW_LUA)
        # per-address slots this worker holds: (kind, addr) -> members (see `admit`)
        self._leases: dict[tuple[str, str], set[str]] = {}
        self._bg: set[asyncio.Task[None]] = set()
        self.lags: collections.deque[float] = collections.deque(maxlen=20_000)

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> None:
        """Announce this worker, subscribe to its channels, start the loops."""
        await self.store.name_session(_session_name(self.id))
        await self.redis.set(_alive_key(self.id), "1", px=ALIVE_MS)
        await self.redis.sadd(WORKERS_KEY, self.id)
        await self._subscribe()
        for coro, name in (
            (self._publisher(), "publisher"), (self._listen(), "listen"),
            (self._beat(), "beat"), (self._session_beat(), "session"),
            (self._keepalive(), "alive"), (self._orphans(), "orphans"),
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
            await self.redis.delete(_alive_key(self.id))
            pipe = self.redis.pipeline(transaction=False)
            for (kind, addr), members in self._leases.items():
                if kind == "conns" and members:  # (open tables: their next owner counts them)
                    pipe.zrem(_limit_key(kind, addr), *members)
            await pipe.execute()
            if self._pubsub is not None:
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
            await self.redis.connection_pool.disconnect()

    # -- publishing (one connection, one order) ------------------------------------------
    def publish(self, channel: str, payload: dict[str, Any], conn: str | None = None) -> None:
        """Queue a message; one task publishes them in order. `conn`: the relayed
        connection it comes from (its unpublished frames are counted, `relay`)."""
        if conn is not None:
            self._unpublished[conn] += 1
        self._outq.put_nowait((channel, json.dumps(payload, separators=(",", ":")), conn))

    def _published(self, batch: list[tuple[str, str, str | None]]) -> None:
        """A batch left this worker (or was lost): its connections' frames are no longer
        waiting."""
        for _, _, conn in batch:
            if conn is not None:
                left = self._unpublished[conn] - 1
                if left > 0:
                    self._unpublished[conn] = left
                else:
                    self._unpublished.pop(conn, None)

    async def _flush_out(self) -> None:
        batch: list[tuple[str, str, str | None]] = []
        while not self._outq.empty():
            batch.append(self._outq.get_nowait())
        if batch:
            pipe = self.redis.pipeline(transaction=False)
            for ch, data, _ in batch:
                pipe.publish(ch, data)
            await pipe.execute()

    async def _publisher(self) -> None:
        while True:
            first = await self._outq.get()
            batch = [first]
            while not self._outq.empty() and len(batch) < 500:
                batch.append(self._outq.get_nowait())
            pipe = self.redis.pipeline(transaction=False)
            for ch, data, _ in batch:
                pipe.publish(ch, data)
            try:
                await pipe.execute()
            except Exception:  # Redis away: these frames are lost, clients will resync
                log.exception("cluster: could not publish %d frames", len(batch))
            finally:
                self._published(batch)

    async def _subscribe(self) -> None:
        """Subscribe (again) to this worker's two channels on a fresh pub/sub connection."""
        old, self._pubsub = self._pubsub, None
        if old is not None:
            with contextlib.suppress(Exception):
                await old.aclose()
        pubsub = self.redis.pubsub()
        try:
            await pubsub.subscribe(_in(self.id), _out(self.id))
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise
        self._pubsub = pubsub
        self.listening = True

    async def _reannounce(self) -> None:
        """After Redis came back (perhaps empty: it keeps nothing on disk), say again who
        this worker is and which tables it owns, so other workers route to it."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(_alive_key(self.id), "1", px=ALIVE_MS)
        pipe.sadd(WORKERS_KEY, self.id)
        for tid in list(self.manager.tables):
            if self.store.owns(tid):
                pipe.set(_owner_key(tid), self.id)
                pipe.sadd(_tables_key(self.id), tid)
        await pipe.execute()

    def _relay_down(self) -> None:
        """The listener lost Redis: frames to and from this worker no longer arrive, so
        every relayed connection is closed with 1012 (the clients reconnect, to a worker
        that can serve them) and the owner-side clients of other workers' relays are
        dropped. Until it has resubscribed the worker does not advertise itself."""
        self.listening = False
        for conn, (client, _, _) in list(self._relayed.items()):
            client.close(CLOSE_RESTART)
            self._relayed.pop(conn, None)
        for conn in list(self._remote):
            rc = self._remote.pop(conn)
            rc.close(CLOSE_RESTART)  # (published if Redis is back; its holder heals too)
            rc.inbox.put_nowait(None)  # `_serve_remote` detaches it from its table

    async def _listen(self) -> None:
        """Read the relay's frames; if Redis goes away, close the relays and resubscribe
        with a growing pause (0.1 s to 2 s), logging the loss and the return once each."""
        pause = 0.1
        while True:
            try:
                if self._pubsub is None:
                    await self._subscribe()
                    await self._reannounce()
                    self.resubscribed += 1
                    log.warning("cluster: relay listener resubscribed to Redis")
                    pause = 0.1
                msg = await self._pubsub.get_message(ignore_subscribe_messages=True,
                                                     timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: heal, never end the task
                if self.listening or self._pubsub is not None:
                    log.warning("cluster: relay listener lost Redis (%s); relayed "
                                "connections closed, resubscribing", exc)
                    self._relay_down()
                    old, self._pubsub = self._pubsub, None
                    if old is not None:
                        with contextlib.suppress(Exception):
                            await old.aclose()
                await asyncio.sleep(pause)
                pause = min(2.0, pause * 2)
                continue
            if msg is None:
                continue
            try:
                data = json.loads(msg["data"])
                if msg["channel"] == _in(self.id):
                    self._inbound(data)
                else:
                    self._outbound(data)
            except Exception:  # noqa: BLE001 - one bad frame must not stop the relay
                log.exception("cluster: bad relay frame")

    # -- presence and failover -----------------------------------------------------------
    async def _keepalive(self) -> None:
        """Refresh this worker's alive key every `BEAT_S`, on its own: the heartbeat's
        database round trips (`_beat`) wait behind the owner session's writes on a busy
        worker, and must not let the key lapse (the others would take a live worker for
        dead)."""
        while True:
            await asyncio.sleep(BEAT_S)
            if not self.listening:  # no relay: let the key lapse until resubscribed
                continue
            try:
                await self.redis.set(_alive_key(self.id), "1", px=ALIVE_MS)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: alive key refresh failed")

    async def _session_beat(self) -> None:
        """Ping the owner session every `BEAT_S`, in a task of its own: its lease must not
        depend on Redis answering (a Redis outage never costs the tables' locks)."""
        while True:
            await asyncio.sleep(BEAT_S)
            try:
                if not await self.store.ping():
                    await self._lost()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: owner session heartbeat failed")

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(BEAT_S)
            try:
                dead = await self._announce()
                await self._close_dead_relays()
                if dead:
                    await self._claim_from_dead()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: heartbeat failed")

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
                if await self.redis.get(_owner_key(tid)) == self.id:
                    await self.redis.delete(_owner_key(tid))
        for conn in list(self._remote):
            self._remote.pop(conn).close(CLOSE_RESTART)
        with contextlib.suppress(Exception):  # Redis may be away too: the session first
            await self.redis.delete(_tables_key(self.id))
        await self.store.renew()
        log.warning("cluster: rejoined with a fresh owner session")

    async def registered(self, table_id: str) -> None:
        """This worker now owns `table_id` (called by the manager)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(_owner_key(table_id), self.id)
        pipe.sadd(_tables_key(self.id), table_id)
        await pipe.execute()

    async def unregistered(self, table_id: str) -> None:
        """This worker let `table_id` go (evicted)."""
        if await self.redis.get(_owner_key(table_id)) == self.id:
            await self.redis.delete(_owner_key(table_id))
        await self.redis.srem(_tables_key(self.id), table_id)

    async def alive(self, worker: str) -> bool:
        """Is `worker` heard from within `ALIVE_MS`?"""
        return worker == self.id or bool(await self.redis.exists(_alive_key(worker)))

    async def gone(self, worker: str) -> bool:
        """Is `worker` dead: not heard from within `ALIVE_MS`, and its owner session gone
        from PostgreSQL (so its tables' locks are free)? A worker that is only late (a long
        pause, a busy machine, a stalled process before its lease runs out) still holds
        its locks: taking its tables over would fail table by table, a database round trip
        each, and closing its relays would only send their players reconnecting."""
        if await self.alive(worker):
            return False
        return not await self.store.session_alive(_session_name(worker))

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
                pipe.exists(_alive_key(w))
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
            for tid in await self.redis.smembers(_tables_key(worker)):
                owner = await self.redis.get(_owner_key(tid))
                if owner not in (None, worker) and await self.alive(owner):
                    await self.redis.srem(_tables_key(worker), tid)  # someone has it
                elif await self._claim(tid):
                    await self.redis.srem(_tables_key(worker), tid)
                else:
                    left += 1  # its lease has not run out yet
            if not left:
                await self.redis.srem(WORKERS_KEY, worker)

    async def _orphans(self) -> None:
        while True:
            try:
                await self.claim_orphans()
                self.orphan_scans += 1
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: orphan scan failed")
            await asyncio.sleep(ORPHAN_SCAN_S)

    async def claim_orphans(self) -> int:
        """Claim open tables that no live worker owns (a cold start, a lost registry)."""
        ids = [t for t in await self.store.table_ids_with_status([WAITING, PLAYING, ERROR])
               if t not in self.manager.tables]
        if not ids:
            return 0
        # two round trips for the whole scan (the owners, then whether each is alive), not
        # two per table: with 1,000 tables the scan was a burst of ~1,000 round trips and
        # ~1,000 rows decoded every 5 s in every worker
        owners = await self.redis.mget([_owner_key(t) for t in ids])
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
            owner = await self.redis.get(_owner_key(table_id))
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

    async def relay(self, ws: WebSocket, owner: str, table_id: str, addr: str) -> None:
        """Serve an (accepted) WebSocket whose table another worker owns."""
        from starlette.websockets import WebSocketState

        if not self.listening:  # no relay until resubscribed: reconnect (maybe elsewhere)
            with contextlib.suppress(Exception):
                await ws.close(code=CLOSE_RESTART)
            return

        conn = f"{self.id}:{next(self._ids)}"
        client = self.manager.new_client(addr)
        self._relayed[conn] = (client, owner, table_id)
        inbox = _in(owner)
        self.publish(inbox, {"k": "open", "c": conn, "w": self.id, "t": table_id, "a": addr})

        async def pump() -> None:
            with contextlib.suppress(Exception):
                await client.pump(ws.send_text)
                if ws.application_state == WebSocketState.CONNECTED:
                    code = 1013 if client.too_slow else (client.close_code or 1000)
                    await ws.close(code=code)

        writer = asyncio.create_task(pump())
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                text = msg.get("text")
                if text is None:
                    try:
                        text = (msg.get("bytes") or b"").decode("utf-8")
                    except UnicodeDecodeError:
                        client.error("malformed message: not UTF-8 text")
                        continue
                if not self._relay_frame(client, conn, inbox, text):
                    with contextlib.suppress(Exception):
                        await ws.close(code=1013, reason="too slow")
                    break
        except Exception:  # noqa: BLE001 - a dropped socket
            pass
        finally:
            self._relayed.pop(conn, None)
            self.publish(inbox, {"k": "close", "c": conn})
            client.close()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    def _relay_refusal(self, client: Client, text: str) -> str | None:
        """Why a frame from a relayed socket is not published (None: it is): the limits
        a directly connected client's frames meet (`connection.frame_refusal`), checked
        here so an oversized or too-fast frame never reaches Redis."""
        return frame_refusal(client, text)

    def _relay_frame(self, client: Client, conn: str, inbox: str, text: str) -> bool:
        """Publish one frame of a relayed socket to its table's owner, or refuse it to its
        sender as a direct connection would be refused. False: the connection is cut off
        (close 1013) because `RELAY_MAX_UNPUBLISHED` of its frames still wait here for
        Redis: a relay that cannot keep up is closed rather than queued without bound."""
        refused = self._relay_refusal(client, text)
        if refused is not None:
            client.error(refused)
            return True
        if self._unpublished[conn] >= RELAY_MAX_UNPUBLISHED:
            log.warning("cluster: relayed connection %s cut off: %d frames unpublished",
                        conn, self._unpublished[conn])
            return False
        self.publish(inbox, {"k": "msg", "c": conn, "x": text}, conn)
        return True

    def _outbound(self, data: dict[str, Any]) -> None:
        """A frame from an owner for a connection this worker holds."""
        entry = self._relayed.get(data.get("c", ""))
        if entry is None:
            return
        client = entry[0]
        if data.get("k") == "close":
            client.close(data.get("code") or 1000)
            self._relayed.pop(data["c"], None)
        else:
            client.push(data["x"])

    async def _close_dead_relays(self) -> None:
        owners = {owner for _, owner, _ in self._relayed.values()}
        for owner in owners:
            if not await self.gone(owner):
                continue
            for conn, (client, o, _) in list(self._relayed.items()):
                if o == owner:
                    client.close(CLOSE_RESTART)
                    self._relayed.pop(conn, None)

    # -- the owner's side of the relay ---------------------------------------------------
    def _inbound(self, data: dict[str, Any]) -> None:
        kind, conn = data.get("k"), data.get("c", "")
        if kind == "open":
            rc = RemoteClient(self, conn, str(data.get("w")), addr=str(data.get("a", "")))
            self._remote[conn] = rc
            asyncio.create_task(self._serve_remote(rc, str(data.get("t"))))
            return
        rc_ = self._remote.get(conn)
        if rc_ is None:
            return
        if kind == "msg":
            if rc_.inbox.qsize() >= RELAY_MAX_UNPUBLISHED:  # the table cannot keep up with it
                log.warning("cluster: remote connection %s cut off: %d frames unread",
                            conn, rc_.inbox.qsize())
                rc_.close(1013)
                rc_.inbox.put_nowait(None)
                return
            rc_.inbox.put_nowait(str(data.get("x", "")))
        elif kind == "close":
            rc_.inbox.put_nowait(None)

    async def _serve_remote(self, rc: RemoteClient, table_id: str) -> None:
        table = self.manager.tables.get(table_id)
        if table is None or not self.store.owns(table_id):
            table = await self.manager.get(table_id) if await self.store.own_table(
                table_id) else None
        if table is None:
            self._remote.pop(rc.conn, None)
            rc.close(CLOSE_RESTART)  # not (or no longer) ours: reconnect and be routed
            return
        table.attach(rc)
        loop = asyncio.get_running_loop()
        hello_by = loop.time() + self.hello_timeout_s
        try:
            while True:
                if rc.greeted:
                    text = await rc.inbox.get()
                else:
                    try:
                        text = await asyncio.wait_for(
                            rc.inbox.get(), max(0.0, hello_by - loop.time()))
                    except TimeoutError:
                        rc.close(4408)
                        break
                if text is None or rc.closed:
                    break
                await table.handle(rc, text)
        finally:
            self._remote.pop(rc.conn, None)
            table.detach(rc)

    # -- limits across processes ---------------------------------------------------------
    async def count_create(self, addr: str, per_min: int) -> None:
        """Count a new table from `addr` in this minute, across every worker; `InputError`
        (rate_limited) once the address has made `per_min` this minute."""
        from .schema import RATE_LIMITED, InputError

        ok = await self._create_script(
            keys=[f"shengji:created:{addr}"], args=[time.time(), per_min, uuid.uuid4().hex])
        if not int(ok):
            raise InputError(
                f"too many new tables from your address (limit {per_min} a minute): "
                "try again later", code=RATE_LIMITED,
            )

    async def admit(self, kind: str, addr: str, member: str, limit: int) -> bool:
        """Hold one of `addr`'s `limit` slots of `kind` ("conns", "open") as `member`,
        across every worker (atomic; True if held). The slot is a lease renewed by this
        worker every `LIMIT_RENEW_S`: a crashed worker's slots expire after `LIMIT_TTL_MS`."""
        ok = await self._admit_script(
            keys=[_limit_key(kind, addr)], args=[limit, member, LIMIT_TTL_MS])
        if int(ok):
            self._leases.setdefault((kind, addr), set()).add(member)
            return True
        return False

    async def release(self, kind: str, addr: str, member: str) -> None:
        """Give back a slot taken by `admit` (a closed connection, a finished table)."""
        held = self._leases.get((kind, addr))
        if held is None or member not in held:
            return
        held.discard(member)
        if not held:
            del self._leases[(kind, addr)]
        await self.redis.zrem(_limit_key(kind, addr), member)

    def release_soon(self, kind: str, addr: str, member: str) -> None:
        """`release` without waiting (from code that must not wait on Redis)."""
        if member in self._leases.get((kind, addr), ()):
            task = asyncio.create_task(self.release(kind, addr, member))
            self._bg.add(task)
            task.add_done_callback(self._bg.discard)

    def table_closed(self, table: Table) -> None:
        """A table stopped counting as open for its creator (finished, evicted, lost)."""
        if table.creator:
            self.release_soon("open", table.creator, table.id)

    async def open_table(self, addr: str, table_id: str, open_limit: int, per_min: int) -> None:
        """Count a new table from `addr` across every worker: one of its `open_limit` open
        tables and one of its `per_min` creations this minute; `InputError` (nothing
        counted) past either. Who created it is kept in Redis too, so that a worker that
        takes the table over keeps counting it."""
        from .schema import TOO_MANY_TABLES, InputError

        if not await self.admit("open", addr, table_id, open_limit):
            raise InputError(
                f"too many open tables from your address (limit {open_limit})",
                code=TOO_MANY_TABLES,
            )
        try:
            await self.count_create(addr, per_min)
            await self.redis.set(_creator_key(table_id), addr, ex=CREATOR_TTL_S)
        except BaseException:
            await self.release("open", addr, table_id)
            raise

    async def _renew_leases(self) -> None:
        """Renew every slot this worker holds (one script call per address and kind); the
        open tables' slots follow the tables this worker drives."""
        for tid, t in self.manager.tables.items():
            if t.creator and t.status in (WAITING, PLAYING):
                self._leases.setdefault(("open", t.creator), set()).add(tid)
        for (kind, addr), members in list(self._leases.items()):
            if kind == "open":
                for m in list(members):
                    live = self.manager.tables.get(m)
                    if live is None or not self.store.owns(m):
                        members.discard(m)  # moved to another worker, which counts it now
                    elif live.status not in (WAITING, PLAYING):
                        await self.release(kind, addr, m)
                if not members:
                    self._leases.pop((kind, addr), None)
            if members:
                await self._renew_script(
                    keys=[_limit_key(kind, addr)], args=[LIMIT_TTL_MS, *sorted(members)])

    async def _leases_loop(self) -> None:
        while True:
            await asyncio.sleep(LIMIT_RENEW_S)
            try:
                await self._renew_leases()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: could not renew the per-address limits")

    async def restore_creator(self, table: Table) -> None:
        """A table taken over from another worker keeps counting for its creator."""
        with contextlib.suppress(Exception):
            creator = await self.redis.get(_creator_key(table.id))
            if creator and not table.creator:
                table.creator = str(creator)

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


__all__ = ["Cluster", "ClusterStore", "OwnershipLost", "RemoteClient"]

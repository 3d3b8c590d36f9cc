"""Fenced writes: the `ClusterStore`, whose every write goes through the owner session
that holds its tables' advisory locks (see the package's docstring)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import time
from typing import Any

import orjson
import sqlalchemy as sa

from ..storage import INSERT_ACTION, ChatRow, Store, WriteOp, lock_key

log = logging.getLogger(__name__)

LEASE_MS = 3000  # a stalled owner loses its tables after this (PostgreSQL's clock)
MIGRATE_LOCK = lock_key("migrations")  # held while a worker brings the schema up to date


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
                if all(stmt is INSERT_ACTION for stmt, _ in ops):
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
        if len(vals) <= VALUES_MAX:
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
                    sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": lock_key(table_id)}
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
                sa.text("SELECT pg_advisory_unlock(:k)"), {"k": lock_key(table_id)}
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
VALUES_MAX = 32


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




async def _set_session_name(conn: Any, name: str) -> None:
    """Set a session's `application_name` (SET takes no bound parameter; set_config does)."""
    await conn.execute(sa.text("SELECT set_config('application_name', :n, false)"), {"n": name})


__all__ = ["LEASE_MS", "MIGRATE_LOCK", "ClusterStore", "OwnershipLost"]

"""Persistent storage for tables and their append-only action logs (SQLAlchemy 2, async).

SQLite (aiosqlite) by default, PostgreSQL (asyncpg) through the same code. The schema
is created by the Alembic migrations shipped in `migrations/`, run at startup. Writes are
SQLAlchemy Core statements committed in batches (group commit); `append_action` returns
only once its row is committed.

For a SQLite file, writes go by default through a synchronous SQLAlchemy connection on the
event loop's own thread (`sqlite_writer="inline"`): a WAL commit without fsync takes
~0.1 ms, while aiosqlite's thread round trips (several per commit) wait on the GIL and the
loop under load and multiply the latency (see bench/load.py). WAL checkpoints, which may
fsync, run in a background thread. `sqlite_writer="async"` uses aiosqlite for writes too.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.base import Executable

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).parent / "migrations"

metadata = sa.MetaData()

tables_t = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("options", sa.JSON(), nullable=False),
    sa.Column("seed", sa.BigInteger(), nullable=False),
    sa.Column("host_token_hash", sa.String(64), nullable=False),
    sa.Column("seats", sa.JSON(), nullable=False),
    sa.Column("host_seat", sa.Integer(), nullable=True),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("settings", sa.JSON(), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Column("result", sa.JSON(), nullable=True),  # a finished game's result (lobby)
    sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
)


def _table_key() -> sa.Column[str]:
    """The `table_id` column of a table's child rows: the first half of their key, gone
    with the table (a Column object belongs to one table, hence a new one each time)."""
    return sa.Column(
        "table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"),
        primary_key=True,
    )


actions_t = sa.Table(
    "actions",
    metadata,
    _table_key(),
    sa.Column("seq", sa.Integer(), primary_key=True),
    sa.Column("action", sa.JSON(), nullable=False),
    sa.Column("by", sa.String(16), nullable=True),  # "standin": a stand-in bot's action
)

chat_t = sa.Table(
    "chat",
    metadata,
    _table_key(),
    sa.Column("n", sa.Integer(), primary_key=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("seat", sa.Integer(), nullable=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("text", sa.String(400), nullable=False),
)

#: a finished round's review (issue 32, `server/reviews.py`), kept with its game so that a
#: replay or a reload does not recompute it: one row per (round, seat, budget, seed)
reviews_t = sa.Table(
    "reviews",
    metadata,
    _table_key(),
    sa.Column("round_no", sa.Integer(), primary_key=True),  # 0-based
    sa.Column("seat", sa.Integer(), primary_key=True),
    sa.Column("budget", sa.String(64), primary_key=True),  # reviews.budget_key
    sa.Column("seed", sa.BigInteger(), primary_key=True),
    sa.Column("body", sa.JSON(), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class ChatRow:
    """One stored chat message: its number in the table, time, seat (None: spectator)."""

    n: int
    at: dt.datetime
    seat: int | None
    name: str
    text: str


@dataclass
class TableRow:
    """One row of `tables`. `seats` holds 4 entries: None or {"name", "kind", "token_hash"}."""

    id: str
    name: str
    options: dict[str, Any]
    seed: int
    host_token_hash: str
    seats: list[dict[str, Any] | None]
    host_seat: int | None
    status: str
    settings: dict[str, Any]
    created: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    result: dict[str, Any] | None = None
    finished: dt.datetime | None = None

    def values(self) -> dict[str, Any]:
        """The row as column values."""
        return {
            "id": self.id,
            "name": self.name,
            "options": self.options,
            "seed": self.seed,
            "host_token_hash": self.host_token_hash,
            "seats": self.seats,
            "host_seat": self.host_seat,
            "status": self.status,
            "settings": self.settings,
            "created": self.created,
            "result": self.result,
            "finished": self.finished,
        }


def _row(r: sa.Row[Any]) -> TableRow:
    created: dt.datetime = r.created
    if created.tzinfo is None:  # SQLite hands back naive datetimes
        created = created.replace(tzinfo=dt.UTC)
    return TableRow(
        id=r.id,
        name=r.name,
        options=dict(r.options),
        seed=int(r.seed),
        host_token_hash=r.host_token_hash,
        seats=list(r.seats),
        host_seat=r.host_seat,
        status=r.status,
        settings=dict(r.settings),
        created=created,
        result=None if r.result is None else dict(r.result),
        finished=_aware(r.finished),
    )


def _aware(when: dt.datetime | None) -> dt.datetime | None:
    if when is not None and when.tzinfo is None:  # SQLite hands back naive datetimes
        return when.replace(tzinfo=dt.UTC)
    return when


def normalize_url(url: str) -> str:
    """Accept plain `sqlite:///` / `postgresql://` URLs and pick the async drivers."""
    if url.startswith("sqlite://"):
        return "sqlite+aiosqlite://" + url[len("sqlite://") :]
    if url.startswith("postgresql://"):
        return "postgresql+asyncpg://" + url[len("postgresql://") :]
    if url.startswith("postgres://"):
        return "postgresql+asyncpg://" + url[len("postgres://") :]
    return url


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: survives a process crash
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


def _sqlite_writer_pragmas(dbapi_conn: Any, record: Any) -> None:
    _sqlite_pragmas(dbapi_conn, record)
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints run in the background
    cur.close()


def _alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def _upgrade(connection: Connection) -> None:
    cfg = _alembic_config()
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")


class StoreError(RuntimeError):
    """The database cannot be used (the message says why and names the file)."""


class DatabaseLocked(StoreError):
    """Another server process already writes to this database file."""


class DatabaseDamaged(StoreError):
    """The database file fails its integrity check."""


def sqlite_path(url: str) -> str | None:
    """The file of an SQLite URL (None for other databases and in-memory SQLite)."""
    u = sa.make_url(normalize_url(url))
    if u.get_backend_name() != "sqlite" or not u.database or u.database == ":memory:":
        return None
    return u.database


def check_sqlite_file(path: str) -> list[str]:
    """`PRAGMA quick_check` of an SQLite file: [] when sound, else the problems found.

    A file that does not exist yet is sound (it will be created).
    """
    if not Path(path).exists():
        return []
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            rows = con.execute("PRAGMA quick_check").fetchall()
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    problems = [str(r[0]) for r in rows]
    return [] if problems == ["ok"] else problems


def lock_key(table_id: str) -> int:
    """The PostgreSQL advisory lock key of a table (a signed 64-bit hash of its id)."""
    digest = hashlib.blake2b(f"shengji-table:{table_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


WriteOp = tuple[Executable, dict[str, Any] | None]  # a statement and its parameters


def _integrity(exc: BaseException) -> bool:
    return type(exc).__name__ == "IntegrityError"


def is_write_failure(exc: BaseException) -> bool:
    """Whether `exc` is the database failing a write (a full disk, I/O, a lost
    connection), not a conflict or a bug: `Store` has logged it (`WriteTrouble`)."""
    return isinstance(exc, (OSError, sqlite3.Error, sa.exc.DBAPIError)) and not _integrity(exc)


def _short(exc: BaseException) -> str:
    """One line naming a write failure: the driver's own error where SQLAlchemy wraps it
    ("OperationalError: database or disk is full")."""
    inner = getattr(exc, "orig", None) or exc
    text = str(inner).splitlines()[0] if str(inner) else ""
    return f"{type(inner).__name__}: {text}"[:200]


class WriteTrouble:
    """A store's failed writes (a full disk, a lost database), logged as an operator can
    read them: the first failure of an outage with its traceback, then at most one line
    per `every_s` seconds counting the failures since, and one line when a write succeeds
    again (a full disk made 19,005 tracebacks in 40 s)."""

    def __init__(self, every_s: float = 10.0) -> None:
        self.every_s = every_s
        self.failing = False
        self.failures = 0  # in this outage
        self._since_line = 0
        self._line_at = 0.0

    def failed(self, what: str, exc: BaseException) -> None:
        """A write of `what` (a table name) failed with `exc`."""
        self.failures += 1
        self._since_line += 1
        now = time.monotonic()
        if not self.failing:
            self.failing = True
            self._line_at, self._since_line = now, 0
            log.error("storage: a write to %s failed (%s); more failures are logged once "
                      "every %.0f s until a write succeeds", what, _short(exc), self.every_s,
                      exc_info=exc)
        elif now - self._line_at >= self.every_s:
            log.error("storage: still failing: %d failed writes in the last %.0f s (%d in "
                      "all), the latest to %s: %s", self._since_line, now - self._line_at,
                      self.failures, what, _short(exc))
            self._line_at, self._since_line = now, 0

    def succeeded(self) -> None:
        """A write was committed: an outage (if any) is over."""
        if self.failing:
            log.warning("storage: writes succeed again (%d failed meanwhile)", self.failures)
            self.failing = False
            self.failures = self._since_line = 0
#: the statement of one stored action (the cluster's fast path recognises it in a batch)
INSERT_ACTION = actions_t.insert()
#: the same insert for the inline SQLite writer's DBAPI path (`Store._insert_actions_inline`)
_INSERT_ACTION_SQL = 'INSERT INTO actions (table_id, seq, action, "by") VALUES (?, ?, ?, ?)'


class Store:
    """The server's database. Call `start()` (runs migrations) before use, `close()` after."""

    def __init__(
        self, url: str, *, sqlite_writer: str = "inline", checkpoint_s: float = 2.0,
        wal_truncate_bytes: int = 16 << 20,
    ) -> None:
        if sqlite_writer not in ("inline", "async"):
            raise ValueError("sqlite_writer must be 'inline' or 'async'")
        self.url = normalize_url(url)
        u = sa.make_url(self.url)
        self.is_sqlite = u.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {}
        self._sync_engine: Engine | None = None
        self._sqlite_path: str | None = None
        self._checkpoint_s = checkpoint_s
        self.wal_truncate_bytes = wal_truncate_bytes
        self._truncate_soon = False  # a game ended: give the WAL's space back
        self.truncations = 0  # WAL files truncated (tests)
        self._commits_seen = 0  # `commits` at the previous checkpoint (idle: unchanged)
        self._local = threading.local()  # the checkpoint thread's connection
        self.truncate_wait_ms = 100  # how long a TRUNCATE checkpoint waits for readers
        self.truncating = False  # a TRUNCATE checkpoint runs: writes are held back
        self._checkpointer: asyncio.Task[None] | None = None
        self._thread: ThreadPoolExecutor | None = None
        if self.is_sqlite:
            db = u.database
            if not db or db == ":memory:":
                kwargs["poolclass"] = StaticPool
                kwargs["connect_args"] = {"check_same_thread": False}
            else:
                Path(db).parent.mkdir(parents=True, exist_ok=True)
                if sqlite_writer == "inline":
                    self._sqlite_path = db
                    self._sync_engine = sa.create_engine(u.set(drivername="sqlite"))
                    event.listen(self._sync_engine, "connect", _sqlite_writer_pragmas)
        self._inline_raw: Any = None  # the inline writer's DBAPI connection
        self._json_dumps: Callable[[Any], str] = json.dumps  # as SQLAlchemy's sa.JSON
        self.engine: AsyncEngine = create_async_engine(self.url, **kwargs)
        if self.is_sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self._pending: list[tuple[WriteOp, asyncio.Future[None]]] = []
        self._busy = False  # a batch is being committed
        self._drainer: asyncio.Task[None] | None = None
        self._started = False
        self.commits = 0  # transactions committed (batches; for tests and benchmarks)
        self.trouble = WriteTrouble()  # failed writes: logged once, then rate limited
        self._lock_file: int | None = None  # SQLite: the single-writer lock
        self._owner_conn: Any = None  # PostgreSQL: the connection holding advisory locks
        self._owned: set[str] = set()

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Take the writer lock, check the file's integrity, bring the schema up to date.

        SQLite: a second server on the same file raises `DatabaseLocked`; a file that
        fails `PRAGMA quick_check` raises `DatabaseDamaged` (both name the file).
        """
        db = sqlite_path(self.url)
        if db is not None:
            self._take_file_lock(db)
            problems = await asyncio.to_thread(check_sqlite_file, db)
            if problems:
                self._release_file_lock()
                raise DatabaseDamaged(
                    f"the database file {db} is damaged (PRAGMA quick_check: "
                    f"{'; '.join(problems[:5])}); restore a backup, or run `shengji doctor "
                    f"--db {self.url}` for details"
                )
        try:
            async with self.engine.begin() as conn:
                await conn.run_sync(_upgrade)
        except sqlite3.DatabaseError as exc:
            self._release_file_lock()
            raise DatabaseDamaged(f"the database {db or self.url} cannot be used: {exc}") from exc
        except sa.exc.DatabaseError as exc:
            self._release_file_lock()
            raise DatabaseDamaged(f"the database {db or self.url} cannot be used: {exc}") from exc
        if not self.is_sqlite:
            self._owner_conn = await self.engine.connect()
        self._started = True
        if self._sqlite_path is not None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="shengji-checkpoint")
            self._checkpointer = asyncio.create_task(self._checkpoint_loop())

    def _take_file_lock(self, db: str) -> None:
        lock_path = f"{db}.lock"
        Path(lock_path).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DatabaseLocked(
                f"another shengji server is already using the database {db} (lock file "
                f"{lock_path}); stop it first or give this one its own --db"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_file = fd

    def _release_file_lock(self) -> None:
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            os.close(self._lock_file)
            self._lock_file = None

    # -- table ownership (PostgreSQL advisory locks) ---------------------------------------
    async def own_table(self, table_id: str) -> bool:
        """Become the one process that drives `table_id`; False if another one does.

        SQLite has one writer per file (the file lock), so this is always True there. On
        PostgreSQL a session advisory lock per table, held on one connection for as long as
        the table is in this process's memory, makes its owner unique across processes.
        """
        if self._owner_conn is None or table_id in self._owned:
            return True
        got = (
            await self._owner_conn.execute(
                sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": lock_key(table_id)}
            )
        ).scalar()
        await self._owner_conn.commit()
        if got:
            self._owned.add(table_id)
        return bool(got)

    async def disown_table(self, table_id: str) -> None:
        """Give up `table_id` (it left this process's memory)."""
        if self._owner_conn is None or table_id not in self._owned:
            return
        self._owned.discard(table_id)
        await self._owner_conn.execute(
            sa.text("SELECT pg_advisory_unlock(:k)"), {"k": lock_key(table_id)}
        )
        await self._owner_conn.commit()

    async def close(self) -> None:
        """Commit what is pending, then release the connections."""
        while self._busy or self._pending:
            if not self._busy:
                await self._flush()
            else:
                await asyncio.sleep(0.005)
        self._started = False
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpointer
            self._checkpointer = None
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None
        if self._inline_raw is not None:
            self._inline_raw.close()
            self._inline_raw = None
        if self._sync_engine is not None:
            with self._sync_engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            self._sync_engine.dispose()
        if self._owner_conn is not None:
            with contextlib.suppress(Exception):
                await self._owner_conn.close()
            self._owner_conn = None
            self._owned.clear()
        await self.engine.dispose()
        self._release_file_lock()

    def compact_soon(self) -> None:
        """A game ended: give the WAL's space back at the next idle checkpoint (SQLite)."""
        self._truncate_soon = True

    async def _checkpoint_loop(self) -> None:
        """`checkpoint()` every `checkpoint_s` seconds."""
        while True:
            await asyncio.sleep(self._checkpoint_s)
            try:
                await self.checkpoint()
            except sqlite3.Error:
                log.warning("WAL checkpoint failed", exc_info=True)

    async def checkpoint(self) -> None:
        """Copy the WAL into the database, off the event loop (may fsync); truncate it
        where its space is to be given back.

        A WAL keeps its high-water size (a burst of writes left 310 MB until shutdown).
        Once a checkpoint has copied every frame, a TRUNCATE checkpoint gives the space
        back (it has nothing left to copy, so it only waits, `truncate_wait_ms`, else it
        is tried next time, for readers of the old frames):
        - when no write was committed since the previous checkpoint (idle), if the file
          is over `wal_truncate_bytes` or a game ended since (`compact_soon`);
        - under writes, only if the file is over `wal_truncate_bytes` and over four times
          what the writes since the last checkpoint filled (a burst's high-water, not the
          size the steady load refills every interval).

        A TRUNCATE checkpoint locks writers out while it runs (10-40 ms), and the writer
        is on the event loop: a commit meeting it waited for the lock there and stalled
        every table (bench/load.py at 100 tables refills 17-32 MB each 2 s interval, so
        every checkpoint truncated, and each stalled the loop 9-39 ms, issue 28). So the
        steady load's WAL is left as it is, and while a truncation runs the store holds
        its writes back (they queue and are committed right after it) instead of letting
        a commit wait for the lock on the loop."""
        assert self._thread is not None and self._sqlite_path is not None
        path, local, wal = self._sqlite_path, self._local, self._sqlite_path + "-wal"

        def connection() -> sqlite3.Connection:
            con: sqlite3.Connection | None = getattr(local, "con", None)
            if con is None:
                con = local.con = sqlite3.connect(path, timeout=10)
            return con

        def passive() -> tuple[int, int]:
            """A PASSIVE checkpoint: the WAL file's size (-1 unless it copied every frame)
            and the bytes its frames since the last restart take."""
            con = connection()
            busy, frames, copied = con.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if busy or frames <= 0 or copied != frames:
                return -1, 0
            page = int(con.execute("PRAGMA page_size").fetchone()[0])
            try:
                return os.path.getsize(wal), 32 + int(frames) * (page + 24)
            except OSError:
                return -1, 0

        def truncate() -> bool:
            con = connection()
            con.execute(f"PRAGMA busy_timeout = {int(self.truncate_wait_ms)}")
            try:
                return not con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            finally:
                con.execute("PRAGMA busy_timeout = 10000")

        loop = asyncio.get_running_loop()
        idle = self.commits == self._commits_seen and not self._pending
        self._commits_seen = self.commits
        size, filled = await loop.run_in_executor(self._thread, passive)
        over = size > self.wal_truncate_bytes
        if not ((idle and size > 0 and (over or self._truncate_soon))
                or (over and size > 4 * filled)):
            return
        while self._busy:  # (a batch being committed finishes first)
            await asyncio.sleep(0.001)
        self._busy = self.truncating = True  # writes queue meanwhile, the loop runs on
        try:
            done = await loop.run_in_executor(self._thread, truncate)
        finally:
            self._busy = self.truncating = False
            if self._pending and (self._drainer is None or self._drainer.done()):
                self._drainer = asyncio.create_task(self._drain())
        if done:
            self._truncate_soon = False
            self.truncations += 1
            log.info("truncated the WAL of %s (it was %d bytes)", path, size)

    # -- writes (group commit) ---------------------------------------------------------
    async def _write(self, op: WriteOp) -> None:
        """Queue `op`; return once it is committed (or raise why it was not).

        The first writer to find no batch in progress commits everything queued (its own
        op included) in one transaction; ops queued meanwhile go in the next batch, which
        a background task commits, so no caller commits more than one batch.
        """
        if not self._started:
            raise RuntimeError("store not started")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((op, fut))
        if not self._busy:
            await self._flush()
        try:
            await fut
        except Exception as exc:
            if not _integrity(exc):  # (a conflict is the caller's to handle, not the disk's)
                self.trouble.failed(str(getattr(getattr(op[0], "table", None), "name", "?")),
                                    exc)
            raise
        if self.trouble.failing:
            self.trouble.succeeded()

    async def _flush(self) -> None:
        self._busy = True
        try:
            batch, self._pending = self._pending, []
            await self._commit_batch(batch)
        finally:
            self._busy = False
            if self._pending and (self._drainer is None or self._drainer.done()):
                self._drainer = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        while self._pending and not self._busy:
            await self._flush()

    async def _run(self, ops: list[WriteOp]) -> None:
        """Execute `ops` in one transaction and commit."""
        if self._sync_engine is not None:  # inline: ~0.1 ms, no fsync (WAL, NORMAL)
            if all(stmt is INSERT_ACTION for stmt, _ in ops):
                self._insert_actions_inline([params for _, params in ops])
                return
            with self._sync_engine.begin() as sconn:
                for stmt, params in ops:
                    sconn.execute(stmt, params)
            return
        async with self.engine.begin() as conn:
            for stmt, params in ops:
                await conn.execute(stmt, params)

    def _insert_actions_inline(self, rows: list[dict[str, Any] | None]) -> None:
        """The inline SQLite writer's hot path, a batch of stored actions only: one
        `executemany` on the writer's own DBAPI connection (same pragmas, held for the
        store's life), the action's JSON encoded as SQLAlchemy's `sa.JSON` would. The
        rows are those `INSERT_ACTION` writes; the statement's compilation, execution
        context and pool checkout cost more than SQLite's insert (bench/load.py: about a
        third of the server's storage time, issue 28's load figures)."""
        if self._inline_raw is None:
            assert self._sync_engine is not None
            self._inline_raw = self._sync_engine.raw_connection()
        con = self._inline_raw.driver_connection
        dumps = self._json_dumps
        with con:  # one transaction: committed, or rolled back and raised
            con.executemany(_INSERT_ACTION_SQL, [
                (r["table_id"], r["seq"], dumps(r["action"]), r.get("by"))
                for r in rows if r is not None
            ])

    async def _commit_batch(self, batch: list[tuple[WriteOp, asyncio.Future[None]]]) -> None:
        try:
            await self._run([op for op, _ in batch])
            self.commits += 1
            for _, fut in batch:
                if not fut.done():
                    fut.set_result(None)
            return
        except Exception as exc:  # noqa: BLE001 - retried one by one below
            if len(batch) == 1:
                op, fut = batch[0]
                if not fut.done():
                    fut.set_exception(exc)
                return
        for op, fut in batch:  # find the culprit(s): each op in its own transaction
            try:
                await self._run([op])
                self.commits += 1
                if not fut.done():
                    fut.set_result(None)
            except Exception as exc:  # noqa: BLE001 - handed to the waiting caller
                if not fut.done():
                    fut.set_exception(exc)

    async def create_table(self, row: TableRow) -> None:
        """Insert a new table."""
        await self._write((tables_t.insert().values(**row.values()), None))

    async def update_table(self, table_id: str, **values: Any) -> None:
        """Update some columns of a table (seats, host_seat, status, ...)."""
        stmt = tables_t.update().where(tables_t.c.id == table_id).values(**values)
        await self._write((stmt, None))

    async def append_action(
        self, table_id: str, seq: int, action: Any, by: str | None = None
    ) -> None:
        """Append one action to a table's log; returns once it is committed.

        `by` marks who made it when not the seat's player (``"standin"``: a stand-in bot).
        """
        await self._write(
            (INSERT_ACTION, {"table_id": table_id, "seq": seq, "action": action, "by": by})
        )

    async def append_chat(self, table_id: str, row: ChatRow) -> None:
        """Store one chat message of a table."""
        await self._write((chat_t.insert(), {
            "table_id": table_id, "n": row.n, "at": row.at, "seat": row.seat,
            "name": row.name, "text": row.text,
        }))

    # -- reads -------------------------------------------------------------------------
    async def get_table(self, table_id: str) -> TableRow | None:
        """One table, or None."""
        async with self.engine.connect() as conn:
            r = (await conn.execute(tables_t.select().where(tables_t.c.id == table_id))).first()
        return None if r is None else _row(r)

    async def tables_with_status(self, statuses: Sequence[str]) -> list[TableRow]:
        """The tables whose status is one of `statuses`, oldest first."""
        async with self.engine.connect() as conn:
            rs = await conn.execute(
                tables_t.select()
                .where(tables_t.c.status.in_(list(statuses)))
                .order_by(tables_t.c.created)
            )
            return [_row(r) for r in rs]

    async def table_ids_with_status(self, statuses: Sequence[str]) -> list[str]:
        """The ids of the tables whose status is one of `statuses`, oldest first: no rows
        built (the cluster's orphan scan runs it every few seconds over every open table)."""
        async with self.engine.connect() as conn:
            rs = await conn.execute(
                sa.select(tables_t.c.id)
                .where(tables_t.c.status.in_(list(statuses)))
                .order_by(tables_t.c.created)
            )
            return [str(r[0]) for r in rs]

    async def finished_tables(self, limit: int = 50) -> list[TableRow]:
        """The most recently finished tables, newest first."""
        async with self.engine.connect() as conn:
            rs = await conn.execute(
                tables_t.select()
                .where(tables_t.c.status == "finished")
                .order_by(tables_t.c.finished.desc(), tables_t.c.created.desc())
                .limit(limit)
            )
            return [_row(r) for r in rs]

    async def load_marks(self, table_id: str) -> dict[int, str]:
        """The actions of a table made by someone other than the seat's player: seq -> by."""
        async with self.engine.connect() as conn:
            rs = await conn.execute(
                sa.select(actions_t.c.seq, actions_t.c.by)
                .where(actions_t.c.table_id == table_id, actions_t.c.by.is_not(None))
            )
            return {int(r.seq): str(r.by) for r in rs}

    async def load_chat(self, table_id: str, last: int) -> list[ChatRow]:
        """The `last` newest chat messages of a table, oldest first."""
        async with self.engine.connect() as conn:
            rs = await conn.execute(
                chat_t.select().where(chat_t.c.table_id == table_id)
                .order_by(chat_t.c.n.desc()).limit(last)
            )
            out = []
            for r in rs:
                at: dt.datetime = r.at
                if at.tzinfo is None:
                    at = at.replace(tzinfo=dt.UTC)
                out.append(ChatRow(int(r.n), at, r.seat, r.name, r.text))
        out.reverse()
        return out

    async def load_actions(self, table_id: str) -> list[Any]:
        """A table's action log in order; raises if the log has a gap."""
        async with self.engine.connect() as conn:
            rs = await conn.execute(
                sa.select(actions_t.c.seq, actions_t.c.action)
                .where(actions_t.c.table_id == table_id)
                .order_by(actions_t.c.seq)
            )
            out: list[Any] = []
            for i, r in enumerate(rs):
                if r.seq != i:
                    raise RuntimeError(f"action log of table {table_id} has a gap at {i}")
                out.append(r.action)
            return out

    # -- stored reviews (issue 32) ------------------------------------------------------
    async def save_review(self, table_id: str, round_no: int, seat: int, budget: str,
                          seed: int, body: dict[str, Any]) -> None:
        """Keep a round's review with its game; a second save of the same key (two
        servers computing it at once) keeps the first: the review is deterministic."""
        try:
            await self._write((reviews_t.insert(), {
                "table_id": table_id, "round_no": round_no, "seat": seat, "budget": budget,
                "seed": seed, "body": body, "created": dt.datetime.now(dt.UTC),
            }))
        except Exception as exc:
            if not _integrity(exc):
                raise

    async def load_review(self, table_id: str, round_no: int, seat: int, budget: str,
                          seed: int) -> dict[str, Any] | None:
        """A stored review (`save_review`), or None."""
        c = reviews_t.c
        async with self.engine.connect() as conn:
            r = (await conn.execute(sa.select(c.body).where(
                c.table_id == table_id, c.round_no == round_no, c.seat == seat,
                c.budget == budget, c.seed == seed))).first()
        return None if r is None else dict(r.body)


def preflight(url: str) -> None:
    """Before serving: raise `DatabaseLocked`/`DatabaseDamaged` (clear messages naming the
    file) if another server writes to this SQLite file or the file fails its check."""
    db = sqlite_path(url)
    if db is None:
        return
    store = Store(url)
    store._take_file_lock(db)
    try:
        problems = check_sqlite_file(db)
    finally:
        store._release_file_lock()
    if problems:
        raise DatabaseDamaged(
            f"the database file {db} is damaged (PRAGMA quick_check: "
            f"{'; '.join(problems[:5])}); restore a backup, or run `shengji doctor --db "
            f"{url}` for details"
        )

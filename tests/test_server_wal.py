"""Issue 28 (Low): the SQLite WAL kept its high-water size (310 MB) until shutdown. The
store's checkpointer truncates it once every frame is copied and it is over
`wal_truncate_bytes`, or after a game ended (`compact_soon`) once no write came for a
checkpoint interval. A truncation locks writers out, so the store holds its writes back
meanwhile (they wait, the event loop does not: a commit waiting for the lock on the loop
stalled every table, bench/load.py's p99). A real SQLite file."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from shengji.server.security import hash_token
from shengji.server.storage import ChatRow, Store, TableRow

pytestmark = [pytest.mark.timeout(60)]


def _row() -> TableRow:
    return TableRow(id="walt", name="t", options={}, seed=1, host_token_hash=hash_token("h"),
                    seats=[None] * 4, host_seat=None, status="waiting", settings={})


@contextlib.asynccontextmanager
async def _store(db: Path, **settings: Any) -> AsyncIterator[Store]:
    """A started store on the SQLite file `db` holding one table ("walt"); closed after."""
    store = Store(f"sqlite+aiosqlite:///{db}", **settings)
    await store.start()
    try:
        await store.create_table(_row())
        yield store
    finally:
        await store.close()


async def _until(pred: object, timeout: float = 20.0) -> bool:
    """Whether `pred()` came true within `timeout` (checked as the checkpointer runs)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():  # type: ignore[operator]
        if loop.time() > end:
            return False
        await asyncio.sleep(0.01)
    return True


async def _burst(store: Store, start: int, n: int) -> None:
    now = dt.datetime.now(dt.UTC)
    await asyncio.gather(*(store.append_chat("walt", ChatRow(i, now, 0, "a", "x" * 1000))
                           for i in range(start, start + n)))


def test_the_wal_shrinks_after_a_burst_of_writes(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    wal = Path(f"{db}-wal")

    async def run() -> None:
        async with _store(db, checkpoint_s=0.05, wal_truncate_bytes=1 << 20) as store:
            store.wal_truncate_bytes = 1 << 40  # (not during the burst: its peak is read)
            await _burst(store, 0, 3000)  # ~3 MB, most of it in one transaction
            peak = wal.stat().st_size
            assert peak > 2 << 20, peak
            store.wal_truncate_bytes = 1 << 20
            assert await _until(lambda: store.truncations >= 1)
            assert wal.stat().st_size < 1 << 20
            # Under the threshold the WAL is left alone (no truncation per checkpoint)...
            await _burst(store, 3000, 20)
            assert 0 < wal.stat().st_size < 1 << 20
            done = store.truncations
            # ...until a game ends: then it is given back too.
            store.compact_soon()
            assert await _until(lambda: store.truncations > done)
            assert wal.stat().st_size == 0
            # The data is all there.
            assert len(await store.load_chat("walt", 10_000)) == 3020

    asyncio.run(run())
    assert not os.path.exists(wal) or wal.stat().st_size < 1 << 20


def test_a_game_end_gives_the_wal_back_only_once_writes_pause(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    wal = Path(f"{db}-wal")

    async def run() -> None:
        async with _store(db, checkpoint_s=3600) as store:  # checkpoints by hand
            await _burst(store, 0, 20)
            store.compact_soon()
            await store.checkpoint()  # writes came since the last checkpoint: not idle
            assert store.truncations == 0 and wal.stat().st_size > 0
            await store.checkpoint()  # none since: idle, the WAL is given back
            assert store.truncations == 1 and wal.stat().st_size == 0
            await _burst(store, 20, 5)
            await store.checkpoint()
            await store.checkpoint()  # idle again, but no game ended since: left alone
            assert store.truncations == 1 and wal.stat().st_size > 0
            assert len(await store.load_chat("walt", 100)) == 25

    asyncio.run(run())


def test_writes_wait_for_a_truncation_without_blocking_the_loop(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    wal = Path(f"{db}-wal")

    async def run() -> None:
        async with _store(db, checkpoint_s=3600) as store:
            with contextlib.closing(sqlite3.connect(db, timeout=10)) as reader:
                await _burst(store, 0, 20)
                # A reader of the WAL's frames (its snapshot is older than their copy into the
                # database): a truncation waits for it.
                reader.execute("BEGIN")
                assert reader.execute("SELECT count(*) FROM chat").fetchone()[0] == 20
                await store.checkpoint()  # copies every frame (not idle: no truncation)
                assert store.truncations == 0
                store.compact_soon()
                store.truncate_wait_ms = 30_000
                truncation = asyncio.create_task(store.checkpoint())  # idle: it truncates
                assert await _until(lambda: store.truncating)
                write = asyncio.create_task(store.append_chat("walt", ChatRow(
                    20, dt.datetime.now(dt.UTC), 0, "a", "during the truncation")))
                assert await _until(lambda: bool(store._pending))  # queued, not committing
                assert not write.done() and not truncation.done()
                reader.rollback()  # the reader is done: the truncation goes ahead...
                await truncation
                assert store.truncations == 1
                await write  # ...and the held write is committed after it
                assert wal.stat().st_size > 0
                chat = await store.load_chat("walt", 100)
                assert len(chat) == 21 and chat[-1].text == "during the truncation"

    asyncio.run(run())


def test_a_steady_load_keeps_its_wal_and_a_bursts_high_water_is_given_back(
    tmp_path: Path,
) -> None:
    db = tmp_path / "w.db"
    wal = Path(f"{db}-wal")

    async def run() -> None:
        async with _store(db, checkpoint_s=3600, wal_truncate_bytes=1 << 20) as store:
            for start in (0, 3000):  # writes refill the ~3 MB WAL each interval
                await _burst(store, start, 3000)
                await store.checkpoint()
                assert store.truncations == 0 and wal.stat().st_size > 2 << 20
            await _burst(store, 6000, 20)  # the writes go on, far fewer
            await store.checkpoint()
            assert store.truncations == 1 and wal.stat().st_size == 0
            assert len(await store.load_chat("walt", 10_000)) == 6020

    asyncio.run(run())

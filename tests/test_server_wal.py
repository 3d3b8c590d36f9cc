"""Issue 28 (Low): the SQLite WAL kept its high-water size (310 MB) until shutdown. The
store's checkpointer truncates it once every frame is copied and it is over
`wal_truncate_bytes`, or after a game ended (`compact_soon`). A real SQLite file."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
from pathlib import Path

import pytest

from shengji.server.security import hash_token
from shengji.server.storage import ChatRow, Store, TableRow

pytestmark = [pytest.mark.timeout(60)]


def _row() -> TableRow:
    return TableRow(id="walt", name="t", options={}, seed=1, host_token_hash=hash_token("h"),
                    seats=[None] * 4, host_seat=None, status="waiting", settings={})


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
        store = Store(f"sqlite+aiosqlite:///{db}", checkpoint_s=0.05,
                      wal_truncate_bytes=1 << 20)
        await store.start()
        try:
            await store.create_table(_row())
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
        finally:
            await store.close()

    asyncio.run(run())
    assert not os.path.exists(wal) or wal.stat().st_size < 1 << 20

"""`shengji doctor` / `serve --check`: is the database sound, and does every table replay?"""

from __future__ import annotations

import asyncio
import fcntl
import os
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from shengji import Game
from shengji.actions import action_from_json

from .schema import InputError, check_options
from .storage import actions_t, check_sqlite_file, normalize_url, sqlite_path, tables_t


def _lock_holder(db: str) -> str | None:
    """The pid in the lock file if a running server holds the lock, else None."""
    path = f"{db}.lock"
    if not os.path.exists(path):
        return None
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            with open(path) as f:
                return f.read().strip() or "?"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def replay_problem(options: Any, seed: int, actions: list[Any]) -> str | None:
    """Why a stored table does not replay (None if it does)."""
    try:
        opts = check_options(options)
    except InputError as exc:
        return f"invalid rule options: {exc}"
    game = Game(seed=seed, options=opts)
    for i, a in enumerate(actions):
        try:
            game.apply(action_from_json(a, players=opts.n_players))
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            return f"stored action {i} does not replay: {exc}"
    return None


async def _check_tables(url: str) -> tuple[int, list[str]]:
    engine = create_async_engine(normalize_url(url))
    bad: list[str] = []
    n = 0
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(
                tables_t.select().where(tables_t.c.status != "finished")
            )).all()
            for r in rows:
                n += 1
                acts = (await conn.execute(
                    sa.select(actions_t.c.seq, actions_t.c.action)
                    .where(actions_t.c.table_id == r.id).order_by(actions_t.c.seq)
                )).all()
                if [a.seq for a in acts] != list(range(len(acts))):
                    bad.append(f"table {r.id} ({r.name!r}): its action log has a gap")
                    continue
                why = replay_problem(r.options, int(r.seed), [a.action for a in acts])
                if why is not None:
                    bad.append(f"table {r.id} ({r.name!r}): {why}")
    finally:
        await engine.dispose()
    return n, bad


def check_database(url: str | None) -> tuple[bool, list[str]]:
    """Check the database at `url` (None: the default SQLite file). Returns (sound, report
    lines): the file's integrity (`PRAGMA quick_check`), whether a server holds it, and
    every unfinished table's replay."""
    from .app import default_db_url

    url = url or default_db_url()
    lines: list[str] = []
    db = sqlite_path(url)
    if db is not None:
        lines.append(f"database file: {db}")
        if not os.path.exists(db):
            lines.append("the file does not exist yet (it is created on first start)")
            return True, lines
        holder = _lock_holder(db)
        if holder is not None:
            lines.append(f"in use by a running server (pid {holder})")
        problems = check_sqlite_file(db)
        if problems:
            lines.append("DAMAGED: PRAGMA quick_check reports:")
            lines.extend(f"  {p}" for p in problems[:20])
            return False, lines
        lines.append("integrity: ok (PRAGMA quick_check)")
    else:
        lines.append(f"database: {sa.make_url(normalize_url(url)).render_as_string()}")
    try:
        n, bad = asyncio.run(_check_tables(url))
    except Exception as exc:  # noqa: BLE001 - reported
        lines.append(f"DAMAGED: the tables cannot be read: {exc}")
        return False, lines
    lines.append(f"unfinished tables: {n}, of which damaged: {len(bad)}")
    lines.extend(f"  {b}" for b in bad)
    return not bad, lines

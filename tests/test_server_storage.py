"""Server storage (SQLAlchemy + Alembic), tokens, rate limit and table settings."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from server_harness import import_or_skip, service_or_skip
from shengji.server.localcluster import local_postgres
from shengji.server.schema import PUBLIC_MINIMA, InputError, TableSettings, check_settings
from shengji.server.security import (
    TokenBucket,
    hash_token,
    new_table_id,
    new_token,
    token_matches,
)
from shengji.server.storage import ChatRow, Store, TableRow, normalize_url


def _row(table_id: str = "abc") -> TableRow:
    return TableRow(
        id=table_id,
        name="t",
        options={"self_reinforce": False},
        seed=2**61 + 5,
        host_token_hash=hash_token("host"),
        seats=[None, {"name": "a", "kind": "human", "token_hash": "x"}, None, None],
        host_seat=None,
        status="waiting",
        settings={"deal_ms": 0},
    )


async def _roundtrip(url: str, writer: str = "inline") -> None:
    store = Store(url, sqlite_writer=writer, checkpoint_s=0.01)
    await store.start()
    try:
        async with store.engine.connect() as conn:
            version = (await conn.execute(sa.text("select version_num from alembic_version"))).all()
        assert version == [("0003",)]
        await store.create_table(_row())
        row = await store.get_table("abc")
        assert row is not None
        assert row.seed == 2**61 + 5
        assert row.seats[1] == {"name": "a", "kind": "human", "token_hash": "x"}
        assert row.created.tzinfo is not None
        await store.update_table("abc", status="playing", host_seat=1)
        # Concurrent appends are committed (group commit) and come back in order.
        await asyncio.gather(*(store.append_action("abc", i, ["draw"]) for i in range(50)))
        await store.append_action("abc", 50, ["play", 0, "AS AS"])
        acts = await store.load_actions("abc")
        assert acts[:2] == [["draw"], ["draw"]] and acts[-1] == ["play", 0, "AS AS"]
        assert len(acts) == 51
        if writer == "async" or not store.is_sqlite:
            assert store.commits < 51  # concurrent writes share commits (group commit)
        # The log is append-only: the same seq twice is refused, the others still commit.
        results = await asyncio.gather(
            store.append_action("abc", 10, ["draw"]),
            store.append_action("abc", 51, ["draw"]),
            return_exceptions=True,
        )
        assert isinstance(results[0], Exception) and results[1] is None
        assert len(await store.load_actions("abc")) == 52
        playing = await store.tables_with_status(["playing"])
        assert [r.id for r in playing] == ["abc"] and playing[0].host_seat == 1
        assert await store.get_table("nope") is None
        # Stand-in marks on actions, chat, finished tables with results (migration 0002).
        await store.append_action("abc", 52, ["pass", 1], "standin")
        assert await store.load_marks("abc") == {52: "standin"}
        assert (await store.load_actions("abc"))[-1] == ["pass", 1]
        now = dt.datetime.now(dt.UTC)
        for n in range(3):
            await store.append_chat("abc", ChatRow(n, now, None if n else 1, "a", f"m{n}"))
        chat = await store.load_chat("abc", 2)
        assert [(c.n, c.seat, c.text) for c in chat] == [(1, None, "m1"), (2, None, "m2")]
        assert chat[0].at.tzinfo is not None
        assert await store.finished_tables() == []
        result = {"winner": 1, "levels": ["5", "A"], "rounds": 9}
        await store.update_table("abc", status="finished", result=result, finished=now)
        done = await store.finished_tables()
        assert [(r.id, r.result) for r in done] == [("abc", result)]
        assert done[0].finished is not None and done[0].finished.tzinfo is not None
        # A round's review kept with the game (migration 0003), keyed by round, seat,
        # budget and seed; a second save of the same key keeps the first.
        body = {"seat": 2, "accuracy": 81.5, "decisions": [{"kind": "play", "trick": 1}]}
        assert await store.load_review("abc", 0, 2, "8/4/6", 2**40) is None
        await store.save_review("abc", 0, 2, "8/4/6", 2**40, body)
        await store.save_review("abc", 0, 2, "8/4/6", 2**40, {"other": True})
        assert await store.load_review("abc", 0, 2, "8/4/6", 2**40) == body
        for other in ((1, 2, "8/4/6", 2**40), (0, 1, "8/4/6", 2**40),
                      (0, 2, "2/1/3", 2**40), (0, 2, "8/4/6", 0)):
            assert await store.load_review("abc", *other) is None
    finally:
        await store.close()
    # Reopening runs the migrations again (no-op) and sees the same data.
    store = Store(url, sqlite_writer=writer)
    await store.start()
    try:
        assert len(await store.load_actions("abc")) == 53
        assert (await store.load_review("abc", 0, 2, "8/4/6", 2**40) or {}).get("seat") == 2
    finally:
        await store.close()


@pytest.mark.parametrize("writer", ["inline", "async"])
def test_sqlite_store_roundtrip(tmp_path: Path, writer: str) -> None:
    asyncio.run(_roundtrip(f"sqlite+aiosqlite:///{tmp_path / 'sub' / 'x.db'}", writer))


def test_plain_urls_get_async_drivers() -> None:
    assert normalize_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    assert normalize_url("postgresql://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert normalize_url("postgres://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert normalize_url("sqlite+aiosqlite:///x") == "sqlite+aiosqlite:///x"


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on loopback (skipped where PostgreSQL or the
    `postgres` extra, asyncpg, is absent)."""
    import_or_skip("asyncpg", "the postgres extra (asyncpg) is not installed")
    yield from service_or_skip(local_postgres())


def test_postgres_store_roundtrip(postgres_url: str) -> None:
    asyncio.run(_roundtrip(postgres_url))


def test_tokens_are_hashed_and_compared_in_constant_time() -> None:
    t = new_token()
    assert len(t) >= 40 and t != new_token()
    h = hash_token(t)
    assert t not in h and len(h) == 64
    assert token_matches(t, h)
    assert not token_matches(t + "x", h)
    assert not token_matches("", h)
    assert not token_matches(None, h)
    assert not token_matches(t, None)
    assert not token_matches("x" * 1000, h)
    tid = new_table_id()
    assert len(tid) == 8 and tid.replace("-", "").replace("_", "").isalnum()


def test_token_bucket_allows_bursts_then_the_rate() -> None:
    now = [0.0]
    b = TokenBucket(rate=2.0, burst=3.0, clock=lambda: now[0])
    assert [b.allow() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5
    assert b.allow() and not b.allow()
    now[0] += 100
    assert sum(b.allow() for _ in range(10)) == 3


def test_settings_are_validated_strictly_and_name_the_field() -> None:
    base = TableSettings(deal_ms=5)
    s = check_settings({"bot_timeout_s": 30, "window_ms": 0}, base, minima=None)
    assert (s.deal_ms, s.bot_timeout_s, s.window_ms) == (5, 30.0, 0)
    # null: the server's default timeout (no game waits for ever)
    assert check_settings({"bot_timeout_s": None}, s, minima=None).bot_timeout_s == 30.0
    for bad, field in (({"deal_ms": -1}, "deal_ms"), ({"deal_ms": "x"}, "deal_ms"),
                       ({"nope": 1}, "nope"), ({"deal_ms": True}, "deal_ms"),
                       ({"deal_ms": 1.5}, "deal_ms"),
                       ({"bot_timeout_s": float("nan")}, "bot_timeout_s"),
                       ({"bot_timeout_s": float("inf")}, "bot_timeout_s"),
                       ({"deal_ms": 10**9}, "deal_ms")):
        with pytest.raises(InputError) as info:
            check_settings(bad, minima=None)
        assert info.value.field == field and field in str(info.value), bad
        assert info.value.code == "bad_setting"
    # A public server refuses timings below its minima (a table that deals at full speed).
    with pytest.raises(InputError, match="deal_ms must be at least"):
        check_settings({"deal_ms": 0}, minima=PUBLIC_MINIMA)
    assert check_settings({"deal_ms": 0}, minima=None).deal_ms == 0


# -- PostgreSQL: one owner per table --------------------------------------------------------------
def test_postgres_tables_have_one_owner(postgres_url: str) -> None:
    async def run() -> None:
        a, b = Store(postgres_url), Store(postgres_url)
        await a.start()
        await b.start()
        try:
            assert await a.own_table("t1") is True
            assert await a.own_table("t1") is True  # already ours
            assert await b.own_table("t1") is False  # another process owns it
            assert await b.own_table("t2") is True
            await a.disown_table("t1")
            assert await b.own_table("t1") is True
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


async def _stored_rows(path: Path, writer: str) -> list[tuple[object, ...]]:
    """The raw `actions` rows a writer stores for the same actions (issue 28's load:
    the inline writer inserts them on its DBAPI connection, not through SQLAlchemy)."""
    import sqlite3

    store = Store(f"sqlite+aiosqlite:///{path}", sqlite_writer=writer)
    await store.start()
    try:
        await store.create_table(_row())
        actions = [["draw"], ["play", 0, "AS AS"], {"type": "call", "text": "第二张 A♠ é"},
                   ["pass", 1], [1.5, None, True, {"k": [1, 2]}]]
        await asyncio.gather(*(store.append_action("abc", i, a, "standin" if i == 3 else None)
                               for i, a in enumerate(actions)))
        await store.append_action("abc", 5, ["draw"])
        with pytest.raises(Exception) as refused:  # the log is append-only on both paths
            await store.append_action("abc", 5, ["draw"])
        assert type(refused.value).__name__ == "IntegrityError"
        assert await store.load_actions("abc") == [*actions, ["draw"]]
        assert await store.load_marks("abc") == {3: "standin"}
    finally:
        await store.close()
    with sqlite3.connect(path) as con:
        return con.execute(
            'SELECT table_id, seq, action, "by" FROM actions ORDER BY seq'
        ).fetchall()


def test_the_inline_writers_fast_path_stores_what_sqlalchemy_stores(tmp_path: Path) -> None:
    inline = asyncio.run(_stored_rows(tmp_path / "inline.db", "inline"))
    through_sqlalchemy = asyncio.run(_stored_rows(tmp_path / "async.db", "async"))
    assert len(inline) == 6
    assert inline == through_sqlalchemy  # byte for byte: the same JSON text

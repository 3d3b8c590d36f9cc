"""Per-address limits across every worker (Redis): connections and open tables as
leases a worker renews (a crashed worker's expire), and table creations a minute."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from typing import TYPE_CHECKING, Any

from ..status import PLAYING, WAITING
from .keys import (
    ADMIT_LUA,
    CREATE_LUA,
    CREATOR_TTL_S,
    LIMIT_RENEW_S,
    LIMIT_TTL_MS,
    RENEW_LUA,
    creator_key,
    limit_key,
)
from .store import ClusterStore

if TYPE_CHECKING:

    from ..manager import Manager
    from ..tables import Table

log = logging.getLogger(__name__)


class Limits:
    """The limits' part of a `Cluster`; its state is set up by `_init_limits`."""

    manager: Manager
    store: ClusterStore
    redis: Any
    _bg: set[asyncio.Task[None]]

    def _init_limits(self) -> None:
        self._create_script = self.redis.register_script(CREATE_LUA)
        self._admit_script = self.redis.register_script(ADMIT_LUA)
        self._renew_script = self.redis.register_script(RENEW_LUA)
        # per-address slots this worker holds: (kind, addr) -> members (see `admit`)
        self._leases: dict[tuple[str, str], set[str]] = {}

    # -- limits across processes ---------------------------------------------------------
    async def count_create(self, addr: str, per_min: int) -> None:
        """Count a new table from `addr` in this minute, across every worker; `InputError`
        (rate_limited) once the address has made `per_min` this minute."""
        from ..schema import RATE_LIMITED, InputError

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
            keys=[limit_key(kind, addr)], args=[limit, member, LIMIT_TTL_MS])
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
        await self.redis.zrem(limit_key(kind, addr), member)

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
        from ..schema import TOO_MANY_TABLES, InputError

        if not await self.admit("open", addr, table_id, open_limit):
            raise InputError(
                f"too many open tables from your address (limit {open_limit})",
                code=TOO_MANY_TABLES,
            )
        try:
            await self.count_create(addr, per_min)
            await self.redis.set(creator_key(table_id), addr, ex=CREATOR_TTL_S)
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
                    keys=[limit_key(kind, addr)], args=[LIMIT_TTL_MS, *sorted(members)])

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
            creator = await self.redis.get(creator_key(table.id))
            if creator and not table.creator:
                table.creator = str(creator)


"""Hints at the web table (issue 32): a seated player asks, the search answers.

`{"type": "hint"}` from a seated player whose turn it is (or whose bury, or a
declaration it can make, is pending) is answered to that connection only with
`{"type": "hint", "seq", "kind", "cards", "reason": {key, figures, text}}`, computed
by `shengji.analysis.suggest` from that seat's `View` only (RULES §11), in the bots'
worker pool (`Manager.hint`), never on the table's event loop. Refusals (errors with a
`code` the client translates): `hints_off` (the table's `hints` setting, see
`schema.TableSettings`), `hint_not_your_turn`, `hint_busy` (one hint in flight per
seat). A hint for a position that moved on before it was ready is dropped with
`hint_stale`. The last answer of each seat is kept for its position (asking again costs
nothing).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any, Protocol

from shengji.analysis import hint_kind, suggest
from shengji.views import View

from .connection import Client, ClientError
from .schema import TableSettings
from .status import PLAYING


class HintTable(Protocol):
    """What the hints need of a table (`tables.Table` is one): its settings, seats,
    game and the hints' own bookkeeping, not the whole table (issue 30)."""

    id: str
    settings: TableSettings
    @property
    def seats(self) -> Iterable[Any]:
        """The table's seats (`seats.SeatMap`: a `Seat` or None each)."""
    store: Any
    status: str
    game: Any
    seq: int
    seed: int
    manager: Any
    hint_cache: dict[int, tuple[int, dict[str, Any]]]
    hints_in_flight: set[int]
    hint_tasks: set[asyncio.Task[None]]


log = logging.getLogger(__name__)

HINTS_OFF = "hints_off"
NOT_YOUR_TURN = "hint_not_your_turn"
BUSY = "hint_busy"
STALE = "hint_stale"


def compute(view: View, seed: int) -> dict[str, Any]:
    """The hint's JSON for `view` (run in a worker process: see `Manager.hint`)."""
    return suggest(view, seed=seed).to_json()


def resolve(table: HintTable) -> bool:
    """The `hints` setting of `table`: as the host chose it, or (null) on exactly when
    every other seat is a bot (one human seat)."""
    chosen = table.settings.hints
    if chosen is not None:
        return chosen
    humans = sum(1 for s in table.seats if s is not None and s.human)
    return humans == 1


async def freeze(table: HintTable) -> None:
    """At the start of the game: a null `hints` setting becomes its resolved value (stored)."""
    if table.settings.hints is None:
        table.settings = table.settings.model_copy(update={"hints": resolve(table)})
        await table.store.update_table(table.id, settings=table.settings.model_dump())


async def hint(table: HintTable, client: Client, msg: dict[str, Any]) -> None:
    """A seated player asks for a hint (see the module docstring)."""
    seat = client.seat
    if seat is None:
        raise ClientError("spectators cannot ask for hints: take a seat first",
                          code=NOT_YOUR_TURN)
    if table.status != PLAYING:
        raise ClientError("the game is not being played", code=NOT_YOUR_TURN)
    if not resolve(table):
        raise ClientError("hints are off at this table (the host's setting)", code=HINTS_OFF)
    view = table.game.view(seat)
    kind = hint_kind(view)
    if kind is None:
        raise ClientError("a hint is for your turn, your bury or a declaration you can make",
                          code=NOT_YOUR_TURN)
    seq = table.seq
    cached = table.hint_cache.get(seat)
    if cached is not None and cached[0] == seq:
        client.send(cached[1])
        return
    if seat in table.hints_in_flight:
        raise ClientError("a hint is already being worked out for your seat: wait for it",
                          code=BUSY)
    table.hints_in_flight.add(seat)
    task = asyncio.create_task(_answer(table, client, view, seat, seq, kind),
                               name=f"shengji-hint-{table.id}-{seat}")
    table.hint_tasks.add(task)
    task.add_done_callback(table.hint_tasks.discard)


async def _answer(table: HintTable, client: Client, view: View, seat: int, seq: int,
                  kind: str) -> None:
    """Work the hint out off the loop; send it to the asker if the position still holds
    (a declaration's hint also after the deal's next draws: it names its `seq`)."""
    try:
        body = await table.manager.hint(view, (table.seed ^ (seq * 0x9E3779B1)) & 0x7FFF_FFFF)
    except Exception:
        log.exception("table %s: the hint for seat %d failed", table.id, seat)
        client.error("internal error: the hint could not be worked out", code=STALE)
        return
    finally:
        table.hints_in_flight.discard(seat)
    if client.seat != seat or (table.seq != seq and kind != "declare"):
        client.error("the position changed before the hint was ready", code=STALE)
        return
    out = {"type": "hint", "seq": seq, **body}
    table.hint_cache[seat] = (seq, out)
    client.send(out)

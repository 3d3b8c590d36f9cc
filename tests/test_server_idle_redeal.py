"""Issue 28 (Low): a watched table whose seated humans all left redealt for ever (stand-ins
do not act in the deal or the declaration window, so RULES §3.5 redeals: 16 stored
actions a second); so did one whose seated players were all idle. After
`MAX_IDLE_REDEALS` redeals with no seated human acting the table pauses before the next
deal ("paused": "idle") until a seated player comes back, acts or sends `resume`.
Over real WebSockets."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from server_harness import WSPlayer, new_table, serve, stored_actions, table_of
from shengji.server.tables import MAX_IDLE_REDEALS

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(90)]

Msg = dict[str, Any]


def _redeals(p: WSPlayer) -> int:
    return sum(1 for m in p.log if m["type"] == "state"
               for e in m.get("events", ()) if e["type"] == "redealt")


def _paused(m: Msg) -> bool:
    return m["type"] == "state" and m["table"]["paused"] == "idle"


def _started_then_left(client: Any) -> tuple[str, list[str], WSPlayer]:
    """A table of four seated humans, started, that all of them left; a spectator stays:
    (id, the players' tokens, the spectator)."""
    tid, host = new_table(client)
    players = [WSPlayer(client, tid) for _ in range(4)]
    players[0].hello(host)
    players[0].sit(0, "Host")
    for i, p in enumerate(players[1:], 1):
        p.hello()
        p.sit(i, f"P{i}")
    players[0].send({"type": "start"})
    watcher = WSPlayer(client, tid)
    watcher.hello()
    for p in players:  # every seated human leaves; the spectator stays
        p.close()
    return tid, [str(p.token) for p in players], watcher


def test_a_table_whose_players_left_or_idle_stops_redealing(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db) as client:
        tid, tokens, watcher = _started_then_left(client)
        paused = watcher.until(_paused, timeout=30)
        assert _redeals(watcher) == MAX_IDLE_REDEALS
        table = table_of(client, tid)
        seq = paused["seq"]

        async def step() -> float | None:
            return await table.bots._step()

        # The driver waits to be woken (no deal, no timer) and nothing more is stored.
        assert watcher.ws.portal.call(step) == math.inf
        watcher.sync()
        assert watcher.call(lambda: table.seq) == seq == stored_actions(db, tid)
        # A spectator cannot end the pause.
        assert "spectators cannot resume" in watcher.error({"type": "resume"})
        # A seated player comes back: the deal goes on.
        back = WSPlayer(client, tid)
        back.hello(tokens[2])
        watcher.until(lambda m: m["type"] == "state" and m["table"]["paused"] is None)
        watcher.until(lambda m: m["type"] == "state" and m["seq"] > seq)
        # It stays but does nothing (an idle player): paused again after as many redeals.
        watcher.until(_paused, timeout=30)
        assert _redeals(watcher) == 2 * MAX_IDLE_REDEALS
        seq = watcher.call(lambda: table.seq)
        back.send({"type": "resume"})  # the client's "deal again" button
        watcher.until(lambda m: m["type"] == "state" and m["seq"] > seq
                      and m["table"]["paused"] is None)


def test_a_paused_table_is_still_paused_after_a_restart(tmp_path: Path) -> None:
    """The idle-redeal count is read back from the log (`Table._replay_idle`): a table
    paused before the server stopped does not redeal `MAX_IDLE_REDEALS` more times after
    it restarts (before, the count lived in memory only and started again at 0)."""
    db = tmp_path / "db.sqlite"
    with serve(db) as client:
        tid, _, watcher = _started_then_left(client)
        paused = watcher.until(_paused, timeout=30)
        seq = paused["seq"]
    assert stored_actions(db, tid) == seq
    with serve(db) as client:  # restarted: every unfinished table is replayed
        watcher = WSPlayer(client, tid)
        first = watcher.hello()
        assert first["table"]["paused"] == "idle" and first["seq"] == seq
        table = table_of(client, tid)

        async def step() -> float | None:
            return await table.bots._step()

        assert watcher.ws.portal.call(step) == math.inf  # nothing to do until one is back
        watcher.sync()
        assert watcher.call(lambda: table.seq) == seq == stored_actions(db, tid)

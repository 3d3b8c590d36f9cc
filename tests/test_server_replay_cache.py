"""Issue 28 (Low): `GET /api/tables/{id}/replay` replayed the whole log for every
anonymous request. The payload is cached by (table, log length) and the endpoint is rate
limited per client address (429 with Retry-After)."""

from __future__ import annotations

from pathlib import Path

import pytest

import shengji.server.app as app_module
from server_harness import count_calls, freeze, host_table, serve

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


def test_a_second_replay_of_an_unchanged_log_is_not_replayed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = count_calls(monkeypatch, app_module, "replay_payload",
                        lambda *args: len(args[2]))  # the log length replayed
    with serve(tmp_path / "db.sqlite") as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
        freeze(p, table)  # the log stops growing
        p.sync()
        first = client.get(f"/api/tables/{table.id}/replay")
        second = client.get(f"/api/tables/{table.id}/replay")
        assert first.status_code == second.status_code == 200
        assert first.json() == second.json()
        assert len(calls) == 1
        # A chat line is not in the log: still cached, but the payload carries it.
        p.send({"type": "chat", "text": "hello replay"})
        p.until(lambda m: m["type"] == "chat")
        third = client.get(f"/api/tables/{table.id}/replay")
        assert [m["text"] for m in third.json()["chat"]][-1:] == ["hello replay"]
        assert len(calls) == 1
        # The log grows (one step of the table's driver): replayed afresh.
        n = p.call(lambda: len(table.game.actions))

        async def step() -> None:
            while len(table.game.actions) == n:
                await table.bots._step()

        p.ws.portal.call(step)
        client.get(f"/api/tables/{table.id}/replay")
        assert len(calls) == 2 and calls[1] > calls[0]


def test_replays_are_rate_limited_per_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = count_calls(monkeypatch, app_module, "replay_payload",
                        lambda *args: len(args[2]))  # the log length replayed
    with serve(tmp_path / "db.sqlite", replays_per_min=3) as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
        freeze(p, table)
        for _ in range(3):
            assert client.get(f"/api/tables/{table.id}/replay").status_code == 200
        refused = client.get(f"/api/tables/{table.id}/replay")
        assert refused.status_code == 429
        assert refused.json()["code"] == "rate_limited"
        assert "limit 3 a minute" in refused.json()["detail"]
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert len(calls) == 1  # the cache answered the admitted ones; the refused ran nothing

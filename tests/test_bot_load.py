"""The bots' pool under load (issue 35, `server/botload.py`): when the pool's backlog would
make a person wait past `bot_wait_ms`, a searching bot's decision is given fewer rollouts
(down to a quarter of its count), and the shed decision is reported as degraded in the
table's `bots` over a real WebSocket and in `/api/cluster`'s figures, never silently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server_harness import play_until_bots, serve
from shengji.arena import deal_round, deal_seed
from shengji.bots import LEVEL_ITERS, ExpertAgent, make_agent
from shengji.driver import step
from shengji.server import botload
from shengji.server.botdriver import think_in_pool
from shengji.server.botload import MIN_SHARE, BotLoad


def test_an_idle_pool_gives_every_decision_its_count() -> None:
    load = BotLoad(1.2, per_rollout_s=3e-4)
    assert load.plan(400, cpus=2) == 400  # 400 x 0.6 x 0.3 ms = 72 ms: well within 1.2 s
    assert load.in_flight() == 0 and load.backlog_s() == 0


def test_a_backlog_sheds_the_rollouts_that_would_end_past_the_bound() -> None:
    load = BotLoad(1.0, per_rollout_s=1e-3)  # a decision of 400: 0.24 CPU s predicted
    tickets = [load.start(400) for _ in range(7)]  # 1.68 CPU s ahead, on 2 CPUs: 0.84 s
    assert load.in_flight() == 7 and load.backlog_s() == pytest.approx(1.68)
    got = load.plan(400, cpus=2)
    # what is left of the bound after the backlog (0.16 s), at 0.6 ms a rollout
    assert 100 < got < 400 and got == pytest.approx(0.16 / 6e-4, abs=1)
    assert load.plan(400, cpus=8) == 400  # more CPUs drain the same backlog in time
    for t in tickets[:6]:
        load.done(t, 400, 240, 0.24)
    assert load.plan(400, cpus=2) == 400  # the backlog drained
    for _ in range(30):
        load.start(400)
    # far behind: never below the floor, a quarter of the count
    assert load.plan(400, cpus=2) == round(400 * MIN_SHARE) == 100


def test_what_the_pool_reports_moves_the_prediction() -> None:
    load = BotLoad(1.0, per_rollout_s=1e-3)
    for _ in range(200):
        load.done(load.start(100), 100, 50, 50 * 2e-4)  # half the count, 0.2 ms a rollout
    assert load.per_rollout_s == pytest.approx(2e-4, rel=0.01)
    assert load.used == pytest.approx(0.5, rel=0.01)
    t = load.start(100)
    load.done(t, 100, None, None)  # a failed decision only leaves the backlog
    assert load.in_flight() == 0 and load.per_rollout_s == pytest.approx(2e-4, rel=0.01)


def test_the_pools_cpus_are_read_now_and_then(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(botload.time, "monotonic", lambda: now[0])
    load = BotLoad(1.0)
    reads = []

    def cpus() -> float | None:
        reads.append(1)
        return 8.0 if len(reads) == 1 else None

    assert load.cpus(cpus) == 8.0
    now[0] += 1
    assert load.cpus(cpus) == 8.0 and len(reads) == 1  # kept a few seconds
    now[0] += 10
    assert load.cpus(cpus) == 1.0 and len(reads) == 2  # unknown (an unreachable cluster)


def _play_view(index: int) -> Any:
    rnd = deal_round(deal_seed(35, index))
    bots = [make_agent("heuristic", s) for s in range(4)]
    while not (rnd.phase == "play" and len(rnd.tricks) == 3 and rnd.current):
        step(rnd, bots)
    return rnd.view(rnd.to_act)


def test_a_shed_decision_searches_fewer_rollouts_once_and_says_so() -> None:
    view = _play_view(0)
    agent = ExpertAgent(3, iters=400)
    action, thought, cpu_s = think_in_pool(agent, view, 40)
    assert thought.iters == 400  # the count is the bot's; only this decision had fewer
    search = thought.last_search
    assert search is not None and search["asked"] == 40 and 0 < search["done"] <= 40
    assert search["degraded"] is True and search["shed"] == 400
    assert cpu_s > 0 and action.seat == view.seat
    _, again, _ = think_in_pool(thought, view)  # the next decision: its whole count
    assert again.last_search is not None and again.last_search["asked"] == 400
    assert "shed" not in again.last_search


def test_a_pool_behind_its_bound_sheds_visibly_over_the_websocket(tmp_path: Path) -> None:
    # a 1 ms bound: no decision can end within it, so each searched one gets the floor,
    # a quarter of the expert's 400 rollouts, and is reported shed and degraded
    with serve(tmp_path / "db.sqlite", bot_wait_ms=1, bot_workers=1) as client:
        p, table, bots = play_until_bots(client, {1: "expert", 2: "heuristic", 3: "expert"},
                                         4, lambda b: b["shed"] >= 4)
        assert bots["degraded"] >= bots["shed"] >= 4
        floor = round(LEVEL_ITERS["expert"] * MIN_SHARE)
        for e in bots["seats"]:
            assert e["level"] == "expert" and e["shed"] >= 1
            assert e["rollouts_asked"] in (floor, 2 * floor)  # (the bury searches twice)
        summary = p.call(lambda: table.manager.bot_budgets())  # /api/cluster's `bots`
        assert summary["shed"] >= bots["shed"] and summary["wait_ms"] == 1
        assert table.id in summary["degraded_tables"] and "load" not in summary
        load = client.get("/api/bots").json()["pool"]["load"]  # a one-process server's view
        assert load["shed"] >= bots["shed"] and load["rollout_ms"] > 0
        # the manager's own report is the same record; the bots play on meanwhile, so a
        # decision may have started or been shed between the two reads: only forward
        later = p.call(lambda: table.manager.pool_status())["load"]
        assert later.keys() == load.keys() and later["shed"] >= load["shed"]


def test_an_idle_pool_sheds_nothing(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", bot_wait_ms=600_000, bot_workers=1) as client:
        _, _, bots = play_until_bots(client, {1: "fast", 2: "heuristic", 3: "fast"}, 5,
                                     lambda b: b["decisions"] >= 6)
        assert bots["shed"] == 0 and bots["degraded"] == 0
        assert all(e["rollouts_asked"] in (LEVEL_ITERS["fast"], 2 * LEVEL_ITERS["fast"])
                   for e in bots["seats"])

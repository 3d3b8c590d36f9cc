"""The expert's honest budget (issue 35): web tables play the levels by rollout count, the
same search however slow the clock; a wall-clock cap bounds a decision, and a search it
cuts short is a degraded decision, reported in the table's state (`table.bots`) over a
real WebSocket and by `GET /api/tables/{id}`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server_harness import play_until_bots, serve
from shengji.arena import deal_round, deal_seed
from shengji.bots import LEVEL_ITERS, LEVELS, ExpertAgent, make_agent
from shengji.bots import expert as expert_mod
from shengji.bots.heuristic import HeuristicAgent
from shengji.driver import play_round
from shengji.views import View


class _SlowClock:
    """A clock that jumps `step` seconds at every reading: a machine so busy that every
    world of a search takes seconds of wall-clock time."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


class _Collector:
    """The heuristic's moves, keeping seat 0's play views (fixed positions to ask)."""

    def __init__(self, seat: int, views: list[View]) -> None:
        self.base = HeuristicAgent(seat)
        self.seat, self.views = seat, views

    def act(self, view: View) -> Any:
        if self.seat == 0 and view.phase == "play" and len(self.views) < 8:
            self.views.append(view)
        return self.base.act(view)


@pytest.fixture(scope="module")
def views() -> list[View]:
    out: list[View] = []
    play_round(deal_round(deal_seed(35, 0)), [_Collector(s, out) for s in range(4)])
    assert len(out) == 8
    return out


def _counted(agent: ExpertAgent) -> list[int]:
    """Count the agent's rollouts (every rollout goes through `_rollout`)."""
    n = [0]
    inner = agent._rollout

    def rollout(*args: Any) -> float:
        n[0] += 1
        return inner(*args)

    agent._rollout = rollout  # type: ignore[method-assign]
    return n


def _search(views: list[View], make: Any) -> list[tuple[Any, Any, int]]:
    out = []
    for i, v in enumerate(views):
        agent = make(i)
        n = _counted(agent)
        action = agent.act(v)
        out.append((action, agent.last_search, n[0]))
    return out


def test_a_count_budget_does_its_rollouts_whatever_the_clock(
    views: list[View], monkeypatch: pytest.MonkeyPatch,
) -> None:
    iters = 60
    calm = _search(views, lambda i: ExpertAgent(i, iters=iters))
    monkeypatch.setattr(expert_mod, "time", _SlowClock(5.0))  # 5 s per clock reading
    busy = _search(views, lambda i: ExpertAgent(i, iters=iters))
    assert busy == calm  # the same moves, the same rollouts, none degraded
    searched = [s for _, s, _ in calm if s is not None]
    assert searched, "some decisions have several candidates"
    for _, s, n in calm:
        if s is None:
            continue
        assert s == {"asked": iters, "done": n, "degraded": False}
        assert n <= iters
    # the count was spent (a search ends when the next world would pass it, or when every
    # candidate scores alike): at least one decision comes within one world of it
    assert max(s["done"] for s in searched) > iters - 6


def test_the_cap_cuts_a_count_budget_short_and_marks_it_degraded(
    views: list[View], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(expert_mod, "time", _SlowClock(5.0))
    got = _search(views, lambda i: ExpertAgent(i, iters=10_000, cap_ms=2000))
    searched = [(s, n) for _, s, n in got if s is not None]
    assert searched
    for s, n in searched:
        assert s["degraded"] is True and s["asked"] == 10_000
        assert 0 < s["done"] == n < 10_000  # one world, then the cap
    # an idle clock and a cap far away: the same count, not degraded
    monkeypatch.setattr(expert_mod, "time", _SlowClock(1e-9))
    calm = _search(views, lambda i: ExpertAgent(i, iters=30, cap_ms=2000))
    assert all(s is None or not s["degraded"] for _, s, _ in calm)


def test_web_tables_play_the_levels_by_count_under_the_cap() -> None:
    for name in LEVELS:
        a = make_agent(name, 1, counted=True, cap_ms=1500)
        assert isinstance(a, ExpertAgent)
        assert (a.iters, a.ms, a.cap_ms) == (LEVEL_ITERS[name], None, 1500)
        b = make_agent(name, 1)  # elsewhere (the arena, `shengji play`): the time budget
        assert isinstance(b, ExpertAgent) and (b.ms, b.iters, b.cap_ms) == (
            LEVELS[name], None, None)
    explicit = make_agent("expert:ms=300", 1, counted=True, cap_ms=900)
    assert isinstance(explicit, ExpertAgent) and (explicit.ms, explicit.iters) == (300, None)


@pytest.mark.parametrize("workers", [0, 1])
def test_a_cut_decision_is_reported_over_the_websocket_and_http(
    tmp_path: Path, workers: int,
) -> None:
    # a 1 ms cap: no expert decision spends its 400 rollouts (one world of several
    # candidates takes longer), so each searched one is degraded; bot_workers=1 thinks
    # in the process pool (the record travels back with the agent)
    with serve(tmp_path / "db.sqlite", bot_cap_ms=1, bot_workers=workers) as client:
        p, table, bots = play_until_bots(client, {1: "expert", 2: "expert", 3: "heuristic"},
                                         3, lambda b: b["degraded"] >= 3)
        assert bots["decisions"] >= bots["degraded"] >= 3
        assert bots["rollouts_share"] is not None and 0 < bots["rollouts_share"] < 1
        seats = {e["seat"]: e for e in bots["seats"]}
        assert set(seats) <= {1, 2} and seats  # the heuristic does not search
        for e in seats.values():
            assert e["level"] == "expert"
            assert e["rollouts_asked"] in (LEVEL_ITERS["expert"], 2 * LEVEL_ITERS["expert"])
            assert e["rollouts_done_median"] < LEVEL_ITERS["expert"]
        info = client.get(f"/api/tables/{table.id}").json()
        assert info["bots"]["degraded"] >= bots["degraded"]
        summary = p.call(lambda: table.manager.bot_budgets())  # /api/cluster's `bots`
        assert summary["degraded"] >= bots["degraded"] and summary["cap_ms"] == 1
        assert summary["degraded_tables"] == [table.id]


def test_an_uncut_count_is_reported_whole(tmp_path: Path) -> None:
    # a cap no decision reaches: every searched decision does its count (within one world)
    with serve(tmp_path / "db.sqlite", bot_cap_ms=600_000) as client:
        _, _, bots = play_until_bots(client, {1: "fast", 2: "heuristic", 3: "fast"}, 5,
                                     lambda b: b["decisions"] >= 6)
        assert bots["degraded"] == 0
        for e in bots["seats"]:
            assert e["level"] == "fast" and e["degraded"] == 0
            assert e["rollouts_asked"] in (LEVEL_ITERS["fast"], 2 * LEVEL_ITERS["fast"])
            assert 0 < e["rollouts_done_median"] <= 2 * LEVEL_ITERS["fast"]
        assert bots["rollouts_share"] is not None and bots["rollouts_share"] > 0

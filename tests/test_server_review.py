"""Issue 32 (Web): `GET /api/tables/{id}/review?seat=S&round=N`, one seat's review of a
finished round, computed once in the bots' pool (never on the loop) and cached."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import shengji.server.reviews as reviews_module
from server_harness import Human, count_calls, freeze, host_table, serve
from shengji.analysis import CLASSES, Budget

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(90)]

SMALL = Budget(worlds=2, rollouts=1, candidates=3)


def _review_with(monkeypatch: pytest.MonkeyPatch, compute: Callable[..., Any]) -> None:
    """Reviews computed by `compute` (in place of the real one), with the small search."""
    monkeypatch.setattr(reviews_module, "compute", compute)
    monkeypatch.setattr(reviews_module, "REVIEW_BUDGET", SMALL)


def _round_one_played(client: Any) -> tuple[Any, Any]:
    """A hosted table whose first round its host finished playing; its log then frozen."""
    p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
    Human(p, table, seed=3).play_until(
        lambda m: m["type"] == "state" and m["view"]["round_no"] >= 1, timeout=60)
    freeze(p, table)
    return p, table


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Count the reviews computed (round, seat) and keep the search small."""
    calls = count_calls(monkeypatch, reviews_module, "compute", lambda *args: (args[3], args[4]))
    monkeypatch.setattr(reviews_module, "REVIEW_BUDGET", SMALL)
    return calls


def test_a_finished_round_is_reviewed_once_then_cached_and_an_unfinished_one_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting(monkeypatch)
    with serve(tmp_path / "db.sqlite") as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
        url = f"/api/tables/{table.id}/review"
        # Round 1 is being played: refused (its hindsight would show the hands).
        early = client.get(url, params={"seat": 0, "round": 1},
                           headers={"Authorization": f"Bearer {p.token}"})
        assert early.status_code == 409 and early.json()["code"] == "round_unfinished"
        Human(p, table, seed=3).play_until(
            lambda m: m["type"] == "state" and m["view"]["round_no"] >= 1, timeout=60)
        freeze(p, table)
        p.sync()
        # Round 2 has not finished: refused; round 1 has.
        later = client.get(url, params={"seat": 0, "round": 2},
                           headers={"Authorization": f"Bearer {p.token}"})
        assert later.status_code == 409 and "RULES §11" in later.json()["detail"]
        # While the game is on, only the reviewed seat's own token gets it.
        anon = client.get(url, params={"seat": 0, "round": 1})
        assert anon.status_code == 403 and anon.json()["code"] == "review_own_seat"
        other = client.get(url, params={"seat": 1, "round": 1},
                           headers={"Authorization": f"Bearer {p.token}"})
        assert other.status_code == 403
        assert calls == []  # nothing was computed for a refusal
        first = client.get(url, params={"seat": 0, "round": 1},
                           headers={"Authorization": f"Bearer {p.token}"})
        assert first.status_code == 200, first.text
        body = first.json()
        assert body["seat"] == 0 and body["round_no"] == 0 and body["finished"]
        assert body["decisions"], "a whole round has decisions to review"
        for d in body["decisions"]:
            assert d["knowledge"]["verdict"] in CLASSES
            assert d["hindsight"] is not None and d["hindsight"]["verdict"] in CLASSES
            assert d["knowledge"]["reason"]["key"].startswith("analysis.reason.")
        assert body["budget"] == {"worlds": 2, "rollouts": 1, "candidates": 3, "endgame": 3}
        assert 0 <= body["accuracy"] <= 100
        second = client.get(url, params={"seat": 0, "round": 1},
                            headers={"Authorization": f"Bearer {p.token}"})
        assert second.json() == body
        n = len(calls)
        assert 1 < n <= reviews_module.PARTS  # a few pool tasks
        assert set(calls) == {(0, 0)}  # computed once, then served from memory
        bad = client.get(url, params={"seat": 4, "round": 1})
        assert bad.status_code == 422
        # Once the game is over, anyone who may see the replay (every hand) may see it.
        p.call(lambda: setattr(table, "status", "finished"))
        assert client.get(url, params={"seat": 1, "round": 1}).status_code == 200
        assert set(calls[n:]) == {(0, 1)}


def test_the_review_runs_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    import threading

    threads: list[str] = []
    real = reviews_module.compute

    def where(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(*args)

    _review_with(monkeypatch, where)
    with serve(tmp_path / "db.sqlite") as client:
        p, table = _round_one_played(client)
        loop_thread = p.call(lambda: threading.current_thread().name)
        r = client.get(f"/api/tables/{table.id}/review", params={"seat": 0, "round": 1},
                       headers={"Authorization": f"Bearer {p.token}"})
        assert r.status_code == 200
        assert threads and threads[0] != loop_thread


def test_with_a_worker_pool_the_review_is_computed_there_and_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reviews_module, "REVIEW_BUDGET", SMALL)
    with serve(tmp_path / "db.sqlite", bot_workers=1) as client:
        p, table = _round_one_played(client)
        manager: Any = client.app.state.manager  # type: ignore[attr-defined]
        submitted: list[str] = []
        pool = client.portal.call(manager._pool)._executor()  # the local process pool
        real_submit = pool.submit

        def submit(fn: Any, *args: Any, **kwargs: Any) -> Any:
            submitted.append(fn.__name__)
            return real_submit(fn, *args, **kwargs)

        monkeypatch.setattr(pool, "submit", submit)
        r = client.get(f"/api/tables/{table.id}/review", params={"seat": 0, "round": 1},
                       headers={"Authorization": f"Bearer {p.token}"})
        assert r.status_code == 200, r.text
        assert "compute" in submitted  # in the worker process, not a thread of the loop
        seed, options = p.call(lambda: (table.seed, table.options))
        actions = p.call(lambda: [a.to_json() for a in table.game.actions])
        direct = reviews_module.compute(seed, options, actions, 0, 0, SMALL, 0)
        assert r.json() == direct


def test_a_review_shows_its_progress_is_kept_with_the_game_and_feeds_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    calls = _counting(monkeypatch)
    counted = reviews_module.compute
    reached, gate = threading.Event(), threading.Event()

    def gated(*args: Any) -> Any:
        if args[7:] and args[7][0] > 0:  # the second part waits for the test
            reached.set()
            assert gate.wait(60)
        return counted(*args)

    monkeypatch.setattr(reviews_module, "compute", gated)
    db = tmp_path / "db.sqlite"
    with serve(db) as client:
        p, table = _round_one_played(client)
        auth = {"Authorization": f"Bearer {p.token}"}
        base = f"/api/tables/{table.id}"
        assert client.get(base + "/accuracy", params={"round": 2}).status_code == 409
        first = client.get(base + "/review", params={"seat": 0, "round": 1, "wait": "false"},
                           headers=auth)
        assert first.status_code == 202 and first.json()["code"] == "analysing"
        assert reached.wait(60)
        mid = client.get(base + "/review", params={"seat": 0, "round": 1, "wait": "false"},
                         headers=auth).json()
        first_part = reviews_module.split(mid["total"])[0]
        assert mid["total"] > 9 and mid["done"] == first_part[1] > 0
        assert mid["detail"] == f"analysing {mid['done']}/{mid['total']}"
        # the summary's line for the only human seat says how far its analysis is
        line = client.get(base + "/accuracy", params={"round": 1}).json()
        assert line["seats"] == [{"seat": 0, "name": line["seats"][0]["name"],
                                  "may_review": False, "status": "analysing",
                                  "done": mid["done"], "total": mid["total"]}]
        gate.set()
        body = client.get(base + "/review", params={"seat": 0, "round": 1},
                          headers=auth).json()
        mine = client.get(base + "/accuracy", params={"round": 1}, headers=auth).json()
        assert mine["seats"][0] | {"name": None} == {
            "seat": 0, "name": None, "may_review": True, "status": "done",
            "accuracy": body["accuracy"], "decisions": len(body["decisions"]),
            "hindsight_accuracy": body["hindsight_accuracy"]}
        anon = client.get(base + "/accuracy", params={"round": 1}).json()["seats"][0]
        assert anon["accuracy"] == body["accuracy"] and anon["hindsight_accuracy"] is None
        assert not anon["may_review"]  # hindsight only where the review may be seen
        n = len(calls)
        assert n == len(reviews_module.split(mid["total"]))
    # A new server on the same database reads the review back: nothing is recomputed.
    with serve(db) as client:
        again = client.get(base + "/review", params={"seat": 0, "round": 1}, headers=auth)
        assert again.status_code == 200 and again.json() == body
        assert len(calls) == n


def test_a_failed_review_is_said_once_and_not_retried(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    tries: list[Any] = []

    def broken(*args: Any) -> Any:
        tries.append(args[7:])
        raise ValueError("no world fits")

    _review_with(monkeypatch, broken)
    with serve(tmp_path / "db.sqlite") as client:
        p, table = _round_one_played(client)
        auth = {"Authorization": f"Bearer {p.token}"}
        url = f"/api/tables/{table.id}"
        r = client.get(url + "/review", params={"seat": 0, "round": 1}, headers=auth)
        assert r.status_code == 500 and r.json()["code"] == "review_failed"
        assert "no world fits" in r.json()["detail"]
        line = client.get(url + "/accuracy", params={"round": 1}, headers=auth).json()
        assert [row["status"] for row in line["seats"]] == ["error"]
        again = client.get(url + "/review", params={"seat": 0, "round": 1, "wait": "false"},
                           headers=auth)
        assert again.status_code == 500 and len(tries) == 1  # not worked out again

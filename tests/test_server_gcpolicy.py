"""The server process's garbage-collector settings (`shengji.server.gcpolicy`)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from shengji.server import gcpolicy


@pytest.fixture
def restore_gc() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)
    gc.enable()


class _Node:
    """A cycle's node: reachable only from itself once dropped (cyclic garbage)."""

    def __init__(self) -> None:
        self.me = self


def test_tune_freezes_start_up_and_raises_thresholds(
    restore_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SHENGJI_GC", raising=False)
    assert gcpolicy.tune() == gcpolicy.THRESHOLDS
    assert gc.get_threshold() == gcpolicy.THRESHOLDS and gc.isenabled()
    assert gc.get_freeze_count() > 0
    # young collections are rarer than CPython's default; the oldest keeps its rule
    assert gcpolicy.THRESHOLDS[0] > 700 and gcpolicy.THRESHOLDS[2] == 10


def test_tune_starts_a_pacer_that_freezes_each_young_pass_survivors(
    restore_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHENGJI_GC", "pace:10")

    async def run() -> None:
        timer = gcpolicy.PassTimer()
        policy = gcpolicy.tune()
        try:
            assert isinstance(policy, gcpolicy.Pacer) and policy.interval_s == 0.01
            assert not gc.isenabled()  # no automatic pass: the timer decides
            frozen = gc.get_freeze_count()
            assert frozen > 0  # what start-up built
            kept = [[i] for i in range(5000)]  # young, and alive at the next pass
            await asyncio.sleep(0.1)
            assert timer.stats()["young"]["passes"] >= 3
            # the survivors are frozen: not in any generation a pass scans
            assert gc.get_freeze_count() > frozen + len(kept) // 2
            scanned = {id(o) for g in range(3) for o in gc.get_objects(generation=g)}
            assert not any(id(x) in scanned for x in kept)
        finally:
            assert isinstance(policy, gcpolicy.Pacer)
            policy.close()
            timer.close()
        assert gc.isenabled()
        passes = timer.stats()["young"]["passes"]
        await asyncio.sleep(0.05)
        assert timer.stats()["young"]["passes"] == passes  # closed: no more ticks

    asyncio.run(run())


def test_a_full_pass_frees_the_cycles_frozen_objects_hold(restore_gc: None) -> None:
    async def run() -> None:
        pacer = gcpolicy.Pacer(interval_s=0.01)  # no full pass by itself for 10 minutes
        try:
            nodes = [_Node() for _ in range(300)]
            refs = [weakref.ref(n) for n in nodes]
            await asyncio.sleep(0.05)  # frozen by the passes meanwhile
            del nodes
            await asyncio.sleep(0.05)
            assert all(r() is not None for r in refs)  # frozen: no young pass frees them
            assert pacer.full() >= 300
            assert all(r() is None for r in refs)
            assert pacer.full_passes == 1
        finally:
            pacer.close()

    asyncio.run(run())


def test_the_pacer_runs_a_full_pass_once_the_frozen_heap_has_grown(
    restore_gc: None,
) -> None:
    async def run() -> None:
        gc.collect()
        gc.freeze()
        pacer = gcpolicy.Pacer(interval_s=0.01, growth=0.05, full_min_s=0.0, check_s=0.02)
        try:
            grown = [[i] for i in range(gc.get_freeze_count() // 10 + 1000)]
            await asyncio.sleep(0.1)
            assert pacer.full_passes >= 1
            assert len(grown) > 0
        finally:
            pacer.close()

    asyncio.run(run())


def test_environment_sets_thresholds_instead_or_turns_it_off(
    restore_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHENGJI_GC", "1000,5,7")
    assert gcpolicy.tune() == (1000, 5, 7)
    assert gc.get_threshold() == (1000, 5, 7) and gc.isenabled()
    assert gc.get_freeze_count() > 0
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    monkeypatch.setenv("SHENGJI_GC", "off")
    assert gcpolicy.tune() is None
    assert gc.get_threshold() == (700, 10, 10) and gc.get_freeze_count() == 0


def test_apps_built_in_tests_leave_the_collector_alone(
    restore_gc: None, tmp_path: object
) -> None:
    """`tune_gc` is the process entry point's (`run`), not every `create_app`'s."""
    from tests.server_harness import serve

    before = gc.get_threshold()
    with serve(tmp_path / "db.sqlite") as client:  # type: ignore[operator]
        assert client.get("/api/tables").status_code == 200
    assert gc.get_threshold() == before


def test_the_pass_timer_counts_and_times_each_generations_passes() -> None:
    timer = gcpolicy.PassTimer()
    try:
        for generation in (0, 0, 1, 2):
            gc.collect(generation)
        stats = timer.stats()
        # (an automatic pass may slip in between: at least these)
        assert stats["young"]["passes"] >= 2 and stats["middle"]["passes"] >= 1
        assert stats["full"]["passes"] >= 1
        for g in stats.values():
            assert 0 <= g["max_ms"] <= g["total_ms"] + 0.1
        assert stats["full"]["total_ms"] > 0
    finally:
        timer.close()
    assert timer._on_pass not in gc.callbacks
    young = timer.stats()["young"]["passes"]
    gc.collect(0)
    assert timer.stats()["young"]["passes"] == young  # closed: no longer counting

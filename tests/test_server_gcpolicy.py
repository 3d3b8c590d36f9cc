"""The server process's garbage-collector settings (`shengji.server.gcpolicy`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from shengji.server import gcpolicy


@pytest.fixture
def restore_gc() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


def test_tune_freezes_start_up_and_raises_thresholds(
    restore_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SHENGJI_GC", raising=False)
    assert gcpolicy.tune() == gcpolicy.THRESHOLDS
    assert gc.get_threshold() == gcpolicy.THRESHOLDS
    assert gc.get_freeze_count() > 0
    # young collections are rarer than CPython's default; the oldest keeps its rule
    assert gcpolicy.THRESHOLDS[0] > 700 and gcpolicy.THRESHOLDS[2] == 10


def test_environment_overrides_or_turns_it_off(
    restore_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHENGJI_GC", "1000,5,7")
    assert gcpolicy.tune() == (1000, 5, 7)
    assert gc.get_threshold() == (1000, 5, 7)
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

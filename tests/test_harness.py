"""The test harness itself: a missing service skips a test, except under CI=true."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from server_harness import import_or_skip, service_or_skip
from shengji.server.localcluster import ServiceError


@contextlib.contextmanager
def _missing() -> Iterator[str]:
    raise ServiceError("redis-server is not installed")
    yield "never"  # pragma: no cover


def test_a_missing_service_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="redis-server is not installed"):
        next(service_or_skip(_missing()))


def test_a_missing_service_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true.*redis-server is not installed"):
        next(service_or_skip(_missing()))


def test_a_present_service_yields_its_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert next(service_or_skip(contextlib.nullcontext("redis://x"))) == "redis://x"


def test_a_missing_client_library_skips_outside_ci_and_fails_under_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "redis", None)  # as if redis-py were not installed
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"\(redis-py\) is not installed"):
        import_or_skip("redis", "the cluster extra (redis-py) is not installed")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"CI=true.*\(redis-py\) is not installed"):
        import_or_skip("redis", "the cluster extra (redis-py) is not installed")
    assert import_or_skip("json", "stdlib").dumps(1) == "1"

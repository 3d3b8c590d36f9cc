"""Shared test helpers and fixtures (the browser tests' `server` and `browser` too)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import pytest

from shengji import Card, parse_cards


def C(text: str) -> list[Card]:  # noqa: N802 - short helper for card lists
    """Cards from notation."""
    return parse_cards(text)


@pytest.fixture(scope="module")
def _playwright() -> Iterator[Any]:
    """The Playwright driver, shared by a test file (it holds no browser or page)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the test (`item.rep_call`, ...): the `server` fixture
    reads it to start a fresh server after a failed test."""
    rep = yield
    setattr(item, "rep_" + rep.when, rep)
    return rep


@pytest.fixture(scope="module")
def server_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The real web server of a browser test file, a subprocess on a free local port
    (`server_harness.ServerProcess`); use `server` for its URL (skipped, or failed under
    `CI=true`, where Chromium is missing)."""
    from browser_helpers import CHROMIUM
    from server_harness import ServerProcess, skip_or_fail

    if not os.path.exists(CHROMIUM):
        skip_or_fail(f"{CHROMIUM} is missing")
    proc = ServerProcess(tmp_path_factory.mktemp("browser"))
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture
def server(server_process: Any, request: pytest.FixtureRequest) -> Iterator[str]:
    """The base URL of a live server for this test: the file's server, started again
    first if it died or stopped answering, or if the test before failed (issue #29
    item 13: one test that breaks or kills the server never breaks the next test)."""
    yield server_process.ensure()
    rep = getattr(request.node, "rep_call", None)
    if rep is None or rep.failed:  # the test failed (or its setup did): a clean one next
        server_process.stale = True


@pytest.fixture
def browser(server: str, _playwright: Any) -> Iterator[Any]:
    """A fresh Chromium for each test: a test that fails, hangs or crashes its browser
    never leaves a broken browser or page to the next test (issue #29 item 13). The
    Playwright driver (`_playwright`) is shared by a file's tests."""
    from browser_helpers import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS

    ARTIFACTS.mkdir(exist_ok=True)
    b = _playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        yield b
    finally:
        with contextlib.suppress(Exception):  # a browser that crashed is already gone
            b.close()


@pytest.fixture(scope="module")
def play_state() -> dict[str, Any]:
    """A browser test file's mid-round state: five tricks played, for the seat to act
    (who leads or follows). Per file; a test that changes it deep-copies it first."""
    from browser_helpers import _seat_to_act, in_phase, state_of

    g = in_phase(5, "play", 5)
    return state_of(g, _seat_to_act(g))

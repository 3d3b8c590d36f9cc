"""Shared test helpers and fixtures (the browser tests' `server` and `browser` too)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
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


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real web server, a subprocess on a free local port, for a browser test file
    (skipped, or failed under `CI=true`, where Chromium is missing)."""
    from browser_helpers import CHROMIUM, ROOT, free_port
    from server_harness import skip_or_fail

    if not os.path.exists(CHROMIUM):
        skip_or_fail(f"{CHROMIUM} is missing")
    tmp = tmp_path_factory.mktemp("browser")
    port = free_port()
    log = open(tmp / "server.log", "wb")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "shengji.server",
            "--port",
            str(port),
            "--db",
            f"sqlite+aiosqlite:///{tmp / 'x.db'}",
            "--rate",
            "1000",
            "--burst",
            "1000",
            "--fast-timings",  # the tests' tables deal in ms (below a public server's minima)
            "--create-per-min",
            "1000",
            "--log-level",
            "warning",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 40
        while True:
            try:
                with urllib.request.urlopen(base + "/api/tables", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                raise RuntimeError("server did not start:\n" + (tmp / "server.log").read_text())
            time.sleep(0.2)
        yield base
    finally:
        from server_harness import end_process

        end_process(proc)
        log.close()


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
    from browser_helpers import _advance, _seat_to_act, state_of

    g = _advance(5, lambda g: g.decision().phase == "play" and len(g.round.tricks) >= 5)
    return state_of(g, _seat_to_act(g))

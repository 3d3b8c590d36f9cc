"""CPU an idle table page costs in headless Chromium (issue #29 item 6).

Run: `python bench/idle_table_cpu.py [ROOT ...] [--seconds 10]`. For each ROOT (a checkout;
default: this one) it starts that checkout's server, opens its table page with a seat to
act (the WebSocket answered with one engine view, nothing happens after), waits 8 s for
the page to settle, then prints the CPU seconds Chromium's processes (browser, renderer,
GPU) used per wall second over `--seconds`: the page's idle cost, in % of one core. Pass
an old and a new checkout to pair them in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")


def _descendants(pid: int) -> list[int]:
    """The processes below `pid` (from /proc)."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for k in kids.get(p, []):
            out.append(k)
            todo.append(k)
    return out


def _cpu(pids: list[int]) -> float:
    """User + system CPU seconds of `pids`."""
    total = 0
    for p in pids:
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(f[11]) + int(f[12])
    return total / TICK


def _state() -> dict[str, object]:
    sys.path.insert(0, str(HERE / "tests"))
    from browser_helpers import _advance, _seat_to_act, state_of

    g = _advance(5, lambda g: g.decision().phase == "play" and len(g.round.tricks) >= 5)
    return state_of(g, _seat_to_act(g))


def measure(root: Path, seconds: float, state: dict[str, object]) -> float:
    """% of one core Chromium uses on `root`'s idle table page."""
    from playwright.sync_api import sync_playwright

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(root / "src"))
    db = f"sqlite+aiosqlite:////tmp/idle-bench-{port}.db"
    srv = subprocess.Popen(
        [sys.executable, "-m", "shengji.server", "--port", str(port), "--db", db,
         "--log-level", "warning"], cwd=root, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "/api/tables", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            page = b.new_context(viewport={"width": 1366, "height": 800}).new_page()

            def answer(ws: object) -> None:
                ws.on_message(lambda m: ws.send(json.dumps(state))  # type: ignore[attr-defined]
                              if json.loads(m)["type"] == "hello" else None)

            page.route_web_socket(re.compile(r".*/ws/.*"), answer)
            page.goto(base + "/t/fake")
            page.wait_for_selector(".seat.turn")
            page.wait_for_timeout(8000)  # settle: fonts, first frames, a finite animation
            pids = _descendants(os.getpid())
            c0, t0 = _cpu(pids), time.monotonic()
            page.wait_for_timeout(seconds * 1000)
            c1, t1 = _cpu(pids), time.monotonic()
            b.close()
        return 100 * (c1 - c0) / (t1 - t0)
    finally:
        srv.terminate()
        srv.wait(10)


def main() -> None:
    """Measure each checkout given and print the idle page's CPU."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", default=[str(HERE)])
    ap.add_argument("--seconds", type=float, default=10)
    a = ap.parse_args()
    state = _state()
    for root in a.roots:
        pct = measure(Path(root).resolve(), a.seconds, state)
        print(f"{root}: idle table page {pct:.1f}% of one core over {a.seconds:g} s")


if __name__ == "__main__":
    main()

"""Take the README screenshots: a real `shengji serve` on loopback, headless Chromium.

    PYTHONPATH=src python docs/screenshots/take.py

A player sits with three bots, plays legal cards until the round is well under
way (six tricks done, two cards on the table, the player to act with cards
selected), then the page is captured at 1280x720, 1366x800 and 390x844.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from browser_helpers import (  # noqa: E402
    CORNER,
    STATE_JS,
    add_bots,
    choose_play,
    fill_options,
    free_port,
    sit,
    submit_create,
)

SIZES = [(1280, 720), (1366, 800), (390, 844)]


def main() -> None:
    port = free_port()
    tmp = tempfile.mkdtemp()
    serve = [sys.executable, "-c", "from shengji.cli import main; main()", "serve",
             "--port", str(port), "--db", f"sqlite+aiosqlite:///{tmp}/shots.db",
             "--fast-timings"]
    proc = subprocess.Popen(serve, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "/api/tables", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium",
                                  args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = b.new_context(viewport={"width": 1366, "height": 800}, locale="en-US").new_page()
            page.goto(base + "/")
            page.fill("input[name=table-name]", "Friday night")
            fill_options(page, deal_ms="0.005", window_ms="1", bot_delay_ms="0.05",
                         round_pause_ms="5")
            submit_create(page)
            sit(page, "Mei")
            add_bots(page, ((seat, "heuristic") for seat in (1, 2, 3)))
            page.click("#start-btn")
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                st = page.evaluate(STATE_JS)
                mine = st and st["toAct"] == st["me"]
                if st and st["phase"] in ("deal", "declare"):
                    if st["pass"]:
                        page.locator("#pass-btn").click(timeout=2000)
                elif st and st["phase"] == "kitty" and mine and st["bury"]:
                    for h in st["hand"][:8]:
                        page.locator(f"#hand .card[data-index='{h['i']}']").click(position=CORNER)
                    page.click("#bury-btn")
                elif st and st["phase"] == "play" and mine and st["play"] is not None:
                    done = page.locator("#trick-history summary b").inner_text()
                    plays = len(st["lead"].split()) if st["lead"] else 0
                    choice = choose_play(st["hand"], st["lead"], st["leadSuit"])
                    for i in choice:
                        page.locator(f"#hand .card[data-index='{i}']").click(position=CORNER)
                    page.wait_for_selector("#play-btn:not([disabled])")
                    on_table = page.locator("#trick .slot .card").count()
                    if int(done) >= 6 and plays and on_table >= 2:
                        break
                    page.click("#play-btn")
                    page.wait_for_timeout(300)
                time.sleep(0.1)
            else:
                raise SystemExit("the round did not get under way")
            page.click("#trick-history summary")
            for w, h in SIZES:
                page.set_viewport_size({"width": w, "height": h})
                page.wait_for_timeout(400)
                page.screenshot(path=str(HERE / f"table-{w}x{h}.png"))
                print("wrote", HERE / f"table-{w}x{h}.png")
            b.close()
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()

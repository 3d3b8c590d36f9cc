"""External bots at a web table (issue 34, docs/BOT_PROTOCOL.md): the host makes a bot
token for a seat (`bot_link`), the program connects over the WebSocket with it and plays
that seat with the ordinary web protocol (through `shengji.bots.bridge`), seeing only
that seat's view."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from server_harness import live_server
from shengji.bots.bridge import play_web_seat, ws_url
from shengji.bots.external import ExternalAgent

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = f"{shlex.quote(sys.executable)} " + shlex.quote(
    str(ROOT / "examples" / "bots" / "random_bot.py"))
SCRIPTED = shlex.quote(str(ROOT / "tests" / "extbots" / "scripted_bot.py"))


def until(ws: Any, pred: Any) -> dict[str, Any]:
    """Receive until a message satisfies `pred` (the socket's own timeout bounds it)."""
    while True:
        msg = json.loads(ws.recv(timeout=20))
        if pred(msg):
            return dict(msg)


def test_bot_links_seat_external_bots_that_play_a_web_table(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite") as base:
        r = httpx.post(f"{base}/api/tables", json={"name": "bots"})
        assert r.status_code == 200, r.text
        tid, host_token = r.json()["id"], r.json()["host_token"]
        url = f"{base}/t/{tid}"
        with connect(ws_url(url)) as host:
            host.send(json.dumps({"type": "hello", "token": host_token, "lang": "en"}))
            until(host, lambda m: m["type"] == "state")
            tokens = {}
            for seat in (0, 2):
                host.send(json.dumps({"type": "bot_link", "seat": seat, "name": f"Ext {seat}"}))
                tokens[seat] = until(host, lambda m: m["type"] == "bot_link")["token"]
            for seat in (1, 3):
                host.send(json.dumps({"type": "bot", "seat": seat, "kind": "heuristic"}))
            st = until(host, lambda m: m["type"] == "state" and all(m["table"]["seats"]))
            assert st["table"]["seats"][0]["external"] is True
            assert st["table"]["seats"][0]["name"] == "Ext 0"
            assert "token" not in json.dumps(st["table"]["seats"])
            # Seat 0: the example bot through `shengji bot-connect`; seat 2: a scripted bot
            # that answers its 5th decision for another seat, through the bridge here.
            cli = subprocess.Popen(
                [sys.executable, "-c", "from shengji.cli import main; main()", "bot-connect",
                 url, "--token", tokens[0], "--exec", RANDOM_BOT, "--rounds", "1"],
                env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "200"},
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            record = tmp_path / "seat2.jsonl"
            agent = ExternalAgent(f"{shlex.quote(sys.executable)} {SCRIPTED} illegal 5 "
                                  f"{shlex.quote(str(record))}", 0)
            states: list[dict[str, Any]] = []
            errors: list[BaseException] = []

            def run() -> None:
                try:
                    play_web_seat(url, tokens[2], agent, rounds=1, on_state=states.append)
                except BaseException as e:  # reported by the test below
                    errors.append(e)

            threads = [threading.Thread(target=run)]
            for t in threads:
                t.start()
            until(host, lambda m: m["type"] == "state" and all(
                s["connected"] for s in m["table"]["seats"]))
            host.send(json.dumps({"type": "start"}))
            end = until(host, lambda m: m["type"] == "state" and m["view"] is not None
                        and m["view"]["result"] is not None)
            for t in threads:
                t.join(60)
            out, err = cli.communicate(timeout=60)
            assert not errors, errors
            assert not any(t.is_alive() for t in threads)
    assert end["view"]["result"]["levels_gained"] >= 0
    assert cli.returncode == 0, err
    assert "failures: timeout 0, crash 0, malformed 0, illegal 0, standin 0" in out, out
    # The scripted bot's illegal answer was logged, counted, and answered for it.
    assert agent.decisions > 10  # it played every trick of the round (and more)
    assert agent.report() == {"timeout": 0, "crash": 0, "malformed": 0, "illegal": 1,
                              "standin": 1}
    assert "illegal: decision 5" in agent.errors[0] and "you play seat 2" in agent.errors[0]
    assert all(m["you"] == 2 and m["view"]["seat"] == 2 for m in states)
    # What the program received is the seat's views exactly as the server sent them.
    lines = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()]
    decides = [x["view"] for x in lines if x["type"] == "decide"]
    sent = [m["view"] for m in states]
    assert decides and all(v in sent for v in decides)
    for v in decides:
        assert len(v["hand"]) == v["hand_sizes"][2]
        if v["starter"] != 2:
            assert v["kitty"] is None and v["kitty_taken"] is None
    assert lines[-1]["type"] == "end"


def test_bot_link_is_refused_mid_game_and_for_a_players_seat(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite") as base:
        r = httpx.post(f"{base}/api/tables", json={"name": "bots"})
        tid, host_token = r.json()["id"], r.json()["host_token"]
        with connect(ws_url(f"{base}/t/{tid}")) as host, \
                connect(ws_url(f"{base}/t/{tid}")) as guest:
            host.send(json.dumps({"type": "hello", "token": host_token, "lang": "en"}))
            guest.send(json.dumps({"type": "hello", "token": None, "lang": "en"}))
            until(guest, lambda m: m["type"] == "state")
            guest.send(json.dumps({"type": "sit", "seat": 1, "name": "Guest"}))
            until(guest, lambda m: m["type"] == "seated")
            guest.send(json.dumps({"type": "bot_link", "seat": 2}))
            assert "only the host" in until(guest, lambda m: m["type"] == "error")["message"]
            host.send(json.dumps({"type": "bot_link", "seat": 1}))
            assert "has a player" in until(host, lambda m: m["type"] == "error")["message"]
            for seat in (0, 2, 3):
                host.send(json.dumps({"type": "bot", "seat": seat, "kind": "random"}))
            until(host, lambda m: m["type"] == "state" and all(m["table"]["seats"]))
            host.send(json.dumps({"type": "start"}))
            until(host, lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
            host.send(json.dumps({"type": "bot_link", "seat": 2}))
            msg = until(host, lambda m: m["type"] == "error")["message"]
            assert "before the start" in msg

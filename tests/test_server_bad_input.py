"""Bad input over the WebSocket: refused with an error to the sender only, nothing changes."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from server_harness import HUMAN_WINDOW_MS, Human, WSPlayer, host_table, serve
from shengji import CARDS
from shengji.server.security import TokenBucket
from shengji.server.tables import Table

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


class ManualClock:
    """A clock for a `TokenBucket` that only the test moves (`advance`)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def install(self, bucket: TokenBucket) -> None:
        """Run `bucket` on this clock from now on, full."""
        bucket.clock, bucket.last, bucket.tokens = self, self.now, bucket.burst

    @staticmethod
    def release(bucket: TokenBucket) -> None:
        """Give `bucket` back its real clock, full."""
        bucket.clock, bucket.last, bucket.tokens = time.monotonic, time.monotonic(), bucket.burst


def snapshot(p: WSPlayer, table: Table) -> Any:
    return p.call(
        lambda: (
            table.seq,
            table.status,
            table.seats.json(),
            table.host_seat,
            [table.game.view(s).to_json() for s in (None, 0, 1, 2, 3)],
        )
    )


def test_every_kind_of_bad_input_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    with serve(
        tmp_path / "db.sqlite", window_ms=HUMAN_WINDOW_MS, rate_per_s=50.0, burst=30.0
    ) as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
        human = Human(p, table, seed=5)
        # Stop at a turn of seat 0 that does not end the trick: after its play, a bot is to
        # act, so a second play by seat 0 is out of turn.
        st = human.play_until(
            lambda m: m["type"] == "state" and m["view"]["phase"] == "play"
            and m["view"]["to_act"] == 0
            and len((m["view"]["current_trick"] or {"plays": []})["plays"]) < 3
        )
        # Freeze the bots so that nothing moves while we probe.
        p.call(lambda: setattr(table.settings, "bot_delay_ms", 10**9))
        # The host's rate limit (50/s, burst 30) runs on a clock the test moves: the
        # flood's figures are exact and do not depend on how fast this machine is.
        clock = ManualClock()
        bucket = p.call(lambda: next(c for c in table.clients if c.seat == 0).bucket)
        p.call(lambda: clock.install(bucket))
        watcher = WSPlayer(client, table.id)
        watcher.hello()
        p.drain()
        hand = st["view"]["hand"]
        not_held = next(c.text for c in CARDS if c.text not in hand)
        before = snapshot(p, table)

        def refused(obj: Any, expect: str) -> str:
            err = p.error(obj)
            assert expect in err, (obj, err)
            assert snapshot(p, table) == before, obj
            clock.advance(0.025)  # within the rate limit (50/s)
            return err

        # Malformed messages.
        refused("{not json", "not JSON")
        refused("[1, 2]", "malformed")
        refused('"hello"', "malformed")
        refused("null", "malformed")
        refused({"kind": "play"}, "malformed")
        refused({"type": 5}, "malformed")
        refused({"type": "explode"}, "unknown message type")
        refused({"type": "action"}, "malformed action")
        refused({"type": "action", "action": "play 0 AS"}, "malformed action")
        refused({"type": "action", "action": ["play", 0]}, "malformed action")
        refused({"type": "action", "action": ["fly", 0, "AS"]}, "unknown action")
        refused({"type": "action", "action": ["play", 7, "AS"]}, "RULES §1")
        refused({"type": "action", "action": ["play", True, "AS"]}, "RULES §1")
        refused({"type": "action", "action": ["play", 0, "ZZ"]}, "RULES §1")
        refused({"type": "action", "action": ["play", 0, 5]}, "RULES §1")
        refused({"type": "action", "action": ["draw"]}, "server's")
        refused({"type": "action", "action": ["close"]}, "server's")
        refused({"type": "sit", "seat": 4, "name": "x"}, "seat 0-3")
        refused({"type": "sit", "seat": "1", "name": "x"}, "seat 0-3")
        refused({"type": "sit", "seat": 1, "name": "x"}, "seat link")
        refused({"type": "bot", "seat": 0, "kind": "random"}, "kick them first")
        refused({"type": "check", "cards": 5}, "malformed")
        # Oversized messages (text and JSON padding), and bytes that are not UTF-8.
        refused("x" * 5000, "too large")
        refused({"type": "ping", "pad": "y" * 4100}, "too large")
        refused({"type": "ping", "pad": "é" * 2100}, "too large")  # > 4 KiB as UTF-8
        p.ws.send_bytes(b"\xff\xfe\x00")
        assert "UTF-8" in p.until(lambda m: m["type"] == "error")["message"]
        clock.advance(0.025)
        # Acting for another seat, a card not held, the wrong phase: the engine's reasons.
        refused({"type": "action", "action": ["play", 1, hand[0]]}, "cannot act for seat 1")
        err = refused({"type": "action", "action": ["play", 0, not_held]}, "not in your hand")
        assert err.startswith("RULES §6")
        refused({"type": "action", "action": ["bury", 0, " ".join(hand[:8])]}, "RULES §4")
        refused({"type": "action", "action": ["pass", 0]}, "RULES §3.3")
        refused({"type": "action", "action": ["declare", 0, hand[0]]}, "RULES §3.3")
        # `check` answers without changing anything.
        p.send({"type": "check", "cards": not_held})
        chk = p.until(lambda m: m["type"] == "check")
        assert chk["legal"] is False and "not in your hand" in chk["reason"]
        assert snapshot(p, table) == before
        # The spectator never saw any of those errors.
        assert [m for m in watcher.drain() if m["type"] == "error"] == []

        # One legal play; then the same seat again is out of turn.
        human.react(st)
        p.until(lambda m: m["type"] == "state" and m["seq"] == before[0] + 1)
        after = snapshot(p, table)
        assert after[4][0]["to_act"] != 0
        clock.advance(0.025)
        err = p.error({"type": "action", "action": ["play", 0, hand[-1]]})
        assert err.startswith("RULES §6") and "turn" in err
        assert snapshot(p, table) == after

        # Forged tokens give no seat; a spectator cannot act.
        spy = WSPlayer(client, table.id)
        spy.send({"type": "hello", "token": "forged-token", "lang": "en"})
        assert "invalid token" in spy.until(lambda m: m["type"] == "error")["message"]
        assert spy.until(lambda m: m["type"] == "state")["you"] is None
        assert "spectators" in spy.error({"type": "action", "action": ["play", 1, "AS"]})
        assert "host" in spy.error({"type": "kick", "seat": 0})
        spy.send({"type": "hello", "token": 12345})
        assert "token must be a string" in spy.until(lambda m: m["type"] == "error")["message"]
        for bad in ("all", 1, None, ["delta"]):  # docs/WEB_PROTOCOL.md: "full" or "delta"
            spy.send({"type": "hello", "token": None, "history": bad})
            err = spy.until(lambda m: m["type"] == "error")["message"]
            assert err == 'malformed message: history must be "full" or "delta"'
        assert spy.call(lambda: [c.history_delta for c in table.clients]) == [False] * len(
            table.clients
        )
        assert snapshot(p, table) == after

        # Nothing before hello.
        early = WSPlayer(client, table.id)
        assert "hello" in early.error({"type": "sit", "seat": 1, "name": "x"})

        # Flooding: past the burst, messages are refused; the connection stays up. After
        # a second (the bucket full again: 30), 80 pings at once: exactly 30 pass.
        clock.advance(1.0)
        for _ in range(80):
            p.send({"type": "ping"})
        replies = [p.until(lambda m: m["type"] in ("pong", "error")) for _ in range(80)]
        pongs = sum(m["type"] == "pong" for m in replies)
        errors = [m["message"] for m in replies if m["type"] == "error"]
        assert pongs == 30 and len(errors) == 50 and all("slow down" in e for e in errors)
        p.send({"type": "ping"})  # no time has passed: still refused
        assert "slow down" in p.until(lambda m: m["type"] in ("pong", "error"))["message"]
        clock.advance(0.02)  # one token back at 50/s
        p.send({"type": "ping"})
        assert p.until(lambda m: m["type"] in ("pong", "error"))["type"] == "pong"
        assert snapshot(p, table) == after
        # ... and the game still goes on (the host's messages on the real clock again).
        p.call(lambda: ManualClock.release(bucket))
        p.call(lambda: setattr(table.settings, "bot_delay_ms", 0))
        p.call(lambda: table.wake.set())
        human.play_until(lambda m: m["type"] == "state" and m["seq"] > after[0] + 3)
        for q in (p, watcher, spy, early):
            q.close()


def test_protocol_level_oversized_frames_close_only_that_connection(tmp_path: Path) -> None:
    # Our own limit is 4 KiB (an error); uvicorn refuses frames over 1 MiB outright. With the
    # TestClient there is no frame limit, so a big message must still be just an error.
    with serve(tmp_path / "db.sqlite") as client:
        r = client.post("/api/tables", json={"name": "t"})
        tid = r.json()["id"]
        p = WSPlayer(client, tid)
        p.hello()
        assert "too large" in p.error(json.dumps({"type": "ping", "x": "z" * 2_000_000}))
        p.send({"type": "ping"})
        assert p.until(lambda m: m["type"] == "pong")

"""Failover figures: N workers (a throwaway PostgreSQL + Redis), T tables of bots in play,
each watched by a spectator on a random worker; `kill -9` of one worker mid-game.

For every table the killed worker owned, prints how long after the kill the table went
on (its spectator, reconnected by itself like the browser client, saw a state with a
higher sequence number), and checks: no spectator ever saw the sequence number go back
(0 actions lost), each table's log has no gap and no duplicate and replays through the
engine (0 applied twice), and no table ended in the `error` state.

    python bench/failover.py --workers 3 --tables 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import time
from typing import Any

import httpx
from websockets.asyncio.client import connect

from shengji import Game, RuleOptions, action_from_json
from shengji.server.localcluster import free_port, local_services, stop_processes


def start_worker(port: int, db: str, redis: str, lease_ms: int) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable, "-m", "shengji.server", "--port", str(port), "--db", db,
        "--redis", redis, "--lease-ms", str(lease_ms), "--fast-timings", "--bot-workers", "0",
        "--deal-ms", "0", "--window-ms", "100", "--bot-delay-ms", "100",
        "--round-pause-ms", "0", "--rate", "1000", "--burst", "1000",
        "--create-per-min", "1000000", "--open-per-addr", "1000000",
        "--conns-per-addr", "1000000", "--log-level", "warning",
    ]
    return subprocess.Popen(cmd)


def wait_up(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/cluster", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"worker on {port} did not start")


async def make_table(port: int) -> str:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
        r = await http.post("/api/tables", json={"name": "f", "bot_delay_ms": 100})
        r.raise_for_status()
        tid, host = r.json()["id"], r.json()["host_token"]
    async with connect(f"ws://127.0.0.1:{port}/ws/{tid}", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": host}))
        for seat in range(4):
            await ws.send(json.dumps({"type": "bot", "seat": seat, "kind": "random"}))
        await ws.send(json.dumps({"type": "start"}))
        async for text in ws:
            m = json.loads(text)
            if m["type"] == "state" and m["table"]["status"] == "playing":
                break
    return str(tid)


class Watch:
    """A spectator that reconnects (to a random live worker) whenever its socket closes."""

    def __init__(self, tid: str, ports: list[int], dead: set[int]) -> None:
        self.tid, self.ports, self.dead = tid, ports, dead
        self.seq = -1
        self.backwards = 0  # a state with a lower seq than one seen before
        self.seen: list[tuple[float, int, float]] = []  # (time, seq, connected at)
        self.reconnects = 0
        self.error = False

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            port = random.choice([p for p in self.ports if p not in self.dead])
            try:
                async with connect(f"ws://127.0.0.1:{port}/ws/{self.tid}",
                                   max_size=2**22, open_timeout=10) as ws:
                    opened = time.monotonic()
                    await ws.send(json.dumps({"type": "hello", "token": None}))
                    async for text in ws:
                        m = json.loads(text)
                        if m["type"] != "state":
                            continue
                        if m["seq"] < self.seq:
                            self.backwards += 1
                        self.seq = max(self.seq, m["seq"])
                        self.error |= m["table"]["status"] == "error"
                        self.seen.append((time.monotonic(), m["seq"], opened))
                        if stop.is_set():
                            return
            except Exception:  # noqa: BLE001 - closed or refused: reconnect like a browser
                pass
            self.reconnects += 1
            await asyncio.sleep(0.1 + 0.2 * random.random())  # the browser's first backoff


async def scenario(args: argparse.Namespace, ports: list[int], db: str,
                   procs: list[subprocess.Popen[bytes]]) -> dict[str, Any]:
    tids = await asyncio.gather(*(make_table(ports[i % len(ports)])
                                  for i in range(args.tables)))
    dead: set[int] = set()
    watches = [Watch(t, ports, dead) for t in tids]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(w.run(stop)) for w in watches]
    await asyncio.sleep(args.warmup_s)
    victim = 0
    owned = httpx.get(f"http://127.0.0.1:{ports[victim]}/api/cluster").json()["tables"]
    at_kill = {w.tid: w.seq for w in watches}
    procs[victim].kill()
    killed = time.monotonic()
    dead.add(ports[victim])
    procs[victim].wait()
    await asyncio.sleep(args.observe_s)
    stop.set()
    await asyncio.sleep(0.5)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    resumed = []
    stuck = []
    for w in watches:
        if w.tid not in owned:
            continue
        # went on: a state, on a connection made after the kill, past the seq seen then
        # (states the dead owner had already sent do not count)
        after = [t for t, s, opened in w.seen if opened > killed and s > at_kill[w.tid]]
        if after:
            resumed.append(after[0] - killed)
        else:
            stuck.append(w.tid)
    bad_logs = 0
    for t in tids:
        if not await asyncio.to_thread(replays, db, t):
            bad_logs += 1
    return {
        "workers": len(ports), "tables": len(tids), "victim_tables": len(owned),
        "resumed": len(resumed), "stuck": len(stuck),
        "resume_p50_s": round(statistics.median(resumed), 2) if resumed else None,
        "resume_max_s": round(max(resumed), 2) if resumed else None,
        "seq_went_back": sum(w.backwards for w in watches),
        "error_tables": sum(w.error for w in watches),
        "logs_not_replaying": bad_logs,
    }


def replays(db: str, tid: str) -> bool:
    """The log has no gap or duplicate and every action replays legally."""
    import asyncpg

    async def rows() -> tuple[Any, list[Any]]:
        con = await asyncpg.connect(db.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            t = await con.fetchrow("select seed, options from tables where id = $1", tid)
            a = await con.fetch("select seq, action from actions where table_id = $1 "
                                "order by seq", tid)
            return t, list(a)
        finally:
            await con.close()

    t, acts = asyncio.run(rows())
    if [r["seq"] for r in acts] != list(range(len(acts))):
        return False
    game = Game(int(t["seed"]), RuleOptions.from_json(json.loads(t["options"])))
    try:
        for r in acts:
            game.apply(action_from_json(json.loads(r["action"])))
    except Exception:  # noqa: BLE001 - reported as a figure
        return False
    return True


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--workers", type=int, default=3)
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--lease-ms", type=int, default=3000)
    p.add_argument("--warmup-s", type=float, default=5.0)
    p.add_argument("--observe-s", type=float, default=8.0)
    args = p.parse_args()
    random.seed(0)
    with local_services() as (db, redis):
        ports = [free_port() for _ in range(args.workers)]
        procs = [start_worker(port, db, redis, args.lease_ms) for port in ports]
        try:
            for port in ports:
                wait_up(port)
            result = asyncio.run(scenario(args, ports, db, procs))
        finally:
            stop_processes(procs)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

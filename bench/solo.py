"""Solo tables: K people, each alone against three expert bots, over real WebSockets.

The commonest way to play (issue 35). Starts `python -m shengji.server` on loopback with
its default timings (700 ms bot delay, the expert's rollout budget capped by
`--bot-cap-ms`) and a fresh SQLite file, creates K tables, seats one scripted person at
seat 0 of each (a legal random move after `--think-s` seconds, as a person would take)
and three expert bots, starts them (spread over `--ramp-s`) and watches for `--seconds`.

Prints, over every bot move of every table:
- the wait per bot move as the person sees it: from the state that hands the turn to a
  bot to the state that shows its move (the 700 ms delay included), p50 / p95 / max;
- the expert's effective budget: decisions searched, those cut short by the cap, those
  shed because the pool was behind (`--bot-wait-ms`, server/botload.py), and the share
  of the asked rollouts that were done (the tables' `bots`, RULES-free server figures);
- CPU seconds per wall second: the server's process, the bots (everything else on the
  machine: its bot processes or the Ray workers), and the whole machine.

`--pool local` uses the server's bot processes (`--bot-workers`, default one per CPU);
`--pool ray:local` a private Ray instance; `--pool cluster:N` starts a simulated Ray
cluster of N nodes of `--node-cpus` CPUs each on this machine (`ray.cluster_utils`) and
points the server at it (`--bots ray:HOST:PORT`): the same code path as real nodes, but
the nodes share this machine's cores, so it shows the attach path and the scheduling,
not more capacity than the machine has.

    python bench/solo.py --tables 16
    python bench/solo.py --sweep 8,16,24 --seconds 60
    python bench/solo.py --tables 16 --pool ray:local
    python bench/solo.py --tables 8 --pool cluster:2 --node-cpus 1

`--bot slow` seats the server's test-only bot instead (`--test-bots`): each move is the
random bot's after `--slow-s` seconds of a blocking wait in a pool worker, which uses a
pool slot but no CPU. On the simulated cluster that shows what CPUs cannot here: whether
the pool's capacity grows with its slots (2 -> 4 -> 8 CPUs), that is whether the server,
Ray's scheduling and the pool's interface keep up, with the search's CPU taken out.

    python bench/solo.py --bot slow --slow-s 0.5 --pool cluster:1 --node-cpus 2 --tables 6
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx
from websockets.asyncio.client import connect

from load import Player, Stats, answering, free_port, machine_cpu, pct, proc_cpu

BOT_SEATS = (1, 2, 3)
MOVE_PHASES = ("declare", "kitty", "play", "call")


class Solo:
    """The person at one table, and the clock on its bots' moves."""

    def __init__(self, index: int, think_s: float) -> None:
        self.player = Player(0, random.Random(index), Stats(), rounds=10**6, think_s=0.0)
        self.think_s = think_s
        self.waits: list[float] = []
        self.bot_turn: tuple[int, float] | None = None  # (seq, when the bot got the turn)
        self.bots: dict[str, Any] | None = None
        self.seq = 0
        self.acted_seq = -1
        self.errors: list[str] = []

    def state(self, msg: dict[str, Any], now: float) -> list[Any] | None:
        """Read a state: time the bots' moves; the person's move, if one is due."""
        seq, v = msg["seq"], msg["view"]
        self.seq = seq
        self.player.note_options(v)
        if msg["table"].get("bots"):
            self.bots = msg["table"]["bots"]
        if self.bot_turn is not None and seq > self.bot_turn[0]:
            self.waits.append(now - self.bot_turn[1])
            self.bot_turn = None
        if v["game_over"]:
            return None
        if v["phase"] in MOVE_PHASES and v["to_act"] in BOT_SEATS and self.bot_turn is None:
            self.bot_turn = (seq, now)
        if seq == self.acted_seq:
            return None
        action = self.player.choose(v)
        if action is not None:
            self.acted_seq = seq
        return action


async def solo_table(base: str, index: int, think_s: float, delay_s: float,
                     stop: asyncio.Event, tables: list[Solo], kind: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.post("/api/tables", json={"name": f"solo {index}"})
        r.raise_for_status()
        tid, host = r.json()["id"], r.json()["host_token"]
    solo = Solo(index, think_s)
    tables.append(solo)
    ws_url = base.replace("http://", "ws://") + f"/ws/{tid}"
    async with connect(ws_url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": host, "history": "delta"}))
        await ws.send(json.dumps({"type": "sit", "seat": 0, "name": "person"}))
        for seat in BOT_SEATS:
            await ws.send(json.dumps({"type": "bot", "seat": seat, "kind": kind}))
        await asyncio.sleep(delay_s)  # tables start spread over --ramp-s
        await ws.send(json.dumps({"type": "start"}))
        pending: asyncio.Task[None] | None = None

        async def move(action: list[Any], think: float) -> None:
            await asyncio.sleep(think)
            await ws.send(json.dumps({"type": "action", "action": action}))

        async def read() -> None:
            nonlocal pending
            async for text in ws:
                msg = json.loads(text)
                if msg["type"] == "error":
                    solo.errors.append(msg["message"])
                    solo.acted_seq = -1  # try again on the next state
                if msg["type"] != "state":
                    continue
                action = solo.state(msg, time.perf_counter())
                if action is not None:
                    if pending is not None:
                        pending.cancel()
                    think = 0.0 if msg["view"]["phase"] == "deal" else think_s
                    pending = asyncio.create_task(move(action, think))

        reader = asyncio.create_task(read())
        await stop.wait()
        reader.cancel()
        if pending is not None:
            pending.cancel()


def start_server(port: int, db: str, args: argparse.Namespace,
                 bots: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "shengji.server", "--port", str(port), "--db", db,
           "--bots", bots, "--bot-cap-ms", str(args.bot_cap_ms),
           "--bot-wait-ms", str(args.bot_wait_ms), "--log-level", "warning",
           "--create-per-min", "1000000", "--open-per-addr", "1000000",
           "--conns-per-addr", "1000000"]
    if args.bot_workers is not None:
        cmd += ["--bot-workers", str(args.bot_workers)]
    env = dict(os.environ)
    if args.bot == "slow":
        cmd.append("--test-bots")
        env["SHENGJI_SLOW_BOT_S"] = str(args.slow_s)
    return answering(subprocess.Popen(cmd, env=env), port, 120)  # a Ray pool takes seconds


async def run(base: str, k: int, args: argparse.Namespace, server_pid: int
              ) -> dict[str, Any]:
    stop = asyncio.Event()
    tables: list[Solo] = []
    tasks = [asyncio.create_task(solo_table(base, i, args.think_s, args.ramp_s * i / k,
                                            stop, tables, args.bot)) for i in range(k)]
    await asyncio.sleep(args.ramp_s)  # every table started
    t0, s0, m0, c0 = time.perf_counter(), proc_cpu(server_pid), machine_cpu(), time.process_time()
    w0 = {id(t): len(t.waits) for t in tables}
    await asyncio.sleep(args.seconds)
    wall, s1, m1 = time.perf_counter() - t0, proc_cpu(server_pid), machine_cpu()
    c1 = time.process_time()
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        load = (await http.get("/api/bots")).json()["pool"].get("load") or {}
    waits = [w for t in tables for w in t.waits[w0.get(id(t), 0):]]
    budgets = [t.bots for t in tables if t.bots]
    decisions = sum(b["decisions"] for b in budgets)
    shares = [b["rollouts_share"] for b in budgets if b["rollouts_share"] is not None]
    done_medians = [s["rollouts_done_median"] for b in budgets for s in b["seats"]
                    if s["rollouts_done_median"] is not None]
    asked = [s["rollouts_asked"] for b in budgets for s in b["seats"] if s["rollouts_asked"]]
    return {
        "tables": k, "pool": args.pool, "bot": args.bot,
        "pool_cpus": _pool_cpus(args), "seconds": round(wall, 1), "bot_moves": len(waits),
        "wait_p50_s": round(pct(waits, 50), 3), "wait_p95_s": round(pct(waits, 95), 3),
        "wait_max_s": round(max(waits), 3) if waits else None,
        "expert_decisions": decisions,
        "degraded": sum(b["degraded"] for b in budgets),
        "shed": sum(b.get("shed", 0) for b in budgets),
        # over every searched decision (the tables' means, weighed by their decisions)
        "rollouts_done_mean": round(sum((b.get("rollouts_done_mean") or 0) * b["decisions"]
                                        for b in budgets) / decisions, 1)
        if decisions else None,
        "rollouts_share": round(statistics.mean(shares), 4) if shares else None,
        "rollouts_done_median": statistics.median(done_medians) if done_medians else None,
        "rollouts_asked": max(asked) if asked else None,
        # the pool's own running mean of the CPU per rollout (server/botload.py)
        "pool_rollout_ms": load.get("rollout_ms"),
        "server_cpu_per_s": round((s1 - s0) / wall, 3),
        # the bots: the machine less the server's event loop and this load generator
        # (the bot processes or Ray workers; anything else running counts too)
        "bots_cpu_per_s": round(((m1 - m0) - (s1 - s0) - (c1 - c0)) / wall, 3),
        "machine_cpu_per_s": round((m1 - m0) / wall, 3),
        "errors": sum(len(t.errors) for t in tables),
    }


def _pool_cpus(args: argparse.Namespace) -> int | None:
    """The CPUs (slots) of the simulated cluster; None for another pool."""
    if args.pool.startswith("cluster:"):
        return int(args.pool.split(":", 1)[1]) * args.node_cpus
    return None


def one_run(k: int, args: argparse.Namespace) -> dict[str, Any]:
    cluster = None
    bots = args.pool
    if args.pool.startswith("cluster:"):
        from ray.cluster_utils import Cluster

        nodes = int(args.pool.split(":", 1)[1])
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": args.node_cpus})
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=args.node_cpus)
        cluster.wait_for_nodes()
        bots = "ray:" + cluster.address
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(port, f"sqlite:///{tmp}/solo.db", args, bots)
        try:
            return asyncio.run(run(f"http://127.0.0.1:{port}", k, args, proc.pid))
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
            if cluster is not None:
                cluster.shutdown()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tables", type=int, default=16)
    p.add_argument("--sweep", default=None, help="comma-separated table counts, e.g. 8,16,24")
    p.add_argument("--seconds", type=float, default=60.0, help="measured time after the ramp")
    p.add_argument("--ramp-s", type=float, default=10.0, help="spread the starts over this")
    p.add_argument("--think-s", type=float, default=1.5, help="the person's time per move")
    p.add_argument("--pool", default="local", help="local, ray:local, or cluster:N (simulated)")
    p.add_argument("--node-cpus", type=int, default=1, help="CPUs of each simulated node")
    p.add_argument("--bot-workers", type=int, default=None, help="the local pool's processes")
    p.add_argument("--bot-cap-ms", type=int, default=2000)
    p.add_argument("--bot-wait-ms", type=int, default=1200,
                   help="the server's bound on a bot move's wait (600000: never shed)")
    p.add_argument("--bot", choices=("expert", "slow"), default="expert",
                   help="the bots' kind: the expert, or a CPU-free stand-in (see above)")
    p.add_argument("--slow-s", type=float, default=1.0, help="the slow bot's wait per move")
    p.add_argument("--json", action="store_true", help="one JSON line per run")
    args = p.parse_args()
    counts = [int(x) for x in args.sweep.split(",")] if args.sweep else [args.tables]
    print(f"# solo tables: 1 person ({args.think_s} s a move) + 3 {args.bot} bots, pool "
          f"{args.pool}, {os.cpu_count()} CPUs, {args.seconds:.0f} s measured")
    for k in counts:
        out = one_run(k, args)
        if args.json:
            print(json.dumps(out))
        else:
            print(f"{k:>3} tables: bot move wait p50 {out['wait_p50_s']:.2f} s, p95 "
                  f"{out['wait_p95_s']:.2f} s, max {out['wait_max_s']} s over "
                  f"{out['bot_moves']} moves; expert {out['expert_decisions']} decisions, "
                  f"{out['degraded'] - out['shed']} cut short by the cap, {out['shed']} "
                  f"shed, rollouts done mean {out['rollouts_done_mean']} median "
                  f"{out['rollouts_done_median']}"
                  f"/{out['rollouts_asked']} (share {out['rollouts_share']}, "
                  f"{out['pool_rollout_ms']} ms CPU a rollout); CPU/s server "
                  f"{out['server_cpu_per_s']}, bots {out['bots_cpu_per_s']}, machine "
                  f"{out['machine_cpu_per_s']}; "
                  f"errors {out['errors']}")


if __name__ == "__main__":
    main()

"""Load test of the web server: N tables of bot-driven players over real WebSockets.

Starts `python -m shengji.server` on 127.0.0.1 with a fresh SQLite database, creates N
tables and seats 4 WebSocket clients at each; every client plays its seat like the random
bot (declarations, passes, kitty, plays chosen from its own view, as a browser would send
them). Each table plays `--rounds` rounds, then its clients leave; the run stops by itself
(at the latest after `--timeout` seconds).

Prints tables/s, actions/s (every action the server applied, draws included) and the
latency of the players' actions: from sending an action to receiving the state that
includes it (p50/p99/max). `errors` are refusals and failures; `raced` counts apart the
declarations and passes refused because another seat's declaration crossed them (the
state had moved on when they arrived, RULES §3.3): random players declaring at once
cause them, and the server must refuse them.

    python bench/load.py --tables 100
    python bench/load.py --sweep 50,100,200,400      # one fresh server per N
    python bench/load.py --tables 30 --slow-tables 2                  # + 2 tables of 1 s bots
    python bench/load.py --tables 30 --slow-tables 2 --bot-workers 0  # ... thinking on the loop
    python bench/load.py --cluster --workers 2 --tables 100  # 2 processes, PostgreSQL + Redis
    python bench/load.py --cluster --workers 2 --clients 2 --tables 1000 --think-ms 700
                         # ... with the players in 2 load-generator processes

`--clients K` runs the players in K load-generator processes (tables i, i+K, ... in the
i-th), seated first and started together: one event loop holding thousands of WebSockets
falls behind by itself and its lag would be counted as the server's latency (the run
prints that lag). CPU is then the processes' sum.

`--ws picows` (the default where picows is installed, as with `.[test]`) connects the
players with picows, a WebSocket client whose frames are parsed in C; `--ws websockets`
uses the pure-Python `websockets` client of earlier figures. On 2 shared cores the
players' CPU is taken from the servers: at 1,000 tables picows used 0.44 CPU/s against
0.53 for websockets (docs/PERF_LOG.md).

The players' processes are the measuring instrument: their heap is collected and frozen
once before the start and they run with no automatic GC (`--players-gc off`, the
default), since a collector pause there (100-300 ms at 1,000 tables with the server's
policy, `--players-gc server`) would be counted as the server's latency.

`--slow-tables K` adds K tables of four deliberately slow bots (each move takes 1 s, the
server's test-only "slow" kind), watched by one spectator; the figures are still those of
the N player tables, whose latency must not rise because bots think in worker processes.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import os
import random
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvloop
from websockets.asyncio.client import ClientConnection, connect

try:  # a WebSocket client in C (Cython): the players' side costs a third less CPU
    from picows import WSListener, WSMsgType, ws_connect
except ImportError:  # pragma: no cover - optional: bench/load.py --ws websockets
    ws_connect = None

from shengji import RuleOptions, Trump, parse_cards
from shengji.round import TrickView
from shengji.server import gcpolicy
from shengji.server.localcluster import local_services, stop_processes
from shengji.views import View


@lru_cache(maxsize=64)
def _trump(rank: str | None, suit: str | None) -> Trump:
    return Trump(rank, suit)


@lru_cache(maxsize=16)
def _options(text: bytes) -> RuleOptions:
    return RuleOptions.from_json(orjson.loads(text))


def view_from_json(j: dict[str, Any], options: RuleOptions) -> View:
    """Enough of a `View` from its JSON form for `random_play` and `legal_declarations`
    (`options`: the table's rules, which a view sent as the history grows leaves out)."""
    trump = _trump(j["trump_rank"], j["trump_suit"]) if j["trump_final"] else None
    ct = j["current_trick"]
    current = None
    if ct is not None:
        current = TrickView(
            ct["leader"],
            tuple((s, tuple(parse_cards(" ".join(c)))) for s, c in ct["plays"]),
            None,
            ct["points"],
        )
    return View(
        seat=j["seat"],
        phase=j["phase"],
        to_act=j["to_act"],
        round_no=j["round_no"],
        hand=tuple(parse_cards(" ".join(j["hand"]))),
        hand_sizes=tuple(j["hand_sizes"]),
        trump_rank=j["trump_rank"],
        trump_suit=j["trump_suit"],
        trump=trump,
        declarations=tuple(
            (s, tuple(parse_cards(" ".join(c)))) for s, c in j["declarations"]
        ),
        declarer=j["declarer"],
        kitty_flip=(),
        starter=j["starter"],
        declaring_team=j["declaring_team"],
        levels=tuple(j["levels"]),
        cards_left=j["cards_left"],
        last_drawer=j["last_drawer"],
        tricks=(),
        current_trick=current,
        failed_throws=(),
        opponents_points=j["opponents_points"],
        point_cards=(),
        kitty=None,
        kitty_taken=None,
        result=None,
        options=options,
    )


_VIEW_HEAD = re.compile(
    r'"seat":(?P<seat>\d+|null),"phase":"(?P<phase>\w+)","to_act":(?P<to_act>\d+|null),'
    r'"round_no":(?P<round_no>\d+),')
_LAST_DRAWER = re.compile(r'"last_drawer":(\d+|null)')


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)  # when each timed action was sent
    phases: list[str] = field(default_factory=list)  # and in which phase of the round
    errors: list[str] = field(default_factory=list)
    raced: list[str] = field(default_factory=list)  # refusals of answers that crossed others'
    actions: int = 0  # applied by the server (from the tables' final seq)
    tables_done: int = 0
    messages: int = 0
    message_bytes: int = 0  # the text of every message the players received
    slow_moves: int = 0  # actions applied at the slow-bot tables
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds during the play
    workers: list[dict[str, Any]] = field(default_factory=list)  # /api/cluster metrics
    lags: list[float] = field(default_factory=list)  # the load generator's loop lag (s)
    players_rss_mb: float = 0.0  # the players' processes' peak RSS (largest of them)


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> float:
    """CPU seconds every process of the machine has used so far (Linux /proc/stat)."""
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return 0.0
    busy = sum(int(x) for i, x in enumerate(first) if i not in (3, 4))  # not idle, iowait
    return busy / os.sysconf("SC_CLK_TCK")


def service_pids(urls: list[str]) -> list[int]:
    """The PostgreSQL (postmaster and its backends) and redis-server processes listening on
    the ports of `urls` (Linux /proc)."""
    ports = {u.rsplit(":", 1)[1].split("/")[0] for u in urls if u}
    roots, parents = [], {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            parents[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if any(f"-p {p} " in cmd + " " or (cmd.startswith("redis-server") and f":{p}" in cmd)
               for p in ports):
            roots.append(int(d.name))
    return roots + [pid for pid, ppid in parents.items() if ppid in roots]


def cpu_now(pids: list[int], services: list[int] | None = None) -> dict[str, float]:
    """CPU seconds so far: this load generator, the server processes, PostgreSQL and Redis
    (`services`), the whole machine."""
    return {"client": time.process_time(), "servers": sum(proc_cpu(p) for p in pids),
            "services": sum(proc_cpu(p) for p in services or []), "machine": machine_cpu()}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PicoConn:
    """The part of a `websockets` client connection the players use (`send`, `recv`,
    `async for`, `close`), over picows: frames are parsed in C and each text message is
    queued whole (the server sends every message in one frame). Once a player takes the
    connection over (`take`), each message goes straight to its handler, in picows's
    callback: no queue, no coroutine woken per message (7,000 messages a second at 1,000
    tables; the players share the servers' 2 cores)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.transport: Any = None
        self.handler: Callable[[str | None], None] | None = None

    @classmethod
    async def open(cls, url: str) -> PicoConn:
        conn = cls()

        class Listener(WSListener):  # type: ignore[misc]
            def on_ws_frame(self, transport: Any, frame: Any) -> None:
                kind = frame.msg_type
                if kind == WSMsgType.TEXT:
                    text = frame.get_payload_as_utf8_text()
                    if conn.handler is not None:
                        conn.handler(text)
                    else:
                        conn.queue.put_nowait(text)
                elif kind == WSMsgType.CLOSE:
                    transport.send_close()
                    transport.disconnect()

            def on_ws_disconnected(self, transport: Any) -> None:
                conn.queue.put_nowait(None)
                if conn.handler is not None:
                    conn.handler(None)

        conn.transport, _ = await ws_connect(Listener, url, max_frame_size=2**22)
        return conn

    def take(self, handler: Callable[[str | None], None]) -> None:
        """From now on, call `handler` with each message (None once closed), starting
        with those queued."""
        while not self.queue.empty():
            handler(self.queue.get_nowait())
        self.handler = handler

    def send_now(self, text: str) -> None:
        self.transport.send(WSMsgType.TEXT, text.encode())

    async def send(self, text: str) -> None:
        self.send_now(text)

    async def recv(self) -> str:
        text = await self.queue.get()
        if text is None:
            self.queue.put_nowait(None)
            raise ConnectionError("closed by the server")
        return text

    def __aiter__(self) -> PicoConn:
        return self

    async def __anext__(self) -> str:
        try:
            return await self.recv()
        except ConnectionError:
            raise StopAsyncIteration from None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.transport.send_close()
            self.transport.disconnect()


async def open_ws(url: str, client: str) -> Any:
    """A players' connection: picows if asked for (and installed), else websockets."""
    if client == "picows":
        if ws_connect is None:
            raise SystemExit("--ws picows: picows is not installed")
        return await PicoConn.open(url)
    return await connect(url, max_size=2**22)


class Player:
    """One seat, driven like the random bot from the JSON views it receives."""

    def __init__(
        self, seat: int, rng: random.Random, stats: Stats, rounds: int, think_s: float
    ) -> None:
        self.seat = seat
        self.think_s = think_s
        self.rng = rng
        self.stats = stats
        self.rounds = rounds
        # (seq when sent, time sent, phase)
        self.pending: tuple[int, float, str] | None = None
        self.acted_seq = -1
        self.seq = 0
        self.done = asyncio.Event()
        self.thinking = False  # a move is chosen and waits for its think time
        # the rule options, from the first state that has them (with --history delta
        # only the first state after hello does: docs/WEB_PROTOCOL.md)
        self.options: RuleOptions | None = None

    def note_options(self, v: dict[str, Any] | None) -> None:
        """Keep the rule options of the first view that has them."""
        if v is not None and "options" in v and self.options is None:
            self.options = _options(orjson.dumps(v["options"], option=orjson.OPT_SORT_KEYS))

    def choose(self, v: dict[str, Any]) -> list[Any] | None:
        seat, phase = self.seat, v["phase"]
        if phase == "deal":
            decls = v["legal_declarations"]
            if v["last_drawer"] == seat and decls and self.rng.random() < 0.5:
                return ["declare", seat, " ".join(self.rng.choice(decls))]
            return None
        if v["to_act"] != seat:
            return None
        if phase == "declare":
            decls = v["legal_declarations"]
            k = self.rng.randrange(len(decls) + 1)
            return ["pass", seat] if k == len(decls) else ["declare", seat, " ".join(decls[k])]
        if phase == "kitty":
            return ["bury", seat, " ".join(self.rng.sample(v["hand"], 8))]
        if phase == "play":
            assert self.options is not None
            cards = view_from_json(v, self.options).random_play(self.rng)
            return ["play", seat, " ".join(str(c) for c in cards)]
        return None

    def skip(self, text: str, now: float) -> bool:
        """True for a state this seat need not read in full: not game over, its round
        not past `rounds`, and not this seat's move (or no move is due from it). The
        server writes a state's `view` last, starting with seat, phase, to_act and
        round_no, so a glance at those few keys decides; only the seat to act parses a
        state (the load generator shares the machine's CPUs). A state that answers our
        action is timed here, from its `seq`, before that decision."""
        i = text.find(',"view":{')
        if i < 0 or not text.startswith('{"type":"state"') or self.options is None:
            return False
        m = _VIEW_HEAD.match(text, i + 9)
        j = text.rfind('"seq":', 0, i)
        if m is None or j < 0 or text.find('"game_over":false', i) < 0:
            return False
        if int(m["round_no"]) >= self.rounds:
            return False
        seq = int(text[j + 6:text.index(",", j)])
        self.seq = seq
        if self.pending is not None and seq > self.pending[0]:
            self.answered(now)
        if self.pending is not None or seq == self.acted_seq:
            return True
        if m["phase"] == "deal":
            d = _LAST_DRAWER.search(text, i)
            return d is None or d[1] != str(self.seat)
        return m["to_act"] != str(self.seat)

    def answered(self, now: float) -> None:
        """The server's state after our action arrived: its latency is timed."""
        assert self.pending is not None
        self.stats.latencies.append(now - self.pending[1])
        self.stats.sent_at.append(self.pending[1])
        self.stats.phases.append(self.pending[2])
        self.pending = None

    def feed(self, text: str, now: float) -> tuple[list[Any], float, str] | None:
        """Read one message: the action to send, with its think time and phase, or None."""
        self.stats.messages += 1
        self.stats.message_bytes += len(text)
        if self.skip(text, now):
            return None
        msg = orjson.loads(text)
        kind = msg["type"]
        if kind == "error":
            refusal = msg["message"]
            if refusal.startswith("RULES §3.3") and self.seq > self.acted_seq >= 0:
                # our declaration or pass crossed another seat's (the state moved on
                # before it arrived): refused as it must be, not a server error
                self.stats.raced.append(refusal)
            else:
                self.stats.errors.append(refusal)
            if self.pending is not None:
                self.pending = None
                self.acted_seq = -1  # try again on the next state
            return None
        if kind != "state":
            return None
        seq = msg["seq"]
        self.seq = seq
        if self.pending is not None and seq > self.pending[0]:
            self.answered(now)
        v = msg["view"]
        self.note_options(v)
        if v["game_over"] or v["round_no"] >= self.rounds:
            self.done.set()
            return None
        if self.pending is not None or seq == self.acted_seq:
            return None
        action = self.choose(v)
        if action is None:
            return None
        self.acted_seq = seq
        phase = v["phase"]
        think = 0.0
        if self.think_s > 0 and phase != "deal":  # (the same draws as before: same games)
            think = self.think_s * (0.5 + self.rng.random())
        return action, think, phase

    def send_action(self, send: Callable[[str], Any], action: list[Any], phase: str) -> Any:
        if phase != "deal":  # in the deal, other draws move seq anyway
            self.pending = (self.acted_seq, time.perf_counter(), phase)
        return send(orjson.dumps({"type": "action", "action": action}).decode())

    async def run(self, ws: ClientConnection | PicoConn) -> None:
        if isinstance(ws, PicoConn):  # messages handled in picows's callback
            return await self.run_callbacks(ws)
        async for text in ws:
            if not isinstance(text, str):
                continue
            got = self.feed(text, time.perf_counter())
            if self.done.is_set():
                return
            if got is not None:
                action, think, phase = got
                if think > 0:
                    await asyncio.sleep(think)
                await self.send_action(ws.send, action, phase)

    async def run_callbacks(self, ws: PicoConn) -> None:
        loop = asyncio.get_running_loop()
        closed = asyncio.Event()

        def on_text(text: str | None) -> None:
            if text is None:
                closed.set()
                return
            if self.done.is_set() or self.thinking:
                return
            got = self.feed(text, time.perf_counter())
            if got is None or self.done.is_set():
                return
            action, think, phase = got
            if think > 0:  # no message is read meanwhile, as the loop above would not
                self.thinking = True
                loop.call_later(think, act, action, phase)
            else:
                self.send_action(ws.send_now, action, phase)

        def act(action: list[Any], phase: str) -> None:
            self.thinking = False
            if not closed.is_set():
                self.send_action(ws.send_now, action, phase)

        ws.take(on_text)
        await closed.wait()


async def play_table(
    http: httpx.AsyncClient, ws_base: str, index: int, stats: Stats, rounds: int,
    started: asyncio.Event, ready: list[int], settings: dict[str, Any], think_s: float,
    delay_s: float, ws_client: str = "websockets", history: str = "delta",
) -> None:
    r = await http.post("/api/tables", json={"name": f"load {index}", **settings})
    r.raise_for_status()
    tid, host = r.json()["id"], r.json()["host_token"]
    rng = random.Random(index)
    players = [
        Player(s, random.Random(rng.random()), stats, rounds, think_s) for s in range(4)
    ]
    conns = [await open_ws(f"{ws_base}/ws/{tid}", ws_client) for _ in range(4)]
    try:
        for seat, ws in enumerate(conns):
            await ws.send(json.dumps({
                "type": "hello", "token": host if seat == 0 else None, "history": history,
            }))
            await ws.send(json.dumps({"type": "sit", "seat": seat, "name": f"p{seat}"}))
            while True:
                m = json.loads(await ws.recv())
                if m["type"] == "state":
                    players[seat].note_options(m["view"])
                if m["type"] == "seated":
                    break
                if m["type"] == "error":
                    raise RuntimeError(m["message"])
        ready.append(index)
        await started.wait()
        await asyncio.sleep(delay_s)  # tables start spread over --ramp-s
        tasks = [asyncio.create_task(p.run(ws)) for p, ws in zip(players, conns, strict=True)]
        await conns[0].send(json.dumps({"type": "start"}))
        waits = [asyncio.create_task(p.done.wait()) for p in players]
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for t in tasks + waits:
            t.cancel()
        stats.actions += max(p.seq for p in players)
        stats.tables_done += 1
    finally:
        for ws in conns:
            await ws.close()


async def run_load(
    ports: list[int], tables: int, args: argparse.Namespace, settings: dict[str, Any],
    pids: list[int] | None = None, indices: range | None = None,
    barrier: Callable[[], Awaitable[None]] | None = None,
) -> tuple[Stats, float]:
    """Table i lives on (is created on, and its players connect to) ports[i % len].

    `indices`: the tables this process plays (default: all `tables`); `barrier`: awaited
    once they are all seated, before any starts (a client process waits for the others).
    """
    rounds, timeout = args.rounds, args.timeout
    mine = range(tables) if indices is None else indices
    base, ws_base = f"http://127.0.0.1:{ports[0]}", f"ws://127.0.0.1:{ports[0]}"
    stats = Stats()
    started = asyncio.Event()
    ready: list[int] = []
    sem = asyncio.Semaphore(20)

    # One HTTP client per server (a client per table would load the CA bundle each time).
    https = {port: httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30)
             for port in ports}

    async def one(i: int) -> None:
        async with sem:
            pass
        delay = args.ramp_s * i / tables
        port = ports[i % len(ports)]
        await play_table(https[port], f"ws://127.0.0.1:{port}", i, stats,
                         rounds, started, ready, settings, args.think_ms / 1000, delay,
                         args.ws, args.history)

    slow_done = asyncio.Event()
    slow_jobs = [
        asyncio.create_task(slow_table(base, ws_base, i, slow_done))
        for i in range(args.slow_tables)
    ]
    jobs = [asyncio.create_task(one(i)) for i in mine]
    t_setup = time.perf_counter()
    while len(ready) < len(mine) and time.perf_counter() - t_setup < 120:
        await asyncio.sleep(0.05)
        for j in jobs:
            if j.done() and j.exception() is not None:
                raise j.exception()  # type: ignore[misc]
    if barrier is not None:
        await barrier()
    t0 = time.perf_counter()
    services = service_pids([args.db or "", args.redis or ""]) if args.redis else []
    cpu0 = cpu_now(pids or [], services)

    async def sample_lag() -> None:  # how late this process's own loop runs (its share)
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.02)
            stats.lags.append(time.perf_counter() - t - 0.02)

    lagger = asyncio.create_task(sample_lag())
    started.set()
    done, pending = await asyncio.wait(jobs, timeout=timeout)
    elapsed = time.perf_counter() - t0
    lagger.cancel()
    services += [p for p in service_pids([args.db or "", args.redis or ""]) if p not in
                 services] if args.redis else []
    cpu1 = cpu_now(pids or [], services)
    if args.cluster or args.redis:  # each worker's write batches and event-loop lag
        async with httpx.AsyncClient(timeout=10) as http:
            for port in ports:
                with contextlib.suppress(Exception):
                    info = (await http.get(f"http://127.0.0.1:{port}/api/cluster")).json()
                    stats.workers.append(info["metrics"])
    stats.cpu = {k: cpu1[k] - cpu0[k] for k in cpu0}
    for j in pending:
        j.cancel()
    for j in done:
        if j.exception() is not None:
            stats.errors.append(repr(j.exception()))
    for h in https.values():
        await h.aclose()
    slow_done.set()
    for sj in slow_jobs:
        stats.slow_moves += await sj
    return stats, elapsed


async def slow_table(base: str, ws_base: str, index: int, done: asyncio.Event) -> int:
    """A table of four 1-second bots with one spectator (so that it does not pause) until
    `done`; returns how many actions it applied meanwhile."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.post("/api/tables", json={"name": f"slow {index}"})
        r.raise_for_status()
        tid, host = r.json()["id"], r.json()["host_token"]
    seq = 0
    async with connect(f"{ws_base}/ws/{tid}", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": host}))
        for seat in range(4):
            await ws.send(json.dumps({"type": "bot", "seat": seat, "kind": "slow"}))
        await ws.send(json.dumps({"type": "start"}))

        async def watch() -> None:
            nonlocal seq
            async for text in ws:
                msg = json.loads(text)
                if msg["type"] == "state":
                    seq = msg["seq"]
                elif msg["type"] == "error":
                    raise RuntimeError(msg["message"])

        watcher = asyncio.create_task(watch())
        await done.wait()
        watcher.cancel()
    return seq


def start_server(port: int, db: str, args: argparse.Namespace) -> subprocess.Popen[bytes]:
    # SHENGJI_SERVER replaces "-m shengji.server" (e.g. a profiling wrapper script).
    cmd = [
        sys.executable, *os.environ.get("SHENGJI_SERVER", "-m shengji.server").split(),
        "--port", str(port), "--db", db,
        "--sqlite-writer", args.sqlite_writer, "--deal-ms", str(args.deal_ms),
        "--bot-delay-ms", "0", "--round-pause-ms", "0",
        "--window-ms", str(args.window_ms), "--rate", "1000", "--burst", "1000",
        "--log-level", "warning", "--fast-timings", "--create-per-min", "1000000",
        "--open-per-addr", "1000000", "--conns-per-addr", "1000000",
    ]
    if args.slow_tables:
        cmd.append("--test-bots")
    if args.bot_workers is not None:
        cmd += ["--bot-workers", str(args.bot_workers)]
    if args.redis:
        cmd += ["--redis", args.redis]
    return answering(subprocess.Popen(cmd), port, 30)


def answering(proc: subprocess.Popen[bytes], port: int, within_s: float
              ) -> subprocess.Popen[bytes]:
    """`proc`, once the server it runs answers on `port` (killed if not within `within_s`)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    return {"deal_ms": args.deal_ms, "bot_delay_ms": 0, "round_pause_ms": 0,
            "window_ms": args.window_ms}


def client_main(args: argparse.Namespace) -> None:
    """One of `--clients` load-generator processes (`--client-of`): plays tables
    `index, index + clients, ...`, says READY once they are seated, starts on a line on
    stdin, and prints its Stats as one JSON line."""
    ports = [int(x) for x in args.client_of.split(",")]
    index, k = args.client_index, args.clients

    async def barrier() -> None:
        print("READY", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

    cpu0 = time.process_time()

    async def go() -> tuple[Stats, float]:
        nonlocal cpu0
        async def start() -> None:
            nonlocal cpu0
            await barrier()
            players_gc(args.players_gc)
            cpu0 = time.process_time()
        return await run_load(ports, args.tables, args, _settings(args),
                              indices=range(index, args.tables, k), barrier=start)

    stats, elapsed = uvloop.run(go())
    _emit(json.dumps({
        "latencies": stats.latencies, "sent_at": stats.sent_at, "phases": stats.phases,
        "lags": stats.lags, "errors": stats.errors, "raced": stats.raced,
        "actions": stats.actions, "tables_done": stats.tables_done,
        "messages": stats.messages, "message_bytes": stats.message_bytes,
        "cpu": time.process_time() - cpu0, "elapsed": elapsed,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


def _emit(line: str) -> None:
    """Write one line to stdout whole. With PYTHONUNBUFFERED, stdout's binary layer is a
    raw file whose writes may be partial (a pipe the reader has not emptied yet, a
    signal): `print` would lose the rest of a result line longer than the pipe's 64 KiB."""
    sys.stdout.flush()
    view = memoryview((line + "\n").encode())
    while view:
        view = view[os.write(sys.stdout.fileno(), view):]


def players_gc(mode: str) -> None:
    """The players' processes are the measuring instrument: a collector pause there
    stalls every message they hold and would be counted as the server's latency (with
    the server's policy, their pauses reached 100-300 ms at 1,000 tables). "off": one
    full collection, freeze, then no automatic collection for the run (the players make
    little cyclic garbage: reference counting frees the rest); "server": gcpolicy.tune()."""
    if mode == "server":
        gcpolicy.tune()
        return
    gc.collect()
    gc.freeze()
    gc.disable()


def run_clients(
    ports: list[int], n: int, args: argparse.Namespace, pids: list[int]
) -> tuple[Stats, float]:
    """Play the `n` tables from `args.clients` load-generator processes (one event loop
    is not enough for thousands of WebSockets), started together once all are seated;
    their figures are pooled and CPU is measured here over the same window."""
    base = [sys.executable, __file__, "--client-of", ",".join(map(str, ports)),
            "--clients", str(args.clients), "--tables", str(n), "--rounds", str(args.rounds),
            "--deal-ms", str(args.deal_ms), "--window-ms", str(args.window_ms),
            "--think-ms", str(args.think_ms), "--ramp-s", str(args.ramp_s),
            "--timeout", str(args.timeout), "--ws", args.ws, "--players-gc", args.players_gc,
            "--history", args.history]
    kids = [subprocess.Popen(base + ["--client-index", str(i)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
            for i in range(args.clients)]
    try:
        for kid in kids:  # every table of every process is seated
            assert kid.stdout is not None
            line = kid.stdout.readline()
            if line.strip() != "READY":
                raise RuntimeError(f"a load client failed before the start: {line!r}")
        services = service_pids([args.db or "", args.redis or ""]) if args.redis else []
        cpu0 = cpu_now(pids, services)
        t0 = time.perf_counter()
        for kid in kids:
            assert kid.stdin is not None
            kid.stdin.write("GO\n")
            kid.stdin.flush()
        results = []
        for kid in kids:
            assert kid.stdout is not None
            results.append(json.loads(kid.stdout.readline()))
        elapsed = time.perf_counter() - t0
        services += [p for p in service_pids([args.db or "", args.redis or ""])
                     if p not in services] if args.redis else []
        cpu1 = cpu_now(pids, services)
    finally:
        for kid in kids:
            with contextlib.suppress(Exception):
                kid.wait(timeout=10)
            if kid.poll() is None:
                kid.kill()
    stats = Stats()
    for r in results:
        stats.latencies += r["latencies"]
        stats.sent_at += r["sent_at"]
        stats.phases += r["phases"]
        stats.lags += r["lags"]
        stats.errors += r["errors"]
        stats.raced += r["raced"]
        stats.actions += r["actions"]
        stats.tables_done += r["tables_done"]
        stats.messages += r["messages"]
        stats.message_bytes += r["message_bytes"]
    stats.cpu = {k: cpu1[k] - cpu0[k] for k in cpu0}
    stats.cpu["client"] = sum(r["cpu"] for r in results)
    stats.players_rss_mb = max(r["rss_mb"] for r in results)
    if args.cluster or args.redis:
        for port in ports:
            with contextlib.suppress(Exception):
                info = httpx.get(f"http://127.0.0.1:{port}/api/cluster", timeout=10).json()
                stats.workers.append(info["metrics"])
    return stats, elapsed


def one_run(n: int, args: argparse.Namespace) -> dict[str, Any]:
    ports = [free_port() for _ in range(args.workers)]
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as services:
        if args.cluster and not (args.db and args.redis):
            args.db, args.redis = services.enter_context(local_services())
            fresh = True
        else:
            fresh = False
        db = args.db or f"sqlite+aiosqlite:///{Path(tmp) / 'load.db'}"
        procs = [start_server(port, db, args) for port in ports]
        try:
            if args.clients > 1:
                stats, elapsed = run_clients(ports, n, args, [p.pid for p in procs])
            else:
                players_gc(args.players_gc)
                stats, elapsed = uvloop.run(
                    run_load(ports, n, args, _settings(args), [p.pid for p in procs]))
        finally:
            stop_processes(procs)
            if fresh:
                args.db = args.redis = None
    lat = [x * 1000 for x in stats.latencies]
    out: dict[str, Any] = {
        "tables": n,
        "completed": stats.tables_done,
        "elapsed_s": round(elapsed, 2),
        "tables_per_s": round(stats.tables_done / elapsed, 2),
        "actions_per_s": round(stats.actions / elapsed, 1),
        "player_actions": len(lat),
        "p50_ms": round(pct(lat, 50), 2),
        "p99_ms": round(pct(lat, 99), 2),
        "max_ms": round(max(lat), 2) if lat else None,
        "mean_ms": round(statistics.fmean(lat), 2) if lat else None,
        "messages_per_action": round(stats.messages / max(1, stats.actions), 2),
        "message_bytes_mean": round(stats.message_bytes / max(1, stats.messages)),
        "errors": len(stats.errors),
        "raced": len(stats.raced),
        "client_lag_p99_ms": round(pct([x * 1000 for x in stats.lags], 99), 2),
        "players_rss_mb": round(stats.players_rss_mb or
                                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "slow_tables": args.slow_tables,
        # CPU seconds per second of play: the load generator, the servers, everything else
        # (PostgreSQL, Redis, other programs); 2.0 is both cores of a 2-core machine busy.
        "cpu_client": round(stats.cpu.get("client", 0) / elapsed, 2),
        "cpu_servers": round(stats.cpu.get("servers", 0) / elapsed, 2),
        "cpu_services": round(stats.cpu.get("services", 0) / elapsed, 2),
        # CPU per applied action of everything the test runs (generator, servers, PostgreSQL,
        # Redis): unlike latency, it does not depend on what else the machine runs, and
        # 2000 / it is the actions/s two dedicated cores could at most sustain.
        "cpu_ms_per_action": round(1000 * sum(stats.cpu.get(k, 0) for k in (
            "client", "servers", "services")) / max(1, stats.actions), 3),
        "server_cpu_ms_per_action": round(
            1000 * stats.cpu.get("servers", 0) / max(1, stats.actions), 3),
        "cpu_other": round((stats.cpu.get("machine", 0) - stats.cpu.get("client", 0)
                            - stats.cpu.get("servers", 0) - stats.cpu.get("services", 0))
                           / elapsed, 2),
        "slow_table_actions": stats.slow_moves,
    }
    if stats.workers:
        out["workers"] = stats.workers
    if stats.errors:  # what went wrong, by kind (a message's first 60 characters)
        kinds = collections.Counter(e[:60] for e in stats.errors)
        out["error_kinds"] = dict(kinds.most_common(5))
    if args.verbose and lat:  # where the slow answers were: by phase, by 10 s of the run
        by_phase = collections.defaultdict(list)
        by_time = collections.defaultdict(list)
        t0 = min(stats.sent_at)
        for x, ph, at in zip(lat, stats.phases, stats.sent_at, strict=True):
            by_phase[ph].append(x)
            by_time[int((at - t0) // 10) * 10].append(x)
        out["p99_by_phase"] = {k: (len(v), round(pct(v, 99), 1)) for k, v in by_phase.items()}
        out["p99_by_10s"] = {k: (len(v), round(pct(v, 99), 1)) for k, v in sorted(by_time.items())}
    if stats.errors and args.verbose:
        out["first_errors"] = stats.errors[:5]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--sweep", default=None, help="comma-separated table counts, e.g. 50,100,200")
    p.add_argument("--rounds", type=int, default=1, help="rounds each table plays")
    p.add_argument("--deal-ms", type=int, default=150, help="the tables' deal speed")
    p.add_argument("--window-ms", type=int, default=None,
                   help="final declaration window (default: 2000 + 8 x think-ms)")
    p.add_argument("--think-ms", type=float, default=0.0,
                   help="players wait 0.5-1.5x this before each move (0: at once)")
    p.add_argument("--ramp-s", type=float, default=0.0,
                   help="spread the tables' starts over this many seconds")
    p.add_argument("--timeout", type=float, default=300.0, help="stop after this many seconds")
    p.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    p.add_argument("--sqlite-writer", choices=("inline", "async"), default="inline")
    p.add_argument("--slow-tables", type=int, default=0,
                   help="also run this many tables of 1-second bots (test-only 'slow' kind)")
    p.add_argument("--bot-workers", type=int, default=None,
                   help="the server's bot processes (default: one per CPU; 0: on the loop)")
    p.add_argument("--workers", type=int, default=1,
                   help="server processes (more than 1 needs --cluster or --db + --redis)")
    p.add_argument("--cluster", action="store_true",
                   help="run the servers as a cluster on a throwaway PostgreSQL + Redis")
    p.add_argument("--redis", default=None, help="Redis URL (with a PostgreSQL --db)")
    p.add_argument("--ws", choices=("websockets", "picows"),
                   default="picows" if ws_connect is not None else "websockets",
                   help="the players' WebSocket client (default picows where installed: "
                        "frames parsed in C, ~20%% less of the shared CPU than websockets)")
    p.add_argument("--history", choices=("delta", "full"), default="delta",
                   help="what the players ask for in hello: the round's history as it grows "
                        "(delta, as the browser client does) or whole in every state")
    p.add_argument("--clients", type=int, default=1,
                   help="load-generator processes sharing the tables (default 1)")
    p.add_argument("--client-of", default=None, help=argparse.SUPPRESS)  # a client process
    p.add_argument("--client-index", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--players-gc", choices=("off", "server"), default="off",
                   help="the players' garbage collector during the run: off (default; "
                   "collected once before the start) or the server's policy")
    p.add_argument("--json", action="store_true", help="print one JSON line per run")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    if args.client_of:
        client_main(args)
        return
    if args.clients > 1 and args.slow_tables:
        p.error("--slow-tables runs with one load-generator process (--clients 1)")
    if args.window_ms is None:
        args.window_ms = int(2000 + 8 * args.think_ms)
    if args.workers > 1 and not (args.cluster or args.redis):
        p.error("--workers above 1 needs --cluster (or --db postgresql... and --redis)")
    ns = [int(x) for x in args.sweep.split(",")] if args.sweep else [args.tables]
    print(f"# shengji load: rounds/table={args.rounds} deal_ms={args.deal_ms} "
          f"think_ms={args.think_ms} ramp_s={args.ramp_s} "
          f"sqlite_writer={args.sqlite_writer} cpus={os.cpu_count()} "
          f"slow_tables={args.slow_tables} bot_workers={args.bot_workers} "
          f"workers={args.workers} cluster={args.cluster or bool(args.redis)} ws={args.ws} "
          f"history={args.history}",
          flush=True)
    for n in ns:
        r = one_run(n, args)
        if args.json:
            print(json.dumps(r), flush=True)
        else:
            print(
                f"tables={r['tables']:4d} done={r['completed']:4d} in {r['elapsed_s']:7.2f}s  "
                f"tables/s={r['tables_per_s']:7.2f}  actions/s={r['actions_per_s']:8.1f}  "
                f"player actions={r['player_actions']:6d}  p50={r['p50_ms']:7.2f}ms  "
                f"p99={r['p99_ms']:7.2f}ms  max={r['max_ms']}ms  errors={r['errors']}  "
                f"raced={r['raced']}  messages/action={r['messages_per_action']} "
                f"mean {r['message_bytes_mean']} B  "
                f"cpu/s client={r['cpu_client']} servers={r['cpu_servers']} "
                f"pg+redis={r['cpu_services']} other={r['cpu_other']}  "
                f"client loop lag p99={r['client_lag_p99_ms']}ms  "
                f"players' peak RSS={r['players_rss_mb']} MB  cpu ms/action: "
                f"all={r['cpu_ms_per_action']} servers={r['server_cpu_ms_per_action']}"
                + (f"  slow-table actions={r['slow_table_actions']}" if args.slow_tables
                   else ""),
                flush=True,
            )
            for i, w in enumerate(r.get("workers", [])):
                passes = w.get("gc") or {}
                print(f"  worker {i}: " + "  ".join(
                    f"{k}={v}" for k, v in w.items() if k != "gc"
                ) + "".join(
                    f"  gc {g}: {x['passes']} passes {x['total_ms']} ms max {x['max_ms']} ms"
                    for g, x in passes.items()
                ))
            if r.get("error_kinds"):
                print("  errors by kind:", r["error_kinds"])
            for key in ("p99_by_phase", "p99_by_10s"):
                if r.get(key):
                    print(f"  {key} (count, ms):", r[key])
            if args.verbose and r.get("first_errors"):
                print("  errors:", r["first_errors"])


if __name__ == "__main__":
    main()

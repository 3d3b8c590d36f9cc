"""Helpers for testing the server through real WebSockets (Starlette's TestClient).

Test-only code (moved out of the package, issue 8); needs the `test` extra (httpx).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

if TYPE_CHECKING:
    from starlette.testclient import TestClient, WebSocketTestSession

    from shengji.server.tables import Table

T = TypeVar("T")
Msg = dict[str, Any]


class WSPlayer:
    """One WebSocket connection: `send`, `recv` with a timeout, and every message it got."""

    def __init__(self, client: TestClient, table_id: str) -> None:
        self._cm = client.websocket_connect(f"/ws/{table_id}")
        self.ws: WebSocketTestSession = self._cm.__enter__()
        self.table_id = table_id
        self.log: list[Msg] = []
        self.raw: list[str] = []
        self.state: Msg | None = None
        self.token: str | None = None
        self.seat: int | None = None
        self.closed = False
        self._exited = False
        players: list[WSPlayer] = client.__dict__.setdefault("_shengji_players", [])
        players.append(self)

    def send(self, obj: Any) -> None:
        self.ws.send_text(obj if isinstance(obj, str) else json.dumps(obj))

    def send_text(self, text: str) -> None:
        self.ws.send_text(text)

    def recv(self, timeout: float = 10.0) -> Msg:
        """The next message (fails the test after `timeout` seconds)."""

        async def _get() -> Any:
            with anyio.fail_after(timeout):
                return await self.ws._send_rx.receive()

        message = self.ws.portal.call(_get)
        if message["type"] == "websocket.close":
            self.closed = True
            raise ConnectionError(f"closed by server: {message.get('code')}")
        text = message.get("text")
        if text is None:
            text = message["bytes"].decode()
        self.raw.append(text)
        msg: Msg = json.loads(text)
        self.log.append(msg)
        if msg.get("type") == "state":
            self.state = msg
        elif msg.get("type") == "seated":
            self.token, self.seat = msg["token"], msg["seat"]
        return msg

    def until(self, pred: Callable[[Msg], bool], timeout: float = 10.0) -> Msg:
        """Receive until a message satisfies `pred`; returns it."""
        with _Deadline(timeout) as left:
            while True:
                msg = self.recv(left())
                if pred(msg):
                    return msg

    def drain(self) -> list[Msg]:
        """Every message already waiting (does not block)."""
        out: list[Msg] = []

        async def _get() -> Any:
            try:
                return self.ws._send_rx.receive_nowait()
            except anyio.WouldBlock:
                return None

        while True:
            message = self.ws.portal.call(_get)
            if message is None:
                return out
            if message["type"] == "websocket.close":
                self.closed = True
                return out
            text = message.get("text") or message["bytes"].decode()
            self.raw.append(text)
            msg: Msg = json.loads(text)
            self.log.append(msg)
            if msg.get("type") == "state":
                self.state = msg
            out.append(msg)

    def sync(self) -> None:
        """Receive everything the server queued for this connection so far (ping/pong)."""
        self.send({"type": "ping"})
        self.until(lambda m: m["type"] == "pong")

    def hello(self, token: str | None = None) -> Msg:
        self.send({"type": "hello", "token": token, "lang": "en"})
        return self.until(lambda m: m["type"] == "state")

    def sit(self, seat: int, name: str) -> Msg:
        self.send({"type": "sit", "seat": seat, "name": name})
        self.until(lambda m: m["type"] in ("seated", "error"))
        return self.until(lambda m: m["type"] == "state")

    def error(self, obj: Any, timeout: float = 5.0) -> str:
        """Send something that must be refused; returns the error message."""
        self.send(obj)
        msg = self.until(lambda m: m["type"] in ("error",), timeout)
        return str(msg["message"])

    def call(self, fn: Callable[[], T]) -> T:
        """Run `fn` in the server's event loop thread (to read server state consistently)."""

        async def _run() -> T:
            return fn()

        return self.ws.portal.call(_run)

    def close(self) -> None:
        """Close the socket (also needed after the server closed it, to end the session)."""
        self.closed = True
        if not self._exited:
            self._exited = True
            self._cm.__exit__(None, None, None)


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> Callable[[], float]:
        import time

        end = time.monotonic() + self.seconds

        def left() -> float:
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("timed out waiting for a message")
            return remaining

        return left

    def __exit__(self, *exc: object) -> None:
        return None


def count_calls(monkeypatch: Any, module: Any, name: str, key: Callable[..., T]) -> list[T]:
    """Patch `module.name` (through pytest's `monkeypatch`) to record `key(*args)` of each
    call, then make the real call; returns the list of records, filled as calls come."""
    calls: list[T] = []
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(key(*args))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def freeze(p: WSPlayer, table: Table) -> None:
    """Stop the table's driver (no more draws, bot moves or timeouts)."""

    def stop() -> None:
        if table.bots.task is not None:
            table.bots.task.cancel()
            table.bots.task = None

    p.call(stop)


def table_of(client: TestClient, table_id: str) -> Table:
    """The live server-side table (read it only through `WSPlayer.call`)."""
    app: Any = client.app
    table: Table = app.state.manager.tables[table_id]
    return table


#: the final declaration window for tests where a scripted `Human` answers it: the
#: 50 ms of FAST can close before its pass arrives on a busy machine (its pass would
#: then be refused as too late, RULES §3.3); the window still closes as soon as all
#: four seats have passed, so this costs no time
HUMAN_WINDOW_MS = 5_000

FAST: dict[str, Any] = {
    "deal_ms": 0,
    "window_ms": 50,
    "bot_delay_ms": 0,
    "round_pause_ms": 0,
    "rate_per_s": 1000.0,  # the test players are faster than people
    "burst": 1000.0,
    "fast_timings": True,  # below the public server's minima
    "bot_workers": 0,  # bots on the loop (tests of the worker pool ask for workers)
}


#: `create_app`'s keywords that are hooks (tests'), not `ServerConfig` settings
APP_HOOKS = ("seed_source", "static_dir")


def make_app(db_path: str | os.PathLike[str], settings: dict[str, Any]) -> Any:
    """`create_app` on a SQLite file: FAST, then `settings` (ServerConfig fields and
    APP_HOOKS)."""
    from shengji.server import ServerConfig
    from shengji.server.app import create_app

    merged = {"db": f"sqlite+aiosqlite:///{db_path}", **FAST, **settings}
    hooks = {k: merged.pop(k) for k in APP_HOOKS if k in merged}
    return create_app(ServerConfig(**merged), **hooks)


@contextlib.contextmanager
def serve(db_path: str | os.PathLike[str], **settings: Any) -> Iterator[TestClient]:
    """A running app on a SQLite file (lifespan entered), with fast timings by default."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "use httpx2" (Starlette 1.x)
        from starlette.testclient import TestClient

    app = make_app(db_path, settings)
    with TestClient(app) as client:
        try:
            yield client
        finally:  # open sockets would keep the server's loop from shutting down
            for p in client.__dict__.get("_shengji_players", []):
                with contextlib.suppress(Exception):
                    p.close()


def new_table(client: TestClient, **body: Any) -> tuple[str, str]:
    """POST a table; returns (id, host token)."""
    r = client.post("/api/tables", json={"name": "test", **body})
    assert r.status_code == 200, r.text
    data = r.json()
    return str(data["id"]), str(data["host_token"])


def seated_host(
    client: TestClient, seat: int = 0, name: str = "Host"
) -> tuple[str, str, WSPlayer]:
    """A new table with its host connected and seated at `seat` as `name`:
    (id, host token, the host's connection)."""
    tid, host = new_table(client)
    p = WSPlayer(client, tid)
    p.hello(host)
    p.sit(seat, name)
    return tid, host, p


def bots_table(client: TestClient, kind: str = "random") -> tuple[str, str, WSPlayer]:
    """A table with `kind` bots in all four seats, its host connected to watch (not
    seated): (id, host token, the host's connection). Not started yet."""
    tid, host = new_table(client)
    h = WSPlayer(client, tid)
    h.hello(host)
    for seat in range(4):
        h.send({"type": "bot", "seat": seat, "kind": kind})
        h.until(lambda m: m["type"] == "state")
    return tid, host, h


def host_table(
    client: TestClient, bots: dict[int, str], human_seat: int = 0, *, start: bool = True,
    **body: Any,
) -> tuple[WSPlayer, Table]:
    """A started table (`start=False`: seated, not started yet): the host sits at
    `human_seat`, `bots` fill the other seats."""
    tid, host = new_table(client, **body)
    p = WSPlayer(client, tid)
    p.hello(host)
    p.sit(human_seat, "Host")
    for seat, kind in bots.items():
        p.send({"type": "bot", "seat": seat, "kind": kind})
        p.until(lambda m: m["type"] in ("state", "error"))
    if start:
        p.send({"type": "start"})
        p.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
    return p, table_of(client, tid)


#: a state's `table.bots` before any searching bot has decided (it is absent then)
NO_SEARCH: dict[str, Any] = {"decisions": 0, "degraded": 0, "shed": 0,
                             "rollouts_share": None, "seats": []}


def bots_of(msg: dict[str, Any]) -> dict[str, Any]:
    """A state's `table.bots` (`NO_SEARCH` until a searching bot has decided)."""
    bots: dict[str, Any] = msg["table"].get("bots", NO_SEARCH)
    return bots


def play_until_bots(
    client: TestClient, bots: dict[int, str], seed: int,
    until: Callable[[dict[str, Any]], bool], timeout: float = 120,
) -> tuple[WSPlayer, Table, dict[str, Any]]:
    """Host a table of `bots` and play its human seat until the state's `table.bots`
    satisfies `until`: the player, the table and that `table.bots`."""
    p, table = host_table(client, bots)
    human = Human(p, table, seed=seed)
    state = human.play_until(lambda m: m["type"] == "state" and until(bots_of(m)),
                             timeout=timeout)
    return p, table, bots_of(state)


class Human:
    """Plays one seat through the WebSocket like a person would, choosing legal moves
    from its own view (`View.random_play`) read in the server's loop thread."""

    def __init__(self, p: WSPlayer, table: Table, seed: int = 0, declare: bool = False) -> None:
        self.p = p
        self.table = table
        self.rng = random.Random(seed)
        self.declare = declare
        # The decision point last answered. Several states can show the same turn before
        # the server has applied our answer (a bot's move, a chat line, a clock tick), so
        # acting once per state number would answer the same turn twice.
        self.acted_on: tuple[Any, ...] | None = None
        self.declared_at: tuple[int, int] | None = None
        self.errors: list[str] = []
        # Refusals of an answer that crossed another seat's move (a bot's overturn in the
        # final window moves the ask on while our pass is in flight, RULES §3.3): the
        # server had already sent a newer state when it refused. A person sees the same
        # refusal and simply acts on the new state; they are not the server's errors.
        self.crossed: list[str] = []
        self.acted_seq = -1
        self.calls_sent = 0  # friend calls (RULES §12.4) this seat made as the leader

    def react(self, msg: Msg) -> None:
        """Answer one message: act if it is this seat's turn."""
        if msg["type"] == "error":
            st = self.p.state
            text = str(msg["message"])
            if st is not None and st["seq"] > self.acted_seq >= 0 and text.startswith(
                "RULES §3.3"
            ):
                self.crossed.append(text)
                return
            self.errors.append(text)
            if "slow down" in text and st is not None:
                import time

                time.sleep(0.2)
                self.acted_on = None
                self.react(self.p.state)
            return
        if msg["type"] != "state" or msg["you"] is None:
            return
        seat: int = msg["you"]
        v = msg["view"]
        turn = (v["round_no"], v["phase"], v["to_act"], len(v["declarations"]), len(v["hand"]))
        if turn == self.acted_on or v["game_over"]:
            return
        action: list[Any] | None = None
        key = (v["round_no"], len(v["declarations"]))
        if (
            v["phase"] in ("deal", "declare")
            and self.declare
            and v["legal_declarations"]
            and self.declared_at != key
        ):
            self.declared_at = key  # once per round and standing declaration
            action = ["declare", seat, " ".join(v["legal_declarations"][-1])]
        elif v["phase"] == "declare" and v["to_act"] == seat:
            action = ["pass", seat]
        elif v["phase"] == "kitty" and v["to_act"] == seat:
            k = self.table.options.n_kitty  # 8 at four players (RULES §4, §12.1)
            action = ["bury", seat, " ".join(self.rng.sample(v["hand"], k))]
        elif v["phase"] == "call" and v["to_act"] == seat:  # friends mode (RULES §12.4)
            rng, table = self.rng, self.table
            action = self.p.call(lambda: table.game.view(seat).random_call_action(rng).to_json())
            self.calls_sent += 1
        elif v["phase"] == "play" and v["to_act"] == seat:
            table = self.table

            def choose() -> str | None:
                view = table.game.view(seat)
                if view.phase != "play" or view.to_act != seat:
                    return None
                return " ".join(str(c) for c in view.random_play(self.rng))

            cards = self.p.call(choose)
            if cards is not None:
                action = ["play", seat, cards]
        if action is not None:
            self.acted_on = turn
            self.acted_seq = msg["seq"]
            self.p.send({"type": "action", "action": action})

    def play_until(self, stop: Callable[[Msg], bool], timeout: float = 30.0) -> Msg:
        """React to every message until `stop(msg)`; returns that message, unanswered
        (a caller that plays on after it must `react` to it: it may be this seat's turn,
        and then no other message comes until this seat acts)."""
        with _Deadline(timeout) as left:
            while True:
                msg = self.p.recv(left())
                if stop(msg):
                    return msg
                self.react(msg)


@contextlib.contextmanager
def live_server(
    db_path: str | os.PathLike[str], *, header_timeout_s: float | None = None,
    guard: dict[str, Any] | None = None, uvicorn_options: dict[str, Any] | None = None,
    **settings: Any
) -> Iterator[str]:
    """The real server (uvicorn, its protective config) in a thread on a free loopback
    port, on a SQLite file; yields its base URL (http://127.0.0.1:PORT). `guard`:
    GuardedH11Protocol attributes to set meanwhile (body_timeout_s, max_conns_per_addr);
    `uvicorn_options`: more uvicorn Config keywords (proxy_headers=False)."""
    import socket
    import threading
    import time

    import uvicorn

    from shengji.server.app import uvicorn_config
    from shengji.server.httpguard import GuardedH11Protocol

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    app = make_app(db_path, settings)
    config = uvicorn_config(app, "127.0.0.1", port, log_level="warning", loop="asyncio",
                            **(uvicorn_options or {}))
    server = uvicorn.Server(config)
    overrides = dict(guard or {})
    if header_timeout_s is not None:
        overrides["header_timeout_s"] = header_timeout_s
    old = {k: getattr(GuardedH11Protocol, k) for k in overrides}
    for k, v in overrides.items():
        setattr(GuardedH11Protocol, k, v)
    thread = threading.Thread(target=server.run, name="shengji-live-server", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)
        for k, v in old.items():
            setattr(GuardedH11Protocol, k, v)


def on_loop(client: TestClient, fn: Callable[[], T]) -> T:
    """Run `fn` in the server's event loop thread (no WebSocket needed)."""

    async def _run() -> T:
        return fn()

    portal: Any = client.portal
    result: T = portal.call(_run)
    return result


def _stored_rows(db_path: str | os.PathLike[str], sql_table: str, table_id: str) -> int:
    """How many rows of `table_id` the SQLite table `sql_table` holds (a plain sqlite3)."""
    import sqlite3

    con = sqlite3.connect(db_path, timeout=10)
    try:
        row = con.execute(f"SELECT count(*) FROM {sql_table} WHERE table_id = ?", (table_id,))
        return int(row.fetchone()[0])
    finally:
        con.close()


def stored_actions(db_path: str | os.PathLike[str], table_id: str) -> int:
    """How many actions of `table_id` the SQLite file holds (read with a plain sqlite3)."""
    return _stored_rows(db_path, "actions", table_id)


def skip_or_fail(reason: str) -> None:
    """Skip the test for a missing service (PostgreSQL, Redis, Chromium) -- or, where
    `CI=true` is set, fail it: CI must not pass a service-backed suite it never ran."""
    import pytest

    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and a service the test needs is missing: {reason}")
    pytest.skip(reason)


def import_or_skip(module: str, reason: str) -> Any:
    """`pytest.importorskip` for a service's client library (redis-py, asyncpg): the
    module, or skip the test (the whole module, called at its top) -- failing instead
    under `CI=true`, as `skip_or_fail`."""
    import importlib

    import pytest

    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and a service the test needs is missing: {reason}",
                        pytrace=False)
        pytest.skip(reason, allow_module_level=True)


def service_or_skip(service: AbstractContextManager[str]) -> Iterator[str]:
    """Yield the URL of a throwaway service (`shengji.server.localcluster.local_postgres`,
    `local_redis`), skipping the test where it is not installed or does not start
    (failing it instead under `CI=true`, see `skip_or_fail`)."""
    from shengji.server.localcluster import ServiceError

    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(service)
        except ServiceError as exc:
            skip_or_fail(str(exc))
        yield url


def recv_json(ws: Any, timeout: float = 20.0) -> dict[str, Any]:
    """The next message of a synchronous `websockets` client connection, parsed."""
    msg: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
    return msg


def sit_with_bots(ws: Any, host: str) -> str:
    """On a raw WebSocket client: the host says hello, sits at seat 0 as "Me", puts
    random bots in seats 1-3 and starts; returns seat 0's token."""
    ws.send(json.dumps({"type": "hello", "token": host}))
    next_state(ws)
    ws.send(json.dumps({"type": "sit", "seat": 0, "name": "Me"}))
    token = next(m for m in iter(lambda: recv_json(ws), None) if m["type"] == "seated")["token"]
    for seat in (1, 2, 3):
        ws.send(json.dumps({"type": "bot", "seat": seat, "kind": "random"}))
        next_state(ws)
    ws.send(json.dumps({"type": "start"}))
    return str(token)


def next_state(ws: Any) -> dict[str, Any]:
    """The next `state` message of a synchronous client connection (others skipped)."""
    while True:
        m = recv_json(ws)
        if m["type"] == "state":
            return m


def stored_chat(db_path: str | os.PathLike[str], table_id: str) -> int:
    """How many chat messages of `table_id` the SQLite file holds (a plain sqlite3)."""
    return _stored_rows(db_path, "chat", table_id)


class StoreMirror:
    """The game as a test reads it back from a store, to pick legal moves for seat 0.

    A subclass says how its store lists the actions (`stored`); the moves are the same
    for every store: pass in the deal, bury the first eight, play a random legal play."""

    def __init__(self, seed: int, options: dict[str, Any]) -> None:
        from shengji import Game, RuleOptions

        self.game = Game(seed, RuleOptions.from_json(options))
        self.rng = random.Random(0)

    def stored(self, start: int, stop: int) -> list[Any]:
        """The stored actions `start` to `stop` (as JSON), in order."""
        raise NotImplementedError

    def catch_up(self, seq: int) -> None:
        """Apply the stored actions up to `seq`."""
        from shengji.actions import action_from_json

        for a in self.stored(len(self.game.actions), seq):
            self.game.apply(action_from_json(a))
        assert len(self.game.actions) == seq

    def move(self, msg: Msg) -> list[Any] | None:
        """Seat 0's move for this state, if it is seat 0's turn."""
        v = msg["view"]
        if v["to_act"] != 0:
            return None
        if v["phase"] == "declare":
            return ["pass", 0]
        if v["phase"] == "kitty":
            return ["bury", 0, " ".join(v["hand"][:8])]
        if v["phase"] == "play":
            self.catch_up(msg["seq"])
            return ["play", 0, " ".join(map(str, self.game.view(0).random_play(self.rng)))]
        return None


def end_process(proc: subprocess.Popen[bytes], grace: float = 10) -> None:
    """Stop a server the test started: SIGTERM, `grace` seconds to exit, then SIGKILL."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class ServerProcess:
    """`python -m shengji.server` as a subprocess on a free loopback port, on a SQLite file
    in `tmp`: `ensure()` starts it (again) where it is not running, has died, does not
    answer, or was marked `stale` (the browser tests' `server` fixture marks it after a
    failed test), and returns its base URL. Each start gets a fresh database file and
    port, and its output goes to `server-N.log` in `tmp`."""

    ARGS = (
        "--rate", "1000", "--burst", "1000",
        "--fast-timings",  # the tests' tables deal in ms (below a public server's minima)
        "--create-per-min", "1000", "--log-level", "warning",
    )

    def __init__(self, tmp: Any) -> None:
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None
        self.base = ""
        self.starts = 0  # how many servers this object started (tests)
        self.stale = False

    def answers(self, timeout: float = 10.0) -> bool:
        """Whether the running server answers `GET /api/tables` with 200."""
        import urllib.request

        if self.proc is None or self.proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(self.base + "/api/tables", timeout=timeout) as r:
                return bool(r.status == 200)
        except OSError:
            return False

    def ensure(self) -> str:
        """The base URL of a live server, started afresh if needed (see the class)."""
        if self.stale or not self.answers():
            self.stop()
            self._start()
        return self.base

    def _start(self) -> None:
        import sys
        import time
        import urllib.request

        from browser_helpers import ROOT, free_port

        self.starts += 1
        n, port = self.starts, free_port()
        log_path = self.tmp / f"server-{n}.log"
        with open(log_path, "wb") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "shengji.server", "--port", str(port),
                 "--db", f"sqlite+aiosqlite:///{self.tmp / f'x-{n}.db'}", *self.ARGS],
                stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
            )
        self.base, self.stale = f"http://127.0.0.1:{port}", False
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.base + "/api/tables", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("server did not start:\n" + log_path.read_text())
            time.sleep(0.1)

    def stop(self) -> None:
        """Stop the server if one runs (SIGTERM, then SIGKILL, see `end_process`)."""
        if self.proc is not None:
            if self.proc.poll() is None:
                end_process(self.proc)
            self.proc = None

"""The web server: HTTP API, WebSocket endpoint and the static browser client (ASGI, FastAPI).

`create_app(config)` builds the application (`config.ServerConfig`: every setting);
`run(config)` serves it with uvicorn (used by `shengji serve`, which
`python -m shengji.server` calls). A public server's defenses live here too:
security headers, the Origin check, request-size and per-address limits, the hello timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

import platformdirs
from fastapi import FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.requests import ClientDisconnect
from starlette.websockets import WebSocketState

from . import gcpolicy
from .config import ServerConfig
from .connection import SEND_NOW, ClientError, clean_name
from .manager import Manager
from .replay import ReplayCache, WindowLimit, replay_payload
from .reviews import (
    REVIEW_FAILED,
    REVIEW_OWN_SEAT,
    ROUND_UNFINISHED,
    ReviewJobs,
)
from .schema import (
    BAD_NAME,
    BAD_ORIGIN,
    BAD_REQUEST,
    RATE_LIMITED,
    TABLE_MODES,
    TABLE_PLAYERS,
    TOO_LARGE,
    InputError,
    TableSettings,
    dumps_strict,
    server_table_defaults,
)
from .security import token_matches
from .storage import Store, is_write_failure
from .tables import ERROR, FINISHED, SLOW_KIND, WAITING

if TYPE_CHECKING:
    from .cluster import Cluster

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
WS_MAX_SIZE = 1 << 20  # frames above this are refused by the protocol layer itself
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
CREATE_KEYS = ("name", "options", *TableSettings.model_fields)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def default_db_url() -> str:
    """SQLite file in the user's data directory (created on first run)."""
    folder = Path(platformdirs.user_data_dir("shengji"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{folder / 'shengji.db'}"


def _error(status: int, exc: InputError) -> JSONResponse:
    return JSONResponse(exc.to_json(), status_code=status)


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return bytes(v).decode("latin-1")
    return None


def origin_allowed(scope: Scope, allowed: frozenset[str]) -> bool:
    """A request without an Origin (not a browser) or from the server's own origin (its
    Host header) or from one of `allowed` (`--allow-origin`) may proceed."""
    origin = _header(scope, b"origin")
    if origin is None:
        return True
    origin = origin.rstrip("/").lower()
    if origin in allowed or "*" in allowed:
        return True
    host = (_header(scope, b"host") or "").lower()
    parts = urlsplit(origin)
    return bool(host) and parts.scheme in ("http", "https") and parts.netloc == host


#: how much of a chunked body past the limit is read and dropped before its 413 is sent
DRAIN_BYTES = 64 * 1024


class Guard:
    """ASGI middleware: security headers on every HTTP response, a 16 KiB cap on request
    bodies, and the Origin check (cross-origin POSTs and WebSockets are refused).

    A table's WebSocket (`/ws/{table_id}`) goes straight to its endpoint (`ws_endpoint`)
    instead of through FastAPI's middleware and router: they add a dozen coroutines and
    their closures (~50 tracked objects) that live as long as the connection, and a
    wrapper around every send. A worker holds thousands of connections, and each of
    those objects is scanned by the garbage collector (server/gcpolicy.py)."""

    def __init__(
        self, app: FastAPI, *, allowed: frozenset[str], max_body: int,
        ws_endpoint: Callable[[WebSocket, str], Awaitable[None]],
    ) -> None:
        self.app: ASGIApp = app
        self.fastapi = app
        self.state = app.state  # the manager and store, as on the FastAPI app
        self.allowed = allowed
        self.max_body = max_body
        self.ws_endpoint = ws_endpoint

    def _table_ws(self, scope: Scope) -> str | None:
        """The table id of a WebSocket to `/ws/{table_id}` (FastAPI's match: one
        non-empty path segment), else None."""
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root):]
        if not path.startswith("/ws/"):
            return None
        tid = path[4:]
        return tid if tid and "/" not in tid else None

    async def _refuse(self, send: Send, status: int, exc: InputError) -> None:
        body = dumps_strict(exc.to_json()).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"), *SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": body})

    async def _read_chunked(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """The whole body of a chunked request, at most `max_body` bytes, as a receive
        callable for the application; None when it was refused (413) or the client went."""
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # http.disconnect
                client = scope.get("client")
                log.info("%s %s: the client disconnected before its request body arrived",
                         client[0] if client else "?", scope.get("path"))
                return None
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_body:
                # Read (and drop) what is still on its way, up to a bound, before the 413:
                # closing with the client's bytes unread resets the connection, and the
                # reset can reach the client before the answer does (nginx's lingering
                # close). A body far over the limit is cut off at the bound.
                while message.get("more_body", False) and seen <= self.max_body + DRAIN_BYTES:
                    message = await receive()
                    if message["type"] != "http.request":
                        return None
                    seen += len(message.get("body", b""))
                await self._refuse(send, 413, InputError(
                    f"request body too large (limit {self.max_body} bytes)", code=TOO_LARGE))
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        whole: Message | None = {"type": "http.request", "body": b"".join(chunks),
                                 "more_body": False}

        async def replay() -> Message:
            nonlocal whole
            if whole is not None:
                message, whole = whole, None
                return message
            return await receive()

        return replay

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if not origin_allowed(scope, self.allowed):
                log.info("refused a WebSocket from origin %s", _header(scope, b"origin"))
                # Accepted, then closed with the code: refused at the handshake, a browser
                # sees only an HTTP 403 (code 1006) it cannot tell from any other failure.
                ws = WebSocket(scope, receive, send)
                await ws.accept()
                await ws.close(code=4403, reason="this origin may not use this server")
                return
            tid = self._table_ws(scope)
            if tid is not None:
                scope["app"] = self.fastapi  # what `WebSocket.app` reads, as FastAPI sets it
                await self.ws_endpoint(WebSocket(scope, receive, send), tid)
                return
            await self.app(scope, receive, send)  # (no route: FastAPI refuses it)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        if method not in ("GET", "HEAD", "OPTIONS") and not origin_allowed(scope, self.allowed):
            await self._refuse(send, 403, InputError(
                "cross-origin requests are refused", code=BAD_ORIGIN))
            return
        length = _header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await self._refuse(send, 413, InputError(
                f"request body too large (limit {self.max_body} bytes)", code=TOO_LARGE))
            return
        if length is None and _header(scope, b"transfer-encoding") is not None:
            # A chunked body has no length to check up front: read it here (the protocol's
            # body timeout bounds how long), so one too large is answered 413 before the
            # application runs, not a 500 from inside it.
            whole = await self._read_chunked(scope, receive, send)
            if whole is None:
                return
            receive = whole
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise _BodyTooLarge
            return message

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [h for h in message.get("headers", ())
                           if bytes(h[0]).lower() != b"server"]
                message["headers"] = headers + SECURITY_HEADERS
            await send(message)

        try:
            await self.app(scope, limited_receive, with_headers)
        except ClientDisconnect:  # a client that went (or was closed) mid-body: one line
            client = scope.get("client")
            log.info("%s %s: the client disconnected before its request body arrived",
                     client[0] if client else "?", scope.get("path"))
        except _BodyTooLarge:
            if not started:
                await self._refuse(send, 413, InputError(
                    f"request body too large (limit {self.max_body} bytes)", code=TOO_LARGE))


class _BodyTooLarge(Exception):
    pass


def create_app(
    config: ServerConfig | None = None,
    *,
    static_dir: Path | str | None = None,
    seed_source: Callable[[], int] | None = None,
    tune_gc: bool = False,
) -> Any:
    """The ASGI app of the server `config` (None: every default; see `ServerConfig`).

    The keywords are hooks, not settings: `static_dir` (tests): another browser client;
    `seed_source` (tests): where new tables' shuffle seeds come from (default: the
    system's random source; never chosen by a client). `tune_gc`: once started, freeze
    what start-up built, raise the collector's thresholds and time its passes
    (`gcpolicy`; `run` sets it: it is a setting of the whole process, so apps built
    inside tests do not). A `redis_url` runs the app as one worker of a cluster (see
    `cluster/`).
    """
    config = config or ServerConfig()
    server_table_defaults(config)  # a timing out of range is refused now (ValueError)
    url = config.db or default_db_url()
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    from shengji.bots import AGENT_KINDS

    kinds = (*AGENT_KINDS, SLOW_KIND) if config.test_bots else AGENT_KINDS

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        cluster = None
        if config.redis_url:
            from .cluster import Cluster, ClusterStore

            store: Store = ClusterStore(url, lease_ms=config.lease_ms)
        else:
            store = Store(url, sqlite_writer=config.sqlite_writer)
        await store.start()
        manager = Manager(store, config, seed_source=seed_source, bot_kinds=kinds)
        if config.redis_url:
            cluster = manager.cluster = Cluster(
                manager, config.redis_url, hello_timeout_s=config.hello_timeout_s)
        try:
            await manager.start()
            if cluster is not None:
                await cluster.start()
        except BaseException:
            await store.close()
            raise
        app.state.store = store
        app.state.manager = manager
        gc_timer = policy = None
        if tune_gc:
            policy = gcpolicy.tune()
            gc_timer = manager.gc_timer = gcpolicy.PassTimer()
        try:
            yield
        finally:
            if gc_timer is not None:
                gc_timer.close()
            if isinstance(policy, gcpolicy.Pacer):
                policy.close()
            if cluster is not None:
                await cluster.stop()
            await manager.stop()
            await store.close()

    app = FastAPI(
        title="shengji", lifespan=lifespan, docs_url="/docs" if config.debug else None,
        redoc_url=None, openapi_url="/openapi.json" if config.debug else None,
    )
    app.state.hello_timeout_s = config.hello_timeout_s

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errs = exc.errors()
        where = ".".join(str(x) for x in errs[0]["loc"][1:]) if errs else ""
        msg = f"{where}: {errs[0]['msg']}" if errs and where else "malformed request"
        return _error(422, InputError(msg, code=BAD_REQUEST, field=where or None))

    def manager_of(app_: Any) -> Manager:
        m: Manager = app_.state.manager
        return m

    def index() -> FileResponse:
        page = static / "index.html"
        if not page.is_file():
            raise HTTPException(404, "the browser client is not installed")
        return FileResponse(page, headers={"Cache-Control": "no-cache"})

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return index()

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        return index()

    @app.get("/games/{table_id}", include_in_schema=False)
    async def replay_page(table_id: str) -> FileResponse:
        return index()

    @app.get("/api/tables")
    async def list_tables() -> list[dict[str, Any]]:
        manager = manager_of(app)
        if manager.cluster is not None:  # every process's tables
            return await manager.cluster.lobby()
        return manager.lobby()

    @app.get("/api/cluster", include_in_schema=False)
    async def cluster_info() -> dict[str, Any]:
        """This process's part of the cluster (404 for a single process)."""
        cluster = cast("Cluster | None", manager_of(app).cluster)
        if cluster is None:
            raise HTTPException(404, "not a cluster")
        return cluster.info()

    @app.get("/api/bots", include_in_schema=False)
    async def bots_info() -> dict[str, Any]:
        """This process's bots (operators, issue 35): the searching bots' budgets over its
        live tables and where they think (`pool`: kind, CPUs now, fallback decisions)."""
        manager = manager_of(app)
        return {"bots": manager.bot_budgets(), "pool": manager.pool_status()}

    @app.get("/api/options")
    async def rule_options() -> dict[str, Any]:
        """The rule options' defaults and the named presets (RULES §10), for the create form."""
        from shengji.options import PRESETS, RuleOptions

        return {
            "defaults": RuleOptions().to_json(),
            "presets": {name: opts.to_json() for name, opts in PRESETS.items()},
            # the table options of RULES §12, apart: `defaults` stays the §10 house rules
            "table": {"players": list(TABLE_PLAYERS), "modes": list(TABLE_MODES),
                      "decks": [2, 5]},
        }

    @app.get("/api/games")
    async def finished_games() -> list[dict[str, Any]]:
        """The most recently finished games with their results (the lobby's "finished")."""
        return await manager_of(app).finished()

    @app.post("/api/tables", response_model=None)
    async def create_table(request: Request) -> JSONResponse | dict[str, str]:
        """Body: {"name", "options": {RULES §10}, deal_ms, window_ms, bot_delay_ms,
        round_pause_ms, bot_timeout_s}. Refusals: 422 {"detail", "code", "field"}."""
        try:
            body = json.loads(await request.body(), parse_constant=_no_constant)
        except (ValueError, RecursionError):
            return _error(422, InputError("malformed request: the body is not JSON",
                                          code=BAD_REQUEST))
        if not isinstance(body, dict):
            return _error(422, InputError("malformed request: expected a JSON object",
                                          code=BAD_REQUEST))
        unknown = [k for k in body if k not in CREATE_KEYS]
        if unknown:
            return _error(422, InputError(f"unknown field {str(unknown[0])[:40]!r}",
                                          code=BAD_REQUEST, field=str(unknown[0])[:40]))
        try:
            name = clean_name(body.get("name", "Tractor"), limit=60, player=False)
        except ClientError as exc:
            return _error(422, InputError(str(exc), code=BAD_NAME, field="name"))
        settings = {k: body[k] for k in TableSettings.model_fields if k in body}
        addr = request.client.host if request.client else ""
        try:
            table, host_token = await manager_of(app).create(
                name, body.get("options"), settings, addr
            )
        except InputError as exc:
            status = 429 if exc.code in ("rate_limited", "too_many_tables") else 422
            return _error(status, exc)
        except Exception as exc:
            if not is_write_failure(exc):
                raise
            # (logged by the store: once with its traceback, then rate limited)
            return JSONResponse(InputError(
                "the server cannot create tables right now (its storage is failing): "
                "try again later", code="unavailable").to_json(),
                status_code=503, headers={"Retry-After": "30"})
        return {"id": table.id, "host_token": host_token}

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        table = await manager_of(app).read(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        return table.table_info()

    def over_limit(limit: WindowLimit, request: Request, what: str) -> JSONResponse | None:
        """429 with Retry-After when the client's address is over `limit`, else None."""
        wait = limit.admit(request.client.host if request.client else "")
        if not wait:
            return None
        return JSONResponse(
            InputError(f"too many {what} from your address (limit {limit.count} a minute): "
                       "try again later", code=RATE_LIMITED).to_json(),
            status_code=429, headers={"Retry-After": str(max(1, math.ceil(wait)))})

    replay_cache = ReplayCache()
    replay_limit = WindowLimit(config.replays_per_min)

    @app.get("/api/tables/{table_id}/replay", response_model=None)
    async def replay(table_id: str, request: Request) -> JSONResponse | dict[str, Any]:
        """A table's replay (see docs/WEB_PROTOCOL.md): cached until its log grows, and
        rate limited per client address (429 with Retry-After)."""
        manager = manager_of(app)
        refused = over_limit(replay_limit, request, "replays")
        if refused is not None:
            return refused
        table = await manager.read(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        if table.status == WAITING:
            return JSONResponse({"detail": "the game has not started"}, status_code=409)
        if table.status == ERROR:
            return JSONResponse({"detail": "this table hit an internal error; its host can "
                                 "export its record", "code": "table_error"}, status_code=409)
        finished = table.status == FINISHED
        key = (table.id, len(table.game.actions), len(table.marks), finished)
        steps: dict[str, Any] | None = replay_cache.get(key)
        if steps is None:
            actions = [a.to_json() for a in table.game.actions]
            steps = await asyncio.to_thread(
                replay_payload, table.seed, table.options, actions, finished,
                dict(table.marks),
            )
            replay_cache.put(key, steps)
        # the table's last messages (not cached: chat does not grow the log)
        return {**steps, "chat": table.chat.history()["messages"]}

    review_jobs = ReviewJobs()
    review_limit = WindowLimit(config.replays_per_min)

    def finished_round(table: Any, round_: int) -> int | JSONResponse:
        """Round `round_` (1-based) as a 0-based index if it is finished, else the 409
        (every table of RULES §12: the review's search plays N seats and both modes)."""
        game = table.game
        round_no = round_ - 1
        if table.status in (WAITING, ERROR) or not (
                round_no < game.round_no or (game.is_over and round_no == game.round_no)):
            return JSONResponse({"detail": f"round {round_} is not finished: a review comes "
                                 "only after the round (RULES §11)", "code": ROUND_UNFINISHED},
                                status_code=409)
        return round_no

    def bearer(request: Request) -> str | None:
        auth = request.headers.get("authorization", "")
        return auth[7:] if auth.lower().startswith("bearer ") else None

    def review_key(table: Any, round_no: int, seat: int) -> tuple[Any, ...]:
        from . import reviews

        return (table.id, round_no, seat, reviews.budget_key(reviews.REVIEW_BUDGET),
                reviews.REVIEW_SEED)

    def review_work(manager: Manager, table: Any, round_no: int, seat: int
                    ) -> Callable[[Callable[[int, int], None]], Awaitable[dict[str, Any]]]:
        """The review's computation: read back from the store if kept there, else worked
        out a few decisions at a time in the bots' pool (progress after each), then kept."""
        from . import reviews

        budget, rseed = reviews.REVIEW_BUDGET, reviews.REVIEW_SEED
        actions = [a.to_json() for a in table.game.actions]
        table_id, seed, options = table.id, table.seed, table.options

        async def work(progress: Callable[[int, int], None]) -> dict[str, Any]:
            bkey = reviews.budget_key(budget)
            stored = await manager.store.load_review(table_id, round_no, seat, bkey, rseed)
            if stored is not None:
                return stored
            total = await asyncio.to_thread(reviews.count_parts, seed, options, actions,
                                            round_no, seat)
            progress(0, total)
            parts = []
            for part in reviews.split(total):  # one task at a time: bots' moves get between
                parts.append(await manager.review(seed, options, actions, round_no, seat,
                                                  budget, rseed, part))
                progress(part[1], total)
            body = reviews.merge(parts) if parts else await manager.review(
                seed, options, actions, round_no, seat, budget, rseed)
            try:
                await manager.store.save_review(table_id, round_no, seat, bkey, rseed, body)
            except Exception:  # noqa: BLE001 - the review still goes out; kept next time
                log.warning("could not store the review of table %s", table_id, exc_info=True)
            return body

        return work

    def review_failed(why: str) -> JSONResponse:
        return JSONResponse({"detail": f"the review could not be worked out: {why}",
                             "code": REVIEW_FAILED}, status_code=500)

    @app.get("/api/tables/{table_id}/review", response_model=None)
    async def review(table_id: str, request: Request, seat: int = Query(ge=0, le=9),
                     round: int = Query(ge=1), wait: bool = True  # noqa: A002
                     ) -> JSONResponse | dict[str, Any]:
        """One seat's review of a finished round (`round` 1-based; see `reviews`):
        computed once in the bots' pool, then kept with the game. `wait=false` answers at
        once: the review if it is ready, else 202 with the progress ("analysing 12/27").
        Starting a computation is rate limited per address like the replay."""
        manager = manager_of(app)
        table = await manager.read(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        if seat >= table.options.n_players:
            raise HTTPException(422, f"seat must be 0-{table.options.n_players - 1} at this "
                                "table (RULES §12.1)")
        round_no = finished_round(table, round)
        if isinstance(round_no, JSONResponse):
            return round_no
        if table.status != FINISHED:
            mine = table.seats[seat]
            if mine is None or not token_matches(bearer(request), mine.token_hash):
                return JSONResponse({"detail": "while the game is on, a round's review goes "
                                     "only to the seat it reviews (RULES §11)",
                                     "code": REVIEW_OWN_SEAT}, status_code=403)
        key = review_key(table, round_no, seat)
        body = review_jobs.get(key)
        if body is not None:
            return body
        if key in review_jobs.failed:
            return review_failed(review_jobs.failed[key])
        if review_jobs.progress(key) is None:
            refused = over_limit(review_limit, request, "reviews")
            if refused is not None:
                return refused
        job = review_jobs.start(key, review_work(manager, table, round_no, seat))
        if wait or job.done():
            try:
                return await asyncio.shield(job)
            except Exception as exc:  # noqa: BLE001 - logged, then said to the client
                log.exception("the review of table %s round %s seat %s failed", table_id,
                              round, seat)
                return review_failed(str(exc))
        done, total = review_jobs.progress(key) or (0, 0)
        return JSONResponse({"detail": f"analysing {done}/{total}", "code": "analysing",
                             "done": done, "total": total}, status_code=202)

    @app.get("/api/tables/{table_id}/accuracy", response_model=None)
    async def round_accuracy(table_id: str, request: Request,
                             round: int = Query(ge=1)  # noqa: A002
                             ) -> JSONResponse | dict[str, Any]:
        """The round summary's accuracy line for every human seat of a finished round
        (`round` 1-based): each review is started in the bots' pool if it is not kept
        yet; a seat still being analysed says how far ("done", "total"), one whose
        analysis failed says "error" (and is not retried). The knowledge
        accuracy goes to everyone (a figure, no cards); the hindsight accuracy and
        `may_review` only where the review itself may be seen (see `reviews`)."""
        manager = manager_of(app)
        table = await manager.read(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        round_no = finished_round(table, round)
        if isinstance(round_no, JSONResponse):
            return round_no
        token = bearer(request)
        counted = False
        rows = []
        for s, info in enumerate(table.seats):
            if info is None or info.kind != "human":
                continue
            may = table.status == FINISHED or token_matches(token, info.token_hash)
            key = review_key(table, round_no, s)
            body = review_jobs.get(key)
            row: dict[str, Any] = {"seat": s, "name": info.name, "may_review": may}
            if body is None and key in review_jobs.failed:
                rows.append({**row, "status": "error"})
                continue
            if body is None:
                if review_jobs.progress(key) is None and not counted:
                    counted = True
                    refused = over_limit(review_limit, request, "reviews")
                    if refused is not None:
                        return refused
                job = review_jobs.start(key, review_work(manager, table, round_no, s))
                if job.done() and not job.cancelled() and job.exception() is None:
                    body = job.result()
            if body is None:
                done, total = review_jobs.progress(key) or (0, 0)
                row.update(status="analysing", done=done, total=total)
            else:
                row.update(status="done", accuracy=body["accuracy"],
                           decisions=len(body["decisions"]),
                           hindsight_accuracy=body["hindsight_accuracy"] if may else None)
            rows.append(row)
        return {"round": round, "seats": rows}

    @app.get("/api/tables/{table_id}/export", response_model=None)
    async def export(table_id: str, request: Request) -> JSONResponse | dict[str, Any]:
        """The host's copy of a table's record (seed, options, stored log): header
        `Authorization: Bearer <host token or the host seat's token>`; for a damaged
        (error) or finished table only (the seed would show every hand)."""
        manager = manager_of(app)
        table = await manager.read(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        auth = request.headers.get("authorization", "")
        token = auth[7:] if auth.lower().startswith("bearer ") else None
        host_seat = table.seats[table.host_seat] if table.host_seat is not None else None
        if not token_matches(token, table.host_token_hash) and not (
            host_seat is not None and token_matches(token, host_seat.token_hash)
        ):
            return JSONResponse({"detail": "only the host may export this table"},
                                status_code=403)
        if table.status not in (ERROR, FINISHED):
            return JSONResponse({"detail": "the game is on: export it when it is over"},
                                status_code=409)
        return table.export(await manager.store.load_actions(table.id))

    async def ws_endpoint(ws: WebSocket, table_id: str) -> None:  # /ws/{table_id}: see Guard
        manager = manager_of(ws.app)
        addr = ws.client.host if ws.client else ""
        lease = await manager.admit_conn(addr)  # across every worker of a cluster
        if lease is None:  # accepted first, so the client sees the code (see `Guard`)
            await ws.accept()
            await ws.close(code=4429, reason="too many connections from your address")
            return
        try:
            await _serve_ws(ws, manager, table_id, addr, ws.app.state.hello_timeout_s)
        finally:
            await manager.release_conn(addr, lease)

    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")
    allowed = frozenset(o.rstrip("/").lower() for o in config.allow_origins)
    return Guard(app, allowed=allowed, max_body=config.max_body, ws_endpoint=ws_endpoint)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def _serve_ws(
    ws: WebSocket, manager: Manager, table_id: str, addr: str, hello_timeout_s: float
) -> None:
    cluster = cast("Cluster | None", manager.cluster)  # (the manager sees a `ClusterLink`)
    if cluster is None:
        table = await manager.get(table_id)
    else:  # several processes: this one owns the table, or relays to its owner
        try:
            where = await cluster.locate(table_id)
        except TimeoutError:
            await ws.close(code=1013, reason="the table's server is busy: try again")
            return
        if isinstance(where, str):
            await ws.accept()
            await cluster.relay(ws, where, table_id, addr)
            return
        table = where
    await ws.accept()
    if table is None:
        await ws.send_text(dumps_strict({"type": "error", "message": "no such table"}))
        await ws.close(code=4404)
        return
    client = manager.new_client(addr)

    async def send(text: str) -> None:
        await ws.send_text(text)

    async def pump() -> None:
        with contextlib.suppress(Exception):
            await client.pump(send, ws.scope.get("extensions", {}).get(SEND_NOW))
            if client.too_slow and ws.application_state == WebSocketState.CONNECTED:
                await ws.close(code=1013, reason="too slow")
            elif client.close_code and ws.application_state == WebSocketState.CONNECTED:
                await ws.close(code=client.close_code)

    writer = asyncio.create_task(pump())
    table.attach(client)
    loop = asyncio.get_running_loop()
    hello_by = loop.time() + hello_timeout_s
    try:
        while True:
            if client.greeted:
                msg = await ws.receive()
            else:
                try:
                    msg = await asyncio.wait_for(ws.receive(), max(0.0, hello_by - loop.time()))
                except TimeoutError:
                    with contextlib.suppress(Exception):
                        await ws.close(code=4408, reason="no hello")
                    break
            if msg["type"] == "websocket.disconnect":
                break
            text = msg.get("text")
            if text is None:
                raw = msg.get("bytes") or b""
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    client.error("malformed message: not UTF-8 text")
                    continue
            await table.handle(client, text)
    except WebSocketDisconnect:
        pass
    finally:
        table.detach(client)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer


def uvicorn_config(app: Any, host: str, port: int, **kwargs: Any) -> Any:
    """A uvicorn Config with the server's protective timeouts and limits."""
    import uvicorn

    from .httpguard import GuardedH11Protocol

    try:  # messages written at once where uvicorn's sans-I/O protocol allows (wsfast.py)
        from .wsfast import SyncSendWSProtocol

        kwargs.setdefault("ws", SyncSendWSProtocol)
    except ImportError:  # an older uvicorn: its own protocol, every send through ASGI
        pass
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=GuardedH11Protocol,
        ws_max_size=WS_MAX_SIZE,
        timeout_keep_alive=5,
        h11_max_incomplete_event_size=16 * 1024,
        server_header=False,
        access_log=False,
        **kwargs,
    )


def run(config: ServerConfig) -> None:
    """Serve the web game of `config` (blocking; one process: see `workers` for several).

    WebSocket compression (permessage-deflate) is off by default: a state message is a
    few KiB and compressing every one costs more CPU than the bandwidth is worth.
    """
    import uvicorn

    app = create_app(config, tune_gc=True)
    uv = uvicorn_config(app, config.host, config.port, log_level=config.log_level,
                        ws_per_message_deflate=config.ws_compression)
    uvicorn.Server(uv).run()

"""The web server: HTTP API, WebSocket endpoint and the static browser client (ASGI, FastAPI).

`create_app(db_url)` builds the application; `run()` serves it with uvicorn (used by
`shengji serve` and `python -m shengji.server`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import platformdirs
from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.websockets import WebSocketState

from shengji import IllegalAction

from .replay import replay_payload
from .storage import Store
from .tables import FINISHED, WAITING, Manager, Settings, clean_name

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
WS_MAX_SIZE = 1 << 20  # frames above this are refused by the protocol layer itself


def default_db_url() -> str:
    """SQLite file in the user's data directory (created on first run)."""
    folder = Path(platformdirs.user_data_dir("shengji"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{folder / 'shengji.db'}"


class CreateTable(BaseModel):
    """Body of POST /api/tables."""

    model_config = ConfigDict(extra="ignore")

    name: str = Field(default="Tractor", max_length=200)
    options: dict[str, Any] = Field(default_factory=dict)
    deal_ms: int | None = None
    bot_timeout_s: float | None = None
    window_ms: int | None = None
    bot_delay_ms: int | None = None
    round_pause_ms: int | None = None


def create_app(
    db_url: str | None,
    *,
    deal_ms: int = 150,
    window_ms: int = 10_000,
    bot_delay_ms: int = 700,
    round_pause_ms: int = 6_000,
    rate_per_s: float = 10.0,
    burst: float = 30.0,
    static_dir: Path | str | None = None,
    seed_source: Callable[[], int] | None = None,
    sqlite_writer: str = "inline",
) -> FastAPI:
    """The ASGI app on the database `db_url` (None: the default SQLite file).

    The keyword arguments are the defaults for new tables (a table's own settings are
    stored with it), the per-connection rate limit (messages/s and burst), where the
    browser client lies, and (for tests) where new tables' shuffle seeds come from
    (default: the system's random source; never chosen by a client). `sqlite_writer`:
    see `storage.Store`.
    """
    url = db_url or default_db_url()
    defaults = Settings(
        deal_ms=deal_ms,
        window_ms=window_ms,
        bot_delay_ms=bot_delay_ms,
        round_pause_ms=round_pause_ms,
    )
    static = Path(static_dir) if static_dir is not None else STATIC_DIR

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(url, sqlite_writer=sqlite_writer)
        await store.start()
        manager = Manager(
            store, defaults, rate=rate_per_s, burst=burst, seed_source=seed_source
        )
        await manager.start()
        app.state.store = store
        app.state.manager = manager
        try:
            yield
        finally:
            await manager.stop()
            await store.close()

    app = FastAPI(title="shengji", lifespan=lifespan, docs_url=None, redoc_url=None)

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
        return manager_of(app).lobby()

    @app.post("/api/tables")
    async def create_table(body: CreateTable) -> dict[str, str]:
        try:
            name = clean_name(body.name, limit=60)
        except Exception as exc:
            raise HTTPException(400, str(exc)) from None
        settings = {
            k: v
            for k, v in body.model_dump().items()
            if k in ("deal_ms", "window_ms", "bot_delay_ms", "round_pause_ms") and v is not None
        }
        if "bot_timeout_s" in body.model_fields_set:
            settings["bot_timeout_s"] = body.bot_timeout_s
        try:
            table, host_token = await manager_of(app).create(name, body.options, settings)
        except (IllegalAction, ValueError, TypeError) as exc:
            raise HTTPException(400, str(exc)) from None
        return {"id": table.id, "host_token": host_token}

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        table = await manager_of(app).get(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        return table.table_info()

    @app.get("/api/tables/{table_id}/replay", response_model=None)
    async def replay(table_id: str) -> JSONResponse | dict[str, Any]:
        table = await manager_of(app).get(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        if table.status == WAITING:
            return JSONResponse({"detail": "the game has not started"}, status_code=409)
        actions = [a.to_json() for a in table.game.actions]
        return await asyncio.to_thread(
            replay_payload, table.seed, table.options, actions, table.status == FINISHED
        )

    @app.websocket("/ws/{table_id}")
    async def ws_endpoint(ws: WebSocket, table_id: str) -> None:
        manager = manager_of(ws.app)
        table = await manager.get(table_id)
        await ws.accept()
        if table is None:
            await ws.send_json({"type": "error", "message": "no such table"})
            await ws.close(code=4404)
            return
        client = manager.new_client()

        async def send(text: str) -> None:
            await ws.send_text(text)

        async def pump() -> None:
            with contextlib.suppress(Exception):
                await client.pump(send)
                if client.too_slow and ws.application_state == WebSocketState.CONNECTED:
                    await ws.close(code=1013, reason="too slow")

        writer = asyncio.create_task(pump())
        table.attach(client)
        try:
            while True:
                msg = await ws.receive()
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

    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")
    return app


def run(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    *,
    log_level: str = "info",
    ws_compression: bool = False,
    **settings: Any,
) -> None:
    """Serve the web game (blocking). `settings` are `create_app` keywords (deal_ms, ...).

    WebSocket compression (permessage-deflate) is off by default: a state message is a
    few KiB and compressing every one costs more CPU than the bandwidth is worth.
    """
    import uvicorn

    app = create_app(db, **settings)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=WS_MAX_SIZE,
        ws_per_message_deflate=ws_compression,
        access_log=False,
    )

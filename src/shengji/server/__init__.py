"""The web game: an ASGI server (FastAPI) with its storage and the browser client it serves.

`create_app(db_url)` builds the app; `run(host, port, db)` serves it (`shengji serve`).
"""

from __future__ import annotations

from .app import create_app, default_db_url, run

__all__ = ["create_app", "default_db_url", "run"]

"""The web game: an ASGI server (FastAPI) with its storage and the browser client it serves.

`create_app(config)` builds the app; `run(config)` serves it (`shengji serve`);
`ServerConfig` (server/config.py) holds every setting.

The web stack is imported on first use of these names, not with the package: the
`shengji` command reads `server.config` to build its options on every start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import ServerConfig

if TYPE_CHECKING:
    from .app import create_app, default_db_url, run

__all__ = ["ServerConfig", "create_app", "default_db_url", "run"]


def __getattr__(name: str) -> Any:
    if name in ("create_app", "default_db_url", "run"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""`python -m shengji.server`: serve the web game (same as `shengji serve`)."""

from __future__ import annotations

import argparse
import logging

from .app import run


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m shengji.server", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default=None, help="database URL (default: SQLite in the user data dir)")
    p.add_argument("--deal-ms", type=int, default=150, help="default pause between dealt cards")
    p.add_argument("--window-ms", type=int, default=10_000, help="final declaration window")
    p.add_argument("--bot-delay-ms", type=int, default=700, help="default pause before a bot moves")
    p.add_argument("--round-pause-ms", type=int, default=6_000, help="pause between rounds")
    p.add_argument("--rate", type=float, default=10.0, help="messages/s allowed per connection")
    p.add_argument("--burst", type=float, default=30.0, help="burst allowed per connection")
    p.add_argument("--sqlite-writer", choices=("inline", "async"), default="inline",
                   help="SQLite writes on the event loop (default) or through aiosqlite")
    p.add_argument("--ws-compression", action="store_true",
                   help="compress WebSocket messages (permessage-deflate)")
    p.add_argument("--log-level", default="info")
    a = p.parse_args(argv)
    logging.basicConfig(level=a.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    run(
        a.host,
        a.port,
        a.db,
        log_level=a.log_level,
        ws_compression=a.ws_compression,
        deal_ms=a.deal_ms,
        window_ms=a.window_ms,
        bot_delay_ms=a.bot_delay_ms,
        round_pause_ms=a.round_pause_ms,
        rate_per_s=a.rate,
        burst=a.burst,
        sqlite_writer=a.sqlite_writer,
    )


if __name__ == "__main__":
    main()

"""`python -m shengji.server`: serve the web game (same as `shengji serve`)."""

from __future__ import annotations

import argparse
import logging
import sys

from .app import run
from .doctor import check_database
from .schema import Limits


def build_parser() -> argparse.ArgumentParser:
    """The command line of `python -m shengji.server`."""
    lim = Limits()
    p = argparse.ArgumentParser(prog="python -m shengji.server", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default=None, help="database URL (default: SQLite in the user data dir)")
    p.add_argument("--deal-ms", type=int, default=150, help="default pause between dealt cards")
    p.add_argument("--window-ms", type=int, default=10_000, help="final declaration window")
    p.add_argument("--bot-delay-ms", type=int, default=700, help="default pause before a bot moves")
    p.add_argument("--round-pause-ms", type=int, default=6_000, help="pause between rounds")
    p.add_argument("--bot-timeout-s", type=float, default=120.0,
                   help="an absent player's turn goes to a bot stand-in after this")
    p.add_argument("--fast-timings", action="store_true",
                   help="allow timings below the public minima (tests, benchmarks)")
    p.add_argument("--rate", type=float, default=10.0, help="messages/s allowed per connection")
    p.add_argument("--burst", type=float, default=30.0, help="burst allowed per connection")
    p.add_argument("--create-per-min", type=int, default=lim.create_per_min,
                   help="tables one address may create per minute")
    p.add_argument("--open-per-addr", type=int, default=lim.open_per_addr,
                   help="open tables one address may have")
    p.add_argument("--conns-per-addr", type=int, default=lim.conns_per_addr,
                   help="WebSocket connections one address may have open")
    p.add_argument("--allow-origin", action="append", default=[],
                   help="another origin (https://host[:port]) whose pages may use this server")
    p.add_argument("--bot-workers", type=int, default=None,
                   help="processes that compute bot moves (default: one per CPU; 0: none)")
    p.add_argument("--test-bots", action="store_true",
                   help="also offer the deliberately slow 'slow' bot (benchmarks)")
    p.add_argument("--debug", action="store_true", help="serve /docs and /openapi.json")
    p.add_argument("--check", action="store_true",
                   help="check the database (integrity, every table replays) and exit")
    p.add_argument("--sqlite-writer", choices=("inline", "async"), default="inline",
                   help="SQLite writes on the event loop (default) or through aiosqlite")
    p.add_argument("--ws-compression", action="store_true",
                   help="compress WebSocket messages (permessage-deflate)")
    p.add_argument("--redis", default=None,
                   help="Redis URL: run as one worker of a cluster (needs a PostgreSQL --db)")
    p.add_argument("--lease-ms", type=int, default=3000,
                   help="cluster: a stalled worker loses its tables after this (ms)")
    p.add_argument("--log-level", default="info")
    return p


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve (or, with --check, check the database)."""
    a = build_parser().parse_args(argv)
    logging.basicConfig(level=a.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    if a.check:
        ok, lines = check_database(a.db)
        print("\n".join(lines))
        sys.exit(0 if ok else 1)
    from .storage import StoreError, preflight

    try:
        preflight(a.db)
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
            bot_timeout_s=a.bot_timeout_s,
            fast_timings=a.fast_timings,
            rate_per_s=a.rate,
            burst=a.burst,
            sqlite_writer=a.sqlite_writer,
            debug=a.debug,
            allow_origins=tuple(a.allow_origin),
            bot_workers=a.bot_workers,
            test_bots=a.test_bots,
            redis_url=a.redis,
            lease_ms=a.lease_ms,
            limits=Limits(create_per_min=a.create_per_min, open_per_addr=a.open_per_addr,
                          conns_per_addr=a.conns_per_addr),
        )
    except (StoreError, ValueError) as exc:
        print(f"shengji: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()

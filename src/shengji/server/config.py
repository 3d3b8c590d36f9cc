"""One `ServerConfig`: every setting of a server process, its default and its help.

`shengji serve` (and `python -m shengji.server`, which calls it) builds its options from
these fields, one option a field (`cli_options`; a test checks both ways), makes one
`ServerConfig` and hands it to `run` / `create_app`; nothing below re-states a default.
A new table's timing defaults (`schema.TableSettings`) are this module's too.

Standard library only: the `shengji` command imports it to build its options, and must
not pay for the web stack (FastAPI, pydantic) before `serve` runs.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any

MAX_BODY = 16 * 1024  # request bodies above this are refused (413)
HELLO_TIMEOUT_S = 10.0  # a WebSocket that says no hello within this is closed
SQLITE_WRITERS = ("inline", "async")


@dataclass
class Limits:
    """Per-address limits of one server (a public server's defaults)."""

    create_per_min: int = 10  # tables created per client address per minute
    open_per_addr: int = 20  # open (waiting or playing) tables per creator address
    conns_per_addr: int = 32  # WebSocket connections per client address
    replays_per_min: int = 30  # GET /api/tables/{id}/replay per client address per minute
    evict_after_s: float = 300.0  # a finished/damaged table nobody watches leaves memory
    abandon_after_s: float = 1800.0  # so does an open table nobody watches


_LIMITS = Limits()


def _setting(default: Any, help: str, *, option: str | None = None,  # noqa: A002
             hidden: bool = False) -> Any:
    """A field with its command-line help (`option`: its flag, if not `--field-name`)."""
    return field(default=default, metadata={"help": help, "option": option, "hidden": hidden})


@dataclass(frozen=True)
class ServerConfig:
    """The settings of one server process (all of them; see the module docstring).

    The timing fields are the defaults for new tables (a table's own settings are stored
    with it); unless `fast_timings`, neither they nor a table's own may go below the
    public minima (`schema.PUBLIC_MINIMA`; checked when the config is made). The per-address fields
    make `limits`.
    """

    # -- where
    host: str = _setting("127.0.0.1", "Address to listen on.")
    port: int = _setting(8000, "Port to listen on.")
    db: str | None = _setting(
        None, "Database URL (default: an SQLite file in your user data directory); "
        "postgresql+asyncpg://user:pw@host/db uses PostgreSQL.")
    log_level: str = _setting("info", "Log level (debug, info, warning, error).")
    # -- new tables' timings (schema.TableSettings takes its defaults from here)
    deal_ms: int = _setting(150, "Default pause between dealt cards (ms).")
    window_ms: int = _setting(10_000, "Final declaration window (ms, RULES §3.3).")
    bot_delay_ms: int = _setting(700, "Default pause before a bot moves (ms).")
    round_pause_ms: int = _setting(6_000, "Pause between rounds (ms).")
    bot_timeout_s: float = _setting(
        120.0, "An absent player's turn goes to a bot stand-in after this (s).")
    fast_timings: bool = _setting(
        False, "Allow timings below the public minima (tests, private servers).")
    # -- per connection and per address
    rate_per_s: float = _setting(10.0, "Messages/s allowed per connection.", option="--rate")
    burst: float = _setting(30.0, "Burst of messages allowed per connection.")
    create_per_min: int = _setting(_LIMITS.create_per_min,
                                   "Tables one address may create a minute.")
    open_per_addr: int = _setting(_LIMITS.open_per_addr, "Open tables one address may have.")
    conns_per_addr: int = _setting(_LIMITS.conns_per_addr,
                                   "WebSockets one address may have open.")
    replays_per_min: int = _setting(_LIMITS.replays_per_min,
                                    "Replays one address may fetch a minute.")
    evict_after_s: float = _setting(
        _LIMITS.evict_after_s, "A finished table nobody watches leaves memory after this (s).")
    abandon_after_s: float = _setting(
        _LIMITS.abandon_after_s, "An open table nobody watches leaves memory after this (s).")
    allow_origins: tuple[str, ...] = _setting(
        (), "Another origin (https://host[:port]) whose pages may use this server "
        "(repeatable).", option="--allow-origin")
    max_body: int = _setting(MAX_BODY, "Request bodies above this are refused (bytes).")
    hello_timeout_s: float = _setting(
        HELLO_TIMEOUT_S, "A WebSocket that says no hello within this is closed (s).")
    # -- the process
    bot_workers: int | None = _setting(
        None, "Bot processes (default: one per CPU; 0: bots think on the event loop; "
        "-1: the default).")
    bots: str = _setting(
        "local", "Where bots think: local (this machine's bot processes), ray:local (a "
        "private Ray instance), ray:auto (the Ray cluster this machine is a node of), "
        "ray:HOST:PORT or ray://HOST:PORT (README, \"Running a public server\").")
    bot_cap_ms: int = _setting(
        2000, "Wall-clock cap on one expert decision (ms): web bots search a rollout count "
        "(bots.LEVEL_ITERS); a search this cuts short is reported as degraded.")
    bot_wait_ms: int = _setting(
        1200, "The longest a person should wait for a searching bot's move (ms), counted "
        "from its turn: when the bots' pool is behind, a decision is given fewer rollouts "
        "(down to a quarter of its count) to end within it, and counted as shed.")
    sqlite_writer: str = _setting(
        "inline", "SQLite writes on the event loop (inline) or through aiosqlite (async).")
    ws_compression: bool = _setting(
        False, "Compress WebSocket messages (permessage-deflate).")
    debug: bool = _setting(False, "Serve /docs and /openapi.json.")
    test_bots: bool = _setting(False, "Offer the deliberately slow 'slow' bot (benchmarks).",
                               hidden=True)
    # -- several processes
    redis_url: str | None = _setting(
        None, "Redis URL (redis://host:6379/0): run as one worker of a cluster sharing "
        "a PostgreSQL --db (docs/ARCHITECTURE.md, \"Many processes\").", option="--redis")
    workers: int = _setting(
        1, "Worker processes on this port (needs --redis and a PostgreSQL --db).")
    lease_ms: int = _setting(3000, "Cluster: a stalled worker loses its tables after this (ms).")

    def __post_init__(self) -> None:
        # the command line's conventions, normalised once: "" is no URL, -1 the default
        for name in ("db", "redis_url"):
            if getattr(self, name) == "":
                object.__setattr__(self, name, None)
        if self.bot_workers is not None and self.bot_workers < 0:
            object.__setattr__(self, "bot_workers", None)
        object.__setattr__(self, "allow_origins", tuple(self.allow_origins))
        if self.sqlite_writer not in SQLITE_WRITERS:
            raise ValueError(f"sqlite_writer must be one of {', '.join(SQLITE_WRITERS)}, "
                             f"not {self.sqlite_writer!r}")
        from .botpool import pool_spec_error

        err = pool_spec_error(self.bots)
        if err is not None:
            raise ValueError(err)
        if self.bots == "ray:local" and self.workers > 1:
            raise ValueError("--bots ray:local is one process's private Ray instance; with "
                             "--workers use ray:auto (start Ray with `ray start --head`)")
        if self.workers < 1:
            raise ValueError("workers must be at least 1")
        if self.bot_cap_ms < 1:
            raise ValueError("bot_cap_ms must be at least 1 (ms)")
        if self.bot_wait_ms < 1:
            raise ValueError("bot_wait_ms must be at least 1 (ms)")
        if self.redis_url or self.workers > 1:
            if not (self.db or "").startswith(("postgresql", "postgres:")):
                raise ValueError("several processes (--redis, --workers) need a PostgreSQL "
                                 "--db (postgresql+asyncpg://user@host/db)")
            if not self.redis_url:
                raise ValueError("--workers needs --redis")

    @property
    def limits(self) -> Limits:
        """The per-address limits these fields make."""
        return Limits(**{f.name: getattr(self, f.name) for f in dataclasses.fields(Limits)})

    def timings(self) -> dict[str, Any]:
        """The default timing settings of a new table (`schema.check_settings` input)."""
        return {"deal_ms": self.deal_ms, "window_ms": self.window_ms,
                "bot_delay_ms": self.bot_delay_ms, "round_pause_ms": self.round_pause_ms,
                "bot_timeout_s": float(self.bot_timeout_s)}


def default_of(name: str) -> Any:
    """The default of `ServerConfig.<name>` (where a default is needed elsewhere)."""
    f = _FIELDS[name]
    return f.default


@dataclass(frozen=True)
class CliOption:
    """One command-line option of `shengji serve`, made from one `ServerConfig` field."""

    field: str
    flag: str
    type: Any  # the type the command line parses (a tuple field takes a repeated option)
    default: Any
    help: str
    hidden: bool


def cli_options() -> list[CliOption]:
    """The options of `shengji serve`, one per `ServerConfig` field, in field order."""
    hints = typing.get_type_hints(ServerConfig)
    out = []
    for f in dataclasses.fields(ServerConfig):
        kind = hints[f.name]
        default = f.default
        if kind == tuple[str, ...]:
            kind, default = list[str], []
        out.append(CliOption(
            field=f.name, flag=f.metadata["option"] or "--" + f.name.replace("_", "-"),
            type=kind, default=default, help=f.metadata["help"],
            hidden=f.metadata["hidden"]))
    return out


_FIELDS = {f.name: f for f in dataclasses.fields(ServerConfig)}

"""One `ServerConfig` (server/config.py): every setting once, and `shengji serve`'s
options made from it (issue 30, item 6)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from shengji.cli import app
from shengji.server import ServerConfig
from shengji.server.config import Limits, cli_options
from shengji.server.schema import DEFAULT_BOT_TIMEOUT_S, TableSettings

#: `serve`'s options that are actions, not settings
ACTIONS = {"--check", "--help"}


def _serve_flags() -> dict[str, str]:
    """The options `shengji serve` really has: flag -> the parameter it fills."""
    command = typer.main.get_command(app).commands["serve"]  # type: ignore[attr-defined]
    out: dict[str, str] = {}
    for p in command.params:
        for flag in p.opts:
            assert flag not in out, f"{flag} twice"
            out[flag] = p.name
    return out


def test_every_field_has_exactly_one_option_and_every_option_a_field() -> None:
    fields = [f.name for f in dataclasses.fields(ServerConfig)]
    flags = _serve_flags()
    settings = {flag: name for flag, name in flags.items() if flag not in ACTIONS}
    assert sorted(settings.values()) == sorted(fields)  # each field once, nothing else
    assert set(flags) - set(settings) <= ACTIONS
    # the option names the README and the benchmarks use
    for flag in ("--rate", "--burst", "--redis", "--allow-origin", "--workers",
                 "--bot-workers", "--sqlite-writer", "--ws-compression", "--lease-ms"):
        assert flag in settings


def _value(o: Any) -> tuple[list[str], Any]:
    """A non-default command-line value for option `o` and the field value it gives."""
    if o.type is bool:
        return [o.flag], True
    if o.field in ("db", "redis_url"):
        return [o.flag, "postgresql+asyncpg://u@h/d" if o.field == "db" else "redis://h/0"], \
            "postgresql+asyncpg://u@h/d" if o.field == "db" else "redis://h/0"
    if o.field == "sqlite_writer":
        return [o.flag, "async"], "async"
    if o.field == "allow_origins":
        return [o.flag, "https://a.example", o.flag, "https://b.example"], \
            ("https://a.example", "https://b.example")
    if o.field == "host":
        return [o.flag, "0.0.0.0"], "0.0.0.0"
    if o.field == "log_level":
        return [o.flag, "warning"], "warning"
    if o.field == "bots":  # a Ray cluster's address (issue 35); workers > 1 needs one
        return [o.flag, "ray:auto"], "ray:auto"
    base = 7 if o.default is None else o.default
    new = base + 3
    return [o.flag, str(new)], new


def test_each_option_reaches_its_field(monkeypatch: pytest.MonkeyPatch) -> None:
    args: list[str] = []
    want: dict[str, Any] = {}
    for o in cli_options():
        a, v = _value(o)
        args += a
        want[o.field] = v
    got: list[ServerConfig] = []
    monkeypatch.setattr("shengji.server.run", got.append)
    monkeypatch.setattr("shengji.server.workers.serve_workers", got.append)
    monkeypatch.setattr("shengji.server.storage.preflight", lambda url: None)
    result = CliRunner().invoke(app, ["serve", *args])
    assert result.exit_code == 0, result.output
    assert got == [ServerConfig(**want)]
    assert all(getattr(got[0], k) == v for k, v in want.items())


def test_defaults_are_written_once() -> None:
    config = ServerConfig()
    assert config.limits == Limits()  # every per-address limit is a field
    assert {f.name for f in dataclasses.fields(Limits)} <= {
        f.name for f in dataclasses.fields(ServerConfig)}
    table = TableSettings()
    assert config.timings() == {k: getattr(table, k) for k in config.timings()}
    assert config.bot_timeout_s == DEFAULT_BOT_TIMEOUT_S
    # the command line's conventions for "the default"
    assert ServerConfig(db="", redis_url="", bot_workers=-1) == config


@pytest.mark.parametrize(("settings", "message"), [
    ({"sqlite_writer": "fast"}, "sqlite_writer must be one of inline, async"),
    ({"workers": 0}, "workers must be at least 1"),
    ({"bot_cap_ms": 0}, "bot_cap_ms must be at least 1"),
    ({"bot_wait_ms": 0}, "bot_wait_ms must be at least 1"),
    ({"redis_url": "redis://h/0"}, "need a PostgreSQL --db"),
    ({"workers": 2, "db": "postgresql+asyncpg://u@h/d"}, "--workers needs --redis"),
])
def test_a_refused_setting_names_itself(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ServerConfig(**settings)
    result = CliRunner().invoke(app, ["serve", *[
        x for k, v in settings.items()
        for x in ({"redis_url": "--redis"}.get(k, "--" + k.replace("_", "-")), str(v))]])
    assert result.exit_code == 2 and message in result.output


def test_python_m_shengji_server_is_shengji_serve() -> None:
    """`python -m shengji.server` has the same options (it calls `shengji serve`)."""
    env_path = str(Path(__file__).resolve().parents[1] / "src")
    out = subprocess.run(
        [sys.executable, "-m", "shengji.server", "--sqlite-writer", "fast"],
        capture_output=True, text=True, timeout=60, env={"PYTHONPATH": env_path,
                                                         "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 2
    assert "shengji: sqlite_writer must be one of inline, async, not 'fast'" in out.stderr

"""The server's input schema: table settings and rule options, validated strictly.

One pydantic model (`TableSettings`) for the timing settings of a table and one check
(`check_options`) for the rule options, used by `POST /api/tables` and by tables loaded
from the database. Rule options are validated by the engine's own `RuleOptions.from_json`
(RULES §10); the server refuses non-finite numbers and booleans given for numbers before
that, whatever the engine accepts. Refusals are `InputError`s that name the field and carry
an error code the browser client translates.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shengji import IllegalAction, RuleOptions

from .config import Limits as Limits  # re-exported: its home was here
from .config import default_of

if TYPE_CHECKING:
    from .config import ServerConfig

# Error codes (the client translates `error.code.<code>`).
BAD_REQUEST = "bad_request"
BAD_OPTION = "bad_option"
BAD_SETTING = "bad_setting"
BAD_NAME = "bad_name"
TOO_LARGE = "too_large"
RATE_LIMITED = "rate_limited"
TOO_MANY_TABLES = "too_many_tables"
BAD_ORIGIN = "bad_origin"

# The timings a public server accepts at least (a table cannot be made to spin); tests
# and private servers may lower them with `fast_timings` (`--fast-timings`).
PUBLIC_MINIMA: dict[str, float] = {
    "deal_ms": 50,
    "window_ms": 1_000,
    "bot_delay_ms": 100,
    "round_pause_ms": 1_000,
    "bot_timeout_s": 5,
    "turn_s": 5,  # when on (0 is off)
}
MAXIMA: dict[str, float] = {
    "deal_ms": 10_000,
    "window_ms": 600_000,
    "bot_delay_ms": 60_000,
    "round_pause_ms": 600_000,
    "bot_timeout_s": 86_400,
    "turn_s": 600,
}
SETTING_NAMES = tuple(MAXIMA)
DEFAULT_BOT_TIMEOUT_S: float = default_of("bot_timeout_s")  # config.ServerConfig owns it
#: turn-timer presets the web client offers (seconds per turn; 0: off, a friends' table)
TURN_PRESETS: tuple[float, ...] = (0, 15, 20, 30, 60)
#: the kitty exchange (RULES §4) gets this many turns' time: 8 cards to choose
KITTY_TURNS = 2


class InputError(ValueError):
    """Refused input: `message` names the field; `code` is the client's translation key."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        field: str | None = None,
        min: float | None = None,  # noqa: A002 (the JSON field's name)
        max: float | None = None,  # noqa: A002
        unit: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        # A number out of range also says its range as fields, in `unit` ("ms" or "s"),
        # so the client can word it in the form's own units and the player's language.
        self.limits = {k: v for k, v in (("min", min), ("max", max)) if v is not None}
        self.unit = unit

    def to_json(self) -> dict[str, Any]:
        """The body of the HTTP error response."""
        out: dict[str, Any] = {"detail": str(self), "code": self.code, "field": self.field}
        if self.limits:
            out.update(self.limits, unit=self.unit)
        return out


def _unit(name: str) -> str:
    """The unit of a setting, by its name: milliseconds or seconds."""
    return "ms" if name.endswith("_ms") else "s"


class TableSettings(BaseModel):
    """Per-table timing (milliseconds, except `bot_timeout_s`): strict types, finite ranges.

    `bot_timeout_s`: an absent player's turn (or a vacated seat) goes to a bot stand-in
    after this many seconds, so no game waits for ever.

    `turn_s`: the table's turn timer (0: off, a friends' table). When on, every seat's
    turn in the kitty exchange (`KITTY_TURNS` times as long) and in the play lasts at most
    this many seconds, connected or not; then a stand-in bot acts for the seat. The
    declaration window (`window_ms`) has its own countdown.

    `spectator_chat`: whether spectators may write in the table's chat (false: they read
    it, the players' chat stays the players'; issue 11).

    `hints`: whether seated players may ask for a hint (the search's suggested play, issue
    32). null (the default) is resolved when the game starts: on at a table where every
    other seat is a bot (one human seat), off otherwise; the resolved value is stored.
    `card_counter`: whether the table shows the card counter (记牌器, issue 32): every
    seat's and spectator's state carries `view.counter` (`shengji.counter`, public
    information only).
    """

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    deal_ms: int = Field(
        default=default_of("deal_ms"), ge=0, le=int(MAXIMA["deal_ms"]))
    window_ms: int = Field(
        default=default_of("window_ms"), ge=0, le=int(MAXIMA["window_ms"]))
    bot_delay_ms: int = Field(
        default=default_of("bot_delay_ms"), ge=0, le=int(MAXIMA["bot_delay_ms"]))
    round_pause_ms: int = Field(
        default=default_of("round_pause_ms"), ge=0, le=int(MAXIMA["round_pause_ms"]))
    bot_timeout_s: float = Field(
        default=DEFAULT_BOT_TIMEOUT_S, ge=0, le=MAXIMA["bot_timeout_s"], allow_inf_nan=False
    )
    turn_s: float = Field(default=0.0, ge=0, le=MAXIMA["turn_s"], allow_inf_nan=False)
    spectator_chat: bool = False
    hints: bool | None = None
    card_counter: bool = False


def _finite_or_raise(value: Any, where: str, code: str) -> None:
    """Refuse NaN and infinities anywhere inside `value` (nested lists and objects too)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where} must be a finite number", code=code, field=where)
    if isinstance(value, dict):
        for v in value.values():
            _finite_or_raise(v, where, code)
    elif isinstance(value, list | tuple):
        for v in value:
            _finite_or_raise(v, where, code)


def check_settings(
    data: dict[str, Any], base: TableSettings | None = None, *, minima: dict[str, float] | None
) -> TableSettings:
    """Settings from JSON over `base` (the server's defaults); raises `InputError`.

    `minima` (None: no minimum beyond 0) are the public server's lower bounds. A
    `bot_timeout_s` of null means the server's default.
    """
    if not isinstance(data, dict):
        raise InputError("settings must be an object", code=BAD_SETTING)
    merged = (base or TableSettings()).model_dump()
    for key, value in data.items():
        if key not in merged:
            raise InputError(f"unknown setting {key!r}", code=BAD_SETTING, field=str(key))
        if value is None and key == "bot_timeout_s":
            continue
        if value is None and key == "hints":  # resolved when the game starts
            merged[key] = None
            continue
        if key in _FLAGS:
            if not isinstance(value, bool):
                raise InputError(f"{key} must be true or false", code=BAD_SETTING, field=key)
            merged[key] = value
            continue
        if isinstance(value, bool):
            raise InputError(f"{key} must be a number, not true/false", code=BAD_SETTING,
                             field=key)
        _finite_or_raise(value, key, BAD_SETTING)
        if key in ("bot_timeout_s", "turn_s") and isinstance(value, int):
            value = float(value)
        merged[key] = value
    try:
        out = TableSettings.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else "settings"
        lo, hi = (minima or {}).get(name, 0), MAXIMA.get(name)
        raise InputError(
            f"{name} must be a number from {lo:g} to {hi:g} ({err['msg']})",
            code=BAD_SETTING, field=name, min=lo, max=hi, unit=_unit(name),
        ) from None
    for key, lo in (minima or {}).items():
        if key == "turn_s" and out.turn_s == 0:
            continue  # the turn timer is off
        if key in data and data[key] is not None and getattr(out, key) < lo:
            raise InputError(
                f"{key} must be at least {lo:g} on this server", code=BAD_SETTING, field=key,
                min=lo, max=MAXIMA.get(key), unit=_unit(key),
            )
    return out


#: the settings that are switches (true/false), not numbers
_FLAGS = ("spectator_chat", "hints", "card_counter")


def clamp_settings(settings: TableSettings, minima: dict[str, float] | None) -> TableSettings:
    """`settings` with every value raised to the server's minimum (for stored tables)."""
    if not minima:
        return settings
    data = settings.model_dump()
    for key, lo in minima.items():
        if key == "turn_s" and data[key] == 0:
            continue  # off stays off
        if data[key] < lo:
            data[key] = type(data[key])(lo)
    return TableSettings.model_validate(data)


def check_options(data: Any) -> RuleOptions:
    """Rule options (RULES §10) from JSON, or `InputError` naming the option.

    Booleans must be true/false, numbers must be finite and not true/false, and the
    engine's `RuleOptions.from_json` has the last word (ranges, choices, unknown names).
    """
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError("RULES §10: options must be an object", code=BAD_OPTION,
                         field="options")
    defaults = RuleOptions().to_json()
    for key, value in data.items():
        if isinstance(key, str) and key in TABLE_OPTION_TYPES:
            _check_table_option(key, value)
            continue
        if not isinstance(key, str) or key not in defaults:
            raise InputError(f"RULES §10: unknown rule option {str(key)[:40]!r}",
                             code=BAD_OPTION, field=str(key)[:40])
        _finite_or_raise(value, key, BAD_OPTION)
        default = defaults[key]
        if isinstance(default, bool):
            ok = isinstance(value, bool)
            want = "true or false"
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
            want = "a whole number"
        elif isinstance(default, float):
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            want = "a number"
        elif isinstance(default, str):
            ok = isinstance(value, str)
            want = "a string"
        else:
            ok, want = True, ""
        if not ok:
            raise InputError(f"RULES §10: {key} must be {want}", code=BAD_OPTION, field=key)
    try:
        opts = RuleOptions.from_json(dict(data))
    except IllegalAction as exc:
        field = getattr(exc, "field", None) or next((k for k in data if k in str(exc)), None)
        raise InputError(str(exc), code=BAD_OPTION, field=field) from None
    except (TypeError, ValueError) as exc:  # an engine that is less strict than we are
        raise InputError(f"RULES §10: invalid rule options ({exc})", code=BAD_OPTION) from None
    dumps_strict(opts.to_json())  # what we store must encode as strict JSON
    return opts


#: the table options of RULES §12 (`shengji.options.TABLE_OPTION_INFO`): their JSON type
#: and whether null is allowed (null: the engine's default, §12.1)
TABLE_OPTION_TYPES: dict[str, tuple[type, bool]] = {
    "players": (int, False), "decks": (int, True), "mode": (str, False),
    "kitty_size": (int, True),
}
#: the seat counts and modes a table may have (RULES §12), for the create form
TABLE_PLAYERS = tuple(range(4, 11))
TABLE_MODES = ("teams", "friends")


def classic(options: RuleOptions) -> bool:
    """Whether `options` are a four-player teams table (RULES §1), where every bot plays;
    at the tables of §12 the learned bots are refused (`bots.table_kind_error`)."""
    return options.n_players == 4 and options.mode == "teams"


def _check_table_option(key: str, value: Any) -> None:
    """Refuse a §12 table option of the wrong JSON type (true/false is no number); the
    engine checks the ranges and the combinations (§12.1: teams need an even table)."""
    kind, nullable = TABLE_OPTION_TYPES[key]
    if value is None and nullable:
        return
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        want = "a whole number" + (" or null" if nullable else "")
    else:
        ok = isinstance(value, str)
        want = "one of " + ", ".join(TABLE_MODES)
    if not ok:
        raise InputError(f"RULES §12: {key} must be {want}", code=BAD_OPTION, field=key)


def dumps_strict(obj: Any) -> str:
    """Compact JSON text; NaN and infinities raise ValueError (browsers cannot parse them)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def dumps_view(view_json: dict[str, Any]) -> str:
    """Compact JSON text of a `View.to_json()`: the payload the server sends each seat at
    every action, so it is encoded with orjson (about 10x `json`'s speed). A view holds
    no float at all (its fields are ints, strings, booleans and None; a test walks views
    of whole games to prove it), so the strict encoder's NaN check has nothing to refuse;
    orjson would write a stray NaN as null, never as the `NaN` browsers cannot parse."""
    return orjson.dumps(view_json).decode()


def dumps_events(events: list[dict[str, Any]]) -> str:
    """Compact JSON text of events' `to_json()` (sent with every state after an action):
    orjson, as `dumps_view` (stdlib json took ~2-3% of a busy worker's CPU). An event
    holds ints, strings, booleans, None and lists of them (a test walks the events of
    whole games and compares the text with the strict encoder's)."""
    return orjson.dumps(events).decode()


def dumps_info(info: dict[str, Any]) -> str:
    """Compact JSON text of a table's public info (`Table.table_info`), sent with every
    state: orjson, as `dumps_view` (stdlib json took ~4% of a busy worker's CPU). Its
    values are strings, ints, booleans, None and the settings' finite numbers (the
    schema bounds them); a test compares it with the strict encoder on live tables."""
    return orjson.dumps(info, option=orjson.OPT_NON_STR_KEYS).decode()


def server_minima(config: ServerConfig) -> dict[str, float] | None:
    """The timings' public minima on a server with `config`, or None with `fast_timings`."""
    return None if config.fast_timings else PUBLIC_MINIMA


def server_table_defaults(config: ServerConfig) -> TableSettings:
    """A new table's default settings on a server with `config`, checked: a timing out of
    range, or below the public minima, is a ValueError naming the setting."""
    try:
        return check_settings(config.timings(), minima=server_minima(config))
    except InputError as exc:
        raise ValueError(f"server default {exc} (or serve with --fast-timings)") from None

"""Rule options (RULES §10): every reading players may want otherwise, defaulting to the seed.

`RuleOptions` is one strict schema (pydantic v2, strict mode): the engine, the CLI
`--option`, stored records and the web server all go through it, so a wrong type,
NaN, an out-of-range value or an unknown name never reaches a game.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

from pydantic import ConfigDict, Field, Strict, ValidationError, field_validator, model_validator
from pydantic import dataclasses as pydantic_dataclasses
from pydantic_core import InitErrorDetails, PydanticCustomError

from .cards import RANKS
from .errors import IllegalAction

BAND_CHOICES = ("swap", "stay")
STOP_RANKS = RANKS[1:]
"""Ranks a `stop_levels` list may name (§9): 3..A (every team starts at 2)."""


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """How one rule option reads: its RULES section, what it takes (in JSON, and as
    `name=value` text where that differs), one line of help."""

    rule: str
    takes: str
    help: str
    text: str = ""

    @property
    def takes_text(self) -> str:
        """What `RuleOptions.parse` accepts for it (the CLI's `--option`)."""
        return self.text or self.takes


OPTION_INFO: Mapping[str, OptionInfo] = MappingProxyType({
    "self_reinforce": OptionInfo(
        "§3.3", "true or false",
        "the standing declarer may strengthen their own single into the pair of the same card",
    ),
    "strict_tractor_follow": OptionInfo(
        "§6.2", "true or false",
        "a follower holding a tractor in the led suit must play one against a tractor lead",
    ),
    "no_trump_keeps_rank": OptionInfo(
        "§5.3", "true or false",
        "in a two-joker round the trump-rank cards stay trumps, between BJ and the suits",
    ),
    "band_80_115": OptionInfo(
        "§8.2", "one of 'swap', 'stay'",
        "80-115 points: the opponents take over (swap) or the declarers stay (stay)",
    ),
    "first_drawer": OptionInfo(
        "§3.1", "a seat 0-3 (0 to players-1 at a larger table, §12.1)",
        "the seat that draws first in round 1",
    ),
    "throw_penalty_per_card": OptionInfo(
        "§6.4", "an integer 0-100", "points paid per card of a failed throw",
    ),
    "throw_penalty": OptionInfo(
        "§6.4", "one of 'returned', 'attempted', 'none'",
        "which cards of a failed throw are paid for: those taken back, all, or none",
    ),
    "kitty_multiplier": OptionInfo(
        "§8.1", "one of 'per_card', 'flat', 'power'",
        "kitty points x2 per card of the last trick, x2 always, or x2 per pair of its "
        "largest unit (single x2, pair x4, tractor of k pairs x2^(k+1))",
    ),
    "round1_no_declaration": OptionInfo(
        "§3.5", "one of 'redeal', 'flip'",
        "nobody declares in round 1: deal again, or flip the kitty (the first drawer starts)",
    ),
    "gap_tractors": OptionInfo(
        "§5.4", "one of 'on', 'trumps_only'",
        "the gap left by the trump rank joins tractors in every suit, or in trumps only",
    ),
    "throw_tractors": OptionInfo(
        "§6.1", "one of 'on', 'off'",
        "tractors count as units of a throw (on), or a throw is read as pairs and singles",
    ),
    "joker_pairs": OptionInfo(
        "§3.3", "one of 'equal', 'red_over_black'",
        "two red jokers overturn two black jokers (red_over_black) or not (equal)",
    ),
    "win_at_a": OptionInfo(
        "§9", "one of 'pass', 'as_declarers'",
        "passing A wins (pass), or the opponents' gains stop at A, so a team at A wins "
        "only by gaining as declarers (as_declarers)",
    ),
    "max_levels_per_round": OptionInfo(
        "§9", "null (no limit) or an integer 1-12", "the most levels a team gains in one round",
        "none or 1-12",
    ),
    "stop_levels": OptionInfo(
        "§9", "null or a list of ranks 3..A, e.g. [\"5\", \"10\", \"K\"]",
        "a team's level stops at each listed rank it would jump over",
        "none or ranks 3..A such as 5,10,K",
    ),
})

TABLE_OPTION_INFO: Mapping[str, OptionInfo] = MappingProxyType({
    "players": OptionInfo("§12", "an integer 4-10", "the number of seats at the table"),
    "decks": OptionInfo(
        "§12", "null (players // 2, at least 2) or an integer 2-5",
        "how many 54-card decks are shuffled together", "none or 2-5",
    ),
    "mode": OptionInfo(
        "§12", "one of 'teams', 'friends'",
        "fixed teams of alternate seats (teams, an even table) or finding friends: the "
        "leader calls friends by card each round, per-player levels (friends)",
    ),
    "kitty_size": OptionInfo(
        "§12.1", "null (the smallest size, at least 5, that leaves equal hands) or an "
        "integer 1-52 that leaves equal hands",
        "the number of cards in the kitty", "none or 1-52",
    ),
})
"""The table options of RULES §12 (more players, more decks, finding friends). They are
rule options like those of `OPTION_INFO`, kept apart because `RuleOptions.to_json` writes
them only when they differ from their defaults: a record of the four-player game reads
byte for byte as before §12."""

ALL_OPTION_INFO: Mapping[str, OptionInfo] = MappingProxyType({**OPTION_INFO, **TABLE_OPTION_INFO})
"""Every rule option: the house rules of §10 and the table options of §12."""

_TABLE_DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {"players": 4, "decks": None, "mode": "teams", "kitty_size": None}
)


def _table_error(message: str, field: str, value: Any) -> ValidationError:
    """A §12 combination of options that cannot be played, as pydantic's error located at
    the option `field` (so a server's schema and `IllegalAction.field` both name it)."""
    return ValidationError.from_exception_data("RuleOptions", [InitErrorDetails(
        type=PydanticCustomError("rules_table", message), loc=(field,), input=value,
    )])


def default_kitty(n_players: int, n_decks: int) -> int:
    """RULES §12.1 Decision: the smallest kitty, at least 5 cards, that leaves every hand the
    same size (4 players, 2 decks: 8; 6 players, 3 decks: 6; 7 players, 3 decks: 8)."""
    k = 5
    while (54 * n_decks - k) % n_players:
        k += 1
    return k


@pydantic_dataclasses.dataclass(frozen=True, slots=True, config=ConfigDict(extra="forbid"))
class RuleOptions:
    """The rule options of RULES §10, stored with every game record; defaults are the seed.

    - `self_reinforce` (§3.3): the standing declarer may strengthen their own single
      into the pair of the same card (same suit only); never any other self-overturn.
    - `strict_tractor_follow` (§6.2): a follower holding a tractor in the led suit must
      play one against a tractor in the lead.
    - `no_trump_keeps_rank` (§5.3): in a two-joker round the trump-rank cards stay trumps.
    - `band_80_115` (§8.2): `"swap"` (opponents take over, no level change) or `"stay"`
      (the declaring team stays, no level change).
    - `first_drawer` (§3.1): the seat that draws first in the first round.
    - `throw_penalty` (§6.4): `"returned"` (the cards taken back), `"attempted"` (every
      card of the throw) or `"none"`; `throw_penalty_per_card` points each.
    - `kitty_multiplier` (§8.1): `"per_card"` (2 × cards per player in the last trick),
      `"flat"` (×2) or `"power"` (×2^(k+1) for the largest unit of the winning play,
      k its pairs: single ×2, pair ×4, tractor of 2 pairs ×8).
    - `round1_no_declaration` (§3.5): `"redeal"` or `"flip"` (the kitty is turned up as
      in later rounds and the first drawer is the starter).
    - `gap_tractors` (§5.4): `"on"` (the trump rank's gap joins every suit) or
      `"trumps_only"` (in plain suits the cards either side of it are not consecutive).
    - `throw_tractors` (§6.1): `"on"` (tractors are units of a throw) or `"off"` (a throw
      is read as pairs and singles only).
    - `joker_pairs` (§3.3): `"equal"` or `"red_over_black"` (RJ RJ overturns BJ BJ).
    - `win_at_a` (§9): `"pass"` or `"as_declarers"`: the opponents' gains stop at A,
      so a team at A wins only by gaining as declarers.
    - `max_levels_per_round` (§9): None, or the most levels gained in one round.
    - `stop_levels` (§9): None, or ranks (3..A) that a team's level stops at when it
      would jump over them; kept sorted and without repeats.
    - `players` (§12): 4..10 seats. `decks` (§12): 2..5, or None for `players // 2` (at
      least 2). `mode` (§12): `"teams"` (fixed teams, §12.2; an even table) or
      `"friends"` (finding friends, §12.4). `kitty_size` (§12.1): None for the smallest
      kitty of at least 5 that leaves equal hands, or a size that does. The resolved
      values are `n_players`, `n_decks`, `n_kitty` and `n_hand`.

    Construction is strict (pydantic, strict types): `RuleOptions(first_drawer=1.0)`
    raises `IllegalAction` (`err.field == "first_drawer"`). A frozen slots dataclass:
    the options are plain attributes, cheap to read in the engine's inner loops.
    `pydantic.TypeAdapter(RuleOptions)` validates a JSON object with the same schema
    (raising pydantic's `ValidationError`), e.g. for a FastAPI body.
    """

    self_reinforce: Annotated[bool, Strict()] = False
    strict_tractor_follow: Annotated[bool, Strict()] = False
    no_trump_keeps_rank: Annotated[bool, Strict()] = False
    band_80_115: Literal["swap", "stay"] = "swap"
    first_drawer: Annotated[int, Strict(), Field(ge=0, le=9)] = 0
    throw_penalty_per_card: Annotated[int, Strict(), Field(ge=0, le=100)] = 10
    throw_penalty: Literal["returned", "attempted", "none"] = "returned"
    kitty_multiplier: Literal["per_card", "flat", "power"] = "per_card"
    round1_no_declaration: Literal["redeal", "flip"] = "redeal"
    gap_tractors: Literal["on", "trumps_only"] = "on"
    throw_tractors: Literal["on", "off"] = "on"
    joker_pairs: Literal["equal", "red_over_black"] = "equal"
    win_at_a: Literal["pass", "as_declarers"] = "pass"
    max_levels_per_round: Annotated[int, Strict(), Field(ge=1, le=12)] | None = None
    stop_levels: tuple[str, ...] | None = None
    players: Annotated[int, Strict(), Field(ge=4, le=10)] = 4
    decks: Annotated[int, Strict(), Field(ge=2, le=5)] | None = None
    mode: Literal["teams", "friends"] = "teams"
    kitty_size: Annotated[int, Strict(), Field(ge=1, le=52)] | None = None

    @field_validator("stop_levels", mode="before")
    @classmethod
    def _stop_levels(cls, value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, (list, tuple)):
            raise ValueError("not a list")
        if not all(isinstance(r, str) and r in STOP_RANKS for r in value):
            raise ValueError("not ranks")
        if not value:
            return None
        return tuple(r for r in STOP_RANKS if r in value)

    @model_validator(mode="after")
    def _table(self) -> RuleOptions:
        """The §12 options together: a table that can be dealt and seated."""
        n = self.players
        if self.first_drawer >= n:
            raise _table_error(
                f"RULES §10: first_drawer must be a seat 0-{n - 1} at a table of {n} "
                f"players, not {self.first_drawer} (RULES §3.1, §12.1)",
                "first_drawer", self.first_drawer,
            )
        if self.mode == "teams" and n % 2:
            raise _table_error(
                f"RULES §12.1: {n} players cannot play teams (mode=teams needs an even "
                f"number of players; play mode=friends)", "mode", self.mode,
            )
        if self.kitty_size is not None:
            cards, k = 54 * self.n_decks, self.kitty_size
            if (cards - k) % n or cards - k < n:
                raise _table_error(
                    f"RULES §12.1: a kitty of {k} leaves {cards - k} of the {cards} cards, "
                    f"which {n} players cannot share equally (the default kitty is "
                    f"{default_kitty(n, self.n_decks)})", "kitty_size", k,
                )
        return self

    # ------------------------------------------------------------ the table (§12)

    @property
    def n_players(self) -> int:
        """The number of seats (RULES §12)."""
        return self.players

    @property
    def n_decks(self) -> int:
        """The number of decks: `decks`, or `players // 2` and at least 2 (RULES §12)."""
        return self.decks if self.decks is not None else max(2, self.players // 2)

    @property
    def n_kitty(self) -> int:
        """The kitty's size: `kitty_size`, or the §12.1 Decision (`default_kitty`)."""
        if self.kitty_size is not None:
            return self.kitty_size
        return default_kitty(self.players, self.n_decks)

    @property
    def n_hand(self) -> int:
        """The cards each player is dealt (RULES §12.1): (54·d − kitty) / N."""
        return (54 * self.n_decks - self.n_kitty) // self.players

    # ------------------------------------------------------------ JSON and text

    def to_json(self) -> dict[str, Any]:
        """The options as a JSON object: plain bools, ints, strings, null, and
        `stop_levels` as a list of rank strings (or null). A new object each call (built
        once per distinct options: every view and broadcast includes them)."""
        out = dict(_options_json(self))
        if self.stop_levels is not None:
            out["stop_levels"] = list(self.stop_levels)
        return out

    def _build_json(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in OPTION_INFO}
        if self.stop_levels is not None:
            out["stop_levels"] = list(self.stop_levels)
        for name, default in _TABLE_DEFAULTS.items():  # §12: written only when not default
            value = getattr(self, name)
            if value != default:
                out[name] = value
        return out

    @classmethod
    def from_json(cls, data: Any) -> RuleOptions:
        """Options from a JSON object (None or {} give the defaults; missing names take
        their defaults, so old records load unchanged). Anything wrong raises
        `IllegalAction` naming the field."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise IllegalAction("RULES §10: rule options must be a JSON object", field=None)
        for key in data:
            if not isinstance(key, str):
                raise IllegalAction(
                    f"RULES §10: unknown rule option {_short(key)}", field=_short(key)
                )
        return cls(**data)

    @classmethod
    def parse(cls, items: list[str], base: RuleOptions | None = None) -> RuleOptions:
        """Options from `name=value` strings (the CLI's `--option`), on top of `base`
        (a preset; default the seed rules). E.g. `strict_tractor_follow=true`,
        `kitty_multiplier=power`, `max_levels_per_round=2`, `stop_levels=5,10,K`,
        `max_levels_per_round=none`."""
        data = (base or cls()).to_json()
        for item in items:
            name, sep, raw = item.partition("=")
            name = name.strip()
            if not sep or name not in ALL_OPTION_INFO:
                raise IllegalAction(
                    f"RULES §10: unknown rule option {item!r} (known: "
                    f"{', '.join(ALL_OPTION_INFO)}; write name=value)",
                    field=name or None,
                )
            data[name] = _from_text(name, raw.strip())
        return cls(**data)

    # ------------------------------------------------------------ presets

    @classmethod
    def preset(cls, name: str) -> RuleOptions:
        """A named set of options (`PRESETS`): `"seed"` or `"common_online"`."""
        try:
            return PRESETS[name]
        except KeyError:
            raise IllegalAction(
                f"RULES §10: unknown preset {name!r} (known: {', '.join(PRESETS)})",
                field="preset",
            ) from None

    def changed(self) -> dict[str, Any]:
        """The options that differ from the seed rules, as JSON values."""
        default = {**_TABLE_DEFAULTS, **_DEFAULT_JSON}
        return {k: v for k, v in self.to_json().items() if default[k] != v}


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _illegal(e: ValidationError, data: Mapping[str, Any]) -> IllegalAction:
    """The first error of a failed validation as an `IllegalAction` naming the field."""
    err = e.errors()[0]
    loc = err.get("loc") or ()
    name = str(loc[0]) if loc else ""
    if err["type"] == "rules_table":
        return IllegalAction(err["msg"], field=name)
    if name not in ALL_OPTION_INFO:
        return IllegalAction(
            f"RULES §10: unknown rule option {_short(name)} (known: "
            f"{', '.join(ALL_OPTION_INFO)})",
            field=name[:40] or None,
        )
    info = ALL_OPTION_INFO[name]
    value = data.get(name)
    extra = ""
    if isinstance(value, float) and not math.isfinite(value):
        extra = " (NaN and infinity are refused)"
    return IllegalAction(
        f"RULES §10: {name} must be {info.takes}, not {_short(value)}{extra} "
        f"(RULES {info.rule})",
        field=name,
    )


_TRUE = ("true", "1", "on", "yes")
_FALSE = ("false", "0", "off", "no")


def _int_text(name: str, raw: str) -> int:
    """The CLI text of an integer option `name` as an int, refused as the schema would."""
    try:
        return int(raw)
    except ValueError:
        info = ALL_OPTION_INFO[name]
        raise IllegalAction(
            f"RULES §10: {name} must be {info.takes}, not {raw!r} (RULES {info.rule})",
            field=name,
        ) from None


def _from_text(name: str, raw: str) -> Any:
    """A CLI value for option `name`, converted to the JSON type the schema expects."""
    low = raw.lower()
    if name in ("players", "decks", "kitty_size"):
        if name != "players" and low in ("", "none", "null"):
            return None
        return _int_text(name, raw)
    if name == "mode":
        return low
    if isinstance(_DEFAULT_JSON[name], bool):
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise IllegalAction(f"RULES §10: {name} takes true or false, not {raw!r}", field=name)
    if name == "stop_levels":
        if low in ("", "none", "null"):
            return None
        ranks = [r.strip().upper() for r in raw.replace(" ", ",").split(",") if r.strip()]
        return ["10" if r == "T" else r for r in ranks]
    if name in ("first_drawer", "throw_penalty_per_card", "max_levels_per_round"):
        if name == "max_levels_per_round" and low in ("", "none", "null"):
            return None
        return _int_text(name, raw)
    return low


_validating_init = RuleOptions.__init__


def _init(self: RuleOptions, *args: Any, **kwargs: Any) -> None:
    """Construct and validate; a refusal is an `IllegalAction` naming the field."""
    if args:
        raise IllegalAction("RULES §10: rule options are given by name (name=value)")
    try:
        _validating_init(self, *args, **kwargs)
    except ValidationError as e:
        raise _illegal(e, kwargs) from None


RuleOptions.__init__ = _init  # type: ignore[method-assign]

OPTION_CHOICES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    name: get_args(hint) for name, hint in get_type_hints(RuleOptions).items()
    if get_origin(hint) is Literal
})
"""The choices of each option that takes one of a few words (e.g. `kitty_multiplier`)."""

SEED_RULES = RuleOptions()
"""The default options (the seed rules), shared: options are immutable."""


@functools.lru_cache(maxsize=256)
def _options_json(options: RuleOptions) -> dict[str, Any]:
    """`RuleOptions.to_json`'s object, built once per distinct options (never handed out:
    `to_json` copies it)."""
    return options._build_json()


_DEFAULT_JSON = SEED_RULES.to_json()

PRESETS: Mapping[str, RuleOptions] = MappingProxyType({
    "seed": SEED_RULES,
    "common_online": RuleOptions(
        self_reinforce=True,
        strict_tractor_follow=True,
        joker_pairs="red_over_black",
        round1_no_declaration="flip",
        kitty_multiplier="power",
        throw_penalty="none",
        win_at_a="as_declarers",
    ),
})
"""Named option sets (RULES §10).

- `"seed"`: every option at its default, the rules as the seed text states them.
- `"common_online"`: what the popular online Tractor sites play by default (the
  reference is shengji.io, the most played English-language site, whose defaults
  agree with the usual Chinese app rules on each of these points):
  a standing declarer may reinforce their single into a pair (`self_reinforce`);
  following a tractor with a tractor when you hold one is enforced
  (`strict_tractor_follow`); two red jokers outbid two black ones (`joker_pairs`);
  an undeclared first round turns up the kitty instead of dealing again
  (`round1_no_declaration=flip`), which also keeps an online table moving; the kitty
  counts ×2 per pair of the last trick's largest unit (`kitty_multiplier=power`,
  shengji.io's current default); a failed throw costs nothing beyond being forced to
  lead the smaller unit (`throw_penalty=none`); and A must be defended: a team at A
  wins only by gaining as declarers, the opponents' gains stop at A
  (`win_at_a=as_declarers`). The rest (gap
  tractors in every suit, tractors in throws, no level limits, the 80-115 swap) are
  already the common reading.
"""



"""Rule options (RULES §10): every reading players may want otherwise, defaulting to the seed."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .errors import IllegalAction

BAND_CHOICES = ("swap", "stay")


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The rule options of RULES §10, stored with every game record.

    - `self_reinforce` (§3.3): the standing declarer may overturn their own declaration.
    - `strict_tractor_follow` (§6.2): a follower holding a tractor in the led suit must
      play one against a tractor in the lead.
    - `no_trump_keeps_rank` (§5.3): in a two-joker round the trump-rank cards stay trumps.
    - `band_80_115` (§8.2): `"swap"` (opponents take over, no level change) or `"stay"`
      (the declaring team stays, no level change).
    - `first_drawer` (§3.1): the seat that draws first in the first round.
    - `throw_penalty_per_card` (§6.4): points paid per card taken back after a failed throw.
    """

    self_reinforce: bool = False
    strict_tractor_follow: bool = False
    no_trump_keeps_rank: bool = False
    band_80_115: str = "swap"
    first_drawer: int = 0
    throw_penalty_per_card: int = 10

    def __post_init__(self) -> None:
        if self.band_80_115 not in BAND_CHOICES:
            raise IllegalAction(f"RULES §10: band_80_115 must be one of {BAND_CHOICES}")
        if self.first_drawer not in (0, 1, 2, 3):
            raise IllegalAction("RULES §10: first_drawer must be a seat 0-3")
        if self.throw_penalty_per_card < 0:
            raise IllegalAction("RULES §10: throw_penalty_per_card must be >= 0")
        for name in ("self_reinforce", "strict_tractor_follow", "no_trump_keeps_rank"):
            if not isinstance(getattr(self, name), bool):
                raise IllegalAction(f"RULES §10: {name} must be true or false")

    def to_json(self) -> dict[str, Any]:
        """The options as a JSON object (all values are plain bools, ints and strings)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> RuleOptions:
        """Options from a JSON object; unknown names raise `IllegalAction`."""
        if not data:
            return cls()
        if not isinstance(data, dict):
            raise IllegalAction("RULES §10: options must be an object")
        known = {f.name: f for f in fields(cls)}
        unknown = set(data) - set(known)
        if unknown:
            raise IllegalAction(f"RULES §10: unknown rule option(s): {', '.join(sorted(unknown))}")
        return cls(**data)

    @classmethod
    def parse(cls, items: list[str]) -> RuleOptions:
        """Options from `name=value` strings (CLI), e.g. `strict_tractor_follow=true`."""
        known = {f.name: f for f in fields(cls)}
        data: dict[str, Any] = {}
        for item in items:
            name, sep, raw = item.partition("=")
            name = name.strip()
            if not sep or name not in known:
                raise IllegalAction(f"RULES §10: unknown rule option {item!r}")
            default = getattr(cls(), name)
            value: Any
            if isinstance(default, bool):
                low = raw.strip().lower()
                if low not in ("true", "false", "1", "0", "on", "off", "yes", "no"):
                    raise IllegalAction(f"RULES §10: {name} takes true or false")
                value = low in ("true", "1", "on", "yes")
            elif isinstance(default, int):
                try:
                    value = int(raw)
                except ValueError:
                    raise IllegalAction(f"RULES §10: {name} takes a number") from None
            else:
                value = raw.strip()
            data[name] = value
        return cls(**data)

"""What the arena measured: deal and game outcomes, per-pairing figures, the JSON form.

A `PairingResult` holds the mirrored deals and games of agent A against agent B
and derives every figure the report shows (win rates, levels per deal, leveling
rate, decision times) with its 95% confidence interval (`shengji.arena.stats`).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .stats import Interval, mean_ci, proportion_ci, ratio_ci, share_ci

__all__ = [
    "DealOutcome",
    "GameOutcome",
    "PairingResult",
    "summarize",
    "time_summary",
    "write_json",
]


@dataclass(frozen=True)
class DealOutcome:
    """One played half of a mirrored deal, seen from agent A.

    `a_declaring`: A held the declaring team. `a_won`: A's side was the round's
    gainer (RULES §8.2: declarers kept the deal, or the opponents took it over).
    `levels_a`/`levels_b`: levels gained by each side (one of them is 0).
    `times_a`/`times_b`: seconds per decision (declarations, kitty, play) of A's and B's seats
    (measurements, left out of comparisons and of the JSON deal results).
    `failures_a`/`failures_b`: an external bot's failures per kind (timeout, crash,
    malformed, illegal) and the decisions its stand-in made (`standin`); {} for the others.
    """

    deal: int
    a_declaring: bool
    a_won: bool
    levels_a: int
    levels_b: int
    opponents_points: int
    times_a: tuple[float, ...] = field(default=(), compare=False, repr=False)
    times_b: tuple[float, ...] = field(default=(), compare=False, repr=False)
    failures_a: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    failures_b: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def signed_levels(self) -> int:
        """Levels gained by A minus levels gained by B in this half."""
        return self.levels_a - self.levels_b


@dataclass(frozen=True)
class GameOutcome:
    """One full game (RULES §9), seen from agent A (`failures_*` as in `DealOutcome`)."""

    game: int
    a_team: int
    a_won: bool
    rounds: int
    failures_a: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    failures_b: dict[str, int] = field(default_factory=dict, compare=False, repr=False)


@dataclass
class PairingResult:
    """Everything measured for one pairing A vs B."""

    a: str
    b: str
    deals: list[tuple[DealOutcome, DealOutcome]] = field(default_factory=list)
    games: list[tuple[GameOutcome, GameOutcome]] = field(default_factory=list)
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    # --- per-deal statistics -------------------------------------------------
    @property
    def n_deals(self) -> int:
        """Mirrored deals (each played twice)."""
        return len(self.deals)

    def halves(self) -> list[DealOutcome]:
        """Every played half, in deal order (two per mirrored deal)."""
        return [h for pair in self.deals for h in pair]

    def pair_levels(self) -> list[float]:
        """Signed levels per played deal, averaged over each mirror pair (A's view)."""
        return [(x.signed_levels + y.signed_levels) / 2 for x, y in self.deals]

    def levels_per_deal(self) -> Interval:
        """Mean signed levels per deal for A, 95% CI over mirror pairs."""
        return mean_ci(self.pair_levels())

    def deal_win_rate(self) -> Interval:
        """Share of played deals (halves) that A's side won; CI over mirror pairs."""
        wins = [(int(x.a_won) + int(y.a_won)) / 2 for x, y in self.deals]
        return share_ci(mean_ci(wins), len(wins))

    def leveling_rate(self) -> Interval | None:
        """Levels gained by A / levels gained by both sides (None if nobody gained)."""
        num = [x.levels_a + y.levels_a for x, y in self.deals]
        den = [x.levels_a + x.levels_b + y.levels_a + y.levels_b for x, y in self.deals]
        ci = ratio_ci(num, den)
        return None if ci is None else share_ci(ci, sum(1 for d in den if d))

    def levels_gained(self) -> tuple[int, int]:
        """Total levels gained by A and by B over all played halves."""
        h = self.halves()
        return sum(x.levels_a for x in h), sum(x.levels_b for x in h)

    def decision_times(self) -> tuple[list[float], list[float]]:
        """Seconds per decision (declarations, kitty, play) of A and of B, over all deals."""
        h = self.halves()
        return [x for d in h for x in d.times_a], [x for d in h for x in d.times_b]

    def declaring_win_rate(self) -> float:
        """How often the declaring team won a half (a measure of the deal's bias)."""
        h = self.halves()
        return sum(x.a_won == x.a_declaring for x in h) / len(h) if h else math.nan

    def failures(self) -> tuple[dict[str, int], dict[str, int]]:
        """External bots' failures per kind (and `standin`: decisions the stand-in made) of
        A and of B, over every deal and game ({} for bots that run in this process)."""
        out: tuple[dict[str, int], dict[str, int]] = ({}, {})
        outcomes: list[DealOutcome | GameOutcome] = [*self.halves()]
        outcomes += [g for pair in self.games for g in pair]
        for x in outcomes:
            for side, counts in ((0, x.failures_a), (1, x.failures_b)):
                for k, n in counts.items():
                    out[side][k] = out[side].get(k, 0) + n
        return out

    # --- full games ------------------------------------------------------------
    @property
    def n_games(self) -> int:
        """Full games played (each mirrored game counts twice)."""
        return 2 * len(self.games)

    def game_win_rate(self) -> Interval | None:
        """Share of full games A won, Wilson 95% CI (None if no game was played)."""
        if not self.games:
            return None
        wins = sum(int(g.a_won) for pair in self.games for g in pair)
        return proportion_ci(wins, self.n_games)

    def to_json(self) -> dict[str, Any]:
        """The pairing's figures and every deal's and game's outcome, as JSON."""

        def iv(x: Interval | None) -> dict[str, float] | None:
            return None if x is None else {"value": x.value, "lo": x.lo, "hi": x.hi}

        la, lb = self.levels_gained()
        return {
            "a": self.a,
            "b": self.b,
            "seed": self.seed,
            "options": self.options,
            "seconds": self.seconds,
            "mirrored_deals": self.n_deals,
            "deal_win_rate": iv(self.deal_win_rate()) if self.deals else None,
            "levels_per_deal": iv(self.levels_per_deal()) if self.deals else None,
            "leveling_rate": iv(self.leveling_rate()) if self.deals else None,
            "levels_gained": {"a": la, "b": lb},
            "declaring_side_win_rate": self.declaring_win_rate() if self.deals else None,
            "decision_ms": {
                "a": time_summary(self.decision_times()[0]),
                "b": time_summary(self.decision_times()[1]),
            },
            "failures": {"a": self.failures()[0] or None, "b": self.failures()[1] or None},
            "games": self.n_games,
            "game_win_rate": iv(self.game_win_rate()),
            "deal_results": [[_outcome_json(x), _outcome_json(y)] for x, y in self.deals],
            "game_results": [[_game_json(x), _game_json(y)] for x, y in self.games],
        }


def _outcome_json(x: DealOutcome) -> dict[str, Any]:
    d = asdict(x)
    for key in ("times_a", "times_b", "failures_a", "failures_b"):
        d.pop(key)
    return d


def _game_json(x: GameOutcome) -> dict[str, Any]:
    d = asdict(x)
    d.pop("failures_a")
    d.pop("failures_b")
    return d


def time_summary(xs: Sequence[float]) -> dict[str, float] | None:
    """Median and 95th percentile of decision times, in milliseconds."""
    if not xs:
        return None
    s = sorted(xs)
    p95 = s[min(len(s) - 1, int(0.95 * len(s)))]
    return {"median": 1000 * statistics.median(s), "p95": 1000 * p95, "n": len(s)}


def summarize(results: Sequence[PairingResult]) -> dict[str, Any]:
    """The JSON document written by `shengji arena --json`."""
    return {"pairings": [r.to_json() for r in results]}


def write_json(results: Sequence[PairingResult], path: str | Path) -> None:
    """Write `summarize(results)` to `path` (UTF-8, indented)."""
    Path(path).write_text(json.dumps(summarize(results), indent=1) + "\n", encoding="utf-8")

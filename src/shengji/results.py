"""The round's public records and their JSON: tricks, failed throws, results (RULES §6-§8).

`TrickView`, `FailedThrow` and `RoundResult` are what a round hands out about its tricks
and its end: in views (`shengji.views`), in events (`shengji.events.RoundOver`) and in game
records (`shengji.record`). Their JSON forms are here beside them, so that the modules
that use them (round, views, events, record) all build on this one and on none of
each other's: it sits below them in the package's layers and imports only cards and
vocabulary. The wire format is `docs/WEB_PROTOCOL.md`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._build import picklable
from .cards import Card
from .vocab import Gainer


@dataclass(frozen=True, slots=True, init=False)
class TrickView:
    """A trick: who led, every (seat, cards) played in order, its winner and its points."""

    leader: int
    plays: tuple[tuple[int, tuple[Card, ...]], ...]
    winner: int | None
    points: int

    def __init__(
        self,
        leader: int,
        plays: tuple[tuple[int, tuple[Card, ...]], ...],
        winner: int | None,
        points: int,
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "plays", plays)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "points", points)


@dataclass(frozen=True, slots=True, init=False)
class FailedThrow:
    """A failed throw (§6.4): what was attempted, the forced unit, who showed what."""

    seat: int
    attempted: tuple[Card, ...]
    forced: tuple[Card, ...]
    blocker: int
    shown: tuple[Card, ...]
    penalty: int
    trick: int

    def __init__(
        self,
        seat: int,
        attempted: tuple[Card, ...],
        forced: tuple[Card, ...],
        blocker: int,
        shown: tuple[Card, ...],
        penalty: int,
        trick: int,
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "attempted", attempted)
        object.__setattr__(self, "forced", forced)
        object.__setattr__(self, "blocker", blocker)
        object.__setattr__(self, "shown", shown)
        object.__setattr__(self, "penalty", penalty)
        object.__setattr__(self, "trick", trick)


@dataclass(frozen=True, slots=True, init=False)
class RoundResult:
    """The end of a round (§8): points, kitty, level change and the next round's seats.

    In friends mode (§12.4) `declaring_team` and `next_declaring_team` are -1 (there are
    no fixed teams), the levels have one entry per seat, `starter` is the leader and
    `next_starter` the next leader; the round's `friends` and `sides()` say who was on
    the leader's side.

    Friends mode also fills the fields that are None in teams mode (RULES §12.4):
    - `leader`: the leader's seat (the same as `starter`);
    - `friends`: the seats that joined the leader's side, in the order they joined;
    - `sides`: each seat's side at the round's end, `"leader"`, `"friend"` or
      `"opponent"` (points and levels go by these, §12.4 Decision);
    - `side_points`: the point cards of the tricks each side won, (the leader's side,
      the opponents), before the kitty and the throw penalties;
    - `level_gains`: the levels each seat gained (after `max_levels_per_round`,
      `stop_levels` and `win_at_a`).
    `result_json` writes them only when set, so a four-player result's JSON (and the
    digests of records) are as before §12.
    """

    opponents_points: int
    kitty: tuple[Card, ...]
    kitty_points: int
    multiplier: int
    penalties: int
    last_trick_winner: int
    declaring_team: int
    starter: int
    gainer: Gainer
    levels_gained: int
    next_starter: int
    next_declaring_team: int
    levels_before: tuple[str, ...]
    levels_after: tuple[str, ...]
    leader: int | None
    friends: tuple[int, ...] | None
    sides: tuple[str, ...] | None
    side_points: tuple[int, int] | None
    level_gains: tuple[int, ...] | None

    def __init__(
        self,
        opponents_points: int,
        kitty: tuple[Card, ...],
        kitty_points: int,
        multiplier: int,
        penalties: int,
        last_trick_winner: int,
        declaring_team: int,
        starter: int,
        gainer: Gainer,
        levels_gained: int,
        next_starter: int,
        next_declaring_team: int,
        levels_before: tuple[str, ...],
        levels_after: tuple[str, ...],
        leader: int | None = None,
        friends: tuple[int, ...] | None = None,
        sides: tuple[str, ...] | None = None,
        side_points: tuple[int, int] | None = None,
        level_gains: tuple[int, ...] | None = None,
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        object.__setattr__(self, "opponents_points", opponents_points)
        object.__setattr__(self, "kitty", kitty)
        object.__setattr__(self, "kitty_points", kitty_points)
        object.__setattr__(self, "multiplier", multiplier)
        object.__setattr__(self, "penalties", penalties)
        object.__setattr__(self, "last_trick_winner", last_trick_winner)
        object.__setattr__(self, "declaring_team", declaring_team)
        object.__setattr__(self, "starter", starter)
        object.__setattr__(self, "gainer", gainer)
        object.__setattr__(self, "levels_gained", levels_gained)
        object.__setattr__(self, "next_starter", next_starter)
        object.__setattr__(self, "next_declaring_team", next_declaring_team)
        object.__setattr__(self, "levels_before", levels_before)
        object.__setattr__(self, "levels_after", levels_after)
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "friends", friends)
        object.__setattr__(self, "sides", sides)
        object.__setattr__(self, "side_points", side_points)
        object.__setattr__(self, "level_gains", level_gains)

    def declared(self, seat: int) -> bool:
        """Whether `seat` ended the round on the declaring side: its team (RULES §8.2,
        §12.2), or in friends mode the leader and the friends who joined (§12.4)."""
        sides = self.sides
        return seat % 2 == self.declaring_team if sides is None else sides[seat] != "opponent"


picklable(TrickView, FailedThrow, RoundResult)


def cards_json(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    """Cards as JSON: their notation strings (`"10H"`, `"BJ"`), in order."""
    return [c.text for c in cards]


def trick_json(t: TrickView) -> dict[str, Any]:
    """A trick as plain JSON: leader, `[seat, cards]` plays in order, winner, points."""
    return {
        "leader": t.leader,
        "plays": [[s, cards_json(c)] for s, c in t.plays],
        "winner": t.winner,
        "points": t.points,
    }


def failed_throw_json(f: FailedThrow) -> dict[str, Any]:
    """A failed throw (§6.4) as plain JSON."""
    return {
        "seat": f.seat, "attempted": cards_json(f.attempted), "forced": cards_json(f.forced),
        "blocker": f.blocker, "shown": cards_json(f.shown), "penalty": f.penalty,
        "trick": f.trick,
    }


def result_json(r: RoundResult | None) -> dict[str, Any] | None:
    """A round result as plain JSON (None stays None); the friends-mode fields (§12.4)
    only when set, so a teams result reads exactly as before §12."""
    if r is None:
        return None
    out: dict[str, Any] = {
        "opponents_points": r.opponents_points,
        "kitty": cards_json(r.kitty),
        "kitty_points": r.kitty_points,
        "multiplier": r.multiplier,
        "penalties": r.penalties,
        "last_trick_winner": r.last_trick_winner,
        "declaring_team": r.declaring_team,
        "starter": r.starter,
        "gainer": r.gainer,
        "levels_gained": r.levels_gained,
        "next_starter": r.next_starter,
        "next_declaring_team": r.next_declaring_team,
        "levels_before": list(r.levels_before),
        "levels_after": list(r.levels_after),
    }
    if r.leader is not None:
        out["leader"] = r.leader
    if r.friends is not None:
        out["friends"] = list(r.friends)
    if r.sides is not None:
        out["sides"] = list(r.sides)
    if r.side_points is not None:
        out["side_points"] = list(r.side_points)
    if r.level_gains is not None:
        out["level_gains"] = list(r.level_gains)
    return out


__all__ = [
    "FailedThrow", "RoundResult", "TrickView", "cards_json", "failed_throw_json",
    "result_json", "trick_json",
]

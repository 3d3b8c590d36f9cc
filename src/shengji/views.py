"""What one seat may see (RULES §11): the only thing a bot or a client ever gets.

`Round.view(seat)` (`round.build_view`) copies the public facts and that seat's own
cards into a frozen `View`; the view holds no reference back to the round. This module
sits below `round`: it knows the records (`shengji.results`), never the round itself.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from ._build import picklable
from .actions import Action, Call, Declare, Pass, random_calls, table_of
from .cards import CARDS, Card, below, cards_from_ids, counts_of, format_cards
from .declare import candidate_declarations, declaration_strength, overturn_error
from .follow import (
    follow_error,
    iter_follows,
    iter_leads,
    random_bury,
    random_follow,
    random_lead,
)
from .hand import Hand
from .options import RuleOptions
from .results import (
    FailedThrow,
    RoundResult,
    TrickView,
    failed_throw_json,
    result_json,
    trick_json,
)
from .results import cards_json as _cj
from .shapes import Shape, count_ids, shape_of
from .trump import Trump
from .vocab import Phase

# the phases as module constants: compiled, reading one is a C static, not an enum lookup
_DEAL: Final = Phase.DEAL
_DECLARE: Final = Phase.DECLARE
_KITTY: Final = Phase.KITTY
_OVER: Final = Phase.OVER
_PLAY: Final = Phase.PLAY
_CALL: Final = Phase.CALL

#: a call as views show it (RULES §12.4): the card, the ordinal, the seat that played the
#: called copy (None until its trick has ended) and whether the call is spent
CallView = tuple[Card, int, int | None, bool]


@dataclass(frozen=True, slots=True, init=False)
class View:
    """One seat's view of a round (RULES §11). `seat` None is a spectator.

    A frozen snapshot: it holds no reference back to the round. `hand_sizes` has one
    entry per seat (§12.1); in friends mode (§12.4) `calls` are the leader's calls
    (`CallView`s), `friends` the seats that joined and `sides` each seat's side as far
    as everyone knows ("leader", "friend", or None until the round is over, then
    "opponent"); in teams mode all three are empty.
    """

    seat: int | None
    phase: Phase
    to_act: int | None
    round_no: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    trump_rank: str | None
    trump_suit: str | None
    trump: Trump | None
    declarations: tuple[tuple[int, tuple[Card, ...]], ...]
    declarer: int | None
    kitty_flip: tuple[Card, ...]
    starter: int | None
    declaring_team: int | None
    levels: tuple[str, ...]
    cards_left: int
    last_drawer: int | None
    tricks: tuple[TrickView, ...]
    current_trick: TrickView | None
    failed_throws: tuple[FailedThrow, ...]
    opponents_points: int
    point_cards: tuple[Card, ...]
    kitty: tuple[Card, ...] | None
    kitty_taken: tuple[Card, ...] | None
    result: RoundResult | None
    options: RuleOptions
    last_result: RoundResult | None = None
    game_over: bool = False
    winner: int | None = None
    display_trump: Trump | None = field(default=None, repr=False)
    #: the seat's hand as counts per card id, and the current trick's lead shape (§6.1):
    #: what the engine already holds, so that nobody rebuilds them from the cards
    hand_counts: Hand | None = field(default=None, repr=False, compare=False)
    lead_shape: Shape | None = field(default=None, repr=False, compare=False)
    calls: tuple[CallView, ...] = ()
    friends: tuple[int, ...] = ()
    sides: tuple[str | None, ...] = ()

    def __init__(
        self,
        seat: int | None,
        phase: Phase | str,
        to_act: int | None,
        round_no: int,
        hand: tuple[Card, ...],
        hand_sizes: tuple[int, ...],
        trump_rank: str | None,
        trump_suit: str | None,
        trump: Trump | None,
        declarations: tuple[tuple[int, tuple[Card, ...]], ...],
        declarer: int | None,
        kitty_flip: tuple[Card, ...],
        starter: int | None,
        declaring_team: int | None,
        levels: tuple[str, ...],
        cards_left: int,
        last_drawer: int | None,
        tricks: tuple[TrickView, ...],
        current_trick: TrickView | None,
        failed_throws: tuple[FailedThrow, ...],
        opponents_points: int,
        point_cards: tuple[Card, ...],
        kitty: tuple[Card, ...] | None,
        kitty_taken: tuple[Card, ...] | None,
        result: RoundResult | None,
        options: RuleOptions,
        last_result: RoundResult | None = None,
        game_over: bool = False,
        winner: int | None = None,
        display_trump: Trump | None = None,
        hand_counts: Hand | None = None,
        lead_shape: Shape | None = None,
        calls: tuple[CallView, ...] = (),
        friends: tuple[int, ...] = (),
        sides: tuple[str | None, ...] = (),
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        object.__setattr__(self, "seat", seat)
        # a view built by hand may name its phase as text ("play")
        object.__setattr__(self, "phase", phase if type(phase) is Phase else Phase(phase))
        object.__setattr__(self, "to_act", to_act)
        object.__setattr__(self, "round_no", round_no)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "hand_sizes", hand_sizes)
        object.__setattr__(self, "trump_rank", trump_rank)
        object.__setattr__(self, "trump_suit", trump_suit)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "declarations", declarations)
        object.__setattr__(self, "declarer", declarer)
        object.__setattr__(self, "kitty_flip", kitty_flip)
        object.__setattr__(self, "starter", starter)
        object.__setattr__(self, "declaring_team", declaring_team)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "cards_left", cards_left)
        object.__setattr__(self, "last_drawer", last_drawer)
        object.__setattr__(self, "tricks", tricks)
        object.__setattr__(self, "current_trick", current_trick)
        object.__setattr__(self, "failed_throws", failed_throws)
        object.__setattr__(self, "opponents_points", opponents_points)
        object.__setattr__(self, "point_cards", point_cards)
        object.__setattr__(self, "kitty", kitty)
        object.__setattr__(self, "kitty_taken", kitty_taken)
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "last_result", last_result)
        object.__setattr__(self, "game_over", game_over)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "display_trump", display_trump)
        object.__setattr__(self, "hand_counts", hand_counts)
        object.__setattr__(self, "lead_shape", lead_shape)
        object.__setattr__(self, "calls", calls)
        object.__setattr__(self, "friends", friends)
        object.__setattr__(self, "sides", sides)

    # ------------------------------------------------------------ helpers from the view only

    @property
    def lead(self) -> tuple[Card, ...] | None:
        """The cards led in the current trick, or None if nobody has led yet."""
        if self.current_trick is None or not self.current_trick.plays:
            return None
        return self.current_trick.plays[0][1]

    def plays_so_far(self) -> list[tuple[int, tuple[Card, ...]]]:
        """Every play of this round so far as (seat, cards): the finished tricks' in
        order, then the current trick's (all public, RULES §11)."""
        out = [play for trick in self.tricks for play in trick.plays]
        if self.current_trick is not None:
            out.extend(self.current_trick.plays)
        return out

    def counts(self) -> list[int]:
        """The seat's hand as counts per card id (a new list the caller may change;
        `hand_counts` is the same as an immutable `Hand`)."""
        if self.hand_counts is not None:
            return list(self.hand_counts)
        return counts_of(self.hand)

    def _lead_shape(self) -> Shape | None:
        if self.lead_shape is not None:
            return self.lead_shape
        lead = self.lead
        if lead is None or self.trump is None:
            return None
        return shape_of([c.id for c in lead], self.trump)

    def _my_turn_to_play(self) -> bool:
        return self.phase is _PLAY and self.seat is not None and self.to_act == self.seat

    def legal_plays(self) -> Iterator[tuple[Card, ...]]:
        """Every distinct legal play of this seat now, lazily (§6.1, §6.2)."""
        if not self._my_turn_to_play() or self.trump is None:
            return
        counts = self.counts()
        shape = self._lead_shape()
        gen = (
            iter_leads(counts, self.trump)
            if shape is None
            else iter_follows(counts, shape, self.trump, self.options.strict_tractor_follow)
        )
        for ids in gen:
            yield cards_from_ids(ids)

    def play_error(self, cards: tuple[Card, ...] | list[Card]) -> str | None:
        """Why these cards are not a legal play now (as far as this seat can know), or None.

        A lead of several units may still fail as a throw (§6.4): that depends on the
        other hands, which a view does not hold.
        """
        if not self._my_turn_to_play() or self.trump is None:
            return "RULES §6: it is not your turn to play"
        counts = self.counts()
        ids = [c.id for c in cards]
        if not ids:
            return "RULES §6: play at least one card"
        for i, n in count_ids(ids).items():
            if counts[i] < n:
                return f"RULES §6: {CARDS[i]} is not in your hand"
        shape = self._lead_shape()
        if shape is None:
            try:
                shape_of(ids, self.trump)
            except ValueError as e:
                return str(e)
            return None
        return follow_error(counts, shape, ids, self.trump, self.options.strict_tractor_follow)

    def is_legal(self, cards: tuple[Card, ...] | list[Card]) -> bool:
        """Whether these cards are a legal play now (§6.1, §6.2)."""
        return self.play_error(cards) is None

    def random_play(self, rng: random.Random) -> tuple[Card, ...]:
        """A uniformly random distinct legal play of this seat now (as the starter in the
        kitty phase: a uniformly random distinct set of kitty cards to bury, §4)."""
        if self.phase is _KITTY and self.seat is not None and self.seat == self.starter:
            size = table_of(self.options)[2]
            return tuple(CARDS[i] for i in random_bury(self.counts(), rng, size))
        if not self._my_turn_to_play() or self.trump is None:
            raise ValueError("not this seat's turn to play")
        counts = self.counts()
        shape = self._lead_shape()
        if shape is None:
            ids = random_lead(counts, self.trump, rng)
        else:
            ids = random_follow(
                counts, shape, self.trump, rng, self.options.strict_tractor_follow
            )
        return cards_from_ids(ids)

    def legal_declarations(self) -> list[tuple[Card, ...]]:
        """The declarations this seat may make now (§3.3), weakest first."""
        if (
            self.seat is None or self.phase not in (_DEAL, _DECLARE)
            or self.trump_rank is None
        ):
            return []
        standing: tuple[int, int, tuple[int, ...]] | None = None
        d = table_of(self.options)[1]
        rank = self.trump_rank
        if self.declarations:
            s, cards = self.declarations[-1]
            s_ids = tuple([c.id for c in cards])
            standing = (s, declaration_strength(s_ids, rank, d), s_ids)
        return [
            cards_from_ids(ids)
            for ids in candidate_declarations(self.counts(), rank, d)
            if overturn_error(
                self.seat, ids, declaration_strength(ids, rank, d), standing, self.options, d,
            ) is None
        ]

    def random_declaration_action(self, rng: random.Random) -> Action:
        """Uniformly: pass, or one of this seat's legal declarations (deal and final window)."""
        assert self.seat is not None
        decls = self.legal_declarations()
        k = below(rng, len(decls) + 1) if decls else 0
        return Pass(self.seat) if k == len(decls) else Declare(self.seat, decls[k])

    def random_call_action(self, rng: random.Random) -> Call:
        """As the leader in the call phase (RULES §12.4): a uniformly random legal call of
        `N // 2 - 1` friends (distinct cards and ordinals, no joker, no trump rank)."""
        if self.phase is not _CALL or self.seat is None or self.seat != self.starter:
            raise ValueError("RULES §12.4: only the leader calls, in the call phase")
        n, d = table_of(self.options)[:2]
        rank = self.trump.rank if self.trump is not None else self.trump_rank
        return Call(self.seat, random_calls(rank, n, d, rng))

    # ------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """The view as plain JSON (cards in notation), for the web client: `seat`, then
        `public_json()`, then `private_json()`."""
        out: dict[str, Any] = {"seat": self.seat}
        out.update(self.public_json())
        out.update(self.private_json())
        return out

    def public_json(self) -> dict[str, Any]:
        """The part of `to_json()` that every seat and spectator sees alike at one moment
        (RULES §11): a server encodes it once per action for all its connections."""
        return {
            "phase": self.phase,
            "to_act": self.to_act,
            "round_no": self.round_no,
            "hand_sizes": list(self.hand_sizes),
            "trump_rank": self.trump_rank,
            "trump_suit": self.trump_suit,
            "trump_final": self.trump is not None,
            "declarations": [[s, _cj(c)] for s, c in self.declarations],
            "declarer": self.declarer,
            "kitty_flip": _cj(self.kitty_flip),
            "starter": self.starter,
            "declaring_team": self.declaring_team,
            "levels": list(self.levels),
            "cards_left": self.cards_left,
            "last_drawer": self.last_drawer,
            "tricks": [trick_json(t) for t in self.tricks],
            "current_trick": trick_json(self.current_trick) if self.current_trick else None,
            "failed_throws": [failed_throw_json(f) for f in self.failed_throws],
            "opponents_points": self.opponents_points,
            "point_cards": _cj(self.point_cards),
            "result": result_json(self.result),
            "last_result": result_json(self.last_result),
            "game_over": self.game_over,
            "winner": self.winner,
            "options": self.options.to_json(),
            "lead": _cj(self.lead) if self.lead else None,
            **self._friends_json(),
        }

    def _friends_json(self) -> dict[str, Any]:
        """Friends mode only (RULES §12.4): the calls, the joined friends, each seat's side
        as far as everyone knows. Nothing in teams mode, so four-player views keep their
        JSON."""
        if not self.sides:
            return {}
        return {
            "calls": [
                {"card": c.text, "ordinal": j, "played_by": by, "spent": sp}
                for c, j, by, sp in self.calls
            ],
            "friends": list(self.friends),
            "sides": list(self.sides),
        }

    def private_json(self) -> dict[str, Any]:
        """The part of `to_json()` that depends on the seat (RULES §11): its hand, the
        kitty where it may see it, and the declarations it may make (`seat` itself apart)."""
        return {
            "hand": _cj(self.hand),
            "kitty": _cj(self.kitty) if self.kitty is not None else None,
            "kitty_taken": _cj(self.kitty_taken) if self.kitty_taken is not None else None,
            "legal_declarations": [_cj(d) for d in self.legal_declarations()],
        }

    def play_help_json(self) -> dict[str, Any]:
        """On this seat's turn in the play phase, `forced`: the one legal play when there
        is exactly one (RULES §6.2, with `strict_tractor_follow` and at §12 tables), which
        the browser's auto-play makes; else nothing. The browser keeps no copy of the
        follow rule (issue 30). Sent with `private_json` (server.broadcast), not in
        `to_json`: bots, records and the external-bot protocol see what they saw before."""
        forced = self.forced_play()
        return {} if forced is None else {"forced": _cj(forced)}

    def forced_play(self) -> tuple[Card, ...] | None:
        """The one legal play on this seat's turn when there is exactly one (RULES §6.2),
        else None."""
        first = None
        for n, play in enumerate(self.legal_plays()):  # lazily: stops at the second
            if n:
                return None
            first = play
        return first


picklable(View)


__all__ = ["View", "format_cards", "result_json"]

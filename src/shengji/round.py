"""One round as a state machine: deal → declare → kitty → tricks → result (RULES §3-§8).

A round is fully determined by its parameters, its seed and the actions applied.
Every action is validated completely before anything changes, so an
`IllegalAction` leaves the round exactly as it was.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from ._build import picklable
from .actions import (
    Action,
    Bury,
    CloseWindow,
    Declare,
    Draw,
    Pass,
    Play,
    cards_of,
    check_well_formed,
)
from .cards import (
    CARDS,
    N_IDS,
    ONE_ID,
    POINTS,
    RANKS,
    SEAT_ONE_CARD,
    SEAT_ONE_ID,
    Card,
    below,
    cards_from_ids,
    counts_of,
    shuffled_ids,
)
from .declare import (
    candidate_declarations,
    declaration_strength,
    declaration_suit,
    overturn_error,
)
from .errors import IllegalAction
from .events import (
    Declared,
    Drew,
    Event,
    KittyBuried,
    KittyFlipped,
    KittyTaken,
    Passed,
    Played,
    Redealt,
    RoundOver,
    ThrowFailed,
    TrickWon,
    TrumpFixed,
)
from .follow import (
    follow_error,
    hand_items,
    iter_follows,
    iter_leads,
    random_bury,
    random_follow,
    random_lead,
    submultisets,
)
from .hand import Hand
from .options import SEED_RULES, RuleOptions
from .results import FailedThrow, RoundResult, TrickView
from .scoring import kitty_multiplier, level_change, new_level, throw_penalty
from .shapes import Shape, count_ids, shape_of
from .trick import check_throw, winner_index
from .trump import Trump, trump_for
from .views import View
from .vocab import Phase

# the phases as module constants: compiled, reading one is a C static, not an enum lookup
_DEAL: Final = Phase.DEAL
_DECLARE: Final = Phase.DECLARE
_KITTY: Final = Phase.KITTY
_OVER: Final = Phase.OVER
_PLAY: Final = Phase.PLAY

HAND_SIZE = 25
KITTY_SIZE = 8
PHASES = tuple(Phase)


def level_name(index: int) -> str:
    """`"2"`..`"A"` for a level index 0..12; `"A+"` beyond A (§2, §9)."""
    return RANKS[index] if index < 13 else "A+"


def level_index(name: str) -> int:
    """0..12 for a level `"2"`..`"A"`, 13 for `"A+"` (RULES §2, §9)."""
    if name == "A+":
        return 13
    if name not in RANKS:
        raise IllegalAction(f"RULES §2: {name!r} is not a level (2..A)")
    return RANKS.index(name)


@dataclass(frozen=True, slots=True, init=False)
class Decision:
    """What the round waits for: `phase` and the `seat` to act (None: a system `Draw`).

    In the deal, `last_drawer` is the seat that drew the latest card (the seat a
    turn-based driver asks whether to declare, §3.3).
    """

    phase: Phase
    seat: int | None
    last_drawer: int | None = None

    def __init__(
        self,
        phase: Phase,
        seat: int | None,
        last_drawer: int | None = None,
    ) -> None:
        # written out: compiled by mypyc this is ~10x faster than the generated one
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "last_drawer", last_drawer)


picklable(Decision)


class Trick(NamedTuple):
    """A finished trick in the round's own terms (card ids); views show `TrickView`s."""

    leader: int
    plays: tuple[tuple[int, tuple[int, ...]], ...]  # (seat, card ids) in play order
    winner: int
    points: int


class Round:
    """One round of Tractor (RULES §3-§8), driven by actions.

    `starter`/`declaring_team` are None in the first round of a game (the
    declarer becomes starter, §3.4; nobody declaring means a redeal, §3.5).
    `seed` fixes the shuffle(s): deal attempt `a` uses the order of
    `shuffled_deck(f"{seed}:{a}")`.
    """

    def __init__(
        self,
        seed: int | str = 0,
        options: RuleOptions | None = None,
        *,
        trump_rank: str = "2",
        starter: int | None = None,
        declaring_team: int | None = None,
        round_no: int = 0,
        levels: tuple[str, str] = ("2", "2"),
        deck: tuple[int, ...] | list[int] | None = None,
    ) -> None:
        _check_setup(trump_rank, starter, declaring_team)
        opts = options if options is not None else SEED_RULES
        if deck is not None:
            deck = tuple(deck)
            if sorted(deck) != _FULL_DECK:
                raise IllegalAction("RULES §1: a deck is the 108 cards, each id 0-53 twice")
        self._set_state(
            options=opts,
            seed=seed,
            trump_rank=trump_rank,
            first_round=starter is None,
            starter=starter,
            declaring_team=declaring_team,
            round_no=round_no,
            levels=levels,
            first_drawer=starter if starter is not None else opts.first_drawer,
            attempt=0,
            deck=deck if deck is not None else shuffled_ids(f"{seed}:0"),
        )

    # ------------------------------------------------------------ setup

    def _set_state(
        self,
        options: RuleOptions,
        seed: int | str,
        trump_rank: str,
        first_round: bool,
        starter: int | None,
        declaring_team: int | None,
        round_no: int,
        levels: tuple[str, str],
        first_drawer: int,
        attempt: int,
        deck: tuple[int, ...],
        actions: list[Action] | None = None,
        hands: list[list[int]] | None = None,
        sizes: list[int] | None = None,
        sorted_hands: list[tuple[tuple[int, ...], list[int], tuple[Card, ...]] | None]
        | None = None,
        drawn: int = 0,
        declarations: list[tuple[int, tuple[int, ...]]] | None = None,
        standing: tuple[int, int, tuple[int, ...]] | None = None,
        decl_key: list[object] | None = None,
        decl_ids: list[list[tuple[int, ...]]] | None = None,
        phase: Phase = _DEAL,
        ask: int | None = None,
        passes: int = 0,
        trump: Trump | None = None,
        kitty_flip: tuple[int, ...] = (),
        kitty_taken: tuple[int, ...] | None = None,
        kitty: tuple[int, ...] = (),
        tricks: list[Trick] | None = None,
        trick_cache: list[TrickView] | None = None,
        done_tricks: tuple[TrickView, ...] = (),
        cur_view: TrickView | None = None,
        cur_key: tuple[int, int] = (-1, -1),
        decl_cards: tuple[tuple[int, tuple[Card, ...]], ...] = (),
        point_view: tuple[Card, ...] = (),
        leader: int | None = None,
        current: list[tuple[int, tuple[int, ...]]] | None = None,
        lead_shape: Shape | None = None,
        failed_throws: list[FailedThrow] | None = None,
        opponents_points: int = 0,
        point_cards: list[int] | None = None,
        penalties: int = 0,
        result: RoundResult | None = None,
        events: list[Event] | None = None,
        want_events: bool = True,
    ) -> None:
        """The one place that sets every field of a round: `__init__`, a redeal, `clone`
        and `with_hidden` (through `_copy`), `from_view` and `from_position` all come
        through here, so a new field is added once. What is not given is as at the start
        of a deal of `deck` (nothing drawn, declared or played). The lists given are
        kept, not copied: callers pass their own (`clone` copies the ones the engine
        changes in place).

        `_copy` passes its arguments by position, in this order (a call with forty
        keywords costs CPython about 2 µs, as much as the rest of a clone; compiled, the
        two are the same call); tests/test_round_clone.py checks that each is the field
        of its parameter's name."""
        # the round's setting (RULES §3.2, §3.4, §10)
        self._options = options
        self._seed = seed
        self._trump_rank = trump_rank
        self._rank_idx = RANKS.index(trump_rank)
        self._first_round = first_round
        self._starter: int | None = starter
        self._declaring_team: int | None = declaring_team
        self._round_no = round_no
        self._levels = levels
        self._first_drawer = first_drawer
        self._attempt = attempt
        self._actions: list[Action] = actions if actions is not None else []
        # the events of the action being applied, and whether to build them (`step` not)
        self._events: list[Event] = events if events is not None else []
        self._want_events = want_events
        # the deal (§3.1): the card order, the hands as counts per id, how many were drawn
        self._deck: tuple[int, ...] = deck
        self._hands: list[list[int]] = (
            hands if hands is not None else [[0] * N_IDS, [0] * N_IDS, [0] * N_IDS, [0] * N_IDS]
        )
        self._sizes: list[int] = sizes if sizes is not None else [0, 0, 0, 0]
        # each seat's hand as sorted cards for views, with the counts and sort order it
        # was made from (any change to the hand or the trump shows as a mismatch)
        self._sorted_hands: list[tuple[tuple[int, ...], list[int], tuple[Card, ...]] | None] = (
            sorted_hands if sorted_hands is not None else [None, None, None, None]
        )
        self._drawn = drawn
        # the declarations (§3.3) and the standing one as (seat, strength, ids)
        self._declarations: list[tuple[int, tuple[int, ...]]] = (
            declarations if declarations is not None else []
        )
        self._standing: tuple[int, int, tuple[int, ...]] | None = standing
        # each seat's last `_declaration_ids` answer and what it depended on (per seat:
        # the four seats draw in turn, so one shared entry would miss at every draw)
        self._decl_key: list[object] = decl_key if decl_key is not None else [None] * 4
        self._decl_ids: list[list[tuple[int, ...]]] = (
            decl_ids if decl_ids is not None else [[], [], [], []]
        )
        self._phase: Phase = phase
        self._ask: int | None = ask
        self._passes = passes
        # trump and the kitty (§3.5, §4): the cards turned up, the 8 taken, the 8 buried
        self._trump: Trump | None = trump
        self._kitty_flip: tuple[int, ...] = kitty_flip
        self._kitty_taken: tuple[int, ...] = (
            kitty_taken if kitty_taken is not None else deck[4 * HAND_SIZE :]
        )
        self._kitty: tuple[int, ...] = kitty
        # the tricks (§6): finished ones, and the current one's leader, plays and lead shape
        self._tricks: list[Trick] = tricks if tricks is not None else []
        self._leader: int | None = leader
        self._current: list[tuple[int, tuple[int, ...]]] = current if current is not None else []
        self._lead_shape: Shape | None = lead_shape
        self._failed_throws: list[FailedThrow] = (
            failed_throws if failed_throws is not None else []
        )
        # the points (§7) and the result (§8)
        self._opponents_points = opponents_points
        self._point_cards: list[int] = point_cards if point_cards is not None else []
        self._penalties = penalties
        self._result: RoundResult | None = result
        # public tuples for views, rebuilt when what they show grows: the finished tricks
        # as views, the current trick as a view and (tricks done, cards played) it was
        # made at, the declarations as cards, the point cards won
        self._trick_cache: list[TrickView] = trick_cache if trick_cache is not None else []
        self._done_tricks: tuple[TrickView, ...] = done_tricks
        self._cur_view: TrickView | None = cur_view
        self._cur_key: tuple[int, int] = cur_key
        self._decl_cards: tuple[tuple[int, tuple[Card, ...]], ...] = decl_cards
        self._point_view: tuple[Card, ...] = point_view

    def _redeal(self) -> None:
        """§3.5: nobody declared in the first round: all 108 cards are shuffled and dealt
        again (deal attempt `attempt + 1`); the setting, the history and the events of the
        action being applied are kept, the deal starts over."""
        attempt = self._attempt + 1
        self._set_state(
            options=self._options,
            seed=self._seed,
            trump_rank=self._trump_rank,
            first_round=self._first_round,
            starter=self._starter,
            declaring_team=self._declaring_team,
            round_no=self._round_no,
            levels=self._levels,
            first_drawer=self._first_drawer,
            attempt=attempt,
            deck=shuffled_ids(f"{self._seed}:{attempt}"),
            actions=self._actions,
            events=self._events,
            want_events=self._want_events,
        )

    # ------------------------------------------------------------ queries

    # ------------------------------------------------------------ read-only state
    # The round's state is private: these read-only properties (and `view`, and the
    # events `apply` returns) are what consumers read. A property that returns a
    # container returns an immutable copy. Hidden parts (hands, deck, kitty) are the
    # engine's omniscient side: players only ever get a `View` (RULES §11).

    @property
    def options(self) -> RuleOptions:
        """The rule options this round is played under (RULES §10)."""
        return self._options

    @property
    def seed(self) -> int | str:
        """The shuffle seed: deal attempt `a` uses `shuffled_deck(f"{seed}:{a}")`."""
        return self._seed

    @property
    def trump_rank(self) -> str:
        """This round's trump rank (RULES §3.2)."""
        return self._trump_rank

    @property
    def first_round(self) -> bool:
        """True in a game's first round, where the declarer becomes starter (RULES §3.4)."""
        return self._first_round

    @property
    def starter(self) -> int | None:
        """The starter (RULES §3.4); None in a first round until trump is fixed."""
        return self._starter

    @property
    def declaring_team(self) -> int | None:
        """The declaring team, 0 (seats 0 and 2) or 1; None until known (RULES §3.4)."""
        return self._declaring_team

    @property
    def round_no(self) -> int:
        """The round's number in its game (0-based)."""
        return self._round_no

    @property
    def levels(self) -> tuple[str, str]:
        """Both teams' levels as the round began (RULES §2)."""
        return self._levels

    @property
    def first_drawer(self) -> int:
        """The seat that draws the first card (RULES §3.1)."""
        return self._first_drawer

    @property
    def attempt(self) -> int:
        """How many redeals this round has had (RULES §3.5)."""
        return self._attempt

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action applied to this round, in order (of the current deal attempt on)."""
        return tuple(self._actions)

    @property
    def phase(self) -> Phase:
        """The round's phase: deal, declare, kitty, play or over."""
        return self._phase

    @property
    def drawn(self) -> int:
        """How many of the 100 dealt cards have been drawn (RULES §3.1)."""
        return self._drawn

    @property
    def deck(self) -> tuple[int, ...]:
        """The current deal's card order, 108 ids (hidden information)."""
        return self._deck

    def hand_counts(self, seat: int) -> Hand:
        """A seat's hand as counts per card id (hidden information; players get views)."""
        return tuple.__new__(Hand, self._hands[seat])  # = Hand.trusted, without a Python call

    @property
    def hand_sizes(self) -> tuple[int, int, int, int]:
        """How many cards each seat holds (public)."""
        s = self._sizes
        return (s[0], s[1], s[2], s[3])

    @property
    def declarations(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Every declaration so far as (seat, card ids), in order (RULES §3.3)."""
        return tuple(self._declarations)

    @property
    def standing(self) -> tuple[int, int, tuple[int, ...]] | None:
        """The standing declaration as (seat, strength, card ids), or None (RULES §3.3)."""
        return self._standing

    @property
    def ask(self) -> int | None:
        """In the declare phase, the seat asked to declare or pass (RULES §3.3)."""
        return self._ask

    @property
    def trump(self) -> Trump | None:
        """The fixed trump, once the declaring is over (RULES §5)."""
        return self._trump

    @property
    def kitty_flip(self) -> tuple[int, ...]:
        """The kitty cards turned up to fix trump when nobody declared (RULES §3.5)."""
        return self._kitty_flip

    @property
    def kitty_taken(self) -> tuple[int, ...]:
        """The 8 undealt cards the starter takes (hidden information, RULES §4)."""
        return self._kitty_taken

    @property
    def kitty(self) -> tuple[int, ...]:
        """The 8 cards the starter buried, once buried (hidden until the end, RULES §4)."""
        return self._kitty

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The finished tricks, in order (RULES §6)."""
        return tuple(self._tricks)

    @property
    def n_tricks(self) -> int:
        """How many tricks are finished."""
        return len(self._tricks)

    @property
    def leader(self) -> int | None:
        """The seat leading the current trick (play phase)."""
        return self._leader

    @property
    def current(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """The current trick's plays so far as (seat, card ids)."""
        return tuple(self._current)

    @property
    def lead_shape(self) -> Shape | None:
        """The shape of the current trick's lead, if one is on the table (RULES §6.1)."""
        return self._lead_shape if self._current else None

    @property
    def failed_throws(self) -> tuple[FailedThrow, ...]:
        """Every failed throw so far, in order (RULES §6.4)."""
        return tuple(self._failed_throws)

    @property
    def opponents_points(self) -> int:
        """Points the opponents of the declaring team have won in tricks (RULES §7)."""
        return self._opponents_points

    @property
    def penalties(self) -> int:
        """Points of failed-throw penalties so far (RULES §6.4)."""
        return self._penalties

    @property
    def result(self) -> RoundResult | None:
        """The round's result once it is over (RULES §8)."""
        return self._result

    @property
    def is_over(self) -> bool:
        """True once the round's result is known (RULES §8)."""
        return self._phase is _OVER

    def decision(self) -> Decision:
        """What the round waits for now."""
        phase = self._phase
        if phase is _PLAY:
            seat = self.to_act
            assert seat is not None
            return _PLAY_DECISIONS[seat]
        last = (self._first_drawer + self._drawn - 1) % 4 if self._drawn else None
        if phase is _DEAL:
            return Decision(_DEAL, None, last)
        if phase is _DECLARE:
            return Decision(_DECLARE, self._ask, last)
        if phase is _KITTY:
            return Decision(_KITTY, self._starter)
        return Decision(_OVER, None)

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is in the play phase (None otherwise)."""
        if self._phase is not _PLAY or self._leader is None:
            return None
        return (self._leader + len(self._current)) % 4

    def hand(self, seat: int) -> list[Card]:
        """A seat's hand, sorted by play suit and level (engine-side; players get views)."""
        return list(self.sorted_hand(seat))

    def sorted_hand(self, seat: int) -> tuple[Card, ...]:
        """A seat's hand as a tuple sorted by play suit and level (kept between calls)."""
        hand = self._hands[seat]
        counts = tuple(hand)
        key = self.display_trump().sort_key
        cached = self._sorted_hands[seat]
        if cached is not None and cached[1] is key and cached[0] == counts:
            return cached[2]
        order = sorted([key[i] * 64 + i for i in range(N_IDS) for _ in range(hand[i])])
        out = tuple([CARDS[k & 63] for k in order])
        self._sorted_hands[seat] = (counts, key, out)
        return out

    def display_trump(self) -> Trump:
        """The final trump, or the one the standing declaration would make (for sorting)."""
        if self._trump is not None:
            return self._trump
        suit = declaration_suit(self._standing[2]) if self._standing else None
        return self._trump_for(self._trump_rank, suit)

    def _trump_for(self, rank: str | None, suit: str | None) -> Trump:
        """The shared `Trump` for (rank, suit) under this round's unit options (§5.4, §6.1)."""
        o = self._options
        return trump_for(rank, suit, o.gap_tractors == "on", o.throw_tractors == "on")

    def legal_declarations(self, seat: int) -> list[tuple[Card, ...]]:
        """The declarations `seat` may make now (§3.3), weakest first."""
        if self._phase not in (_DEAL, _DECLARE):
            return []
        return [cards_from_ids(ids) for ids in self._declaration_ids(seat)]

    def has_declaration(self, seat: int) -> bool:
        """Whether `seat` may declare now (§3.3): a driver need not ask a seat that cannot."""
        if self._phase not in (_DEAL, _DECLARE) or not self._may_hold_declaration(seat):
            return False
        return bool(self._declaration_ids(seat))

    def _may_hold_declaration(self, seat: int) -> bool:
        """A quick necessary condition: a trump-rank card or a pair of jokers (§3.3)."""
        hand = self._hands[seat]
        r = self._rank_idx
        return bool(
            hand[r] or hand[13 + r] or hand[26 + r] or hand[39 + r]
            or hand[52] >= 2 or hand[53] >= 2
        )

    def _declaration_ids(self, seat: int) -> list[tuple[int, ...]]:
        # Depends only on the seat's trump-rank cards and jokers and on the standing
        # declaration: kept while those stay the same (most draws change neither).
        hand = self._hands[seat]
        r = self._rank_idx
        key = (hand[r], hand[13 + r], hand[26 + r], hand[39 + r], hand[52], hand[53],
               self._standing, self._phase)
        if key == self._decl_key[seat]:
            return self._decl_ids[seat]
        out = [
            ids for ids in candidate_declarations(hand, self._trump_rank)
            if self._declare_error(seat, ids) is None
        ]
        self._decl_key[seat] = key
        self._decl_ids[seat] = out
        return out

    def legal_plays(self, seat: int) -> Iterator[tuple[Card, ...]]:
        """Every distinct legal play for `seat` now, lazily (§6.1, §6.2); 8-card kitties in §4."""
        if self._phase is _KITTY and seat == self._starter:
            items = hand_items(self._hands[seat], range(N_IDS))
            for combo in submultisets(items, KITTY_SIZE, 0):
                yield cards_from_ids(combo)
            return
        if self._phase is not _PLAY or seat != self.to_act:
            return
        assert self._trump is not None
        hand = self._hands[seat]
        if not self._current:
            gen = iter_leads(hand, self._trump)
        else:
            assert self._lead_shape is not None
            gen = iter_follows(
                hand, self._lead_shape, self._trump, self._options.strict_tractor_follow
            )
        for ids in gen:
            yield cards_from_ids(ids)

    def random_play(self, seat: int, rng: random.Random) -> tuple[Card, ...]:
        """A uniformly random distinct legal play (or kitty) for `seat`, sampled directly."""
        ids = self._random_ids(seat, rng)
        return cards_from_ids(ids)

    def _random_ids(self, seat: int, rng: random.Random) -> tuple[int, ...]:
        hand = self._hands[seat]
        if self._phase is _KITTY and seat == self._starter:
            return random_bury(hand, rng, KITTY_SIZE)
        if self._phase is not _PLAY or seat != self.to_act:
            raise IllegalAction(f"RULES §6: it is not seat {seat}'s turn to play")
        assert self._trump is not None
        if not self._current:
            return random_lead(hand, self._trump, rng)
        assert self._lead_shape is not None
        return random_follow(
            hand, self._lead_shape, self._trump, rng, self._options.strict_tractor_follow
        )

    def random_action(self, rng: random.Random) -> Action:
        """A uniformly random legal action for the current decision (drives random play).

        In the deal the drawing seat chooses among passing and its declarations;
        use `Draw()` to advance the deal itself.
        """
        phase = self._phase
        if phase is _PLAY:
            seat = self.to_act
            assert seat is not None
            return _new_play(seat, cards_from_ids(self._random_ids(seat, rng)))
        if phase is _DEAL:  # the drawer may declare (§3.3); else the deal goes on
            if not self._drawn:
                return _DRAW
            seat = (self._first_drawer + self._drawn - 1) % 4
            decls = self._declaration_ids(seat) if self._may_hold_declaration(seat) else []
            k = below(rng, len(decls) + 1) if decls else 0
            if k == len(decls):
                return _DRAW
            return Declare(seat, tuple([CARDS[i] for i in decls[k]]))
        d = self.decision()
        if d.phase in (_DEAL, _DECLARE):
            seat = d.last_drawer if d.phase is _DEAL else d.seat
            if seat is None:
                return _DRAW
            decls = self._declaration_ids(seat)
            k = below(rng, len(decls) + 1) if decls else 0
            if k == len(decls):
                return Pass(seat) if d.phase is _DECLARE else _DRAW
            return Declare(seat, tuple([CARDS[i] for i in decls[k]]))
        if d.seat is None:
            raise IllegalAction("RULES §8: the round is over")
        ids = self._random_ids(d.seat, rng)
        cards = cards_from_ids(ids)
        return Bury(d.seat, cards) if d.phase is _KITTY else Play(d.seat, cards)

    # ------------------------------------------------------------ actions

    def check(self, action: Action) -> None:
        """Raise `IllegalAction` if the action is not legal now; never changes anything."""
        self._handle(action, commit=False)

    def apply(self, action: Action) -> list[Event]:
        """Validate and apply an action; on `IllegalAction` the round is unchanged.

        Returns the events the action caused, in order (see `shengji.events`).
        """
        events: list[Event] = []
        self._events = events
        self._want_events = True
        self._handle(action, commit=True)
        self._actions.append(action)
        return events

    def step(self, action: Action) -> None:
        """Like `apply` (the same checks, the same new state) without building the events:
        the fast path for simulations, search and training loops that do not read them."""
        self._events = []
        self._want_events = False
        try:
            self._handle(action, commit=True)
        finally:
            self._want_events = True
        self._actions.append(action)

    def _handle(self, action: Action, commit: bool) -> None:
        kind = type(action)
        if kind is Draw:  # the deal's hundred draws: nothing to check in them
            self._draw(commit)
            return
        if kind is Play:  # the common case, checked here without leaving compiled code
            seat, cards = _seat_and_cards(action)
            self._play(seat, cards, commit)
            return
        check_well_formed(action)
        if isinstance(action, Draw):
            self._draw(commit)
        elif isinstance(action, Play):
            self._play(action.seat, cards_of(action), commit)
        elif isinstance(action, Declare):
            self._declare(action.seat, cards_of(action), commit)
        elif isinstance(action, Pass):
            self._pass(action.seat, commit)
        elif isinstance(action, CloseWindow):
            self._close(commit)
        elif isinstance(action, Bury):
            self._bury(action.seat, cards_of(action), commit)
        else:  # pragma: no cover - check_well_formed admits only the six action types
            raise AssertionError(action)

    def _phase_error(self, want: str, what: str) -> IllegalAction:
        rule = {"deal": "§3.1", "declare": "§3.3", "kitty": "§4", "play": "§6"}[want]
        return IllegalAction(
            f"RULES {rule}: {what} is only possible in the {want} phase (now: {self._phase})"
        )

    def _draw(self, commit: bool) -> None:
        if self._phase is not _DEAL:
            raise self._phase_error("deal", "drawing a card")
        if not commit:
            return
        seat = (self._first_drawer + self._drawn) % 4
        card = self._deck[self._drawn]
        self._hands[seat][card] += 1
        self._sizes[seat] += 1
        self._drawn += 1
        if self._want_events:
            self._events.append(Drew(seat, CARDS[card], self._sizes[seat]))
        if self._drawn == 4 * HAND_SIZE:
            self._phase = _DECLARE
            self._ask = self._first_drawer
            self._passes = 0

    def _declare_error(self, seat: int, ids: tuple[int, ...]) -> str | None:
        try:
            strength = declaration_strength(ids, self._trump_rank)
        except IllegalAction as e:
            return str(e)
        hand = self._hands[seat]
        for i, n in count_ids(ids).items():
            if hand[i] < n:
                return "RULES §3.3: you can only declare with cards in your hand at that moment"
        return overturn_error(seat, ids, strength, self._standing, self._options)

    def _declare(self, seat: int, cards: tuple[Card, ...], commit: bool) -> None:
        if self._phase not in (_DEAL, _DECLARE):
            raise IllegalAction(
                f"RULES §3.3: declarations are only possible during the deal and its final "
                f"window (now: {self._phase})"
            )
        _check_seat(seat)
        ids = tuple([c.id for c in cards])
        err = self._declare_error(seat, ids)
        if err:
            raise IllegalAction(err)
        if not commit:
            return
        strength = declaration_strength(ids, self._trump_rank)
        overturned = self._standing[0] if self._standing else None
        self._events.append(Declared(seat, tuple(cards), strength, overturned))
        self._declarations.append((seat, ids))
        self._standing = (seat, strength, ids)
        if self._phase is _DECLARE:
            self._passes = 0
            self._ask = (seat + 1) % 4

    def _pass(self, seat: int, commit: bool) -> None:
        if self._phase is not _DECLARE:
            raise self._phase_error("declare", "passing")
        _check_seat(seat)
        if seat != self._ask:
            raise IllegalAction(f"RULES §3.3: seat {self._ask} is asked now, not seat {seat}")
        if not commit:
            return
        self._events.append(Passed(seat))
        self._passes += 1
        self._ask = (seat + 1) % 4
        if self._passes >= 4:
            self._finish_declaring()

    def _close(self, commit: bool) -> None:
        if self._phase is not _DECLARE:
            raise self._phase_error("declare", "closing the declaration window")
        if commit:
            self._finish_declaring()

    def _finish_declaring(self) -> None:
        if self._standing is not None:
            seat, strength, ids = self._standing
            if strength == 3:
                rank = self._trump_rank if self._options.no_trump_keeps_rank else None
                self._trump = self._trump_for(rank, None)
            else:
                self._trump = self._trump_for(self._trump_rank, declaration_suit(ids))
            if self._first_round:
                self._starter = seat
                self._declaring_team = seat % 2
        elif self._first_round and self._options.round1_no_declaration == "redeal":
            self._redeal()  # §3.5: nobody declared in the first round
            self._events.append(Redealt(self._attempt))
            return
        else:
            # §3.5: turn up the kitty; with round1_no_declaration=flip in the first round
            # the first drawer is the starter.
            suit = self._flip_kitty()
            self._trump = self._trump_for(self._trump_rank, suit)
            self._events.append(KittyFlipped(cards_from_ids(self._kitty_flip), suit))
            if self._first_round:
                self._starter = self._first_drawer
                self._declaring_team = self._first_drawer % 2
        assert self._starter is not None and self._declaring_team is not None
        self._events.append(
            TrumpFixed(
                self._trump.rank, self._trump.suit,
                self._standing[0] if self._standing else None,
                self._starter, self._declaring_team,
            )
        )
        self._events.append(KittyTaken(self._starter, cards_from_ids(self._kitty_taken)))
        hand = self._hands[self._starter]
        for i in self._kitty_taken:
            hand[i] += 1
        self._sizes[self._starter] += KITTY_SIZE
        self._phase = _KITTY
        self._ask = None

    def _flip_kitty(self) -> str:
        """§3.5: turn the kitty up until a trump-rank card shows; its suit is trump. Else
        the suit of the highest-ranking non-joker kitty card (the first turned among equals)."""
        flipped: list[int] = []
        for i in self._kitty_taken:
            flipped.append(i)
            card = CARDS[i]
            if card.rank == self._trump_rank:
                self._kitty_flip = tuple(flipped)
                assert card.suit is not None
                return card.suit
        self._kitty_flip = tuple(flipped)
        best = max(
            (CARDS[i] for i in flipped if i < 52),
            key=lambda c: c.rank_index,  # max keeps the first of equals
        )
        assert best.suit is not None
        return best.suit

    def _bury(self, seat: int, cards: tuple[Card, ...], commit: bool) -> None:
        if self._phase is not _KITTY:
            raise self._phase_error("kitty", "burying the kitty")
        _check_seat(seat)
        if seat != self._starter:
            raise IllegalAction(
                f"RULES §4: only the starter (seat {self._starter}) buries the kitty"
            )
        if len(cards) != KITTY_SIZE:
            raise IllegalAction(
                f"RULES §4: the starter puts back exactly 8 cards, not {len(cards)}"
            )
        ids = tuple([c.id for c in cards])
        self._require_in_hand(seat, ids, "§4")
        if not commit:
            return
        hand = self._hands[seat]
        for i in ids:
            hand[i] -= 1
        self._sizes[seat] -= KITTY_SIZE
        self._kitty = ids
        self._events.append(KittyBuried(seat, tuple(cards)))
        self._phase = _PLAY
        self._leader = self._starter

    def _require_in_hand(self, seat: int, ids: tuple[int, ...], rule: str) -> None:
        hand = self._hands[seat]
        if len(ids) == 1 and hand[ids[0]]:
            return
        for i, n in count_ids(ids).items():
            if hand[i] < n:
                have = hand[i]
                raise IllegalAction(
                    f"RULES {rule}: {CARDS[i]} is not in your hand"
                    + (f" {n} times (you hold {have})" if have else "")
                )

    def _play(self, seat: int, cards: tuple[Card, ...], commit: bool) -> None:
        if self._phase is not _PLAY:
            raise self._phase_error("play", "playing cards")
        _check_seat(seat)
        to_act = self.to_act
        if seat != to_act:
            raise IllegalAction(f"RULES §6: it is seat {to_act}'s turn, not seat {seat}'s")
        if not cards:
            raise IllegalAction("RULES §6: play at least one card")
        ids = ONE_ID[cards[0].id] if len(cards) == 1 else tuple([c.id for c in cards])
        self._require_in_hand(seat, ids, "§6")
        t = self._trump
        assert t is not None
        if not self._current:
            shape = shape_of(ids, t)  # raises for mixed suits (§6.1)
            if not commit:
                return
            ids = self._lead_play(seat, ids, shape)
        else:
            assert self._lead_shape is not None
            err = follow_error(
                self._hands[seat], self._lead_shape, ids, t, self._options.strict_tractor_follow
            )
            if err:
                raise IllegalAction(err)
            if not commit:
                return
        self._put(seat, ids)

    def step_legal_play(self, seat: int, ids: tuple[int, ...], action: Play) -> None:
        """`step(action)` for a play of `seat` that its caller has already found legal,
        `ids` the ids of its cards: the turn, the cards in hand and the follow rules
        (RULES §6.1-§6.3) are not checked again. A lead still goes through the throw
        check (§6.4), which decides what is put down. For `env.Table`, whose action masks
        offer exactly the legal plays (tests/test_env.py checks the masks against the
        engine's enumeration of follows and replays masked rounds through `step`);
        anything else calls `step` or `apply`."""
        if self._phase is not _PLAY:
            raise self._phase_error("play", "playing cards")
        self._events = []
        self._want_events = False
        try:
            if not self._current:
                t = self._trump
                assert t is not None
                ids = self._lead_play(seat, ids, shape_of(ids, t))
            self._put(seat, ids)
        finally:
            self._want_events = True
        self._actions.append(action)

    def _lead_play(self, seat: int, ids: tuple[int, ...], shape: Shape) -> tuple[int, ...]:
        """Lead `ids` (of shape `shape`): a throw that fails puts down only the cards it
        forces, with the penalty (§6.4). Returns the ids that are led."""
        t = self._trump
        assert t is not None
        outcome = check_throw(shape, seat, self._hands, t)
        if outcome is not None:
            penalty = throw_penalty(len(ids), len(outcome.forced), self._options)
            assert self._declaring_team is not None
            sign = 1 if seat % 2 == self._declaring_team else -1
            self._opponents_points += sign * penalty
            self._penalties += sign * penalty
            failed = FailedThrow(
                seat,
                cards_from_ids(sorted(ids)),
                cards_from_ids(outcome.forced),
                outcome.blocker,
                cards_from_ids(outcome.shown),
                sign * penalty,
                len(self._tricks),
            )
            self._failed_throws.append(failed)
            if self._want_events:
                self._events.append(
                    ThrowFailed(
                        seat, failed.attempted, failed.forced, failed.blocker,
                        failed.shown, failed.penalty,
                    )
                )
            ids = outcome.forced
            shape = shape_of(ids, t)
        self._lead_shape = shape
        return ids

    def _put(self, seat: int, ids: tuple[int, ...]) -> None:
        """Move the cards `ids` from the seat's hand into the current trick."""
        hand = self._hands[seat]
        cached = self._sorted_hands[seat]
        if cached is not None and cached[0] == tuple(hand):
            # the seat's sorted hand was shown: drop the played cards from it in order
            # instead of sorting the hand again at its next view (kept in sync below)
            self._sorted_hands[seat] = _without(cached, ids, hand)
        for i in ids:
            hand[i] -= 1
        self._sizes[seat] -= len(ids)
        if self._want_events:
            self._events.append(
                Played(seat, cards_from_ids(ids), len(self._tricks), not self._current)
            )
        # untyped on its way into the list, so that compiled code stores the shared pair
        # itself instead of a copy (see `cards.SEAT_ONE_ID`)
        cur: Any = self._current
        cur.append(SEAT_ONE_ID[seat][ids[0]] if len(ids) == 1 else (seat, ids))
        if len(self._current) == 4:
            self._finish_trick()

    def _finish_trick(self) -> None:
        shape = self._lead_shape
        assert shape is not None and self._trump is not None
        assert self._leader is not None and self._declaring_team is not None
        plays = [ids for _, ids in self._current]
        w = self._current[winner_index(plays, shape, self._trump)][0]
        pts = 0
        for ids in plays:
            for i in ids:
                pts += POINTS[i]
        if w % 2 != self._declaring_team:
            self._opponents_points += pts
            self._point_cards += [i for ids in plays for i in ids if POINTS[i]]
        # tuple.__new__: a NamedTuple's own constructor is interpreted code
        self._tricks.append(tuple.__new__(Trick, (self._leader, tuple(self._current), w, pts)))
        if self._want_events:
            self._events.append(TrickWon(len(self._tricks) - 1, w, pts, self._opponents_points))
        self._current = []
        self._lead_shape = None
        self._leader = w
        if self._sizes[w] == 0:  # every hand is empty: the last trick is done (§8)
            self._finish_round(shape)

    def _finish_round(self, last_lead: Shape) -> None:
        assert self._declaring_team is not None and self._starter is not None
        leader, plays, last_winner, _ = self._tricks[-1]
        # §8.1: the winning play matches the lead unit by unit (§6.3), so its largest
        # unit is the lead's largest unit.
        largest_pairs = max(u.npairs for u in last_lead.units)
        multiplier = kitty_multiplier(
            self._options.kitty_multiplier, last_lead.n_cards, largest_pairs
        )
        kitty_pts = 0
        if last_winner % 2 != self._declaring_team:
            kitty_pts = sum(POINTS[i] for i in self._kitty) * multiplier
            self._opponents_points += kitty_pts
        gainer, n = level_change(self._opponents_points, self._options.band_80_115)
        before = [level_index(x) for x in self._levels]
        after = list(before)
        if gainer == "declarers":
            team = self._declaring_team
            next_starter = (self._starter + 2) % 4
        else:
            team = 1 - self._declaring_team
            next_starter = (self._starter + 1) % 4
        after[team] = new_level(before[team], n, gainer == "declarers", self._options)
        n = after[team] - before[team]
        self._result = RoundResult(
            opponents_points=self._opponents_points,
            kitty=cards_from_ids(self._kitty),
            kitty_points=kitty_pts,
            multiplier=multiplier,
            penalties=self._penalties,
            last_trick_winner=last_winner,
            declaring_team=self._declaring_team,
            starter=self._starter,
            gainer=gainer,
            levels_gained=n,
            next_starter=next_starter,
            next_declaring_team=team,
            levels_before=(level_name(before[0]), level_name(before[1])),
            levels_after=(level_name(after[0]), level_name(after[1])),
        )
        self._phase = _OVER
        self._leader = None
        self._events.append(RoundOver(self._result))

    # ------------------------------------------------------------ views

    def trick_views(self) -> tuple[tuple[TrickView, ...], TrickView | None]:
        """Completed tricks and the current one, as public `TrickView`s."""
        cache = self._trick_cache
        if len(cache) != len(self._tricks):  # completed tricks never change: convert new ones
            cache += [
                TrickView(leader, tuple([_seat_cards(s, ids) for s, ids in plays]), w, pts)
                for leader, plays, w, pts in self._tricks[len(cache) :]
            ]
        if len(self._done_tricks) != len(cache):
            self._done_tricks = tuple(cache)
        if self._phase is not _PLAY or self._leader is None:
            return self._done_tricks, None
        key = (len(self._tricks), len(self._current))
        if key != self._cur_key or self._cur_view is None:
            pts = 0
            for _, ids in self._current:
                for i in ids:
                    pts += POINTS[i]
            cur_plays = tuple([_seat_cards(s, ids) for s, ids in self._current])
            self._cur_view = TrickView(self._leader, cur_plays, None, pts)
            self._cur_key = key
        return self._done_tricks, self._cur_view

    def declaration_cards(self) -> tuple[tuple[int, tuple[Card, ...]], ...]:
        """Every declaration made so far as (seat, cards), in order (public, §3.3)."""
        if len(self._decl_cards) != len(self._declarations):
            self._decl_cards = tuple([(s, cards_from_ids(ids)) for s, ids in self._declarations])
        return self._decl_cards

    def point_cards_won(self) -> tuple[Card, ...]:
        """The point cards the opponents have won in tricks so far (public, §7)."""
        if len(self._point_view) != len(self._point_cards):
            self._point_view = cards_from_ids(tuple(self._point_cards))
        return self._point_view

    def view(self, seat: int | None) -> View:
        """What `seat` may see (RULES §11); `None` for a spectator."""
        return build_view(self, seat)

    def counts_check(self) -> None:
        """Assert the 108 cards are all accounted for (used by tests)."""
        total = [0] * N_IDS
        for h in self._hands:
            for i, n in enumerate(h):
                total[i] += n
        for _, plays, _, _ in self._tricks:
            for _, ids in plays:
                for i in ids:
                    total[i] += 1
        for _, ids in self._current:
            for i in ids:
                total[i] += 1
        if self._phase in (_DEAL, _DECLARE):
            for i in self._deck[self._drawn :]:
                total[i] += 1
        else:
            for i in self._kitty:
                total[i] += 1
        if total != [2] * N_IDS:
            raise AssertionError("cards not conserved")

    # ------------------------------------------------------------ search support (bots)

    def clone(self) -> Round:
        """A cheap independent copy (for search): later actions on either leave the other as is.

        The containers the engine changes in place are copied (the hands' count arrays
        too); immutable parts (options, trump tables, the deck, finished tricks, events
        and actions themselves) are shared.
        """
        return self._copy(None, self._deck, self._kitty_taken, self._kitty)

    def _copy(
        self,
        hands: list[list[int]] | None,
        deck: tuple[int, ...],
        kitty_taken: tuple[int, ...],
        kitty: tuple[int, ...],
    ) -> Round:
        """`clone`, or (`hands` given) a copy with the hidden cards placed otherwise
        (`with_hidden`): the given hands, deck and kitties, no sorted-hand or
        declaration caches (they were of the other hands)."""
        if hands is None:
            h = self._hands
            hands = [h[0][:], h[1][:], h[2][:], h[3][:]]
            sorted_hands = self._sorted_hands[:]
            decl_key = self._decl_key[:]
        else:
            sorted_hands = [None, None, None, None]
            decl_key = [None, None, None, None]
        new = _new_round()
        new._set_state(  # by position: see `_set_state`
            self._options,
            self._seed,
            self._trump_rank,
            self._first_round,
            self._starter,
            self._declaring_team,
            self._round_no,
            self._levels,
            self._first_drawer,
            self._attempt,
            deck,  # never changed in place: a redeal makes a new one
            self._actions[:],
            hands,
            self._sizes[:],
            sorted_hands,
            self._drawn,
            self._declarations[:],
            self._standing,
            decl_key,
            self._decl_ids[:],
            self._phase,
            self._ask,
            self._passes,
            self._trump,
            self._kitty_flip,
            kitty_taken,
            kitty,
            self._tricks[:],
            self._trick_cache[:],
            self._done_tricks,
            self._cur_view,
            self._cur_key,
            self._decl_cards,
            self._point_view,
            self._leader,
            self._current[:],
            self._lead_shape,
            self._failed_throws[:],
            self._opponents_points,
            self._point_cards[:],
            self._penalties,
            self._result,
        )
        return new

    @classmethod
    def from_view(
        cls, view: View, hands: list[list[int]], kitty: tuple[int, ...] | list[int]
    ) -> Round:
        """A round in the position `view` shows, with the hidden cards placed as given.

        `hands` are the four seats' count arrays (54 ids) and `kitty` the 8 buried ids
        (play phase) or the 8 the starter takes (kitty phase): one *determinized world*
        for a search bot. Only the kitty and play phases can be built (RULES §4, §6); the
        result has no action history (`actions` is empty) and is not a replayable record.
        Raises `IllegalAction` if the world contradicts the view (hand sizes, the seat's
        own hand, the 108 cards).
        """
        if view.phase not in ("kitty", "play") or view.trump is None:
            raise IllegalAction(
                f"RULES §4/§6: a world can only be built in the kitty or play phase "
                f"(now: {view.phase})"
            )
        if view.starter is None or view.declaring_team is None:
            raise IllegalAction("RULES §3.4: the starter is known once trump is fixed")
        if len(hands) != 4 or any(len(h) != N_IDS for h in hands):
            raise IllegalAction("hands: four count arrays of 54 card ids are required")
        sizes = [sum(h) for h in hands]
        if tuple(sizes) != tuple(view.hand_sizes):
            raise IllegalAction(f"hands: sizes {sizes} differ from the view's {view.hand_sizes}")
        if len(kitty) != KITTY_SIZE:
            raise IllegalAction("RULES §4: the kitty holds exactly 8 cards")
        trump_rank = view.trump_rank if view.trump_rank is not None else "2"
        declarations = [(s, tuple([c.id for c in cs])) for s, cs in view.declarations]
        standing: tuple[int, int, tuple[int, ...]] | None = None
        if declarations:
            s, ids = declarations[-1]
            standing = (s, declaration_strength(ids, trump_rank), ids)
        kitty_ids = tuple(kitty)
        cur = view.current_trick
        current = (
            [] if cur is None else [(s, tuple([c.id for c in cs])) for s, cs in cur.plays]
        )
        leader: int | None = None
        if view.phase is _PLAY:
            leader = cur.leader if cur is not None else view.starter
        rnd = _new_round()
        rnd._set_state(
            options=view.options,
            seed="world",
            trump_rank=trump_rank,
            first_round=False,
            starter=view.starter,
            declaring_team=view.declaring_team,
            round_no=view.round_no,
            levels=view.levels,
            first_drawer=view.starter,
            attempt=0,
            deck=(),
            hands=[list(h) for h in hands],
            sizes=sizes,
            drawn=4 * HAND_SIZE,
            declarations=declarations,
            standing=standing,
            phase=view.phase,
            trump=view.trump,
            kitty_flip=tuple([c.id for c in view.kitty_flip]),
            kitty_taken=(
                tuple([c.id for c in view.kitty_taken]) if view.kitty_taken is not None
                else kitty_ids
            ),
            kitty=() if view.phase is _KITTY else kitty_ids,
            tricks=[
                Trick(
                    t.leader,
                    tuple([(s, tuple([c.id for c in cs])) for s, cs in t.plays]),
                    t.winner or 0,
                    t.points,
                )
                for t in view.tricks
            ],
            trick_cache=list(view.tricks),
            done_tricks=view.tricks,
            leader=leader,
            current=current,
            lead_shape=shape_of(current[0][1], view.trump) if current else None,
            failed_throws=list(view.failed_throws),
            opponents_points=view.opponents_points,
            point_cards=[c.id for c in view.point_cards],
            penalties=sum(f.penalty for f in view.failed_throws),
        )
        if view.seat is not None:
            own = [0] * N_IDS
            for c in view.hand:
                own[c.id] += 1
            if own != rnd._hands[view.seat]:
                raise IllegalAction("hands: the viewing seat's hand differs from its view")
        try:
            rnd.counts_check()
        except AssertionError:
            raise IllegalAction(
                "RULES §1: the world does not hold each of the 108 cards once"
            ) from None
        return rnd


    @classmethod
    def from_position(
        cls,
        hands: Sequence[Sequence[Card]],
        *,
        kitty: Sequence[Card],
        trump_suit: str | None,
        leader: int,
        declaring_team: int,
        trump_rank: str = "2",
        starter: int | None = None,
        levels: tuple[str, str] = ("2", "2"),
        opponents_points: int = 0,
        round_no: int = 0,
        options: RuleOptions | None = None,
    ) -> Round:
        """A composed position: the play phase at the start of a trick led by `leader`,
        each seat holding `hands[seat]` and `kitty` buried (endgame studies, tests).

        The cards in no hand and not in the kitty count as played in earlier tricks,
        which the round does not list (so `counts_check` does not hold). `starter`
        defaults to `leader` if it is on the declaring team, else the seat after it.
        Raises `IllegalAction` if the position is impossible: unequal hands (every seat
        has played the same number of tricks, RULES §6), a kitty other than 8 cards
        (§4), a card more than twice (§1), or a starter outside the declaring team (§3.4).
        """
        _check_seat(leader)
        if declaring_team not in (0, 1):
            raise IllegalAction(f"RULES §3.4: the declaring team is 0 or 1, not {declaring_team!r}")
        if starter is None:
            starter = leader if leader % 2 == declaring_team else (leader + 1) % 4
        _check_seat(starter)
        _check_setup(trump_rank, starter, declaring_team)
        if len(hands) != 4 or len({len(h) for h in hands}) != 1 or not hands[0]:
            raise IllegalAction("RULES §6: four non-empty hands of the same size are needed")
        if len(kitty) != KITTY_SIZE:
            raise IllegalAction("RULES §4: the kitty holds exactly 8 cards")
        counts = [counts_of(h) for h in hands]
        total = counts_of(kitty)
        for h in counts:
            for i in range(N_IDS):
                total[i] += h[i]
        if max(total) > 2:
            raise IllegalAction("RULES §1: a position holds each card at most twice")
        opts = options if options is not None else SEED_RULES
        kitty_ids = tuple([c.id for c in kitty])
        rnd = _new_round()
        rnd._set_state(
            options=opts,
            seed="position",
            trump_rank=trump_rank,
            first_round=False,
            starter=starter,
            declaring_team=declaring_team,
            round_no=round_no,
            levels=levels,
            first_drawer=starter,
            attempt=0,
            deck=(),  # no deal led here: the position is all there is
            hands=counts,
            sizes=[len(h) for h in hands],
            drawn=4 * HAND_SIZE,
            phase=_PLAY,
            trump=trump_for(
                trump_rank, trump_suit, opts.gap_tractors == "on", opts.throw_tractors == "on"
            ),
            kitty_taken=kitty_ids,  # as far as the position knows, the starter took these
            kitty=kitty_ids,
            leader=leader,
            opponents_points=opponents_points,
        )
        return rnd

    def with_hidden(
        self,
        hands: Sequence[Sequence[int]],
        *,
        kitty: Sequence[int] | None = None,
        undealt: Sequence[int] | None = None,
    ) -> Round:
        """A copy of this round with the hidden cards placed otherwise.

        `hands` are the four hands as count arrays (54 ids); `kitty` the buried kitty
        (play and over phases) and `undealt` the cards still to be drawn, in drawing
        order (deal and declare phases; the last 8 are the kitty the starter will take).
        What is not given stays. Everything public (hand sizes, declarations, tricks,
        the cards in play) stays, and so must the multiset of hidden cards.

        For tests and search that ask "would it decide the same with other hidden cards"
        (RULES §11). Raises `IllegalAction` for a placement that changes a hand's size,
        the number of kitty or undealt cards, or the hidden cards themselves.
        """
        new_hands = [list(h) for h in hands]
        if len(new_hands) != 4 or any(len(h) != N_IDS for h in new_hands):
            raise IllegalAction("hands: four count arrays of 54 card ids are required")
        if [sum(h) for h in new_hands] != self._sizes:
            raise IllegalAction(f"hands: the sizes must stay {self._sizes}")
        dealing = self._phase is _DEAL or self._phase is _DECLARE
        old_rest = self._deck[self._drawn :] if dealing else self._kitty
        if kitty is not None and (dealing or len(kitty) != len(self._kitty)):
            raise IllegalAction("RULES §4: the kitty keeps its 8 cards, once buried")
        if undealt is not None and (not dealing or len(undealt) != len(old_rest)):
            raise IllegalAction(f"undealt: the {len(old_rest)} cards still to draw are needed")
        rest = tuple(undealt if dealing and undealt is not None else
                     kitty if kitty is not None else old_rest)
        before = counts_of(cards_from_ids(old_rest))
        after = counts_of(cards_from_ids(rest))
        for i in range(N_IDS):
            for s in range(4):
                before[i] += self._hands[s][i]
                after[i] += new_hands[s][i]
        if before != after:
            raise IllegalAction("hands: the hidden cards must be the same cards, placed otherwise")
        if dealing:
            deck = self._deck[: self._drawn] + rest
            return self._copy(new_hands, deck, deck[4 * HAND_SIZE :], self._kitty)
        return self._copy(new_hands, self._deck, self._kitty_taken, rest)


def build_view(
    rnd: Round,
    seat: int | None,
    *,
    last_result: RoundResult | None = None,
    game_over: bool = False,
    winner: int | None = None,
) -> View:
    """Copy what `seat` may see of `rnd` (RULES §11) into a new `View` (`Round.view`;
    `Game.view` adds the game's part: the last result, whether and who won)."""
    if seat is not None and (isinstance(seat, bool) or seat not in (0, 1, 2, 3)):
        raise ValueError(f"seat must be 0-3 or None, not {seat!r}")
    shown_trump = rnd.display_trump()
    hand = rnd.sorted_hand(seat) if seat is not None else ()
    over = rnd._phase is _OVER
    # §4, §11: the starter sees the 8 taken (and, once buried, the 8 put back);
    # everyone sees the buried kitty when the round ends.
    starter_sees = (
        seat is not None and seat == rnd._starter
        and rnd._phase in (_KITTY, _PLAY, _OVER)
    )
    kitty_taken = cards_from_ids(rnd._kitty_taken) if starter_sees else None
    kitty = cards_from_ids(rnd._kitty) if rnd._kitty and (over or starter_sees) else None
    tricks, current = rnd.trick_views()
    phase = rnd._phase
    if phase is _PLAY:
        to_act = rnd.to_act
    elif phase is _DECLARE:
        to_act = rnd._ask
    elif phase is _KITTY:
        to_act = rnd._starter
    else:
        to_act = None
    last_drawer = (
        (rnd._first_drawer + rnd._drawn - 1) % 4 if rnd._drawn and phase in (_DEAL, _DECLARE)
        else None
    )
    standing = rnd._standing
    trump = rnd._trump
    if trump is not None:
        trump_rank, trump_suit = trump.rank, trump.suit
    else:
        trump_rank = rnd._trump_rank
        trump_suit = CARDS[standing[2][0]].suit if standing else None
    return View(
        seat=seat,
        phase=rnd._phase,
        to_act=to_act,
        round_no=rnd._round_no,
        hand=hand,
        hand_sizes=(rnd._sizes[0], rnd._sizes[1], rnd._sizes[2], rnd._sizes[3]),
        trump_rank=trump_rank,
        trump_suit=trump_suit,
        trump=trump,
        declarations=rnd.declaration_cards(),
        declarer=standing[0] if standing else None,
        kitty_flip=cards_from_ids(rnd._kitty_flip) if rnd._kitty_flip else (),
        starter=rnd._starter,
        declaring_team=rnd._declaring_team,
        levels=rnd._levels,
        cards_left=100 - rnd._drawn if rnd._phase is _DEAL else 0,
        last_drawer=last_drawer,
        tricks=tricks,
        current_trick=current,
        failed_throws=tuple(rnd._failed_throws),
        opponents_points=rnd._opponents_points,
        point_cards=rnd.point_cards_won(),
        kitty=kitty,
        kitty_taken=kitty_taken,
        result=rnd._result,
        options=rnd._options,
        last_result=last_result,
        game_over=game_over,
        winner=winner,
        display_trump=shown_trump,
        # = Hand.trusted(...), without a call into interpreted code
        hand_counts=tuple.__new__(Hand, rnd._hands[seat]) if seat is not None else None,
        lead_shape=rnd._lead_shape if rnd._current else None,
    )


_DRAW = Draw()
_FULL_DECK: Final = sorted(list(range(N_IDS)) * 2)
# decisions are immutable: the four of the play phase are made once
_PLAY_DECISIONS = tuple(Decision(_PLAY, seat) for seat in range(4))


_new_object = object.__new__
_set_field = object.__setattr__


def _new_play(seat: int, cards: tuple[Card, ...]) -> Play:
    """`Play(seat, cards)` for a play the engine built itself (`random_action`): the same
    frozen object, filled in here instead of by the dataclass's interpreted `__init__`."""
    play: Play = _new_object(Play)
    _set_field(play, "seat", seat)
    _set_field(play, "cards", cards)
    return play


def _seat_and_cards(action: object) -> tuple[int, tuple[Card, ...]]:
    """The seat and cards of a `Play`/`Bury`/`Declare` if it is well formed (RULES §1);
    anything else goes to `check_well_formed`, which raises `MalformedAction` naming it."""
    seat = getattr(action, "seat")  # noqa: B009  (untyped on purpose: checked just below)
    cards = getattr(action, "cards")  # noqa: B009
    if type(seat) is int and 0 <= seat <= 3 and (type(cards) is tuple or type(cards) is list):
        for c in cards:
            if type(c) is not Card:
                break
        else:
            return seat, tuple(cards)
    check_well_formed(action)
    return int(seat), tuple(cards)



def _seat_cards(seat: int, ids: tuple[int, ...]) -> Any:
    """A play as its view shows it, `(seat, cards)`: shared for one card (`SEAT_ONE_CARD`;
    returned untyped so that compiled callers keep that very tuple)."""
    return SEAT_ONE_CARD[seat][ids[0]] if len(ids) == 1 else (seat, cards_from_ids(ids))


def _without(
    cached: tuple[tuple[int, ...], list[int], tuple[Card, ...]],
    ids: tuple[int, ...],
    hand: list[int],
) -> tuple[tuple[int, ...], list[int], tuple[Card, ...]]:
    """A sorted-hand cache entry after `ids` leave `hand` (still in sort order)."""
    left = list(ids)
    kept: list[Card] = []
    for c in cached[2]:
        if c.id in left:
            left.remove(c.id)
        else:
            kept.append(c)
    counts = list(hand)
    for i in ids:
        counts[i] -= 1
    return (tuple(counts), cached[1], tuple(kept))


def _new_round() -> Round:
    """A round with no fields set yet, for `Round._set_state` to fill (clone, worlds)."""
    return Round.__new__(Round)


def _check_setup(trump_rank: str, starter: int | None, declaring_team: int | None) -> None:
    """Refuse a round setting the rules do not allow (RULES §3.2, §3.4)."""
    if trump_rank not in RANKS:
        raise IllegalAction(f"RULES §3.2: {trump_rank!r} is not a trump rank")
    if (starter is None) != (declaring_team is None):
        raise IllegalAction("RULES §3.4: starter and declaring team are known together")
    if starter is not None and declaring_team is not None and starter % 2 != declaring_team:
        raise IllegalAction("RULES §3.4: the starter belongs to the declaring team")


def _check_seat(seat: object) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
        raise IllegalAction(f"RULES §1: seat must be 0-3, not {seat!r}")


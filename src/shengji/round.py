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
    FOUR,
    MAX_SEATS,
    Action,
    Bury,
    Call,
    CloseWindow,
    Declare,
    Draw,
    Pass,
    Play,
    Table,
    call_error,
    cards_of,
    check_well_formed,
    n_calls,
    random_calls,
    table_of,
)
from .cards import (
    BJ_ID,
    CARDS,
    N_IDS,
    ONE_CARD,
    ONE_ID,
    POINTS,
    RANKS,
    SEAT_ONE_CARD,
    SEAT_ONE_ID,
    Card,
    below,
    cards_from_ids,
    counts_of,
    deck_ids,
    seeded_shuffle,
    shuffled_ids,
)
from .declare import (
    candidate_declarations,
    declaration_strength,
    declaration_suit,
    overturn_error,
)
from .errors import IllegalAction, MalformedAction
from .events import (
    Called,
    CallSpent,
    Declared,
    Drew,
    Event,
    FriendJoined,
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
_CALL: Final = Phase.CALL

#: the four-player game's hand and kitty (RULES §3.1, §4); a round reads its own
#: (`Round.n_hand`, `Round.n_kitty`) from the options (§12.1)
HAND_SIZE = 25
KITTY_SIZE = 8
PHASES = tuple(Phase)

def shuffled_deck_ids(seed: int | str, decks: int) -> tuple[int, ...]:
    """The deal order of `decks` decks for `seed` (RULES §12.1): for two decks exactly
    `cards.shuffled_ids(seed)`, so every stored four-player record keeps its deal; for
    more, the same Fisher-Yates shuffle of `cards.deck_ids(decks)`."""
    if decks == 2:
        return shuffled_ids(seed)
    return seeded_shuffle(seed, list(deck_ids(decks)))


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
    """One round of Tractor (RULES §3-§8, §12), driven by actions.

    `starter`/`declaring_team` are None in the first round of a game (the
    declarer becomes starter, §3.4; nobody declaring means a redeal, §3.5).
    `seed` fixes the shuffle(s): deal attempt `a` uses the order of
    `shuffled_deck_ids(f"{seed}:{a}", decks)`.

    The table comes from the options (§12.1): `options.n_players` seats, `n_decks`
    decks, `n_kitty` and `n_hand` cards. In friends mode (§12.4) `starter` is the
    leader, `declaring_team` stays None (no fixed teams) and `levels` has one level
    per seat; in teams mode the teams are the seats of each parity (§12.2).
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
        levels: tuple[str, ...] = ("2", "2"),
        deck: tuple[int, ...] | list[int] | None = None,
    ) -> None:
        opts = options if options is not None else SEED_RULES
        table = table_of(opts)
        n, d = table[0], table[1]
        _check_setup(trump_rank, starter, declaring_team, table)
        if table[4]:
            if len(levels) != n:
                if set(levels) != {"2"}:
                    raise IllegalAction(
                        f"RULES §12.4: in friends mode every one of the {n} players has a level"
                    )
                levels = ("2",) * n
        elif len(levels) != 2:
            raise IllegalAction("RULES §2: in teams mode the two teams have a level each")
        if deck is not None:
            deck = tuple(deck)
            if sorted(deck) != list(deck_ids(d)):
                raise IllegalAction(
                    f"RULES §12.1: a deck is the {N_IDS * d} cards, each id 0-53 {d} times"
                )
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
            deck=deck if deck is not None else shuffled_deck_ids(f"{seed}:0", d),
            table=table,
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
        levels: tuple[str, ...],
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
        table: Table | None = None,
        calls: tuple[tuple[int, int], ...] = (),
        call_by: list[int] | None = None,
        call_spent: list[bool] | None = None,
        friends: list[int] | None = None,
        copies: list[int] | None = None,
        won: list[int] | None = None,
        paid: list[int] | None = None,
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
        # the table (RULES §12.1): seats, decks, kitty and hand sizes, friends mode (§12.4)
        tb = table if table is not None else table_of(options)
        self._table: Table = tb
        n = tb[0]
        self._n = n
        self._d = tb[1]
        self._n_kitty = tb[2]
        self._n_hand = tb[3]
        self._friends_mode = tb[4]
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
            hands if hands is not None else [[0] * N_IDS for _ in range(n)]
        )
        self._sizes: list[int] = sizes if sizes is not None else [0] * n
        # each seat's hand as sorted cards for views, with the counts and sort order it
        # was made from (any change to the hand or the trump shows as a mismatch)
        self._sorted_hands: list[tuple[tuple[int, ...], list[int], tuple[Card, ...]] | None] = (
            sorted_hands if sorted_hands is not None else [None] * n
        )
        self._drawn = drawn
        # the declarations (§3.3) and the standing one as (seat, strength, ids)
        self._declarations: list[tuple[int, tuple[int, ...]]] = (
            declarations if declarations is not None else []
        )
        self._standing: tuple[int, int, tuple[int, ...]] | None = standing
        # each seat's last `_declaration_ids` answer and what it depended on (per seat:
        # the seats draw in turn, so one shared entry would miss at every draw)
        self._decl_key: list[object] = decl_key if decl_key is not None else [None] * n
        self._decl_ids: list[list[tuple[int, ...]]] = (
            decl_ids if decl_ids is not None else [[] for _ in range(n)]
        )
        self._phase: Phase = phase
        self._ask: int | None = ask
        self._passes = passes
        # trump and the kitty (§3.5, §4): the cards turned up, the 8 taken, the 8 buried
        self._trump: Trump | None = trump
        self._kitty_flip: tuple[int, ...] = kitty_flip
        self._kitty_taken: tuple[int, ...] = (
            kitty_taken if kitty_taken is not None else deck[n * tb[3] :]
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
        # finding friends (§12.4): the calls as (card id, ordinal); per call the seat that
        # played the called copy (-1: not yet) and whether it is spent; the friends who
        # joined, in order; the copies of each card played so far; per seat the points of
        # the tricks it won and the failed-throw penalties it paid (§6.4), for the count
        # by side at the end
        self._calls: tuple[tuple[int, int], ...] = calls
        self._call_by: list[int] = call_by if call_by is not None else []
        self._call_spent: list[bool] = call_spent if call_spent is not None else []
        self._friends: list[int] = friends if friends is not None else []
        self._copies: list[int] = copies if copies is not None else []
        self._won: list[int] = won if won is not None else [0] * n
        self._paid: list[int] = paid if paid is not None else [0] * n

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
            deck=shuffled_deck_ids(f"{self._seed}:{attempt}", self._d),
            actions=self._actions,
            events=self._events,
            want_events=self._want_events,
            table=self._table,
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
        """The declaring team, 0 (the even seats) or 1; None until known (RULES §3.4),
        and always None in friends mode, which has no fixed teams (§12.4)."""
        return self._declaring_team

    @property
    def n_players(self) -> int:
        """How many seats the table has (RULES §12.1)."""
        return self._n

    @property
    def n_decks(self) -> int:
        """How many decks are dealt: each card exists this many times (RULES §12.1)."""
        return self._d

    @property
    def n_kitty(self) -> int:
        """The kitty's size (RULES §4, §12.1)."""
        return self._n_kitty

    @property
    def n_hand(self) -> int:
        """How many cards each seat draws (RULES §3.1, §12.1)."""
        return self._n_hand

    @property
    def friends_mode(self) -> bool:
        """True in friends mode (RULES §12.4): a leader and called friends, no fixed teams."""
        return self._friends_mode

    @property
    def calls(self) -> tuple[tuple[int, int], ...]:
        """The leader's calls as (card id, ordinal), once made (public, RULES §12.4)."""
        return self._calls

    @property
    def call_by(self) -> tuple[int | None, ...]:
        """Per call, the seat that played the called copy, once its trick ended (§12.4)."""
        return tuple([None if s < 0 else s for s in self._call_by])

    @property
    def friends(self) -> tuple[int, ...]:
        """The seats that joined the leader's side, in the order they joined (§12.4)."""
        return tuple(self._friends)

    def sides(self) -> tuple[str | None, ...]:
        """Each seat's side as far as everyone knows now (RULES §11, §12.4): "leader",
        "friend" (joined), "opponent" (only once the round is over, or in teams mode),
        or None (not known yet). In teams mode "leader" is the starter, "friend" their
        team and "opponent" the other team, once the declaring team is known."""
        n = self._n
        if not self._friends_mode:
            dt = self._declaring_team
            if dt is None:
                return (None,) * n
            return tuple([
                "leader" if s == self._starter else "friend" if s % 2 == dt else "opponent"
                for s in range(n)
            ])
        if self._starter is None:
            return (None,) * n
        other = "opponent" if self._phase is _OVER else None
        return tuple([
            "leader" if s == self._starter else "friend" if s in self._friends else other
            for s in range(n)
        ])

    def on_declaring_side(self, seat: int) -> bool:
        """Whether `seat` is on the declaring side as far as the round knows now: its team
        (§12.2), or in friends mode the leader and the friends who joined (§12.4). Before
        the declaring side is known (the deal of a first round): False."""
        if self._friends_mode:
            return seat == self._starter or seat in self._friends
        return self._declaring_team is not None and seat % 2 == self._declaring_team

    @property
    def round_no(self) -> int:
        """The round's number in its game (0-based)."""
        return self._round_no

    @property
    def levels(self) -> tuple[str, ...]:
        """Both teams' levels as the round began (RULES §2); in friends mode each
        player's (§12.4)."""
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
        """How many of the dealt cards (100 for four players) have been drawn (RULES §3.1)."""
        return self._drawn

    @property
    def deck(self) -> tuple[int, ...]:
        """The current deal's card order, 54 ids per deck (hidden information)."""
        return self._deck

    def hand_counts(self, seat: int) -> Hand:
        """A seat's hand as counts per card id (hidden information; players get views)."""
        return tuple.__new__(Hand, self._hands[seat])  # = Hand.trusted, without a Python call

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds (public), one entry per seat."""
        return tuple(self._sizes)

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
        """The undealt cards the starter takes (8 for four players; hidden, RULES §4)."""
        return self._kitty_taken

    @property
    def kitty(self) -> tuple[int, ...]:
        """The cards the starter buried, once buried (hidden until the end, RULES §4)."""
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
        """Points the opponents of the declaring team have won in tricks (RULES §7); in
        friends mode counted by the sides as known now (§12.4)."""
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
        last = (self._first_drawer + self._drawn - 1) % self._n if self._drawn else None
        if phase is _DEAL:
            return Decision(_DEAL, None, last)
        if phase is _DECLARE:
            return Decision(_DECLARE, self._ask, last)
        if phase is _KITTY:
            return Decision(_KITTY, self._starter)
        if phase is _CALL:
            return Decision(_CALL, self._starter)
        return Decision(_OVER, None)

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is in the play phase (None otherwise)."""
        if self._phase is not _PLAY or self._leader is None:
            return None
        return (self._leader + len(self._current)) % self._n

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
        return _trump(rank, suit, o.gap_tractors == "on", o.throw_tractors == "on", self._d)

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
            ids for ids in candidate_declarations(hand, self._trump_rank, self._d)
            if self._declare_error(seat, ids) is None
        ]
        self._decl_key[seat] = key
        self._decl_ids[seat] = out
        return out

    def legal_plays(self, seat: int) -> Iterator[tuple[Card, ...]]:
        """Every distinct legal play for `seat` now, lazily (§6.1, §6.2); kitties in §4."""
        if self._phase is _KITTY and seat == self._starter:
            items = hand_items(self._hands[seat], range(N_IDS))
            for combo in submultisets(items, self._n_kitty, 0):
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
            return random_bury(hand, rng, self._n_kitty)
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
            seat = (self._first_drawer + self._drawn - 1) % self._n
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
        if d.phase is _CALL:
            return Call(d.seat, self.random_calls(rng))
        ids = self._random_ids(d.seat, rng)
        cards = cards_from_ids(ids)
        return Bury(d.seat, cards) if d.phase is _KITTY else Play(d.seat, cards)

    def random_calls(self, rng: random.Random) -> tuple[tuple[Card, int], ...]:
        """A uniformly random legal set of calls (RULES §12.4): `N // 2 - 1` distinct
        (card, ordinal) pairs, no joker, no card of the trump rank, ordinals 1..d."""
        rank = self._trump.rank if self._trump is not None else self._trump_rank
        return random_calls(rank, self._n, self._d, rng)

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
            seat, cards = _seat_and_cards(action, self._n)
            self._play(seat, cards, commit)
            return
        check_well_formed(action)
        if not isinstance(action, Draw | CloseWindow) and action.seat >= self._n:
            self._check_seat(action.seat)  # raises: a seat this table lacks (§12.1)
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
        elif isinstance(action, Call):
            self._call(action.seat, tuple([(c, j) for c, j in action.calls]), commit)
        else:  # pragma: no cover - check_well_formed admits only the seven action types
            raise AssertionError(action)

    def _check_seat(self, seat: object) -> None:
        """Refuse a seat this table does not have (RULES §1, §12.1): a malformed action."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self._n:
            raise MalformedAction(f"RULES §1: seat must be 0-{self._n - 1}, not {seat!r}")

    def _phase_error(self, want: str, what: str) -> IllegalAction:
        rule = {
            "deal": "§3.1", "declare": "§3.3", "kitty": "§4", "play": "§6", "call": "§12.4"
        }[want]
        return IllegalAction(
            f"RULES {rule}: {what} is only possible in the {want} phase (now: {self._phase})"
        )

    def _draw(self, commit: bool) -> None:
        if self._phase is not _DEAL:
            raise self._phase_error("deal", "drawing a card")
        if not commit:
            return
        seat = (self._first_drawer + self._drawn) % self._n
        card = self._deck[self._drawn]
        self._hands[seat][card] += 1
        self._sizes[seat] += 1
        self._drawn += 1
        if self._want_events:
            self._events.append(Drew(seat, CARDS[card], self._sizes[seat]))
        if self._drawn == self._n * self._n_hand:
            self._phase = _DECLARE
            self._ask = self._first_drawer
            self._passes = 0

    def _declare_error(self, seat: int, ids: tuple[int, ...]) -> str | None:
        try:
            strength = declaration_strength(ids, self._trump_rank, self._d)
        except IllegalAction as e:
            return str(e)
        hand = self._hands[seat]
        for i, n in count_ids(ids).items():
            if hand[i] < n:
                return "RULES §3.3: you can only declare with cards in your hand at that moment"
        return overturn_error(seat, ids, strength, self._standing, self._options, self._d)

    def _declare(self, seat: int, cards: tuple[Card, ...], commit: bool) -> None:
        if self._phase not in (_DEAL, _DECLARE):
            raise IllegalAction(
                f"RULES §3.3: declarations are only possible during the deal and its final "
                f"window (now: {self._phase})"
            )
        self._check_seat(seat)
        ids = tuple([c.id for c in cards])
        err = self._declare_error(seat, ids)
        if err:
            raise IllegalAction(err)
        if not commit:
            return
        strength = declaration_strength(ids, self._trump_rank, self._d)
        overturned = self._standing[0] if self._standing else None
        self._events.append(Declared(seat, tuple(cards), strength, overturned))
        self._declarations.append((seat, ids))
        self._standing = (seat, strength, ids)
        if self._phase is _DECLARE:
            self._passes = 0
            self._ask = (seat + 1) % self._n

    def _pass(self, seat: int, commit: bool) -> None:
        if self._phase is not _DECLARE:
            raise self._phase_error("declare", "passing")
        self._check_seat(seat)
        if seat != self._ask:
            raise IllegalAction(f"RULES §3.3: seat {self._ask} is asked now, not seat {seat}")
        if not commit:
            return
        self._events.append(Passed(seat))
        self._passes += 1
        self._ask = (seat + 1) % self._n
        if self._passes >= self._n:  # every seat in a row has passed (§3.3)
            self._finish_declaring()

    def _close(self, commit: bool) -> None:
        if self._phase is not _DECLARE:
            raise self._phase_error("declare", "closing the declaration window")
        if commit:
            self._finish_declaring()

    def _finish_declaring(self) -> None:
        if self._standing is not None:
            seat, strength, ids = self._standing
            if ids[0] >= BJ_ID:  # jokers: no trump suit (§3.3, §12.1)
                rank = self._trump_rank if self._options.no_trump_keeps_rank else None
                self._trump = self._trump_for(rank, None)
            else:
                self._trump = self._trump_for(self._trump_rank, declaration_suit(ids))
            if self._first_round:
                self._starter = seat
                self._declaring_team = None if self._friends_mode else seat % 2
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
                self._declaring_team = None if self._friends_mode else self._first_drawer % 2
        assert self._starter is not None
        assert self._declaring_team is not None or self._friends_mode
        self._events.append(
            TrumpFixed(
                self._trump.rank, self._trump.suit,
                self._standing[0] if self._standing else None,
                self._starter,
                self._declaring_team if self._declaring_team is not None else -1,
            )
        )
        self._events.append(KittyTaken(self._starter, cards_from_ids(self._kitty_taken)))
        hand = self._hands[self._starter]
        for i in self._kitty_taken:
            hand[i] += 1
        self._sizes[self._starter] += self._n_kitty
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
        self._check_seat(seat)
        if seat != self._starter:
            raise IllegalAction(
                f"RULES §4: only the starter (seat {self._starter}) buries the kitty"
            )
        if len(cards) != self._n_kitty:
            raise IllegalAction(
                f"RULES §4: the starter puts back exactly {self._n_kitty} cards, "
                f"not {len(cards)}"
            )
        ids = tuple([c.id for c in cards])
        self._require_in_hand(seat, ids, "§4")
        if not commit:
            return
        hand = self._hands[seat]
        for i in ids:
            hand[i] -= 1
        self._sizes[seat] -= self._n_kitty
        self._kitty = ids
        self._events.append(KittyBuried(seat, tuple(cards)))
        if self._friends_mode and n_calls(self._n) > 0:
            self._phase = _CALL  # §12.4: the leader calls friends after the exchange
            return
        self._phase = _PLAY
        self._leader = self._starter

    def _call(self, seat: int, calls: tuple[tuple[Card, int], ...], commit: bool) -> None:
        if self._phase is not _CALL:
            raise self._phase_error("call", "calling friends")
        self._check_seat(seat)
        if seat != self._starter:
            raise IllegalAction(
                f"RULES §12.4: only the leader (seat {self._starter}) calls friends, "
                f"not seat {seat}"
            )
        assert self._trump is not None
        err = call_error(calls, self._trump.rank, self._n, self._d)
        if err:
            raise IllegalAction(err)
        if not commit:
            return
        self._calls = tuple([(c.id, j) for c, j in calls])
        self._call_by = [-1] * len(calls)
        self._call_spent = [False] * len(calls)
        self._copies = [0] * N_IDS
        self._events.append(Called(seat, calls))
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
        # the seat is one of this table's: `_handle` checked it on both its paths
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
        engine's enumeration of follows and replays masked rounds through `step`), and
        the search's rollouts (`bots.rollout.play_out`), whose policy checks its own
        follows (tests/test_search_same.py replays its rollouts through `step`);
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
            if self._friends_mode:
                sign = 1 if self.on_declaring_side(seat) else -1
            else:
                sign = 1 if seat % 2 == self._declaring_team else -1
            self._opponents_points += sign * penalty
            self._penalties += sign * penalty
            if self._friends_mode:
                self._paid[seat] += penalty  # signed by the sides at the end (§12.4)
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
        cur.append(_SEAT_ONE_ID[seat][ids[0]] if len(ids) == 1 else (seat, ids))
        if len(self._current) == self._n:
            self._finish_trick()

    def _finish_trick(self) -> None:
        shape = self._lead_shape
        assert shape is not None and self._trump is not None
        assert self._leader is not None
        plays = [ids for _, ids in self._current]
        w = self._current[winner_index(plays, shape, self._trump)][0]
        pts = 0
        for ids in plays:
            for i in ids:
                pts += POINTS[i]
        if self._friends_mode:
            self._won[w] += pts
            self._tricks.append(
                tuple.__new__(Trick, (self._leader, tuple(self._current), w, pts))
            )
            resolved = self._resolve_calls(self._current)
            self._recount()
            if self._want_events:
                self._events.append(
                    TrickWon(len(self._tricks) - 1, w, pts, self._opponents_points)
                )
                self._events += resolved
        else:
            assert self._declaring_team is not None
            if w % 2 != self._declaring_team:
                self._opponents_points += pts
                self._point_cards += [i for ids in plays for i in ids if POINTS[i]]
            # tuple.__new__: a NamedTuple's own constructor is interpreted code
            self._tricks.append(
                tuple.__new__(Trick, (self._leader, tuple(self._current), w, pts))
            )
            if self._want_events:
                self._events.append(
                    TrickWon(len(self._tricks) - 1, w, pts, self._opponents_points)
                )
        self._current = []
        self._lead_shape = None
        self._leader = w
        if self._sizes[w] == 0:  # every hand is empty: the last trick is done (§8)
            self._finish_round(shape)

    def _resolve_calls(self, plays: list[tuple[int, tuple[int, ...]]]) -> list[Event]:
        """§12.4 at the end of a trick: count the copies of every card in play order (in
        seat order from the trick's leader; a failed throw's cards taken back were not
        played). The seat that plays a called copy joins the leader's side now; the call
        is spent if that seat is the leader or already on the side. A call whose copy is
        never played (fewer copies than its ordinal outside the kitty) stays open and is
        shown spent when the round ends (`call_views`). Returns the events."""
        out: list[Event] = []
        calls = self._calls
        if not calls:
            return out
        copies = self._copies
        trick = len(self._tricks) - 1
        for seat, ids in plays:
            for i in ids:
                copies[i] += 1
                for c in range(len(calls)):
                    cid, j = calls[c]
                    if cid == i and copies[i] == j and self._call_by[c] < 0:
                        self._call_by[c] = seat
                        if seat == self._starter or seat in self._friends:
                            self._call_spent[c] = True
                            out.append(CallSpent(seat, c, CARDS[cid], j, trick))
                        else:
                            self._friends.append(seat)
                            out.append(FriendJoined(seat, c, CARDS[cid], j, trick))
        return out

    def _recount(self) -> None:
        """Friends mode (§12.4): the opponents' points by the sides as known now: the
        points of every trick won by a seat off the leader's side, and the failed-throw
        penalties (§6.4) signed by the thrower's side now."""
        side = [self.on_declaring_side(s) for s in range(self._n)]
        opp = 0
        pen = 0
        for s in range(self._n):
            if not side[s]:
                opp += self._won[s]
            pen += self._paid[s] if side[s] else -self._paid[s]
        self._penalties = pen
        self._opponents_points = opp + pen
        self._point_cards = [
            i for t in self._tricks if not side[t.winner] for _, ids in t.plays for i in ids
            if POINTS[i]
        ]
        self._point_view = cards_from_ids(tuple(self._point_cards))

    def _finish_round(self, last_lead: Shape) -> None:
        assert self._starter is not None
        leader, plays, last_winner, _ = self._tricks[-1]
        # §8.1: the winning play matches the lead unit by unit (§6.3), so its largest
        # unit is the lead's largest unit.
        largest_pairs = (
            max(u.npairs for u in last_lead.units) if self._d == 2
            else max(u.power for u in last_lead.units)  # §12.3: a triple doubles twice
        )
        multiplier = kitty_multiplier(
            self._options.kitty_multiplier, last_lead.n_cards, largest_pairs
        )
        if self._friends_mode:
            self._finish_friends(last_winner, multiplier)
            return
        assert self._declaring_team is not None
        kitty_pts = 0
        if last_winner % 2 != self._declaring_team:
            kitty_pts = sum(POINTS[i] for i in self._kitty) * multiplier
            self._opponents_points += kitty_pts
        gainer, n = level_change(self._opponents_points, self._options.band_80_115, self._d)
        before = [level_index(x) for x in self._levels]
        after = list(before)
        # §8.3, §12.2: the next member of the declaring team, or the seat to the right
        if gainer == "declarers":
            team = self._declaring_team
            next_starter = (self._starter + 2) % self._n
        else:
            team = 1 - self._declaring_team
            next_starter = (self._starter + 1) % self._n
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

    def _finish_friends(self, last_winner: int, multiplier: int) -> None:
        """The end of a friends-mode round (§12.4): points by the side each seat is on
        now, the kitty to the opponents if one of them won the last trick (§8.1), the
        scaled bands (§12.3) for the leader and friends or for each opponent, and the
        next leader."""
        leader = self._starter
        assert leader is not None
        n_seats = self._n
        side = [self.on_declaring_side(s) for s in range(n_seats)]
        self._recount()
        kitty_pts = 0
        if not side[last_winner]:
            kitty_pts = sum(POINTS[i] for i in self._kitty) * multiplier
            self._opponents_points += kitty_pts
        gainer, n = level_change(self._opponents_points, self._options.band_80_115, self._d)
        before = [level_index(x) for x in self._levels]
        after = list(before)
        declarers = gainer == "declarers"
        for s in range(n_seats):
            if side[s] == declarers:
                after[s] = new_level(before[s], n, declarers, self._options)
        # the next leader: the next seat after the leader on the side that gained (or,
        # after a swap without gain, the next opponent); the leader again if alone
        next_leader = leader
        for k in range(1, n_seats):
            s = (leader + k) % n_seats
            if side[s] == declarers:
                next_leader = s
                break
        self._result = RoundResult(
            opponents_points=self._opponents_points,
            kitty=cards_from_ids(self._kitty),
            kitty_points=kitty_pts,
            multiplier=multiplier,
            penalties=self._penalties,
            last_trick_winner=last_winner,
            declaring_team=-1,
            starter=leader,
            gainer=gainer,
            levels_gained=n,
            next_starter=next_leader,
            next_declaring_team=-1,
            levels_before=tuple([level_name(x) for x in before]),
            levels_after=tuple([level_name(x) for x in after]),
            leader=leader,
            friends=tuple(self._friends),
            sides=tuple(["leader" if s == leader else "friend" if side[s] else "opponent"
                         for s in range(n_seats)]),
            side_points=(sum(t[3] for t in self._tricks if side[t[2]]),
                         sum(t[3] for t in self._tricks if not side[t[2]])),
            level_gains=tuple([a - b for a, b in zip(after, before, strict=True)]),
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

    def call_views(self) -> tuple[tuple[Card, int, int | None, bool], ...]:
        """The calls as everyone sees them (RULES §11, §12.4): (card, ordinal, the seat
        that played the called copy or None, spent). A copy's player shows once its
        trick has ended. A call whose copy was never played is spent only when the
        round is over: until then nobody but the leader can know that the copy it needs
        lies in the kitty."""
        over = self._phase is _OVER
        return tuple([
            (CARDS[cid], j, by if by >= 0 else None, sp or (over and by < 0))
            for (cid, j), by, sp in zip(self._calls, self._call_by, self._call_spent,
                                        strict=True)
        ])

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
        """Assert every card of the d decks is accounted for, each id d times (tests)."""
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
        if total != [self._d] * N_IDS:
            raise AssertionError("cards not conserved")
        if len(self._sizes) != self._n or sum(self._sizes) != sum(map(sum, self._hands)):
            raise AssertionError("hand sizes do not match the hands")

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
            hands = (
                [h[0][:], h[1][:], h[2][:], h[3][:]] if self._n == 4 else [x[:] for x in h]
            )
            sorted_hands = self._sorted_hands[:]
            decl_key = self._decl_key[:]
        else:
            sorted_hands = [None] * self._n
            decl_key = [None] * self._n
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
            self._table,
            self._calls,
            self._call_by[:],
            self._call_spent[:],
            self._friends[:],
            self._copies[:],
            self._won[:],
            self._paid[:],
        )
        return new

    @classmethod
    def from_view(
        cls, view: View, hands: list[list[int]], kitty: tuple[int, ...] | list[int]
    ) -> Round:
        """A round in the position `view` shows, with the hidden cards placed as given.

        `hands` are the seats' count arrays (54 ids) and `kitty` the buried ids (play
        phase) or the ones the starter takes (kitty phase): one *determinized world* for
        a search bot. Only the kitty, call and play phases can be built (RULES §4, §6,
        §12.4); the result has no action history (`actions` is empty) and is not a
        replayable record. Raises `IllegalAction` if the world contradicts the view (hand
        sizes, the seat's own hand, the d copies of every card).
        """
        if view.phase not in ("kitty", "play", "call") or view.trump is None:
            raise IllegalAction(
                f"RULES §4/§6: a world can only be built in the kitty or play phase "
                f"(now: {view.phase})"
            )
        table = table_of(view.options)
        n, d, n_kitty, n_hand, friends_mode = table
        if view.starter is None or (view.declaring_team is None and not friends_mode):
            raise IllegalAction("RULES §3.4: the starter is known once trump is fixed")
        if len(hands) != n or any(len(h) != N_IDS for h in hands):
            raise IllegalAction(f"hands: {n} count arrays of 54 card ids are required")
        sizes = [sum(h) for h in hands]
        if tuple(sizes) != tuple(view.hand_sizes):
            raise IllegalAction(f"hands: sizes {sizes} differ from the view's {view.hand_sizes}")
        if len(kitty) != n_kitty:
            raise IllegalAction(f"RULES §4: the kitty holds exactly {n_kitty} cards")
        trump_rank = view.trump_rank if view.trump_rank is not None else "2"
        declarations = [(s, tuple([c.id for c in cs])) for s, cs in view.declarations]
        standing: tuple[int, int, tuple[int, ...]] | None = None
        if declarations:
            s, ids = declarations[-1]
            standing = (s, declaration_strength(ids, trump_rank, d), ids)
        kitty_ids = tuple(kitty)
        cur = view.current_trick
        current = (
            [] if cur is None else [(s, tuple([c.id for c in cs])) for s, cs in cur.plays]
        )
        leader: int | None = None
        if view.phase is _PLAY:
            leader = cur.leader if cur is not None else view.starter
        tricks = [
            Trick(
                t.leader,
                tuple([(s, tuple([c.id for c in cs])) for s, cs in t.plays]),
                t.winner or 0,
                t.points,
            )
            for t in view.tricks
        ]
        # friends mode (§12.4): the calls and joins are public; the copies played and the
        # points and penalties per seat follow from the tricks and failed throws
        copies = [0] * N_IDS
        won = [0] * n
        paid = [0] * n
        if friends_mode:
            for tr in tricks:
                won[tr.winner] += tr.points
                for _, ids in tr.plays:
                    for i in ids:
                        copies[i] += 1
            for f in view.failed_throws:
                paid[f.seat] += abs(f.penalty)
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
            drawn=n * n_hand,
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
            tricks=tricks,
            trick_cache=list(view.tricks),
            done_tricks=view.tricks,
            leader=leader,
            current=current,
            lead_shape=shape_of(current[0][1], view.trump) if current else None,
            failed_throws=list(view.failed_throws),
            opponents_points=view.opponents_points,
            point_cards=[c.id for c in view.point_cards],
            penalties=sum(f.penalty for f in view.failed_throws),
            table=table,
            calls=tuple([(c.id, j) for c, j, _, _ in view.calls]),
            call_by=[-1 if by is None else by for _, _, by, _ in view.calls],
            call_spent=[sp for _, _, _, sp in view.calls],
            friends=list(view.friends),
            copies=copies,
            won=won,
            paid=paid,
        )
        if friends_mode and view.phase is not _KITTY and view.phase is not _CALL:
            rnd._recount()
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
                f"RULES §12.1: the world does not hold each card {d} times"
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
        levels: tuple[str, ...] = ("2", "2"),
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
        has played the same number of tricks, RULES §6), a kitty of the wrong size
        (§4), a card more than d times (§1, §12.1), or a starter outside the declaring
        team (§3.4). The table (seats, decks, mode) comes from `options` (§12.1); in
        friends mode `declaring_team` is ignored, `starter` (default `leader`) is the
        leader and the round starts before the call (phase `call`, §12.4).
        """
        opts = options if options is not None else SEED_RULES
        table = table_of(opts)
        n, d, n_kitty, _, friends_mode = table
        _check_seat(leader, n)
        dt: int | None = declaring_team
        if friends_mode:
            dt = None
            if starter is None:
                starter = leader
        else:
            if declaring_team not in (0, 1):
                raise IllegalAction(
                    f"RULES §3.4: the declaring team is 0 or 1, not {declaring_team!r}"
                )
            if starter is None:
                starter = leader if leader % 2 == declaring_team else (leader + 1) % n
        _check_seat(starter, n)
        _check_setup(trump_rank, starter, dt, table)
        if len(hands) != n or len({len(h) for h in hands}) != 1 or not hands[0]:
            raise IllegalAction(f"RULES §6: {n} non-empty hands of the same size are needed")
        if len(kitty) != n_kitty:
            raise IllegalAction(f"RULES §4: the kitty holds exactly {n_kitty} cards")
        if friends_mode and len(levels) != n:
            levels = ("2",) * n
        counts = [counts_of(h) for h in hands]
        total = counts_of(kitty)
        for h in counts:
            for i in range(N_IDS):
                total[i] += h[i]
        if max(total) > d:
            raise IllegalAction(f"RULES §12.1: a position holds each card at most {d} times")
        kitty_ids = tuple([c.id for c in kitty])
        rnd = _new_round()
        rnd._set_state(
            options=opts,
            seed="position",
            trump_rank=trump_rank,
            first_round=False,
            starter=starter,
            declaring_team=dt,
            round_no=round_no,
            levels=levels,
            first_drawer=starter,
            attempt=0,
            deck=(),  # no deal led here: the position is all there is
            hands=counts,
            sizes=[len(h) for h in hands],
            drawn=n * table[3],
            phase=_CALL if friends_mode else _PLAY,
            trump=_trump(
                trump_rank, trump_suit, opts.gap_tractors == "on", opts.throw_tractors == "on",
                d,
            ),
            kitty_taken=kitty_ids,  # as far as the position knows, the starter took these
            kitty=kitty_ids,
            leader=None if friends_mode else leader,
            opponents_points=opponents_points,
            table=table,
        )
        if friends_mode:  # the calls come first; the leader leads the first trick (§12.4)
            rnd._leader = None
        return rnd

    def with_hidden(
        self,
        hands: Sequence[Sequence[int]],
        *,
        kitty: Sequence[int] | None = None,
        undealt: Sequence[int] | None = None,
    ) -> Round:
        """A copy of this round with the hidden cards placed otherwise.

        `hands` are every seat's hand as count arrays (54 ids); `kitty` the buried kitty
        (play and over phases) and `undealt` the cards still to be drawn, in drawing
        order (deal and declare phases; the last `n_kitty` are the kitty the starter
        will take).
        What is not given stays. Everything public (hand sizes, declarations, tricks,
        the cards in play) stays, and so must the multiset of hidden cards.

        For tests and search that ask "would it decide the same with other hidden cards"
        (RULES §11). Raises `IllegalAction` for a placement that changes a hand's size,
        the number of kitty or undealt cards, or the hidden cards themselves.
        """
        new_hands = [list(h) for h in hands]
        n = self._n
        if len(new_hands) != n or any(len(h) != N_IDS for h in new_hands):
            raise IllegalAction(f"hands: {n} count arrays of 54 card ids are required")
        if [sum(h) for h in new_hands] != self._sizes:
            raise IllegalAction(f"hands: the sizes must stay {self._sizes}")
        dealing = self._phase is _DEAL or self._phase is _DECLARE
        old_rest = self._deck[self._drawn :] if dealing else self._kitty
        if kitty is not None and (dealing or len(kitty) != len(self._kitty)):
            raise IllegalAction(
                f"RULES §4: the kitty keeps its {self._n_kitty} cards, once buried"
            )
        if undealt is not None and (not dealing or len(undealt) != len(old_rest)):
            raise IllegalAction(f"undealt: the {len(old_rest)} cards still to draw are needed")
        rest = tuple(undealt if dealing and undealt is not None else
                     kitty if kitty is not None else old_rest)
        before = counts_of(cards_from_ids(old_rest))
        after = counts_of(cards_from_ids(rest))
        for i in range(N_IDS):
            for s in range(n):
                before[i] += self._hands[s][i]
                after[i] += new_hands[s][i]
        if before != after:
            raise IllegalAction("hands: the hidden cards must be the same cards, placed otherwise")
        if dealing:
            deck = self._deck[: self._drawn] + rest
            return self._copy(new_hands, deck, deck[n * self._n_hand :], self._kitty)
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
    n = rnd._n
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                             or not 0 <= seat < n):
        raise ValueError(f"seat must be 0-{n - 1} or None, not {seat!r}")
    shown_trump = rnd.display_trump()
    hand = rnd.sorted_hand(seat) if seat is not None else ()
    over = rnd._phase is _OVER
    # §4, §11: the starter sees the kitty taken (and, once buried, the cards put
    # back); everyone sees the buried kitty when the round ends.
    starter_sees = (
        seat is not None and seat == rnd._starter
        and rnd._phase in (_KITTY, _PLAY, _OVER, _CALL)
    )
    kitty_taken = cards_from_ids(rnd._kitty_taken) if starter_sees else None
    kitty = cards_from_ids(rnd._kitty) if rnd._kitty and (over or starter_sees) else None
    tricks, current = rnd.trick_views()
    phase = rnd._phase
    if phase is _PLAY:
        to_act = rnd.to_act
    elif phase is _DECLARE:
        to_act = rnd._ask
    elif phase is _KITTY or phase is _CALL:
        to_act = rnd._starter
    else:
        to_act = None
    last_drawer = (
        (rnd._first_drawer + rnd._drawn - 1) % n if rnd._drawn and phase in (_DEAL, _DECLARE)
        else None
    )
    standing = rnd._standing
    trump = rnd._trump
    if trump is not None:
        trump_rank, trump_suit = trump.rank, trump.suit
    else:
        trump_rank = rnd._trump_rank
        trump_suit = CARDS[standing[2][0]].suit if standing else None
    if rnd._friends_mode:
        return _friends_view(rnd, seat, last_result, game_over, winner, shown_trump)
    return View(
        seat=seat,
        phase=rnd._phase,
        to_act=to_act,
        round_no=rnd._round_no,
        hand=hand,
        hand_sizes=tuple(rnd._sizes),
        trump_rank=trump_rank,
        trump_suit=trump_suit,
        trump=trump,
        declarations=rnd.declaration_cards(),
        declarer=standing[0] if standing else None,
        kitty_flip=cards_from_ids(rnd._kitty_flip) if rnd._kitty_flip else (),
        starter=rnd._starter,
        declaring_team=rnd._declaring_team,
        levels=rnd._levels,
        cards_left=n * rnd._n_hand - rnd._drawn if rnd._phase is _DEAL else 0,
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


def _friends_view(
    rnd: Round,
    seat: int | None,
    last_result: RoundResult | None,
    game_over: bool,
    winner: int | None,
    shown_trump: Trump,
) -> View:
    """`build_view` in friends mode (RULES §12.4): the same view, with the calls, the
    friends who joined and the sides as everyone knows them (§11)."""
    n = rnd._n
    over = rnd._phase is _OVER
    starter_sees = (
        seat is not None and seat == rnd._starter
        and rnd._phase in (_KITTY, _PLAY, _OVER, _CALL)
    )
    tricks, current = rnd.trick_views()
    phase = rnd._phase
    to_act: int | None = None
    if phase is _PLAY:
        to_act = rnd.to_act
    elif phase is _DECLARE:
        to_act = rnd._ask
    elif phase is _KITTY or phase is _CALL:
        to_act = rnd._starter
    standing = rnd._standing
    trump = rnd._trump
    if trump is not None:
        trump_rank, trump_suit = trump.rank, trump.suit
    else:
        trump_rank = rnd._trump_rank
        trump_suit = CARDS[standing[2][0]].suit if standing else None
    return View(
        seat=seat,
        phase=phase,
        to_act=to_act,
        round_no=rnd._round_no,
        hand=rnd.sorted_hand(seat) if seat is not None else (),
        hand_sizes=tuple(rnd._sizes),
        trump_rank=trump_rank,
        trump_suit=trump_suit,
        trump=trump,
        declarations=rnd.declaration_cards(),
        declarer=standing[0] if standing else None,
        kitty_flip=cards_from_ids(rnd._kitty_flip) if rnd._kitty_flip else (),
        starter=rnd._starter,
        declaring_team=None,
        levels=rnd._levels,
        cards_left=n * rnd._n_hand - rnd._drawn if phase is _DEAL else 0,
        last_drawer=(
            (rnd._first_drawer + rnd._drawn - 1) % n
            if rnd._drawn and phase in (_DEAL, _DECLARE) else None
        ),
        tricks=tricks,
        current_trick=current,
        failed_throws=tuple(rnd._failed_throws),
        opponents_points=rnd._opponents_points,
        point_cards=rnd.point_cards_won(),
        kitty=cards_from_ids(rnd._kitty) if rnd._kitty and (over or starter_sees) else None,
        kitty_taken=cards_from_ids(rnd._kitty_taken) if starter_sees else None,
        result=rnd._result,
        options=rnd._options,
        last_result=last_result,
        game_over=game_over,
        winner=winner,
        display_trump=shown_trump,
        hand_counts=tuple.__new__(Hand, rnd._hands[seat]) if seat is not None else None,
        lead_shape=rnd._lead_shape if rnd._current else None,
        calls=rnd.call_views(),
        friends=tuple(rnd._friends),
        sides=rnd.sides(),
    )


_DRAW = Draw()
# decisions are immutable: those of the play phase are made once
_PLAY_DECISIONS = tuple(Decision(_PLAY, seat) for seat in range(MAX_SEATS))
# `cards.SEAT_ONE_ID`/`SEAT_ONE_CARD` (the shared one-card plays of seats 0-3) with the
# same for seats 4-9 (RULES §12.1): the four-player tables keep their very tuples
_SEAT_ONE_ID: tuple[tuple[Any, ...], ...] = SEAT_ONE_ID[:4] + tuple(
    tuple((s, ONE_ID[i]) for i in range(N_IDS)) for s in range(4, MAX_SEATS)
)
_SEAT_ONE_CARD: tuple[tuple[Any, ...], ...] = SEAT_ONE_CARD[:4] + tuple(
    tuple((s, ONE_CARD[i]) for i in range(N_IDS)) for s in range(4, MAX_SEATS)
)


def _trump(rank: str | None, suit: str | None, gap: bool, throws: bool, decks: int) -> Trump:
    """The shared `Trump` of (rank, suit) for the unit options and the deck count (RULES
    §5, §12.3): the deck count travels with the trump context."""
    if decks == 2:
        return trump_for(rank, suit, gap, throws)
    return trump_for(rank, suit, gap, throws, decks)


_new_object = object.__new__
_set_field = object.__setattr__


def _new_play(seat: int, cards: tuple[Card, ...]) -> Play:
    """`Play(seat, cards)` for a play the engine built itself (`random_action`): the same
    frozen object, filled in here instead of by the dataclass's interpreted `__init__`."""
    play: Play = _new_object(Play)
    _set_field(play, "seat", seat)
    _set_field(play, "cards", cards)
    return play


def _seat_and_cards(action: object, n: int) -> tuple[int, tuple[Card, ...]]:
    """The seat and cards of a `Play`/`Bury`/`Declare` if it is well formed (RULES §1)
    at a table of `n` seats; anything else goes to `check_well_formed`, which raises
    `MalformedAction` naming it (a seat beyond the table: `_check_seat` refuses it)."""
    seat = getattr(action, "seat")  # noqa: B009  (untyped on purpose: checked just below)
    cards = getattr(action, "cards")  # noqa: B009
    if type(seat) is int and 0 <= seat < n and (type(cards) is tuple or type(cards) is list):
        for c in cards:
            if type(c) is not Card:
                break
        else:
            return seat, tuple(cards)
    check_well_formed(action)
    if not 0 <= seat < n:
        raise MalformedAction(f"RULES §1: seat must be 0-{n - 1}, not {seat!r}")
    return int(seat), tuple(cards)



def _seat_cards(seat: int, ids: tuple[int, ...]) -> Any:
    """A play as its view shows it, `(seat, cards)`: shared for one card (`SEAT_ONE_CARD`;
    returned untyped so that compiled callers keep that very tuple)."""
    return _SEAT_ONE_CARD[seat][ids[0]] if len(ids) == 1 else (seat, cards_from_ids(ids))


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


def _check_setup(
    trump_rank: str, starter: int | None, declaring_team: int | None, table: Table = FOUR
) -> None:
    """Refuse a round setting the rules do not allow (RULES §3.2, §3.4, §12.2, §12.4)."""
    if trump_rank not in RANKS:
        raise IllegalAction(f"RULES §3.2: {trump_rank!r} is not a trump rank")
    if starter is not None:
        _check_seat(starter, table[0])
    if table[4]:  # friends mode: a leader, no fixed teams (§12.4)
        if declaring_team is not None:
            raise IllegalAction(
                "RULES §12.4: friends mode has no fixed teams: give the leader as starter "
                "and no declaring team"
            )
        return
    if (starter is None) != (declaring_team is None):
        raise IllegalAction("RULES §3.4: starter and declaring team are known together")
    if starter is not None and declaring_team is not None and starter % 2 != declaring_team:
        raise IllegalAction("RULES §3.4: the starter belongs to the declaring team")


def _check_seat(seat: object, n: int = 4) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise IllegalAction(f"RULES §1: seat must be 0-{n - 1}, not {seat!r}")

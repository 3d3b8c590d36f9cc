"""The round's trump context: play suit and level of every card (RULES §5).

`Trump(rank, suit)` precomputes per-card tables once, so that play suit and
level lookups are plain list indexing in the engine's inner loops.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Final

from .cards import BJ_ID, CARDS, MAX_DECKS, N_IDS, RANKS, RJ_ID, SUITS, Card
from .errors import IllegalAction

TRUMP: Final = 4
"""Play-suit index of trumps; natural suits are 0-3 in the order S H D C."""
PLAY_SUIT_NAMES = ("S", "H", "D", "C", "T")


class Trump:
    """Trump rank and suit of a round (RULES §5.2-§5.4).

    `Trump("2", "H")`: rank 2, hearts trump. `Trump(None, None)`: two jokers
    declared, only the jokers are trumps (§5.3). `Trump("2", None)` is the
    `no_trump_keeps_rank` reading of §10: trump-rank cards stay trumps, all
    equal, between the suits and BJ.

    The round's reading of units travels with it (RULES §10): `gap_tractors`
    False is the option `gap_tractors=trumps_only` (§5.4: in a plain suit the
    cards either side of the missing trump rank are not consecutive);
    `throw_tractors` False is `throw_tractors=off` (§6.1: a throw is read as
    pairs and singles, see `shapes.shape_of`). `decks` is the number of decks (RULES
    §12): each card exists that many times, so units are k-tuples up to `decks` and
    their tractors (§12.3); 2 is the four-player game of §1-§11.

    Tables (indexed by card id): `play_suit[id]` (0-3 natural suit, 4 trump),
    `level[id]` (0 is the lowest of its play suit; equal cards share a level,
    adjacent levels are consecutive, §5.4; with `gap_tractors` False a plain
    suit keeps an empty level where the trump rank is missing),
    `ids_at_level[ps][lvl]`.
    """

    __slots__ = (
        "rank", "suit", "gap_tractors", "throw_tractors", "decks",
        "play_suit", "level", "ids_at_level", "suit_ids", "sort_key", "shapes", "units",
        "_hash",
    )

    def __init__(
        self,
        rank: str | None,
        suit: str | None,
        *,
        gap_tractors: bool = True,
        throw_tractors: bool = True,
        decks: int = 2,
    ) -> None:
        if isinstance(decks, bool) or not isinstance(decks, int) or not 2 <= decks <= MAX_DECKS:
            raise IllegalAction(f"RULES §12: {decks!r} is not a number of decks (2..{MAX_DECKS})")
        if rank is not None and rank not in RANKS:
            raise IllegalAction(f"RULES §3.2: {rank!r} is not a trump rank (2..A)")
        if suit is not None and suit not in SUITS:
            raise IllegalAction(f"RULES §3.2: {suit!r} is not a suit (S H D C)")
        self.rank = rank
        self.suit = suit
        self.gap_tractors = gap_tractors
        self.throw_tractors = throw_tractors
        self.decks: int = decks
        play_suit = [0] * N_IDS
        level = [0] * N_IDS
        # Order every play suit from low to high as a list of "levels", each a list of ids.
        orders: list[list[list[int]]] = [[] for _ in range(5)]
        r_idx = RANKS.index(rank) if rank is not None else -1
        s_idx = SUITS.index(suit) if suit is not None else -1
        for s in range(4):
            target = TRUMP if s == s_idx else s
            for ri in range(13):
                if ri == r_idx:
                    # §5.4 gap_tractors=trumps_only: the missing rank leaves a hole in a
                    # plain suit (not at its ends, where it separates nothing).
                    if not gap_tractors and target != TRUMP and 0 < ri < 12:
                        orders[target].append([])
                    continue
                orders[target].append([s * 13 + ri])
        if r_idx >= 0:
            off = [s * 13 + r_idx for s in range(4) if s != s_idx]
            orders[TRUMP].append(off)
            if s_idx >= 0:
                orders[TRUMP].append([s_idx * 13 + r_idx])
        orders[TRUMP].append([BJ_ID])
        orders[TRUMP].append([RJ_ID])
        for ps, levels in enumerate(orders):
            for lvl, ids in enumerate(levels):
                for i in ids:
                    play_suit[i] = ps
                    level[i] = lvl
        self.play_suit: list[int] = play_suit
        self.level: list[int] = level
        self.ids_at_level: list[list[list[int]]] = orders
        self.suit_ids: list[list[int]] = [[i for ids in lv for i in ids] for lv in orders]
        self.sort_key: list[int] = [play_suit[i] * 32 + level[i] for i in range(N_IDS)]
        # lead shapes already read in this trump context: `shapes.shape_of` owns this
        # cache (its values are `shapes.Shape`s; typed `object` here so that trump stays
        # below shapes in the package's layers, with no import of it)
        self.shapes: dict[tuple[int, ...], object] = {}
        # the same for a suit's cards split into units (`bots.heuristic_base.units_of`,
        # the heuristic's hot path: a hand's suit changes one play at a time)
        self.units: dict[tuple[int, ...], object] = {}
        # hashed by its key, which never changes: worked out once (dicts keyed by the
        # trump context are read on the search's hot path)
        self._hash = hash(self._key())

    @property
    def no_trump_suit(self) -> bool:
        """True for a round without a trump suit (§5.3)."""
        return self.suit is None

    def is_trump(self, card: Card) -> bool:
        """Whether the card is a trump in this round (§5.1)."""
        return self.play_suit[card.id] == TRUMP

    def play_suit_of(self, card: Card) -> str:
        """`"T"` for trumps, else the card's natural suit letter (§5.1)."""
        return PLAY_SUIT_NAMES[self.play_suit[card.id]]

    def level_of(self, card: Card) -> int:
        """Level of the card within its play suit (§5.4), 0 = lowest."""
        return self.level[card.id]

    def sort(self, cards: Iterable[Card]) -> list[Card]:
        """Cards sorted by play suit (S H D C, then trumps) and level, low to high."""
        key = self.sort_key
        return sorted(cards, key=lambda c: (key[c.id], c.id))

    def _key(self) -> tuple[str | None, str | None, bool, bool, int]:
        return (self.rank, self.suit, self.gap_tractors, self.throw_tractors, self.decks)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trump) and other._key() == self._key()

    def __reduce__(self) -> tuple[object, tuple[str | None, str | None, bool, bool, int]]:
        # rebuilt from its key (also what pickling needs once the class is compiled)
        return (trump_for, self._key())

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        flags = ("" if self.gap_tractors else ", gap_tractors=False") + (
            "" if self.throw_tractors else ", throw_tractors=False"
        ) + ("" if self.decks == 2 else f", decks={self.decks}")
        return f"Trump({self.rank!r}, {self.suit!r}{flags})"


@functools.cache
def trump_for(
    rank: str | None,
    suit: str | None,
    gap_tractors: bool = True,
    throw_tractors: bool = True,
    decks: int = 2,
) -> Trump:
    """A shared `Trump` for (rank, suit), the round's unit options (RULES §5.4, §6.1) and
    the number of decks (§12): its tables are built once per process."""
    return Trump(
        rank, suit, gap_tractors=gap_tractors, throw_tractors=throw_tractors, decks=decks
    )


def card_is_rank(card: Card, rank: str | None) -> bool:
    """Whether a card is of the given rank (never true for jokers)."""
    return rank is not None and card.rank == rank


__all__ = ["TRUMP", "Trump", "CARDS", "card_is_rank", "trump_for"]

"""`Hand`: one hand as counts per card id, the form the engine, views and bots share.

The engine keeps a hand as 54 counts (each card id 0-53 held 0, 1 or 2 times, RULES §1;
up to d times with d decks, §12):
membership, pairs and removal are O(1) there. `Hand` is that form as an immutable value
with the operations consumers need, so nobody rebuilds counts from card lists:
`Round.hand_counts(seat)` and `View.hand_counts` are `Hand`s. It is a tuple of 54 ints,
so `hand[card.id]` is the count of a card and any code that took the counts tuple works.
"""

from __future__ import annotations

from collections.abc import Iterable

from .cards import CARDS, MAX_DECKS, N_IDS, POINTS, SUITS, Card
from .errors import IllegalAction
from .trump import TRUMP, Trump


class Hand(tuple[int, ...]):
    """A hand as counts per card id: `hand[i]` is how many of card `i` it holds (0-2; 0-d
    with d decks, RULES §12)."""

    __slots__ = ()

    def __new__(cls, counts: Iterable[int] = (0,) * N_IDS, decks: int = 2) -> Hand:
        """From 54 counts (each 0-2, RULES §1; 0-`decks` with more decks, §12); raises
        `IllegalAction` otherwise."""
        t = tuple(counts)
        top = decks if 2 <= decks <= MAX_DECKS else 2
        if len(t) != N_IDS or any(type(n) is not int or not 0 <= n <= top for n in t):
            if top == 2:
                raise IllegalAction("RULES §1: a hand is 54 counts, each card held 0-2 times")
            raise IllegalAction(
                f"RULES §12: a hand is 54 counts, each card held 0-{top} times ({top} decks)"
            )
        return tuple.__new__(cls, t)

    @classmethod
    def trusted(cls, counts: Iterable[int]) -> Hand:
        """From counts the engine already keeps valid (no check: the engine's fast path)."""
        return tuple.__new__(cls, counts)

    @classmethod
    def of(cls, cards: Iterable[Card], decks: int = 2) -> Hand:
        """The hand holding these cards; raises `IllegalAction` for a card held more times
        than there are decks (3 times with two decks)."""
        counts = [0] * N_IDS
        for c in cards:
            counts[c.id] += 1
        return cls(counts, decks)

    @property
    def size(self) -> int:
        """How many cards the hand holds."""
        return sum(self)

    def ids(self) -> list[int]:
        """Every card id held, once per copy, in id order."""
        return [i for i in range(N_IDS) for _ in range(self[i])]

    def cards(self, trump: Trump | None = None) -> tuple[Card, ...]:
        """The cards held, sorted by play suit and level under `trump` (RULES §5), or in
        id order without one."""
        ids = self.ids()
        if trump is not None:
            key = trump.sort_key
            ids.sort(key=lambda i: key[i])
        return tuple(CARDS[i] for i in ids)

    def holds(self, cards: Iterable[Card]) -> bool:
        """Whether the hand holds all these cards (as many copies as listed)."""
        need = [0] * N_IDS
        for c in cards:
            need[c.id] += 1
            if need[c.id] > self[c.id]:
                return False
        return True

    def minus(self, cards: Iterable[Card]) -> Hand:
        """The hand without these cards; raises `IllegalAction` if it lacks one (RULES §6)."""
        counts = list(self)
        for c in cards:
            if counts[c.id] == 0:
                raise IllegalAction(f"RULES §6: the hand does not hold {c}")
            counts[c.id] -= 1
        return Hand.trusted(counts)

    def plus(self, cards: Iterable[Card], decks: int = 2) -> Hand:
        """The hand with these cards added; raises `IllegalAction` past 2 copies (RULES §1),
        past `decks` copies with more decks (§12)."""
        counts = list(self)
        for c in cards:
            counts[c.id] += 1
        return Hand(counts, decks)

    def pairs(self) -> list[Card]:
        """The cards held twice (each a pair, RULES §5.2), in id order; with more decks
        (§12) the cards held exactly twice (see `tuples` for "at least k times")."""
        return [CARDS[i] for i in range(N_IDS) if self[i] == 2]

    def tuples(self, k: int) -> list[Card]:
        """The cards held at least `k` times, each a k-tuple (RULES §12.3: k identical
        cards), in id order; `tuples(2)` with two decks is `pairs()`."""
        return [CARDS[i] for i in range(N_IDS) if self[i] >= k]

    def suit_count(self, trump: Trump, suit: str | None) -> int:
        """How many cards the hand holds of a play suit under `trump` (RULES §5): a
        suit letter for that plain suit (its trump-rank cards excluded), None for trumps."""
        want = TRUMP if suit is None else SUITS.index(suit)
        play_suit = trump.play_suit
        return sum(n for i, n in enumerate(self) if n and play_suit[i] == want)

    def points(self) -> int:
        """The points the hand holds: 5s, 10s and Ks (RULES §7)."""
        return sum(POINTS[i] * n for i, n in enumerate(self) if n)

    def __reduce__(self) -> tuple[object, tuple[tuple[int, ...]]]:
        # rebuilt without the 0-2 check, so a hand of more decks (§12) pickles too
        return (_trusted_hand, (tuple(self),))

    def __repr__(self) -> str:
        return f"Hand({' '.join(str(CARDS[i]) for i in self.ids())})"


def _trusted_hand(counts: tuple[int, ...]) -> Hand:
    """`Hand.trusted(counts)`, as unpickling calls it."""
    return Hand.trusted(counts)

"""Cards, the 108-card deck and the text notation (RULES §1).

A `Card` is one of 54 interned objects (every card exists twice in the deck and
the two copies are identical), each with a small integer `id` used by the
engine's count arrays: suits S, H, D, C take ids 0-51 (suit * 13 + rank index),
BJ is 52 and RJ is 53.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Sequence
from typing import Any, Final

from .errors import IllegalAction

SUITS: Final[tuple[str, ...]] = ("S", "H", "D", "C")
RANKS: Final[tuple[str, ...]] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SYMBOL_TO_SUIT = {v: k for k, v in SUIT_SYMBOLS.items()}
# Also accept the outline symbols some keyboards produce.
_SYMBOL_TO_SUIT.update({"♤": "S", "♡": "H", "♢": "D", "♧": "C"})
BJ_ID: Final = 52
RJ_ID: Final = 53
N_IDS: Final = 54
DECK_SIZE = 108
#: the most decks a table plays with (RULES §12: 2-5); each card exists once per deck
MAX_DECKS = 5


class Card:
    """One card (RULES §1): rank `2`..`A` and suit `S H D C`, or a joker `BJ`/`RJ`.

    Cards are interned: `Card` objects are compared by identity/id and there are
    exactly 54 of them; use `CARDS[id]` or `parse_cards` to obtain one.
    """

    __slots__ = ("id", "rank", "suit", "rank_index", "points", "is_joker", "text")

    id: int
    rank: str | None
    suit: str | None
    rank_index: int
    points: int
    is_joker: bool
    text: str

    def __init__(self, card_id: int) -> None:
        self.id = card_id
        if card_id >= BJ_ID:
            self.rank = None
            self.suit = None
            self.rank_index = 13 + (card_id - BJ_ID)
            self.is_joker = True
            self.text = "BJ" if card_id == BJ_ID else "RJ"
            self.points = 0
        else:
            self.suit = SUITS[card_id // 13]
            self.rank_index = card_id % 13
            self.rank = RANKS[self.rank_index]
            self.is_joker = False
            self.text = self.rank + self.suit
            self.points = 10 if self.rank in ("10", "K") else 5 if self.rank == "5" else 0

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __hash__(self) -> int:
        return self.id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.id == self.id

    def __lt__(self, other: Card) -> bool:
        return self.id < other.id

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (card_from_id, (self.id,))

    @property
    def pretty(self) -> str:
        """The card with a suit symbol, e.g. `10♥`."""
        if self.suit is None:
            return self.text
        return f"{self.rank}{SUIT_SYMBOLS[self.suit]}"


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(N_IDS))
POINTS: Final[tuple[int, ...]] = tuple(c.points for c in CARDS)
#: the one-card tuples, of ids and of cards, shared: most plays are one card, and a
#: server keeps every play of a round (its trick, its event, its view), so each play made
#: a new tuple that the garbage collector's young pass scanned (server/gcpolicy.py).
#: Typed as tuples of any length on purpose: mypyc keeps a fixed-length tuple type such
#: as `tuple[int]` unboxed and makes a new Python tuple each time one is used as an
#: object, so `tuple[tuple[int], ...]` would share nothing.
ONE_ID: Final[tuple[tuple[int, ...], ...]] = tuple((i,) for i in range(N_IDS))
ONE_CARD: tuple[tuple[Card, ...], ...] = tuple((c,) for c in CARDS)
#: a pair's tuple of ids (a pair unit's `ids`, shapes.py), shared the same way
PAIR_ID: tuple[tuple[int, ...], ...] = tuple((i, i) for i in range(N_IDS))
#: `SEAT_ONE_ID[seat][id]`: the shared `(seat, (id,))` of a one-card play, as a trick keeps
#: its plays; `SEAT_ONE_CARD[seat][id]`: the shared `(seat, (card,))`, as its view shows
#: them. Their items are typed `Any` for the reason above (a `(seat, ids)` pair is a
#: fixed-length tuple): code that stores one must keep it untyped until it is stored.
SEAT_ONE_ID: tuple[tuple[Any, ...], ...] = tuple(
    tuple((s, ONE_ID[i]) for i in range(N_IDS)) for s in range(4)
)
SEAT_ONE_CARD: tuple[tuple[Any, ...], ...] = tuple(
    tuple((s, ONE_CARD[i]) for i in range(N_IDS)) for s in range(4)
)


def cards_from_ids(ids: Iterable[int]) -> tuple[Card, ...]:
    """The interned cards of these ids, in order (the engine works on ids, views on cards);
    one card's tuple is shared (`ONE_CARD`)."""
    out = [CARDS[i] for i in ids]
    if len(out) == 1:
        return ONE_CARD[out[0].id]
    return tuple(out)


def card_from_id(card_id: int) -> Card:
    """The interned card with this id."""
    return CARDS[card_id]


def card_id(rank: str, suit: str) -> int:
    """Id of a non-joker card from rank and suit letters."""
    return SUITS.index(suit) * 13 + RANKS.index(rank)


_BY_TEXT: dict[str, Card] = {c.text: c for c in CARDS}


def parse_card(token: str) -> Card:
    """Parse one card in notation (RULES §1): `10H`, `th`, `A♠`, `bj`, `RJ`."""
    t = token.strip().upper()
    if not t:
        raise IllegalAction("RULES §1: empty card")
    if t in _BY_TEXT:
        return _BY_TEXT[t]
    last = token.strip()[-1]
    if last in _SYMBOL_TO_SUIT:
        t = t[:-1] + _SYMBOL_TO_SUIT[last]
    if t[:-1] == "T":
        t = "10" + t[-1]
    card = _BY_TEXT.get(t)
    if card is None:
        raise IllegalAction(
            f"RULES §1: {token.strip()!r} is not a card "
            "(rank 2-10/J/Q/K/A or T, then suit S/H/D/C or a symbol; or BJ/RJ)"
        )
    return card


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards in text notation (RULES §1), e.g. `"10H 10H BJ"`.

    Accepts spaces or commas between cards, any case, `T` for ten and the
    suit symbols ♠♥♦♣. Raises `IllegalAction` naming RULES §1 on a bad card.
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(tok) for tok in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """Format cards in text notation, space separated (RULES §1)."""
    return " ".join(c.text for c in cards)


def as_cards(cards: str | Iterable[Card | str]) -> list[Card]:
    """Accept notation text, a list of notation strings or of cards."""
    if isinstance(cards, str):
        return parse_cards(cards)
    out: list[Card] = []
    for c in cards:
        out.append(c if isinstance(c, Card) else parse_card(c))
    return out


def full_deck(decks: int = 2) -> list[Card]:
    """The deck in a fixed order: each of the 54 cards `decks` times (RULES §1, §12.1)."""
    return [c for c in CARDS for _ in range(decks)]


def deck_ids(decks: int = 2) -> tuple[int, ...]:
    """The 54·d card ids of `decks` decks in a fixed order, each id `decks` times in a row
    (RULES §12.1); for two decks exactly the 108-card order of `full_deck` (RULES §1)."""
    if decks == 2:
        return _DECK_IDS
    return tuple([i for i in range(N_IDS) for _ in range(decks)])


def shuffled_deck(seed: int | str) -> list[Card]:
    """The deck shuffled by a seeded RNG; the same seed gives the same order."""
    return [CARDS[i] for i in shuffled_ids(seed)]


_DECK_IDS: tuple[int, ...] = tuple(i for i in range(N_IDS) for _ in range(2))


@functools.lru_cache(maxsize=16)
def shuffled_ids(seed: int | str) -> tuple[int, ...]:
    """The ids of `shuffled_deck(seed)`: the same order as `random.Random(seed).shuffle`
    of the 108-card deck (Fisher-Yates from the end, each index drawn with the
    generator's `getrandbits` rejection sampling), so every stored record keeps its deal."""
    return seeded_shuffle(seed, list(_DECK_IDS))


def seeded_shuffle(seed: int | str, deck: list[int]) -> tuple[int, ...]:
    """`deck` shuffled in place by `random.Random(seed)`, as a tuple: Fisher-Yates from
    the end, each index drawn with the generator's `getrandbits` rejection sampling (the
    order `random.Random(seed).shuffle` gives, which every stored record's deal relies on)."""
    getrandbits = random.Random(seed).getrandbits
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def randbelow(rng: random.Random, n: int) -> int:
    """`rng.randrange(n)` (n > 0), drawn the way CPython draws it (`getrandbits` of
    n's bit length until the draw is below n), so the same generator gives the same
    numbers: compiled callers make one C call instead of `randrange`'s Python frames."""
    k = n.bit_length()
    r: int = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def below(rng: random.Random, n: int) -> int:
    """A uniform integer in [0, n) from one `rng.random()` call (n > 0): the engine's
    samplers use this instead of `randrange`, which costs several Python calls."""
    k = int(rng.random() * n)
    return k if k < n else n - 1


def as_list(xs: Sequence[int]) -> list[int]:
    """`xs` itself if it is a list, else a list copy. The kernels index hands through
    this: compiled code reads a `list[int]` directly, any other sequence generically."""
    return xs if isinstance(xs, list) else list(xs)


def counts_of(cards: Iterable[Card]) -> list[int]:
    """Per-id card counts (a list of 54 ints)."""
    counts = [0] * N_IDS
    for c in cards:
        counts[c.id] += 1
    return counts


def cards_from_counts(counts: Sequence[int]) -> list[Card]:
    """The cards of a count array, in id order."""
    out: list[Card] = []
    for i, n in enumerate(counts):
        if n:
            out.extend([CARDS[i]] * n)
    return out


def card_points(cards: Iterable[Card]) -> int:
    """Points in these cards: K and 10 are 10, 5 is 5 (RULES §1)."""
    return sum(c.points for c in cards)

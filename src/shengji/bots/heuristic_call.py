"""The heuristic's call of friends (RULES §12.4): aces of the plain suits, as players of
找朋友 call them.

The leader calls `N // 2 - 1` friends after the kitty exchange. Each call is the
highest card of a plain suit (the ace, or the king when aces are the trump rank) with
the ordinal one past the copies the leader holds or buried: "the 1st A♠" when it holds
no A♠, "the 2nd A♠" when it holds one (it plays its own first, and the next copy
played is a friend's). A card whose every copy the leader holds or buried is never
called (the call could only be spent). Suits where the leader holds cards but not the
called one come first: it can lead them for the friend to win. The trump suit's cards,
the trump rank and the jokers are never called (the last two are refused by §12.4).
"""

from __future__ import annotations

from ..actions import Call, n_calls
from ..botkit import CARDS, View

__all__ = ["choose_calls"]

#: the ranks from the highest down (RULES §2), the suits in the cards' order
_RANKS_DOWN = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
_SUITS = ("S", "H", "D", "C")
#: the card id of each (rank, suit) that can be called (no jokers, §12.4)
_ID = {(c.rank, c.suit): c.id for c in CARDS if not c.is_joker}


def choose_calls(view: View) -> Call:
    """The leader's call of friends for its view in phase `call` (RULES §12.4)."""
    seat = view.seat
    assert seat is not None and view.trump is not None
    d = view.trump.decks
    f = n_calls(len(view.hand_sizes))
    rank = view.trump_rank
    mine = view.counts()
    for c in view.kitty or ():  # the leader's own kitty: those copies are never played
        mine[c.id] += 1
    suit_len = {s: sum(1 for c in view.hand if not c.is_joker and c.suit == s
                       and c.rank != rank) for s in _SUITS}
    ranked: list[tuple[tuple[int, ...], tuple[int, int]]] = []
    for r_ix, r in enumerate(_RANKS_DOWN):
        if r == rank:
            continue
        for s_ix, s in enumerate(_SUITS):
            i = _ID[(r, s)]
            plain = s != view.trump_suit
            held = mine[i]
            for j in range(held + 1, d + 1):
                # plain suits first, higher ranks, the first free copy, then suits the
                # leader can lead (it holds some of them), longer first
                key = (0 if plain else 1, r_ix, j - held - 1, 0 if suit_len[s] else 1,
                       -suit_len[s], s_ix)
                ranked.append((key, (i, j)))
    ranked.sort()
    calls = tuple((CARDS[i], j) for _, (i, j) in ranked[:f])
    return Call(seat, calls)

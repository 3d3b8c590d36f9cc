"""The card counter (记牌器, issue 32): what is still out, from one seat's view.

`card_counter(view)` is a pure function of a `View` and reads only what RULES §11 lets
that seat see, and of that only the public part plus the viewer's own hand: the cards
played in tricks (done and current), the cards shown in declarations (§3.3) and in failed
throws (§6.4). The kitty is never used, not even the starter's own (§11 lets the starter
see it, but the counter is the same public tally for everyone, so a declarer's counter
counts the cards they buried as still out).

A card is "out" when it has not been played and is not in the viewer's hand. Of the top
trumps (jokers, trump-rank cards, the trump suit's highest plain card: RULES §5.2-§5.3) the
counter also says which seats are known to hold copies: a seat that showed a card in a
declaration or a failed throw and has not played that many copies since.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .cards import CARDS, DECK_SIZE, N_IDS
from .trump import PLAY_SUIT_NAMES, TRUMP
from .views import View

#: copies of each card in the deck (RULES §1: two decks, 108 cards)
COPIES = DECK_SIZE // N_IDS


def _top_trump_ids(view: View) -> list[int]:
    """Top trumps, highest first: RJ, BJ, the trump-rank cards (trump suit's first),
    then the trump suit's highest plain card (RULES §5.2; §5.3 with no trump suit)."""
    assert view.trump is not None
    rank = view.trump.rank
    out: list[int] = []
    for ids in reversed(view.trump.ids_at_level[TRUMP]):
        out.extend(sorted(ids))
        c = CARDS[ids[0]]
        if not c.is_joker and c.rank != rank:
            break  # the trump suit's highest plain card ends the list
    return out


def card_counter(view: View) -> dict[str, Any] | None:
    """The counter for `view`'s seat as JSON (a spectator has no hand: all is counted
    from play alone); None before the trump is final (RULES §3: nothing is played yet).

    `suits`: for each play suit (`S H D C` for the plain suits, `T` for trumps, RULES §5.1)
    `{"total", "played", "mine", "out"}`; `top_trumps`: `[{"card", "out", "held"}]` highest
    first, `held` mapping a seat (as text) to the copies it is known to hold; `points_out`:
    the points (RULES §1) not yet played nor in the viewer's hand."""
    trump = view.trump
    if trump is None:
        return None
    copies = view.options.n_decks  # COPIES at two decks; d at a larger table (RULES §12)
    played: Counter[int] = Counter()
    by_seat: dict[int, Counter[int]] = {}
    for seat, cards in view.plays_so_far():
        for c in cards:
            played[c.id] += 1
            by_seat.setdefault(seat, Counter())[c.id] += 1
    mine = Counter(c.id for c in view.hand)
    shown: dict[int, Counter[int]] = {}

    def note(seat: int, cards: tuple[Any, ...]) -> None:
        held = Counter(c.id for c in cards)
        known = shown.setdefault(seat, Counter())
        for i, n in held.items():
            known[i] = max(known[i], n)  # one declaration overturning another shows again

    for seat, cards in view.declarations:
        note(seat, cards)
    for f in view.failed_throws:
        note(f.seat, f.attempted)
        note(f.blocker, f.shown)
    suits: dict[str, dict[str, int]] = {}
    for ps, name in enumerate(PLAY_SUIT_NAMES):
        ids = trump.suit_ids[ps]
        total = copies * len(ids)
        p = sum(played[i] for i in ids)
        m = sum(mine[i] for i in ids)
        suits[name] = {"total": total, "played": p, "mine": m, "out": total - p - m}
    top = []
    for i in _top_trump_ids(view):
        out = copies - played[i] - mine[i]
        held = {}
        for seat, known in sorted(shown.items()):
            if seat == view.seat:
                continue  # the viewer's own copies are counted in its hand
            n = known[i] - by_seat.get(seat, Counter())[i]
            if n > 0:
                held[str(seat)] = n
        top.append({"card": CARDS[i].text, "out": out, "held": held})
    points_out = sum(
        CARDS[i].points * (copies - played[i] - mine[i]) for i in range(N_IDS)
    )
    return {"suits": suits, "top_trumps": top, "points_out": points_out}

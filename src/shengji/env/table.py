"""One round driven through the fixed action space: who acts, the mask, building a play.

A `Table` owns a `Round` and advances its system steps (drawing cards, passes of
seats that hold no declaration). Decisions reach a seat as: declare/pass (§3.3),
the bury as 8 single picks (§4), a lead built card by card and closed by DONE
(§6.1), or a follow built card by card and committed when it has as many cards
as the lead (§6.2). A seat's mask and observation use only its own cards and
public facts (RULES §11); observations are kept up to date from the round's events
(`observer.Observer`), so none is re-encoded from a view.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ..actions import Action, Bury, Declare, Draw, Pass, Play
from ..cards import CARDS, N_IDS
from ..events import Drew
from ..follow import iter_follows
from ..options import RuleOptions
from ..round import Round
from ..shapes import Shape
from ..trump import Trump, trump_for
from ..views import View
from .encoding import (
    DONE,
    F32,
    I8,
    N_ACTIONS,
    PASS,
    declaration_action,
    declaration_ids,
)
from .observer import Observer

KINDS = ("declare", "bury", "lead", "follow", "over")


def follow_offers(
    hand: Sequence[int], selected: Sequence[int], shape: Shape, t: Trump, strict: bool
) -> list[int]:
    """Card ids that keep a follow-in-progress completable to a legal follow (§6.2).

    `hand`: per-id counts of the whole hand (selected cards included); `selected`: per-id
    counts already chosen. Without `strict` the test is exact and needs no enumeration:
    a selection can be completed iff it has at most `need` cards of the led suit and
    at most `n - need` others, and the led-suit cards still to add can bring the pairs
    up to `min(lead pairs, pairs held)`.
    """
    sel = {i: c for i, c in enumerate(selected) if c}
    if strict and shape.tractor_lengths:
        return _strict_offers(hand, sel, shape, t)
    suit_ok, other_ok = _follow_rule(hand, sel, shape, t)
    ps = t.play_suit
    lead_suit = shape.play_suit
    out = []
    for i in range(N_IDS):
        if hand[i] - sel.get(i, 0) <= 0:
            continue
        if ps[i] == lead_suit:
            if suit_ok[min(hand[i], 2) * 3 + min(sel.get(i, 0), 2)]:
                out.append(i)
        elif other_ok:
            out.append(i)
    return out


def _strict_offers(
    hand: Sequence[int], sel: dict[int, int], shape: Shape, t: Trump
) -> list[int]:
    """`strict_tractor_follow` (§10): offers from the engine's enumeration of follows."""
    out = []
    legal = [_counts(p) for p in iter_follows(hand, shape, t, True)]
    for i in range(N_IDS):
        if hand[i] - sel.get(i, 0) <= 0:
            continue
        want = [0] * N_IDS
        for j, c in sel.items():
            want[j] = c
        want[i] += 1
        if any(all(c[j] >= want[j] for j in range(N_IDS)) for c in legal):
            out.append(i)
    return out


def _follow_rule(
    hand: Sequence[int], sel: dict[int, int], shape: Shape, t: Trump
) -> tuple[list[bool], bool]:
    """Which one more card keeps a follow completable (§6.2, not strict), by category.

    Returns (`suit_ok`, `other_ok`): `suit_ok[held * 3 + chosen]` (each capped at 2)
    says whether one more led-suit card held `held` times and already chosen `chosen`
    times may be added; `other_ok` the same for any card of another play suit.
    """
    lead_suit = shape.play_suit
    ps = t.play_suit
    n = shape.n_cards
    h = 0
    held2 = 0  # led-suit ids held twice (a pair)
    for i in t.suit_ids[lead_suit]:
        c = hand[i]
        if c:
            h += c
            if c >= 2:
                held2 += 1
    need = min(n, h)
    need_pairs = min(shape.n_pairs, held2)
    s_suit = 0
    s_other = 0
    pairs = 0
    n1 = 0  # led-suit ids chosen once that the hand holds twice
    touched2 = 0  # led-suit ids held twice and chosen at least once
    for i, c in sel.items():
        if ps[i] == lead_suit:
            s_suit += c
            pairs += c >> 1
            if hand[i] >= 2:
                touched2 += 1
                if c == 1:
                    n1 += 1
        else:
            s_other += c
    n2 = held2 - touched2  # led-suit ids held twice, not chosen yet

    def feasible(ds: int, do: int, dp: int, d1: int, d2: int) -> bool:
        a_suit = s_suit + ds
        if a_suit > need or s_other + do > n - need:
            return False
        add = need - a_suit
        m1 = n1 + d1
        m2 = n2 + d2
        extra = min(add, m1)
        extra += min((add - extra) // 2, m2)
        return pairs + dp + extra >= need_pairs

    plain = feasible(1, 0, 0, 0, 0)
    suit_ok = [
        False, False, False,  # held 0 (never offered)
        plain, False, False,  # held once: not chosen yet
        feasible(1, 0, 0, 1, -1), feasible(1, 0, 1, -1, 0), False,  # held twice
    ]
    return suit_ok, feasible(0, 1, 0, 0, 0)


def _counts(ids: Sequence[int]) -> list[int]:
    out = [0] * N_IDS
    for i in ids:
        out[i] += 1
    return out


# Masks are built as Python ints with one byte per action (byte k = action k, 0 or 1):
# bytewise AND/OR of 0/1 bytes is the integer's AND/OR, and the bytes become the int8
# mask array in one call.
_BYTE_ONES = int.from_bytes(b"\x01" * N_IDS, "little")
_DONE_BIT = 1 << (8 * DONE)
_PASS_BIT = 1 << (8 * PASS)


def _avail(hand: Sequence[int], sel: dict[int, int]) -> int:
    """Card ids held and not all selected, as a byte mask (counts are at most 2)."""
    x = int.from_bytes(bytes(hand), "little")
    for i, c in sel.items():
        x -= c << (i << 3)
    return (x | (x >> 1)) & _BYTE_ONES


@functools.cache
def _suit_bytes(rank: str | None, suit: str | None) -> tuple[int, ...]:
    """Per play suit 0-4 (4 trumps): the byte mask of the card ids of that play suit."""
    ps = trump_for(rank, suit).play_suit
    return tuple(
        int.from_bytes(bytes([ps[i] == s for i in range(N_IDS)]), "little") for s in range(5)
    )


_INT8 = np.dtype(np.int8)


def _mask_array(bits: int) -> I8:
    return np.frombuffer(bytearray(bits.to_bytes(N_ACTIONS, "little")), _INT8)


_DRAW = Draw()
_PASSES = tuple(Pass(s) for s in range(4))


class Table:
    """A round of Tractor played through the fixed action space (docs/ENV.md).

    `starter` is the seat that starts (its team declares, RULES §3.4); `levels` the
    two teams' levels; the trump rank is the declaring team's level. Declarations
    still choose the trump suit (§3.3), and the kitty is turned up if nobody declares
    (§3.5).

    Observations are kept incrementally by an `Observer` fed the events of every
    action the table applies; masks are built once per decision step from the acting
    seat's own cards and the public lead. Apply actions through the table only (not
    to `table.round` directly), or the observations fall behind.
    """

    def __init__(
        self,
        seed: int | str,
        options: RuleOptions | None = None,
        *,
        starter: int = 0,
        levels: tuple[str, str] = ("2", "2"),
        reward_points: float = 0.0,
    ) -> None:
        self.round = Round(
            seed, options, trump_rank=levels[starter % 2], starter=starter,
            declaring_team=starter % 2, levels=levels,
        )
        self.options = self.round.options
        self.reward_points = reward_points
        self.selected: list[int] = []
        self._sel: dict[int, int] = {}  # the selection as per-id counts
        self.seat: int | None = None
        self.kind = "declare"
        self._offer = False  # a deal-phase declaration offer is waiting for an answer
        self._views: dict[int, tuple[int, View]] = {}
        self._mask: I8 | None = None  # the acting seat's mask for the current selection
        self._bits = 0  # the same mask as an int, one byte per action
        self._lead: Shape | None = None  # the lead being followed
        self.observer = Observer(self.round)
        self._advance()

    # ------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        """Whether the round has ended (RULES §8)."""
        return self.kind == "over"

    def view(self, seat: int) -> View:
        """This seat's `View` now (cached until the next engine action)."""
        key = len(self.round.actions)
        hit = self._views.get(seat)
        if hit is not None and hit[0] == key:
            return hit[1]
        v = self.round.view(seat)
        self._views[seat] = (key, v)
        return v

    def observation(self, seat: int) -> F32:
        """The observation vector of `seat` (docs/ENV.md): a new array.

        It equals `encode(view, selected, ...)` of the seat's view (the tests check
        this), but is gathered from state kept up to date by the round's events.
        """
        obs = self.observer
        return obs.state.take(obs.index[seat])

    def action_mask(self, seat: int) -> I8:
        """The legal actions of `seat` now (all zero when it is not this seat's turn).

        The acting seat's mask is built once per step and shared: do not modify it.
        """
        if seat != self.seat:
            return np.zeros(N_ACTIONS, dtype=np.int8)
        mask = self._mask
        if mask is None:
            bits = self._bits = self._mask_bits(seat)
            mask = self._mask = _mask_array(bits)
        return mask

    def _mask_bits(self, seat: int) -> int:
        kind = self.kind
        rnd = self.round
        if kind == "declare":
            bits = _PASS_BIT
            for d in rnd.legal_declarations(seat):
                bits |= 1 << (8 * declaration_action([c.id for c in d]))
            return bits
        hand = rnd.hand_counts(seat)  # this seat's own cards (selected ones included)
        sel = self._sel
        avail = _avail(hand, sel)
        if kind == "bury" or (kind == "lead" and not sel):
            return avail
        t = rnd.trump
        assert t is not None
        if kind == "lead":
            suits = _suit_bytes(t.rank, t.suit)
            return (avail & suits[t.play_suit[self.selected[0]]]) | _DONE_BIT
        shape = self._lead
        assert shape is not None
        lead_suit = shape.play_suit
        in_suit = _suit_bytes(t.rank, t.suit)[lead_suit]
        if shape.n_cards == 1:  # a single: any card of the led suit, else any card (§6.2)
            held = avail & in_suit
            return held if held else avail
        if self.options.strict_tractor_follow and shape.tractor_lengths:
            bits = 0
            for i in _strict_offers(hand, sel, shape, t):
                bits |= 1 << (8 * i)
            return bits
        suit_ok, other_ok = _follow_rule(hand, sel, shape, t)
        bits = avail & ~in_suit if other_ok else 0
        for i in t.suit_ids[lead_suit]:
            c = hand[i]
            if c:
                k = sel.get(i, 0)
                if c > k and suit_ok[min(c, 2) * 3 + min(k, 2)]:
                    bits |= 1 << (8 * i)
        return bits

    def rewards(self) -> list[float]:
        """Per seat: signed levels for its team at the round's end (0 before), plus
        `reward_points` x the team's point margin (opponents' points - 80) / 80 signed."""
        res = self.round.result
        if res is None:
            return [0.0, 0.0, 0.0, 0.0]
        gainer = res.declaring_team if res.gainer == "declarers" else 1 - res.declaring_team
        margin = (res.opponents_points - 80) / 80.0
        out = []
        for seat in range(4):
            team = seat % 2
            r = float(res.levels_gained if team == gainer else -res.levels_gained)
            if self.reward_points:
                r += self.reward_points * (margin if team != res.declaring_team else -margin)
            out.append(r)
        return out

    # ------------------------------------------------------------ acting

    def step(self, action: int) -> None:
        """Apply one action of the seat to act; raises `ValueError` if the mask forbids it."""
        seat = self.seat
        if seat is None:
            raise ValueError("RULES §8: the round is over")
        a = int(action)
        if self._mask is None:
            self._bits = self._mask_bits(seat)
            self._mask = _mask_array(self._bits)
        if not 0 <= a < N_ACTIONS or not (self._bits >> (8 * a)) & 1:
            raise ValueError(
                f"action {action} is not legal for seat {seat} now ({self.kind}); "
                "consult the action mask"
            )
        kind = self.kind
        if kind == "declare":
            if a == PASS:
                self._answer(_PASSES[seat])
            else:
                rank = self.round.trump_rank
                ids = declaration_ids(a, rank)
                self._answer(Declare(seat, tuple([CARDS[i] for i in ids])))
            return
        if a == DONE:  # the mask offers it only to a lead with a card selected
            self._commit(Play(seat, tuple([CARDS[i] for i in self.selected])))
            return
        selected = self.selected
        selected.append(a)
        n = len(selected)
        if kind == "follow":
            lead = self._lead
            assert lead is not None
            if n == lead.n_cards:  # complete: its only continuation is to commit it
                selected.pop()  # (never shown as selected: the pick and commit are one step)
                self._commit(Play(seat, tuple([CARDS[i] for i in selected] + [CARDS[a]])))
                return
        elif kind == "bury" and n == 8:
            selected.pop()
            self._commit(Bury(seat, tuple([CARDS[i] for i in selected] + [CARDS[a]])))
            return
        self._sel[a] = self._sel.get(a, 0) + 1
        self._mask = None
        obs = self.observer
        obs.pick(seat, a)
        if kind == "bury":
            obs.set_bury_left(seat, (8 - n) / 8.0)

    def act(self, action: Action) -> None:
        """Apply a whole engine action of the seat to act (bots: Declare/Pass/Bury/Play)."""
        if self.seat is None:
            raise ValueError("RULES §8: the round is over")
        if self.kind == "declare":
            if not isinstance(action, Declare | Pass):
                raise ValueError("RULES §3.3: answer a declaration offer with Declare or Pass")
            self._answer(action)
        else:
            self._commit(action)

    def _answer(self, action: Declare | Pass) -> None:
        if self._offer:
            if isinstance(action, Declare):
                self.observer.feed(self.round.apply(action))
            self._offer = False
        else:
            self.observer.feed(self.round.apply(action))
        self._advance()

    def _commit(self, action: Action) -> None:
        events = self.round.apply(action)  # raises (changing nothing) if illegal
        seat = self.seat
        assert seat is not None
        obs = self.observer
        if self.selected:
            obs.unpick(seat, self.selected)
        if self.kind == "bury":
            obs.set_bury_left(seat, 0.0)
        obs.feed(events)
        self.selected = []
        self._sel = {}
        self._advance()

    def _advance(self) -> None:
        rnd = self.round
        obs = self.observer
        self._mask = None
        self._lead = None
        while True:
            phase = rnd.phase
            if phase == "deal":
                drawn: list[Drew] = []
                while True:
                    ev = rnd.apply(_DRAW)[0]
                    assert isinstance(ev, Drew)
                    drawn.append(ev)
                    if rnd.phase != "deal":
                        break
                    s = ev.seat
                    if rnd.has_declaration(s):
                        obs.drew(drawn)
                        self._offer = True
                        self.seat, self.kind = s, "declare"
                        return
                obs.drew(drawn)
                continue
            if phase == "declare":
                asked = rnd.ask
                assert asked is not None
                if not rnd.has_declaration(asked):
                    obs.feed(rnd.apply(_PASSES[asked]))
                    continue
                self.seat, self.kind = asked, "declare"
                return
            if phase == "kitty":
                self.seat, self.kind = rnd.starter, "bury"
                assert self.seat is not None
                obs.set_bury_left(self.seat, 1.0)
                return
            if phase == "play":
                self.seat = rnd.to_act
                if rnd.current:
                    self.kind = "follow"
                    self._lead = rnd.lead_shape
                else:
                    self.kind = "lead"
                return
            self.seat, self.kind = None, "over"
            return


__all__ = ["KINDS", "Table", "follow_offers"]

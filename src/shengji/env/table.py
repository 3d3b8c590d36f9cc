"""One round driven through the fixed action space: who acts, the mask, building a play.

A `Table` owns a `Round` and advances its system steps (drawing cards, passes of
seats that hold no declaration). Decisions reach a seat as: declare/pass (§3.3),
the bury as 8 single picks (§4), a lead built card by card and committed by
putting its last card down with CLOSE + id, or by DONE (§6.1), or a follow built
card by card and committed when it has as many cards as the lead (§6.2). A seat's
mask and observation use only its own cards and public facts (RULES §11);
observations are kept up to date incrementally (`observer.Observer`), so none is
re-encoded from a view. Draws and plays, nearly all of a round's actions, go
through `Round.step` (no event objects are built) and the table tells the observer
what changed; declarations and the bury go through `Round.apply` and the observer
reads their events.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ..actions import DRAW, SINGLE_PLAYS, Action, Bury, Declare, Pass, Play
from ..cards import CARDS, N_IDS, RANKS
from ..follow import iter_follows
from ..options import RuleOptions
from ..round import HAND_SIZE, Round
from ..shapes import Shape
from ..trump import Trump, trump_for
from ..views import View
from ..vocab import Phase
from .arrays import mask_array
from .encoding import (
    CLOSE,
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
# mask array in one call. Hands and selections are kept the same way, one byte per card
# id holding its count (0-2): `hand - selected` needs no borrows, and
# `(x | x >> 1) & _BYTE_ONES` turns counts into a 0/1 byte mask.
_BYTE_ONES = int.from_bytes(b"\x01" * N_IDS, "little")
_DONE_BIT = 1 << (8 * DONE)
_CLOSE_SHIFT = 8 * CLOSE  # a lead's "close with card i" bits are its pick bits shifted
_PASS_BIT = 1 << (8 * PASS)
_CARD_BIT = tuple(1 << (8 * i) for i in range(N_IDS))


def _as_bytes_int(counts: Sequence[int]) -> int:
    """Per-id counts (0-2 each) as an int with one byte per card id."""
    return int.from_bytes(bytes(counts), "little")


@functools.cache
def _suit_bytes(rank: str | None, suit: str | None) -> tuple[int, ...]:
    """Per play suit 0-4 (4 trumps): the byte mask of the card ids of that play suit."""
    ps = trump_for(rank, suit).play_suit
    return tuple(
        int.from_bytes(bytes([ps[i] == s for i in range(N_IDS)]), "little") for s in range(5)
    )


_DRAW = DRAW
_PASSES = tuple(Pass(s) for s in range(4))
_SINGLES = SINGLE_PLAYS  # one-card plays are most plays: made once (actions.py)
_DEAL_CARDS = 4 * HAND_SIZE
_PLAY = Phase.PLAY
_DEAL = Phase.DEAL


def _declarable_ids(rank: str) -> frozenset[int]:
    """Card ids whose draw can give a seat a declaration (§3.3): trump-rank cards, jokers."""
    r = RANKS.index(rank)
    return frozenset([r, 13 + r, 26 + r, 39 + r, 52, 53])


class Table:
    """A round of Tractor played through the fixed action space (docs/ENV.md).

    `starter` is the seat that starts (its team declares, RULES §3.4); `levels` the
    two teams' levels; the trump rank is the declaring team's level. Declarations
    still choose the trump suit (§3.3), and the kitty is turned up if nobody declares
    (§3.5).

    Observations are kept incrementally by an `Observer`; masks are built once per
    decision step from the acting seat's own cards (kept as byte-per-card integers)
    and the public lead. Draws and plays advance the round with `Round.step` (no
    event objects built) and tell the observer what changed; declarations and the
    bury go through `Round.apply` and its events. Apply actions through the table only
    (`step` or `act`, not to `table.round` directly), or its bookkeeping falls behind.

    `skip_forced`: after each action (and at the start), take every decision that has
    exactly one legal action for the seat; `forced_steps` counts them.
    """

    def __init__(
        self,
        seed: int | str,
        options: RuleOptions | None = None,
        *,
        starter: int = 0,
        levels: tuple[str, str] = ("2", "2"),
        reward_points: float = 0.0,
        skip_forced: bool = False,
    ) -> None:
        self.skip_forced = skip_forced
        self.forced_steps = 0  # decisions taken for the seat because only one was legal
        self.round = Round(
            seed, options, trump_rank=levels[starter % 2], starter=starter,
            declaring_team=starter % 2, levels=levels,
        )
        self.options = self.round.options
        self.reward_points = reward_points
        self.selected: list[int] = []
        self._selbits = 0  # the selection as per-id counts, one byte per card id
        self._hand_bits = [0, 0, 0, 0]  # each seat's cards, one byte per card id (engine side)
        self._may_declare = [False, False, False, False]  # holds a trump-rank card/joker
        # the seat could not declare when last asked, and since then it drew no trump-rank
        # card or joker and nobody declared: what `has_declaration` reads is unchanged
        self._cannot_declare = [False, False, False, False]
        self._declarable = _declarable_ids(self.round.trump_rank)
        self.seat: int | None = None
        self.kind = "declare"
        self._offer = False  # a deal-phase declaration offer is waiting for an answer
        self._views: dict[int, tuple[int, View]] = {}
        self._bits = -1  # the acting seat's mask (one byte per action); -1: not built yet
        self._lead: Shape | None = None  # the lead being followed
        self._in_suit = 0  # byte mask of the led play suit's card ids (following)
        self._suits: tuple[int, ...] = ()  # byte masks per play suit under the fixed trump
        self.observer = Observer(self.round)
        self._advance()
        if skip_forced:
            self._take_forced()

    # ------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        """Whether the round has ended (RULES §8)."""
        return self.seat is None

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
        """The observation vector of `seat` (docs/ENV.md): a new array, the caller's to keep.

        It equals `encode(view, selected, ...)` of the seat's view (the tests check
        this), but is gathered from state kept up to date as the round goes.
        """
        obs = self.observer
        return obs.observation(seat)

    def observation_into(self, seat: int, out: F32) -> F32:
        """Write the observation of `seat` into `out` (`OBS_SIZE` float32) and return it:
        no allocation, for loops that keep a preallocated buffer (e.g. a batch row)."""
        obs = self.observer
        return obs.observation(seat, out)

    def action_mask(self, seat: int) -> I8:
        """The legal actions of `seat` now (all zero when it is not this seat's turn):
        a new int8 array, the caller's to keep or modify."""
        if seat != self.seat:
            return np.zeros(N_ACTIONS, dtype=np.int8)
        bits = self._bits
        if bits < 0:
            bits = self._bits = self._mask_bits(seat)
        return mask_array(bits, N_ACTIONS)

    def mask_bits(self) -> int:
        """The acting seat's mask as an int with one byte per action (byte `a` is 1 if
        action `a` is legal; 0 when the round is over): for loops that pick actions
        without building an array."""
        if self.seat is None:
            return 0
        bits = self._bits
        if bits < 0:
            bits = self._bits = self._mask_bits(self.seat)
        return bits

    def _mask_bits(self, seat: int) -> int:
        kind = self.kind
        if kind == "declare":
            bits = _PASS_BIT
            for d in self.round.legal_declarations(seat):
                bits |= 1 << (8 * declaration_action([c.id for c in d]))
            return bits
        x = self._hand_bits[seat] - self._selbits
        avail = (x | (x >> 1)) & _BYTE_ONES  # held and not all selected
        if kind == "follow":
            shape = self._lead
            assert shape is not None
            in_suit = self._in_suit
            if shape.n_cards == 1:  # a single: any card of the led suit, else any (§6.2)
                held = avail & in_suit
                return held if held else avail
            return self._follow_bits(seat, shape, avail)
        if kind == "bury":
            return avail
        return self._lead_bits(x, avail)

    def _lead_bits(self, x: int, avail: int) -> int:
        """A lead being built (RULES §6.1): `close` with any card of the first card's play
        suit (any card, for the first), `done` once a card is selected, and a plain pick
        (to go on adding) only while at least two cards of that suit are left to add: with
        one left, closing with it is the same play, so it is not offered twice."""
        twos = (x >> 1) & _BYTE_ONES  # ids still held twice
        if self.selected:
            held = avail & self._suits[self._play_suit(self.selected[0])]
            picks = held if held & (held - 1) or held & twos else 0
            return picks | (held << _CLOSE_SHIFT) | _DONE_BIT
        picks = 0
        for suit in self._suits:
            held = avail & suit
            if held & (held - 1) or held & twos:  # two ids, or one id twice
                picks |= held
        return picks | (avail << _CLOSE_SHIFT)

    def _play_suit(self, card_id: int) -> int:
        t = self.round.trump
        assert t is not None
        return t.play_suit[card_id]

    def _follow_bits(self, seat: int, shape: Shape, avail: int) -> int:
        """A multi-card follow being built: the cards that keep it completable (§6.2)."""
        t = self.round.trump
        assert t is not None
        hand = self.round.hand_counts(seat)  # this seat's own cards (selected ones included)
        sel: dict[int, int] = {}
        for i in self.selected:
            sel[i] = sel.get(i, 0) + 1
        if self.options.strict_tractor_follow and shape.tractor_lengths:
            bits = 0
            for i in _strict_offers(hand, sel, shape, t):
                bits |= _CARD_BIT[i]
            return bits
        suit_ok, other_ok = _follow_rule(hand, sel, shape, t)
        bits = avail & ~self._in_suit if other_ok else 0
        for i in t.suit_ids[shape.play_suit]:
            c = hand[i]
            if c:
                k = sel.get(i, 0)
                if c > k and suit_ok[min(c, 2) * 3 + min(k, 2)]:
                    bits |= _CARD_BIT[i]
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
        """Apply one action of the seat to act; raises `ValueError` if the mask forbids it.
        With `skip_forced`, then take every decision that has only one legal action."""
        self._step(action)
        if self.skip_forced:
            self._take_forced()

    def _take_forced(self) -> None:
        """While the seat to act has exactly one legal action (a follow's last cards when
        only one completion is legal, a lead's `done` once no card can be added, RULES
        §6.1-§6.2), take it for the seat: one mask bit set is `bits & (bits - 1) == 0`."""
        while self.seat is not None:
            bits = self._bits
            if bits < 0:
                bits = self._bits = self._mask_bits(self.seat)
            if bits == 0 or bits & (bits - 1):  # (0: nothing legal, never for a seat to act)
                return
            self.forced_steps += 1
            self._step((bits.bit_length() - 1) >> 3)

    def _step(self, action: int) -> None:
        seat = self.seat
        if seat is None:
            raise ValueError("RULES §8: the round is over")
        a = int(action)
        bits = self._bits
        if bits < 0:
            bits = self._bits = self._mask_bits(seat)
        if not 0 <= a < N_ACTIONS or not (bits >> (a << 3)) & 1:
            raise ValueError(
                f"action {action} is not legal for seat {seat} now ({self.kind}); "
                "consult the action mask"
            )
        kind = self.kind
        selected = self.selected
        if kind == "follow":
            lead = self._lead
            assert lead is not None
            if len(selected) + 1 == lead.n_cards:  # complete: pick and commit are one step
                if selected:
                    ids = selected + [a]
                    self._play(seat, Play(seat, tuple([CARDS[i] for i in ids])), ids)
                else:
                    self._play(seat, _SINGLES[seat][a], (a,))
                return
        elif kind == "lead":
            if a == DONE or a >= CLOSE:  # commit the lead; close puts one more card down
                # (the mask offers done only to a lead with a card selected)
                ids = selected if a == DONE else selected + [a - CLOSE]
                if len(ids) == 1:
                    self._play(seat, _SINGLES[seat][ids[0]], None)
                else:
                    self._play(seat, Play(seat, tuple([CARDS[i] for i in ids])), None)
                return
        elif kind == "bury":
            if len(selected) == 7:
                self._commit(Bury(seat, tuple([CARDS[i] for i in selected] + [CARDS[a]])))
                return
        else:
            if a == PASS:
                self._answer(_PASSES[seat])
            else:
                shown = declaration_ids(a, self.round.trump_rank)
                self._answer(Declare(seat, tuple([CARDS[i] for i in shown])))
            return
        # one more card picked for the play or bury being built
        selected.append(a)
        self._selbits += _CARD_BIT[a]
        self._bits = -1
        obs = self.observer
        obs.pick(seat, a)
        if kind == "bury":
            obs.set_bury_left(seat, (8 - len(selected)) / 8.0)

    def act(self, action: Action) -> None:
        """Apply a whole engine action of the seat to act (bots: Declare/Pass/Bury/Play)."""
        seat = self.seat
        if seat is None:
            raise ValueError("RULES §8: the round is over")
        if self.kind == "declare":
            if not isinstance(action, Declare | Pass):
                raise ValueError("RULES §3.3: answer a declaration offer with Declare or Pass")
            self._answer(action)
        elif type(action) is Play and self.round.phase is _PLAY:
            lead = self.kind == "lead"
            self._play(seat, action, None if lead else [c.id for c in action.cards])
        else:
            self._commit(action)
        if self.skip_forced:
            self._take_forced()

    def _answer(self, action: Declare | Pass) -> None:
        declare = isinstance(action, Declare)
        if declare:  # a new standing declaration: every seat's options change (§3.3)
            self._cannot_declare = [False, False, False, False]
        if self._offer:
            if declare:
                self.observer.feed(self.round.apply(action))
            self._offer = False
        else:
            self.observer.feed(self.round.apply(action))
        self._advance()

    def _commit(self, action: Action) -> None:
        """Apply an action through `Round.apply` and feed its events (the bury; any
        action a bot gives); the round's own checks refuse illegal ones unchanged."""
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
        self._selbits = 0
        self._sync_hands()
        self._advance()

    def _play(self, seat: int, action: Play, ids: Sequence[int] | None) -> None:
        """A lead (`ids` None) or a follow of the card ids `ids` through `Round.step` (no
        events built); what a lead put down (a failed throw's forced cards, §6.4) is read
        back from the trick."""
        rnd = self.round
        n_tricks = rnd.n_tricks
        lead = ids is None
        rnd.step(action)  # raises (changing nothing) if illegal
        obs = self.observer
        selected = self.selected
        if selected:
            obs.unpick(seat, selected)
            self.selected = []
            self._selbits = 0
        if ids is None:  # what was led: the throw, or the part a failed throw forces
            ids = rnd.current[0][1]
        obs.played(seat, ids, lead)
        h = self._hand_bits[seat]
        for i in ids:
            h -= _CARD_BIT[i]
        self._hand_bits[seat] = h
        self._bits = -1
        if rnd.n_tricks != n_tricks:
            obs.trick_won(n_tricks + 1)
            if rnd.phase is not _PLAY:
                obs.round_over()
                obs.refresh()
                self.seat, self.kind, self._lead = None, "over", None
                return
            self.seat = to_act = rnd.to_act
            self.kind = "lead"
            self._lead = None
            obs.play_turn(to_act)
            return
        self.seat = to_act = rnd.to_act
        obs.play_turn(to_act)
        if lead:
            self.kind = "follow"
            shape = self._lead = rnd.lead_shape
            assert shape is not None
            self._in_suit = self._suits[shape.play_suit]

    def _sync_hands(self) -> None:
        """Re-read every seat's cards from the round (after the kitty moved, a redeal)."""
        rnd = self.round
        self._hand_bits = [_as_bytes_int(rnd.hand_counts(s)) for s in range(4)]

    def _resync(self) -> None:
        """Re-read all engine-side bookkeeping from `self.round` (tests that swap in a
        round with other hidden cards use it; the selection is kept)."""
        self._sync_hands()
        self._cannot_declare = [False, False, False, False]
        self._selbits = 0
        for i in self.selected:
            self._selbits += _CARD_BIT[i]
        self._views.clear()
        self._bits = -1

    def _advance(self) -> None:
        rnd = self.round
        obs = self.observer
        self._bits = -1
        self._lead = None
        while True:
            phase = rnd.phase
            if phase is _DEAL:
                if self._deal():
                    return
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
                self._sync_hands()  # the starter took the kitty (§4)
                obs.set_bury_left(self.seat, 1.0)
                return
            if phase is _PLAY:
                if not self._suits:
                    t = rnd.trump
                    assert t is not None
                    self._suits = _suit_bytes(t.rank, t.suit)
                self.seat = rnd.to_act
                shape = self._lead = rnd.lead_shape
                if shape is not None:
                    self.kind = "follow"
                    self._in_suit = self._suits[shape.play_suit]
                else:
                    self.kind = "lead"
                return
            self.seat, self.kind = None, "over"
            return

    def _deal(self) -> bool:
        """Draw cards (RULES §3.1) until a drawer may declare (an offer: True) or the
        deal ends (False). Draws go through `Round.step`; the card is the deck's next."""
        rnd = self.round
        start = drawn = rnd.drawn
        if drawn == 0:  # a new deal (also after a redeal, §3.5)
            self._hand_bits = [0, 0, 0, 0]
            self._may_declare = [False, False, False, False]
            self._cannot_declare = [False, False, False, False]
        deck = rnd.deck
        first = rnd.first_drawer
        hands = self._hand_bits
        may = self._may_declare
        cannot = self._cannot_declare
        declarable = self._declarable
        step = rnd.step
        offer = False
        while True:
            seat = (first + drawn) & 3
            card = deck[drawn]
            step(_DRAW)
            drawn += 1
            hands[seat] += _CARD_BIT[card]
            if drawn == _DEAL_CARDS:
                break
            if card in declarable:
                may[seat] = True
                cannot[seat] = False
            if may[seat] and not cannot[seat]:
                if rnd.has_declaration(seat):
                    offer = True
                    break
                cannot[seat] = True
        self.observer.dealt(deck, start, drawn, first)
        if offer:
            self._offer = True
            self.seat, self.kind = seat, "declare"
        return offer


__all__ = ["KINDS", "Table", "follow_offers"]

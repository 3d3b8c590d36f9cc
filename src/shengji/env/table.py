"""One round driven through the fixed action space: who acts, the mask, building a play.

A `Table` owns a `Round` and advances its system steps (drawing cards, passes of
seats that hold no declaration). Decisions reach a seat as: declare/pass (§3.3),
the bury as 8 single picks (§4), a lead built card by card and committed by
putting its last card down with CLOSE + id, or by DONE (§6.1), or a follow built
card by card and committed when it has as many cards as the lead (§6.2). A seat's
mask and observation use only its own cards and public facts (RULES §11);
observations are kept up to date incrementally (`observer.Observer`), so none is
re-encoded from a view. Draws and plays, nearly all of a round's actions, go
through `Round.step` (no event objects are built; a play the mask offered through
`Round.step_legal_play`, which does not check again what the mask did) and the table
tells the observer what changed; declarations and the bury go through `Round.apply`
and the observer reads their events.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np

from ..actions import DRAW, SINGLE_PLAYS, Action, Bury, Declare, Pass, Play
from ..cards import CARDS, N_IDS, RANKS
from ..follow import iter_follows
from ..options import RuleOptions
from ..round import HAND_SIZE, Round
from ..shapes import Shape
from ..trump import Trump
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


# Hands, the selection and the mask are byte buffers (`array("b")`): each seat's count
# of every card id (0-2), the selection's count of every card id, and one byte per
# action (1: legal). The compiled table reads and writes them as C arrays, so a mask is
# a few loops over the 54 card ids, and the mask array agents get is one copy of it.


def _bytes(n: int) -> array[int]:
    return array("b", bytes(n))


_NO_ACTIONS = _bytes(N_ACTIONS)  # an empty mask, copied over the mask to clear it


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
    event objects built; masked plays with `Round.step_legal_play`) and tell the
    observer what changed; declarations and the bury go through `Round.apply` and its
    events. Apply actions through the table only (`step` or `act`, not to
    `table.round` directly), or its bookkeeping falls behind.

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
        self._sel = _bytes(N_IDS)  # the selection: count per card id
        self._hand = _bytes(4 * N_IDS)  # seat s's count of card id i at s * N_IDS + i
        self._mask = _bytes(N_ACTIONS)  # the acting seat's mask (1: legal), once built
        self._built = False  # whether `_mask` holds the acting seat's mask
        self._ps = _bytes(N_IDS)  # play suit (0-4) of each card id, once the trump is fixed
        self._lead_suit = -1  # the play suit of the lead being followed
        self._may_declare = [False, False, False, False]  # holds a trump-rank card/joker
        # the seat could not declare when last asked, and since then it drew no trump-rank
        # card or joker and nobody declared: what `has_declaration` reads is unchanged
        self._cannot_declare = [False, False, False, False]
        self._declarable = _declarable_ids(self.round.trump_rank)
        self.seat: int | None = None
        self.kind = "declare"
        self._offer = False  # a deal-phase declaration offer is waiting for an answer
        self._views: dict[int, tuple[int, View]] = {}
        self._lead: Shape | None = None  # the lead being followed
        self.observer = Observer(self.round)
        self._advance()
        if skip_forced:
            self._take_forced()

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle/deepcopy support, the same for the pure-Python and the compiled class
        (whose byte buffers are C arrays): the buffers travel as bytes."""
        st = {k: getattr(self, k) for k in _STATE}
        for k in _BUFFERS:
            st[k] = bytes(getattr(self, k))
        return (_blank_table, (), st)

    def __setstate__(self, st: dict[str, object]) -> None:
        for k, v in st.items():
            if k in _BUFFERS:
                assert isinstance(v, bytes)
                setattr(self, k, array("b", v))
            else:
                setattr(self, k, v)

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
        if not self._built:
            self._build_mask(seat)
        return mask_array(self._mask)

    def mask_bytes(self) -> bytes:
        """The acting seat's mask as bytes, one per action (1 if legal; all 0 when the
        round is over): for loops that pick actions without building an array."""
        if self.seat is None:
            return bytes(N_ACTIONS)
        if not self._built:
            self._build_mask(self.seat)
        return bytes(self._mask)

    def mask_bits(self) -> int:
        """The acting seat's mask as an int with one byte per action (byte `a` is 1 if
        action `a` is legal; 0 when the round is over): for loops that pick actions
        without building an array."""
        if self.seat is None:
            return 0
        if not self._built:
            self._build_mask(self.seat)
        return int.from_bytes(bytes(self._mask), "little")

    def _build_mask(self, seat: int) -> None:
        """Fill `_mask` with the legal actions of `seat` (the seat to act)."""
        m = self._mask
        m[:] = _NO_ACTIONS
        kind = self.kind
        if kind == "declare":
            m[PASS] = 1
            for d in self.round.legal_declarations(seat):
                m[declaration_action([c.id for c in d])] = 1
        else:
            hand = self._hand
            sel = self._sel
            base = seat * N_IDS
            if kind == "lead":
                self._lead_mask(base)
            elif kind == "bury":
                for i in range(N_IDS):
                    if hand[base + i] > sel[i]:
                        m[i] = 1
            else:
                shape = self._lead
                assert shape is not None
                if shape.n_cards == 1:  # a single: any card of the led suit, else any (§6.2)
                    ps = self._ps
                    suit = self._lead_suit
                    held = False
                    for i in range(N_IDS):
                        if hand[base + i] and ps[i] == suit:
                            m[i] = 1
                            held = True
                    if not held:
                        for i in range(N_IDS):
                            if hand[base + i]:
                                m[i] = 1
                else:
                    self._follow_mask(seat, shape)
        self._built = True

    def _lead_mask(self, base: int) -> None:
        """A lead being built (RULES §6.1): `close` with any card of the first card's play
        suit (any card, for the first), `done` once a card is selected, and a plain pick
        (to go on adding) only while at least two cards of that suit are left to add: with
        one left, closing with it is the same play, so it is not offered twice."""
        m = self._mask
        hand = self._hand
        sel = self._sel
        ps = self._ps
        selected = self.selected
        seen = 0  # per play suit (bit s): a card of it is left to add
        multi = 0  # per play suit: two ids, or one id twice, are left to add
        first = ps[selected[0]] if selected else -1
        for i in range(N_IDS):
            x = hand[base + i] - sel[i]
            if x > 0 and (first < 0 or ps[i] == first):
                m[CLOSE + i] = 1
                b = 1 << ps[i]
                if x >= 2 or seen & b:
                    multi |= b
                seen |= b
        if multi:
            for i in range(N_IDS):
                if m[CLOSE + i] and (multi >> ps[i]) & 1:
                    m[i] = 1
        if selected:
            m[DONE] = 1

    def _follow_mask(self, seat: int, shape: Shape) -> None:
        """A multi-card follow being built: the cards that keep it completable (§6.2)."""
        m = self._mask
        t = self.round.trump
        assert t is not None
        sel: dict[int, int] = {}
        for i in self.selected:
            sel[i] = sel.get(i, 0) + 1
        if self.options.strict_tractor_follow and shape.tractor_lengths:
            for i in _strict_offers(self.round.hand_counts(seat), sel, shape, t):
                m[i] = 1
            return
        hand = self._hand  # this seat's own cards (selected ones included)
        base = seat * N_IDS
        suit_ok, other_ok = _follow_rule(bytes(hand[base:base + N_IDS]), sel, shape, t)
        ps = self._ps
        lead_suit = self._lead_suit
        sel_counts = self._sel
        for i in range(N_IDS):
            c = hand[base + i]
            k = sel_counts[i]
            if c > k:
                if ps[i] == lead_suit:
                    if suit_ok[min(c, 2) * 3 + min(k, 2)]:
                        m[i] = 1
                elif other_ok:
                    m[i] = 1

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
        §6.1-§6.2), take it for the seat."""
        while self.seat is not None:
            if not self._built:
                self._build_mask(self.seat)
            m = self._mask
            only = -1
            for a in range(N_ACTIONS):
                if m[a]:
                    if only >= 0:  # a second legal action: the seat has a choice
                        return
                    only = a
            if only < 0:  # (nothing legal: never for a seat to act)
                return
            self.forced_steps += 1
            self._step(only)

    def _step(self, action: int) -> None:
        seat = self.seat
        if seat is None:
            raise ValueError("RULES §8: the round is over")
        a = int(action)
        if not self._built:
            self._build_mask(seat)
        if not 0 <= a < N_ACTIONS or not self._mask[a]:
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
                self._play_masked(seat, tuple(selected + [a]) if selected else (a,), False)
                return
        elif kind == "lead":
            if a == DONE or a >= CLOSE:  # commit the lead; close puts one more card down
                # (the mask offers done only to a lead with a card selected)
                ids = tuple(selected) if a == DONE else tuple(selected + [a - CLOSE])
                self._play_masked(seat, ids, True)
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
        self._sel[a] += 1
        self._built = False
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
            ids = tuple([c.id for c in action.cards])
            self._play(seat, action, ids, self.kind == "lead", False)
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
        self._clear_selection()
        self._sync_hands()
        self._advance()

    def _play_masked(self, seat: int, ids: tuple[int, ...], lead: bool) -> None:
        """Play the card ids `ids` the mask offered (a prebuilt `Play` for one card)."""
        if len(ids) == 1:
            action = _SINGLES[seat][ids[0]]
        else:
            action = Play(seat, tuple([CARDS[i] for i in ids]))
        self._play(seat, action, ids, lead, True)

    def _play(
        self, seat: int, action: Play, ids: tuple[int, ...], lead: bool, masked: bool
    ) -> None:
        """A lead or a follow of the card ids `ids` (no events built). `masked`: the
        action mask offered it, so it is legal (RULES §6.1-§6.3) and the round need not
        check it again (`Round.step_legal_play`); a bot's play goes through `Round.step`,
        which refuses an illegal one unchanged. What a lead put down (a failed throw's
        forced cards, §6.4) is read back from the trick."""
        rnd = self.round
        n_tricks = rnd.n_tricks
        if masked:
            rnd.step_legal_play(seat, ids, action)
        else:
            rnd.step(action)  # raises (changing nothing) if illegal
        obs = self.observer
        selected = self.selected
        if selected:
            obs.unpick(seat, selected)
            self._clear_selection()
        if lead:  # what was led: the throw, or the part a failed throw forces
            ids = rnd.current[0][1]
        obs.played(seat, ids, lead)
        hand = self._hand
        base = seat * N_IDS
        for i in ids:
            hand[base + i] -= 1
        self._built = False
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
            self._lead_suit = shape.play_suit

    def _clear_selection(self) -> None:
        sel = self._sel
        for i in self.selected:
            sel[i] = 0
        self.selected = []

    def _sync_hands(self) -> None:
        """Re-read every seat's cards from the round (after the kitty moved, a redeal)."""
        rnd = self.round
        hand = self._hand
        for s in range(4):
            counts = bytes(rnd.hand_counts(s))
            for i in range(N_IDS):
                hand[s * N_IDS + i] = counts[i]

    def _resync(self) -> None:
        """Re-read all engine-side bookkeeping from `self.round` (tests that swap in a
        round with other hidden cards use it; the selection is kept)."""
        self._sync_hands()
        self._cannot_declare = [False, False, False, False]
        sel = self._sel
        for i in range(N_IDS):
            sel[i] = 0
        for i in self.selected:
            sel[i] += 1
        self._views.clear()
        self._built = False

    def _advance(self) -> None:
        rnd = self.round
        obs = self.observer
        self._built = False
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
                t = rnd.trump
                assert t is not None
                ps = self._ps
                for i in range(N_IDS):  # the trump is fixed from here on (§5)
                    ps[i] = t.play_suit[i]
                self.seat = rnd.to_act
                shape = self._lead = rnd.lead_shape
                if shape is not None:
                    self.kind = "follow"
                    self._lead_suit = shape.play_suit
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
            for i in range(4 * N_IDS):
                self._hand[i] = 0
            self._may_declare = [False, False, False, False]
            self._cannot_declare = [False, False, False, False]
        deck = rnd.deck
        first = rnd.first_drawer
        hand = self._hand
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
            hand[seat * N_IDS + card] += 1
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


#: what a pickle of a `Table` holds: its attributes, and its byte buffers as bytes
_BUFFERS = ("_sel", "_hand", "_mask", "_ps")
_STATE = (
    "skip_forced", "forced_steps", "round", "options", "reward_points", "selected",
    "_built", "_lead_suit", "_may_declare", "_cannot_declare",
    "_declarable", "seat", "kind", "_offer", "_views", "_lead", "observer",
)


def _blank_table() -> Table:
    """A Table with no state yet, for `__setstate__` to fill (unpickling)."""
    return Table.__new__(Table)


__all__ = ["KINDS", "Table", "follow_offers"]

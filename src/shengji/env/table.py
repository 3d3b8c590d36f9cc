"""One round driven through the fixed action space: who acts, the mask, building a play.

A `Table` owns a `Round` and advances its system steps (drawing cards, passes of
seats that hold no declaration). Decisions reach a seat as: declare/pass (§3.3),
the bury as 8 single picks (§4), a lead built card by card and closed by DONE
(§6.1), or a follow built card by card and committed when it has as many cards
as the lead (§6.2). Masks and observations come from the seat's `View` only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..actions import Action, Bury, Declare, Draw, Pass, Play
from ..cards import CARDS, N_IDS
from ..follow import iter_follows
from ..options import RuleOptions
from ..round import Round
from ..shapes import Shape, shape_of
from ..trump import Trump
from ..views import View
from .encoding import (
    DONE,
    F32,
    I8,
    N_ACTIONS,
    OBS_OFFSETS,
    PASS,
    Tracker,
    declaration_action,
    declaration_ids,
    encode,
    slot_tables,
    view_trump,
)

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
    if strict and shape.tractor_lengths:
        out = []
        legal = [_counts(p) for p in iter_follows(hand, shape, t, True)]
        for i in range(N_IDS):
            if hand[i] - selected[i] <= 0:
                continue
            want = list(selected)
            want[i] += 1
            if any(all(c[j] >= want[j] for j in range(N_IDS)) for c in legal):
                out.append(i)
        return out
    lead_suit = shape.play_suit
    ps = t.play_suit
    suit_ids = t.suit_ids[lead_suit]
    n = shape.n_cards
    h = 0
    q = 0
    for i in suit_ids:
        h += hand[i]
        q += hand[i] >> 1
    need = min(n, h)
    need_pairs = min(shape.n_pairs, q)
    s_suit = 0
    s_other = 0
    pairs = 0
    n1 = 0  # led-suit ids selected once that the hand holds twice
    n2 = 0  # led-suit ids not selected that the hand holds twice
    for i in range(N_IDS):
        c = selected[i]
        if ps[i] == lead_suit:
            s_suit += c
            pairs += c >> 1
            if hand[i] >= 2:
                if c == 1:
                    n1 += 1
                elif c == 0:
                    n2 += 1
        else:
            s_other += c

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

    out = []
    for i in range(N_IDS):
        left = hand[i] - selected[i]
        if left <= 0:
            continue
        if ps[i] == lead_suit:
            c = selected[i]
            if hand[i] >= 2 and c == 0:  # i was an n2 id, becomes an n1 id
                ok = feasible(1, 0, 0, 1, -1)
            elif hand[i] >= 2 and c == 1:  # completes a pair
                ok = feasible(1, 0, 1, -1, 0)
            else:
                ok = feasible(1, 0, 0, 0, 0)
        else:
            ok = feasible(0, 1, 0, 0, 0)
        if ok:
            out.append(i)
    return out


def _counts(ids: Sequence[int]) -> list[int]:
    out = [0] * N_IDS
    for i in ids:
        out[i] += 1
    return out


class Table:
    """A round of Tractor played through the fixed action space (docs/ENV.md).

    `starter` is the seat that starts (its team declares, RULES §3.4); `levels` the
    two teams' levels; the trump rank is the declaring team's level. Declarations
    still choose the trump suit (§3.3), and the kitty is turned up if nobody declares
    (§3.5).
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
        self.seat: int | None = None
        self.kind = "declare"
        self._offer = False  # a deal-phase declaration offer is waiting for an answer
        self._views: dict[int, tuple[int, View]] = {}
        self._masks: dict[tuple[int, int, int], I8] = {}
        self._obs: dict[int, tuple[int, F32]] = {}
        self.trackers = [Tracker(s) for s in range(4)]
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
        """The observation vector of `seat` (docs/ENV.md), built from its view only.

        Within one decision only the selection changes: the rest is encoded once.
        """
        key = len(self.round.actions)
        hit = self._obs.get(seat)
        if hit is None or hit[0] != key:
            hit = (key, encode(self.view(seat), (), self.trackers[seat], 0))
            self._obs[seat] = hit
        obs = hit[1].copy()
        if seat == self.seat and self.selected:
            t = view_trump(self.view(seat))
            slot_of, _, _ = slot_tables(t.rank, t.suit)
            h, sl = OBS_OFFSETS["hand"], OBS_OFFSETS["selected"]
            for i in self.selected:
                obs[h + slot_of[i]] -= 1
                obs[sl + slot_of[i]] += 1
        if seat == self.seat and self.kind == "bury":
            obs[OBS_OFFSETS["scalars"] + 14] = (8 - len(self.selected)) / 8.0
        return obs

    def action_mask(self, seat: int) -> I8:
        """The legal actions of `seat` now (all zero when it is not this seat's turn)."""
        key = (seat, len(self.round.actions), len(self.selected))
        hit = self._masks.get(key)
        if hit is not None:
            return hit
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if seat == self.seat:
            for a in self._legal(seat):
                mask[a] = 1
        if len(self._masks) > 64:
            self._masks.clear()
        self._masks[key] = mask
        return mask

    def _legal(self, seat: int) -> list[int]:
        v = self.view(seat)
        if self.kind == "declare":
            return [PASS] + [declaration_action([c.id for c in d]) for d in v.legal_declarations()]
        hand = [0] * N_IDS
        for c in v.hand:
            hand[c.id] += 1
        sel = _counts(self.selected)
        if self.kind == "bury":
            return [i for i in range(N_IDS) if hand[i] > sel[i]]
        assert v.trump is not None
        if self.kind == "lead":
            if not self.selected:
                return [i for i in range(N_IDS) if hand[i]]
            ps = v.trump.play_suit
            suit = ps[self.selected[0]]
            return [i for i in range(N_IDS) if hand[i] > sel[i] and ps[i] == suit] + [DONE]
        lead = v.lead
        assert lead is not None
        shape = shape_of([c.id for c in lead], v.trump)
        return follow_offers(hand, sel, shape, v.trump, self.options.strict_tractor_follow)

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
        if not 0 <= a < N_ACTIONS or not self.action_mask(seat)[a]:
            raise ValueError(
                f"action {action} is not legal for seat {seat} now ({self.kind}); "
                "consult the action mask"
            )
        if self.kind == "declare":
            if a == PASS:
                self._answer(Pass(seat))
            else:
                rank = self.round.trump_rank
                ids = declaration_ids(a, rank)
                self._answer(Declare(seat, tuple(CARDS[i] for i in ids)))
            return
        if self.kind == "lead" and a == DONE:
            self._commit(Play(seat, tuple(CARDS[i] for i in self.selected)))
            return
        self.selected.append(a)
        if self.kind == "bury" and len(self.selected) == 8:
            self._commit(Bury(seat, tuple(CARDS[i] for i in self.selected)))
        elif self.kind == "follow":
            lead = self.view(seat).lead
            assert lead is not None
            if len(self.selected) == len(lead):
                self._commit(Play(seat, tuple(CARDS[i] for i in self.selected)))

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
                self.round.apply(action)
            self._offer = False
        else:
            self.round.apply(action)
        self._advance()

    def _commit(self, action: Action) -> None:
        self.round.apply(action)
        self.selected = []
        self._advance()

    def _advance(self) -> None:
        rnd = self.round
        while True:
            d = rnd.decision()
            if d.phase == "deal":
                rnd.apply(Draw())
                after = rnd.decision()
                if after.phase == "deal" and after.last_drawer is not None:
                    s = after.last_drawer
                    if rnd.legal_declarations(s):
                        self._offer = True
                        self.seat, self.kind = s, "declare"
                        return
                continue
            if d.phase == "declare":
                assert d.seat is not None
                if not rnd.legal_declarations(d.seat):
                    rnd.apply(Pass(d.seat))
                    continue
                self.seat, self.kind = d.seat, "declare"
                return
            if d.phase == "kitty":
                self.seat, self.kind = d.seat, "bury"
                return
            if d.phase == "play":
                assert d.seat is not None
                self.seat = d.seat
                self.kind = "lead" if self.view(d.seat).lead is None else "follow"
                return
            self.seat, self.kind = None, "over"
            return


__all__ = ["KINDS", "Table", "follow_offers"]

"""The heuristic's leads (RULES §6.1): the first rule that applies, in priority order.

1. strong in trumps: pull them with sure winners (pairs and tractors first);
2. side-suit units no other hand can beat and nobody is likely to ruff, as one throw
   if several (cards shown to stop a failed throw count as held, §6.4);
3. strong in trumps: pull with the lowest trump pair or tractor;
4. a side suit the partner is void in and the opponents are not: lead it low;
   in friends mode (§12.4), on the leader's side, a low card in the suit of a called
   card it does not hold, for the called card to win the trick and its holder to join;
5. otherwise a cheap lead: a low pair or tractor, else a low single from a short suit.

What "sure", "void" and "likely" mean is `knowledge.Knowledge`'s (§11).
"""

from __future__ import annotations

from ..botkit import N_IDS, POINTS, TRUMP, Unit, randbelow, shape_of
from .heuristic_base import (
    PAIR_BONUS,
    HeuristicBase,
    Ids,
    dump_cost,
    last_trick_reserve,
    units_of,
)
from .knowledge import Knowledge, other_seats

__all__ = ["lead"]


class _LeadContext:
    """What every lead rule looks at: the hand by play suit (less the card kept for the
    last trick), trump strength and who can still ruff (§6.1)."""

    __slots__ = ("k", "opps", "mates", "others", "by_suit", "my_trumps", "strong",
                 "opp_trumps_possible", "_units", "_winners")

    def __init__(self, bot: HeuristicBase, k: Knowledge) -> None:
        t = k.t
        me = k.me
        self.k = k
        self.others = other_seats(me, k.n)
        # the side as the seat knows it (teams: its parity; friends: `sides_of`, §12.4)
        self.mates = k.mates
        self.opps = [s for s in self.others if s not in k.mates]
        hand = k.hand
        reserve = last_trick_reserve(bot, k)
        by_suit = [[i for i in t.suit_ids[ps] for _ in range(hand[i])] for ps in range(5)]
        if reserve and k.n_hand > 1:
            for ps in range(5):
                by_suit[ps] = [i for i in by_suit[ps] if i not in reserve]
        self.by_suit = by_suit
        self.my_trumps = len(by_suit[TRUMP])
        unseen_trumps = k.unseen_len[TRUMP]
        self.opp_trumps_possible = (
            any(not k.void[s][TRUMP] for s in self.opps) and unseen_trumps > 0
        )
        self.strong = (
            self.my_trumps >= bot.strong_min_trumps
            and self.my_trumps >= (
                bot.decl_strong_ratio if k.declaring else bot.strong_ratio
            ) * unseen_trumps
        )
        self._units: list[list[Unit] | None] = [None] * 5
        self._winners: list[Ids | None] = [None] * 5

    def units(self, ps: int) -> list[Unit]:
        """The held cards of suit `ps` split into units (§6.1), computed once."""
        got = self._units[ps]
        if got is None:
            got = self._units[ps] = units_of(self.by_suit[ps], self.k.t)
        return got

    def winners(self, ps: int) -> Ids:
        """Units of suit `ps` that no other hand can beat (§6.1), as one lead."""
        got = self._winners[ps]
        if got is None:
            got = self._winners[ps] = self._find_winners(ps)
        return list(got)

    def _find_winners(self, ps: int) -> Ids:
        k, t, others = self.k, self.k.t, self.others
        ids = self.by_suit[ps]
        if not ids:
            return []
        out: Ids = []
        for u in self.units(ps):
            if not k.unit_beatable(ps, u.npairs, u.top, others, u.k):
                out.extend(u.ids)
        if not out:
            return []
        # The combined lead must still split into unbeatable units (it may
        # regroup, e.g. two adjacent pairs become a tractor); else lead one unit.
        # Without `throw_tractors` the engine reads a throw as pairs and singles (§6.1).
        units = shape_of(out, t).units if not t.throw_tractors else units_of(out, t)
        if any(k.unit_beatable(ps, u.npairs, u.top, others, u.k) for u in units):
            first = next(
                u for u in self.units(ps)
                if not k.unit_beatable(ps, u.npairs, u.top, others, u.k)
            )
            return list(first.ids)
        return out


def lead(bot: HeuristicBase, k: Knowledge) -> Ids:
    """The first lead rule that applies, in order of priority (each one small)."""
    c = _LeadContext(bot, k)
    # called one by one, not from a tuple of functions: compiled code then calls each
    # rule directly instead of through the interpreter's call protocol
    choice = _lead_pull_trumps(bot, c)
    if not choice:
        choice = _lead_side_winners(bot, c)
    if not choice:
        choice = _lead_trump_pair(bot, c)
    if not choice:
        choice = _lead_to_partner_void(bot, c)
    if not choice and k.open_calls:
        choice = _lead_to_called_card(bot, c)
    return choice if choice else _lead_cheap(bot, c)


def _lead_pull_trumps(bot: HeuristicBase, c: _LeadContext) -> Ids | None:
    """1. Strong in trumps: pull them with sure winners (pairs and tractors first)."""
    if c.strong and c.opp_trumps_possible:
        return c.winners(TRUMP) or None
    return None


def _lead_side_winners(bot: HeuristicBase, c: _LeadContext) -> Ids | None:
    """2. Side-suit sure winners that nobody can ruff: lead them, as a throw if several."""
    k = c.k
    best_side: tuple[float, Ids] | None = None
    for ps in range(4):
        w = c.winners(ps)
        if not w:
            continue
        risk = k.ruff_risk(ps, c.opps)
        if risk > bot.max_ruff_risk:
            continue
        score = len(w) * 3 + sum(POINTS[i] for i in w) - 20 * risk
        if best_side is None or score > best_side[0]:
            best_side = (score, w)
    return None if best_side is None else best_side[1]


def _lead_trump_pair(bot: HeuristicBase, c: _LeadContext) -> Ids | None:
    """3. Strong in trumps: pull with the lowest trump pair (or tractor)."""
    if c.strong and c.opp_trumps_possible:
        pairs = [u for u in c.units(TRUMP) if u.npairs >= 1]
        if pairs:
            u = min(pairs, key=lambda u: (u.top, -u.npairs))
            return list(u.ids)
    return None


def _lead_to_partner_void(bot: HeuristicBase, c: _LeadContext) -> Ids | None:
    """4. A partner is void in a side suit where the opponents are not: lead it low."""
    k, t = c.k, c.k.t
    for partner in c.mates:
        if k.void[partner][TRUMP] or k.hand_sizes[partner] <= 0:
            continue
        for ps in range(4):
            ids = c.by_suit[ps]
            if ids and k.void[partner][ps] and not any(k.void[s][ps] for s in c.opps):
                low = min(ids, key=lambda i: (POINTS[i], t.level[i]))
                if POINTS[low] == 0:
                    return [low]
    return None


def _lead_to_called_card(bot: HeuristicBase, c: _LeadContext) -> Ids | None:
    """4b. Friends mode (§12.4), on the leader's side: a low card (no points) of the suit
    of an open call whose card it does not hold, so that the called card wins the trick
    and its holder joins; not in a suit an opponent has shown void in."""
    k, t = c.k, c.k.t
    if not k.declaring:
        return None
    for i in k.open_calls:
        ps = t.play_suit[i]
        if ps == TRUMP or k.hand[i]:
            continue
        ids = [j for j in c.by_suit[ps] if POINTS[j] == 0 and t.level[j] < t.level[i]]
        if ids and not any(k.void[s][ps] for s in c.opps):
            return [min(ids, key=lambda j: (t.level[j], j))]
    return None


def _lead_cheap(bot: HeuristicBase, c: _LeadContext) -> Ids:
    """5. Otherwise a cheap lead: a low pair or tractor, else a low single from a short
    suit. Sure trump winners are not led just because the opponents still hold
    trumps (kept to overtrump and for the last tricks: +0.040 levels/deal over 800
    mirrored deals, CI [+0.018, +0.062])."""
    k = c.k
    cands: list[tuple[float, Ids]] = []
    for ps in range(5):
        ids = c.by_suit[ps]
        if not ids:
            continue
        n_suit = len(ids)
        opp_void = any(k.void[s][ps] and not k.void[s][TRUMP] for s in c.opps)
        for u in c.units(ps):
            if u.npairs >= 2 and bot.tractor_lead_bonus <= 0:
                continue
            cost = sum((dump_cost(bot, k, i, 3.0) for i in u.ids), 0.0)
            if u.npairs >= 1:
                # A pair (or tractor) led makes the others follow with pairs or
                # break theirs (§6.2): worth leading even when it can be beaten.
                cost = cost / (2 * u.npairs) + 2 - PAIR_BONUS - bot.pair_lead_bonus
                if u.npairs >= 2:
                    cost -= bot.tractor_lead_bonus
            if ps == TRUMP:
                cost += 0 if c.strong else 8
            elif n_suit <= 2:
                cost -= 3  # towards a void
            if opp_void and ps != TRUMP:
                cost += 6
            cands.append((cost, list(u.ids)))
    if not cands:  # only the reserved card is left
        i = next(i for i in range(N_IDS) if k.hand[i])
        return [i]
    cands.sort(key=lambda x: (x[0], x[1]))
    # Near-equal cheap leads: let the seed choose (so equal agents differ by seed).
    close = [x for x in cands if x[0] <= cands[0][0] + 1.0]
    return close[randbelow(bot.rng, len(close))][1]

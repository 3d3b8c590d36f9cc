"""The heuristic's follows (RULES §6.2, §6.3): feed, win or duck.

A partner who holds the trick and whom nobody after can beat gets points; else the
trick is won when its points (the kitty's too on the last trick, §8.1) are worth the
cards it takes — by a play nobody after can beat when not last, the cheapest winning
one when last; else the cheapest legal cards go (`_discard`). `fallback` is the
cheapest legal play when a built one is not legal (e.g. `strict_tractor_follow`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..botkit import (
    N_IDS,
    POINTS,
    TRUMP,
    Shape,
    Trump,
    iter_follows,
    kitty_multiplier,
    match_value,
    winner_index,
)
from .heuristic_base import (
    PAIR_BONUS,
    HeuristicBase,
    Ids,
    dump_cost,
    keep,
    kitty_value,
    last_trick_reserve,
    play_value,
)
from .knowledge import Knowledge

__all__ = ["fallback", "follow"]


class _FollowContext:
    """What every follow rule looks at: who holds the trick with what, who plays after,
    the points at stake (the kitty's too on the last trick, §8.1)."""

    __slots__ = ("k", "shape", "mates", "later", "later_opps", "last", "trick_pts",
                 "kitty_val", "reserve", "w_suit", "w_val", "partner_winning",
                 "partner_safe")

    def __init__(
        self, bot: HeuristicBase, k: Knowledge, plays: Sequence[tuple[int, Sequence[int]]],
        shape: Shape,
    ) -> None:
        t = k.t
        self.k = k
        self.shape = shape
        # the side as the seat knows it (teams: its parity; friends: `sides_of`, §12.4)
        mates = k.mates
        if k.open_calls:  # friends mode: a seat playing a called card now joins the leader
            calls = k.open_calls
            joining = [s for s, p in plays if s != k.me and any(i in calls for i in p)]
            if joining:
                mates = ([*mates, *(s for s in joining if s not in mates)] if k.declaring
                         else [s for s in mates if s not in joining])
        self.mates = mates
        n_seats = k.n
        leader = plays[0][0]
        ids_plays = [p for _, p in plays]
        w_idx = winner_index(ids_plays, shape, t)
        w_seat = plays[w_idx][0]
        w_ids = ids_plays[w_idx]
        self.w_suit = t.play_suit[w_ids[0]]
        w_val = match_value(w_ids, shape, t)
        assert w_val is not None
        self.w_val = w_val
        self.later = [(leader + j) % n_seats for j in range(len(plays) + 1, n_seats)]
        self.later_opps = [s for s in self.later if s not in mates]
        self.last = not self.later
        self.trick_pts = sum(POINTS[i] for p in ids_plays for i in p)
        n = shape.n_cards
        final_trick = k.n_hand == n
        # §8.1: the kitty's points times the multiplier of the round's options.
        self.kitty_val = (
            kitty_value(bot, k) / 2 * kitty_multiplier(
                k.options.kitty_multiplier, n,
                max(u.npairs if t.decks == 2 else u.power for u in shape.units),
            ) if final_trick else 0.0
        )
        self.reserve: set[int] = set()
        if not final_trick and k.n_hand <= 4 and self.trick_pts * 2 < kitty_value(bot, k):
            self.reserve = last_trick_reserve(bot, k)
        self.partner_winning = w_seat in mates
        self.partner_safe = self.partner_winning and (
            self.last
            or not _beatable_by(k, w_ids, self.w_suit, w_val, shape, self.later_opps)
        )


def follow(
    bot: HeuristicBase, k: Knowledge, plays: Sequence[tuple[int, Sequence[int]]], shape: Shape
) -> Ids:
    """Feed a partner who holds the trick safely; else win it when the points are
    worth the cards; else play the cheapest legal cards."""
    c = _FollowContext(bot, k, plays, shape)
    if c.partner_safe:
        return _follow_feed_partner(bot, c)
    if k.t.decks != 2 and shape.n_cards > 1:  # k-tuples (§12.3): from the legal plays
        wins = _winning_plays_k(bot, k, plays, shape, c.reserve)
    else:
        wins = _winning_plays(k, shape, c.w_suit, c.w_val, c.reserve)
    dump = _discard(bot, k, shape, point_weight=2.5, reserve=c.reserve)
    if not wins:
        return dump
    if c.last:
        return _follow_last_win(bot, c, wins, dump)
    return _follow_try_win(bot, c, wins, dump)


def _follow_feed_partner(bot: HeuristicBase, c: _FollowContext) -> Ids:
    """The partner holds the trick and nobody after can beat it: give it points."""
    return _discard(bot, c.k, c.shape, point_weight=-bot.feed_weight, reserve=c.reserve)


def _follow_try_win(bot: HeuristicBase, c: _FollowContext, wins: list[Ids], dump: Ids) -> Ids:
    """Not last: win with a play nobody after can beat, if the trick is worth it."""
    k, t, shape = c.k, c.k.t, c.shape
    dump_cost = sum((keep(bot, k, i) for i in dump), 0.0)
    expected = c.trick_pts + c.kitty_val
    safe = [
        p for p in wins
        if not _beatable_by(k, p, t.play_suit[p[0]], play_value(p, shape, t), shape,
                                 c.later_opps)
    ]
    if safe:
        p = safe[0]
        gain = expected + bot.lead_worth + (5 if any(m in c.later for m in c.mates) else 0)
        if c.partner_winning and c.trick_pts + c.kitty_val < 5:
            return dump if dump_cost <= sum((keep(bot, k, i) for i in p), 0.0) else p
        if gain * bot.win_weight >= sum((keep(bot, k, i) for i in p), 0.0) - dump_cost:
            return p
        return dump
    if c.partner_winning:
        return _discard(bot, k, shape, point_weight=2.5, reserve=c.reserve)
    if expected >= 10:
        return wins[-1]
    return dump


def _follow_last_win(bot: HeuristicBase, c: _FollowContext, wins: list[Ids], dump: Ids) -> Ids:
    """Last to play and an opponent holds the trick: win it cheaply if worth it."""
    k = c.k
    dump_cost = sum((keep(bot, k, i) for i in dump), 0.0)
    p = wins[0]
    gain = c.trick_pts + c.kitty_val + bot.lead_worth
    if gain * bot.win_weight >= sum((keep(bot, k, i) for i in p), 0.0) - dump_cost:
        return p
    return dump


def _beatable_by(
    k: Knowledge, ids: Sequence[int], suit: int, val: int, shape: Shape,
    seats: Sequence[int],
) -> bool:
    """Could one of `seats` (yet to play) beat this play (§6.3)?"""
    if not seats:
        return False
    lead_suit = shape.play_suit
    if shape.kind == "throw":
        # In-suit units were proven unbeatable by the throw check; only a ruff beats it.
        if suit == lead_suit and lead_suit != TRUMP:
            return any(
                k.void[s][lead_suit] and not k.void[s][TRUMP] for s in seats
            ) or k.ruff_risk(lead_suit, seats) > 0.5
        return False if suit == TRUMP and lead_suit != TRUMP else False
    npairs = 0 if shape.kind == "single" else shape.n_pairs
    tk = 2
    if k.t.decks != 2 and npairs:  # §12.3: the deciding unit, of the lead's largest kind
        top_unit = shape.units[0]
        npairs, tk = top_unit.npairs, top_unit.k
    if suit == lead_suit:
        # Followers who still hold the led suit can beat in suit; void ones can ruff.
        in_suit_seats = [s for s in seats if not k.void[s][lead_suit]]
        if in_suit_seats and k.unit_beatable(lead_suit, npairs, val, in_suit_seats, tk):
            return True
        return lead_suit != TRUMP and k.ruff_risk(lead_suit, seats) > 0.3
    # A ruff: beaten only by a higher ruff from a seat void in the led suit.
    void_seats = [s for s in seats if k.void[s][lead_suit]]
    if not void_seats:
        risky = k.ruff_risk(lead_suit, seats)
        if risky < 0.3:
            return False
        void_seats = list(seats)
    return k.unit_beatable(TRUMP, npairs, val, void_seats, tk)


#: the most legal follows the k-tuple rules look through (RULES §12.3; a bound on time)
MAX_FOLLOWS = 2000


def _winning_plays_k(
    bot: HeuristicBase, k: Knowledge, plays: Sequence[tuple[int, Sequence[int]]],
    shape: Shape, reserve: set[int],
) -> list[Ids]:
    """With more decks (§12.3): the legal follows that would take the trick now
    (`winner_index`, §6.3), weakest first and then cheapest; a ruff only from trumps."""
    t = k.t
    hand = k.hand
    if k.suit_len[shape.play_suit] == 0 and shape.play_suit != TRUMP:
        hand = [n if t.play_suit[i] == TRUMP else 0 for i, n in enumerate(hand)]
        if sum(hand) < shape.n_cards:
            return []
    before = [list(p) for _, p in plays]
    me = len(before)
    out: list[tuple[int, float, Ids]] = []
    for count, play in enumerate(iter_follows(hand, shape, t, k.strict)):
        if count >= MAX_FOLLOWS:
            break
        ids = list(play)
        if reserve and any(i in reserve for i in ids):
            continue
        if winner_index([*before, ids], shape, t) == me:
            cost = sum((keep(bot, k, i) for i in ids), 0.0)
            out.append((play_value(ids, shape, t), cost, ids))
    out.sort()
    return [p for _, _, p in out]


def _cheapest_k(
    bot: HeuristicBase, k: Knowledge, shape: Shape, point_weight: float, reserve: set[int]
) -> Ids:
    """With more decks (§12.3): the cheapest legal follow by `_discard_cost`."""
    costs: dict[int, float] = {}
    best: tuple[float, Ids] | None = None
    for count, play in enumerate(iter_follows(k.hand, shape, k.t, k.strict)):
        if count >= MAX_FOLLOWS:
            break
        ids = list(play)
        c = sum((_discard_cost(bot, k, i, point_weight, reserve, costs) for i in ids), 0.0)
        if best is None or c < best[0]:
            best = (c, ids)
    assert best is not None, "a seat to act always has a legal play"
    return best[1]


def _winning_plays(
    k: Knowledge, shape: Shape, w_suit: int, w_val: int, reserve: set[int]
) -> list[Ids]:
    """Plays that would beat the current winner, cheapest first (§6.3)."""
    t = k.t
    lead_suit = shape.play_suit
    hand = [n if i not in reserve else 0 for i, n in enumerate(k.hand)] if reserve else k.hand
    h = sum(hand[i] for i in t.suit_ids[lead_suit])
    n = shape.n_cards
    if h >= n:
        if w_suit != lead_suit or shape.kind == "throw":
            return []
        suit = lead_suit
    elif h == 0 and lead_suit != TRUMP:
        suit = TRUMP
    else:
        return []
    need_higher = w_suit == suit
    out: list[Ids] = []
    if shape.kind in ("single", "pair", "tractor"):
        npairs = 0 if shape.kind == "single" else shape.n_pairs
        for u in _units_in(hand, t, suit, npairs):
            if not need_higher or u[1] > w_val:
                out.append(u[0])
        return out
    # Ruffing a throw: carve the lead's units out of our trumps.
    for high in (False, True):
        p = _carve(hand, t, suit, shape, high)
        if p is None:
            continue
        v = match_value(p, shape, t)
        if v is not None and (not need_higher or v > w_val) and p not in out:
            out.append(p)
    return out


def _units_in(hand: list[int], t: Trump, ps: int, npairs: int) -> list[tuple[Ids, int]]:
    """Units of this many pairs held in suit `ps`, low to high: (ids, top level)."""
    levels = t.ids_at_level[ps]
    out: list[tuple[Ids, int]] = []
    if npairs == 0:
        for lv, ids in enumerate(levels):
            for i in ids:
                if hand[i]:
                    out.append(([i], lv))
                    break
        return out
    pair_at: list[int | None] = []
    for ids in levels:
        pair_at.append(next((i for i in ids if hand[i] >= 2), None))
    if npairs == 1:
        return [([i, i], lv) for lv, i in enumerate(pair_at) if i is not None]
    for top in range(npairs - 1, len(levels)):
        run = pair_at[top - npairs + 1 : top + 1]
        held = [j for j in run if j is not None]
        if len(held) == npairs:
            out.append(([j for j in held for _ in range(2)], top))
    return out


def _carve(
    hand: Sequence[int], t: Trump, ps: int, shape: Shape, high: bool
) -> Ids | None:
    """Cards of suit `ps` that split into the units of a throw, lowest (or highest) first."""
    h = list(hand)
    out: Ids = []
    for u in shape.units:
        if u.npairs == 0:
            continue
        opts = _units_in(h, t, ps, u.npairs)
        if not opts:
            return None
        ids = opts[-1][0] if high else opts[0][0]
        for i in ids:
            h[i] -= 1
        out += ids
    singles = sum(1 for u in shape.units if u.npairs == 0)
    rest = sorted(
        (i for i in t.suit_ids[ps] for _ in range(h[i])),
        key=lambda i: (POINTS[i] > 0, t.level[i]),
    )
    if len(rest) < singles:
        return None
    return out + rest[:singles]


def _discard(
    bot: HeuristicBase, k: Knowledge, shape: Shape, point_weight: float, reserve: set[int]
) -> Ids:
    """The cheapest legal cards to play when not trying to win (§6.2).

    `point_weight` > 0 keeps point cards back (the opponents take the trick);
    < 0 plays them (the partner holds it).
    """
    t = k.t
    lead_suit = shape.play_suit
    n = shape.n_cards
    if n > 1 and t.decks != 2:
        return _cheapest_k(bot, k, shape, point_weight, reserve)
    hand = k.hand
    h = k.suit_len[lead_suit]
    # Sorting and taking minima on (cost, id) pairs: plain loops and decorated sorts
    # rather than key closures, which compiled code calls through the interpreter.
    if h >= n and n == 1:  # the common case: the cheapest single of the suit
        # (each card is costed once here: `_card_cost` without `_discard_cost`'s memo)
        best = -1
        best_c = 0.0
        for i in t.suit_ids[lead_suit]:
            if hand[i]:
                c = _card_cost(bot, k, i, point_weight, reserve)
                if hand[i] >= 2:
                    c += PAIR_BONUS
                if best < 0 or c < best_c or (c == best_c and i < best):
                    best, best_c = i, c
        return [best]
    costs: dict[int, float] = {}
    suit_cards = [i for i in t.suit_ids[lead_suit] for _ in range(hand[i])]
    if h >= n:
        q_ids = [i for i in t.suit_ids[lead_suit] if hand[i] >= 2]
        need = min(shape.n_pairs, len(q_ids))
        chosen: Ids = []
        if need:
            ranked = sorted([
                (2 * _discard_cost(bot, k, i, point_weight, reserve, costs), i)
                for i in q_ids
            ])
            for _, i in ranked[:need]:
                chosen += [i, i]
        rest = list(suit_cards)
        for i in chosen:
            rest.remove(i)
        keyed: list[tuple[float, int]] = []
        for i in rest:
            c = _discard_cost(bot, k, i, point_weight, reserve, costs)
            keyed.append((c + PAIR_BONUS if hand[i] >= 2 else c, i))
        keyed.sort()
        return chosen + [i for _, i in keyed[: n - len(chosen)]]
    chosen = list(suit_cards)
    ps_of = t.play_suit
    # Emptying a short side suit (towards a void) is a small bonus.
    side_len = k.suit_len
    others: list[tuple[float, int]] = []
    for i in range(N_IDS):
        if hand[i] and ps_of[i] != lead_suit:
            c = _discard_cost(bot, k, i, point_weight, reserve, costs)
            ps = ps_of[i]
            if ps != TRUMP and side_len[ps] <= 2:
                c -= 2
            others.append((c, i))
    need = n - h
    if need == 1:
        return chosen + [min(others)[1]]
    others.sort()
    for _, i in others:
        for _ in range(hand[i]):
            if need == 0:
                return chosen
            chosen.append(i)
            need -= 1
    return chosen


def _discard_cost(
    bot: HeuristicBase, k: Knowledge, i: int, point_weight: float, reserve: set[int],
    costs: dict[int, float],
) -> float:
    """What playing card `i` away costs (`_discard`), remembered in `costs`."""
    c = costs.get(i)
    if c is None:
        c = costs[i] = _card_cost(bot, k, i, point_weight, reserve)
    return c


def _card_cost(
    bot: HeuristicBase, k: Knowledge, i: int, point_weight: float, reserve: set[int],
) -> float:
    """What playing card `i` away costs when not trying to win: its `dump_cost`, trump
    points never fed on purpose, the card kept for the last trick far dearer."""
    c = dump_cost(bot, k, i, point_weight)
    if point_weight < 0 and k.t.play_suit[i] == TRUMP:
        c -= point_weight * POINTS[i]  # never feed trump points on purpose
    if reserve and i in reserve:
        c += 100
    return c


def fallback(bot: HeuristicBase, k: Knowledge, shape: Shape) -> Ids:
    """When a built play is not legal (e.g. `strict_tractor_follow`): the cheapest legal one."""
    best: tuple[float, Ids] | None = None
    for count, play in enumerate(iter_follows(k.hand, shape, k.t, k.strict)):
        ids = list(play)
        c = sum((dump_cost(bot, k, i, 2.5) for i in ids), 0.0)
        if best is None or c < best[0]:
            best = (c, ids)
        if count >= 2000:
            break
    assert best is not None, "a seat to act always has a legal play"
    return best[1]

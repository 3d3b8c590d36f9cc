"""The heuristic agent: plays like a decent human from its own view only.

It counts cards (every card played, the cards it holds and, as the starter,
the kitty it buried), remembers who showed a void or ran out of pairs in a
suit, and from that proves which of its units no other hand can beat (RULES
§6.1), so it leads sure winners and safe throws (cards shown to stop a failed
throw count as held, §6.4). It declares when long in a suit, buries the kitty to
make voids, pulls trumps when strong, otherwise leads low pairs and tractors
rather than singles and keeps its sure trump winners, gives points to a partner
who holds the trick, ducks low when the trick is lost, and keeps its top trump for
the last trick when the kitty is worth it (§8.1, with the round's multiplier).
Units are read with the round's options (§5.4 gap_tractors, §6.1 throw_tractors,
§6.2 strict_tractor_follow).

Speed: the agent keeps what its seat knows between its turns and updates it from
the plays made since (rebuilt from the view when the view is not a later moment
of the same round); during the deal it lists the legal declarations only when it
holds a trump-rank card or a joker and something changed since it last had none.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from ..actions import Action, Bury, Declare, Pass, Play
from ..botkit import (
    CARDS,
    N_IDS,
    POINTS,
    TRUMP,
    Card,
    Shape,
    Trump,
    Unit,
    View,
    decompose,
    follow_error,
    iter_follows,
    kitty_multiplier,
    match_value,
    shape_of,
    winner_index,
)
from .knowledge import Knowledge, other_seats

Ids = list[int]

# Weights of the card-keeping score (bigger = more worth keeping).
_TRUMP_BONUS = 20
_PAIR_BONUS = 6
_LONE_PENALTY = 6  # kitty: leaving one low card in a side suit


class _LeadContext:
    """What every lead rule looks at: the hand by play suit (less the card kept for the
    last trick), trump strength and who can still ruff (§6.1)."""

    __slots__ = ("k", "opps", "partner", "others", "by_suit", "my_trumps", "strong",
                 "opp_trumps_possible", "_units", "_winners")

    def __init__(self, bot: HeuristicAgent, k: Knowledge) -> None:
        t = k.t
        me = k.me
        self.k = k
        self.others = other_seats(me)
        self.opps = [(me + 1) % 4, (me + 3) % 4]
        self.partner = (me + 2) % 4
        hand = k.hand
        reserve = bot._reserve(k)
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
                bot.decl_strong_ratio if me % 2 == k.declarers else bot.strong_ratio
            ) * unseen_trumps
        )
        self._units: list[list[Unit] | None] = [None] * 5
        self._winners: list[Ids | None] = [None] * 5

    def units(self, ps: int) -> list[Unit]:
        """The held cards of suit `ps` split into units (§6.1), computed once."""
        got = self._units[ps]
        if got is None:
            got = self._units[ps] = _units_of(self.by_suit[ps], self.k.t)
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
            if not k.unit_beatable(ps, u.npairs, u.top, others):
                out.extend(u.ids)
        if not out:
            return []
        # The combined lead must still split into unbeatable units (it may
        # regroup, e.g. two adjacent pairs become a tractor); else lead one unit.
        # Without `throw_tractors` the engine reads a throw as pairs and singles (§6.1).
        units = shape_of(out, t).units if not t.throw_tractors else _units_of(out, t)
        if any(k.unit_beatable(ps, u.npairs, u.top, others) for u in units):
            first = next(
                u for u in self.units(ps)
                if not k.unit_beatable(ps, u.npairs, u.top, others)
            )
            return list(first.ids)
        return out


class _FollowContext:
    """What every follow rule looks at: who holds the trick with what, who plays after,
    the points at stake (the kitty's too on the last trick, §8.1)."""

    __slots__ = ("k", "shape", "partner", "later", "later_opps", "last", "trick_pts",
                 "kitty_val", "reserve", "w_suit", "w_val", "partner_winning",
                 "partner_safe")

    def __init__(
        self, bot: HeuristicAgent, k: Knowledge, plays: Sequence[tuple[int, Sequence[int]]],
        shape: Shape,
    ) -> None:
        t = k.t
        me = k.me
        self.k = k
        self.shape = shape
        self.partner = (me + 2) % 4
        leader = plays[0][0]
        ids_plays = [p for _, p in plays]
        w_idx = winner_index(ids_plays, shape, t)
        w_seat = plays[w_idx][0]
        w_ids = ids_plays[w_idx]
        self.w_suit = t.play_suit[w_ids[0]]
        w_val = match_value(w_ids, shape, t)
        assert w_val is not None
        self.w_val = w_val
        self.later = [(leader + j) % 4 for j in range(len(plays) + 1, 4)]
        self.later_opps = [s for s in self.later if s % 2 != me % 2]
        self.last = not self.later
        self.trick_pts = sum(POINTS[i] for p in ids_plays for i in p)
        n = shape.n_cards
        final_trick = k.n_hand == n
        # §8.1: the kitty's points times the multiplier of the round's options.
        self.kitty_val = (
            bot._kitty_value(k) / 2 * kitty_multiplier(
                k.options.kitty_multiplier, n, max(u.npairs for u in shape.units)
            ) if final_trick else 0.0
        )
        self.reserve: set[int] = set()
        if not final_trick and k.n_hand <= 4 and self.trick_pts * 2 < bot._kitty_value(k):
            self.reserve = bot._reserve(k)
        self.partner_winning = w_seat == self.partner
        self.partner_safe = self.partner_winning and (
            self.last
            or not bot._beatable_by(k, w_ids, self.w_suit, w_val, shape, self.later_opps)
        )


class HeuristicAgent:
    """A rule-based player; deterministic given its seed (the seed breaks ties)."""

    # Tunables, chosen by A/B arena runs (600 mirrored deals each): these values beat the
    # first guesses (6, 0.8, 0.25, 2.0, 3.0, 20) by +0.032 levels per deal, CI [+0.003, +0.060].
    # `bench/heuristic_ab.py --set NAME=VALUE` A/Bs one against the committed bot; around
    # these values others are flat within +-0.01 levels/deal (500 mirrored deals each:
    # win_weight 3/5.5, feed_weight 4/9, lead_worth 6, tractor_lead_bonus
    # 15); pair_lead_bonus 40 looked +0.02 (+0.030 and +0.011 on two seeds).
    strong_min_trumps = 5  # pull trumps when holding at least this many ...
    strong_ratio = 0.6  # ... and this share of the trumps still out
    decl_strong_ratio = 0.6  # the same share for the declaring team
    # bury: worth of each side suit emptied. 40 rather than 12: the starter ruffs the
    # emptied suits; +0.043 levels/deal (seed 1, 500 mirrored deals) and +0.016 (seed 13,
    # 800), the declaring side gaining 2-6 points of win rate.
    void_bonus = 40.0  # (12 before; 40: see above)
    lone_penalty = 6.0  # bury: cost of leaving one low card in a side suit (= _LONE_PENALTY)
    ace_keep = 10.0  # bury: an ace's extra worth of keeping
    point_keep = 2.0  # bury: per point of a card (points buried risk the multiplier, §8.1)
    pair_lead_bonus = 25.0  # a cheap lead: how much a pair is preferred to a single
    tractor_lead_bonus = 5.0  # ... and a tractor to a pair (0: no tractor as a cheap lead)
    lead_worth = 3.0  # points the lead of the next trick is worth when deciding to win
    max_ruff_risk = 0.25  # lead side-suit winners only below this chance of a ruff
    win_weight = 4.0  # points are worth this many "keep" units when deciding to win
    feed_weight = 6.0  # how eagerly to give points to a partner who holds the trick
    reserve_kitty = 20.0  # keep the top trump for the last trick above this kitty value
    kitty_share = 0.5  # an unseen kitty holds this share of its fair share of the points

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        # What this seat knows of the round being played, kept up to date from the
        # plays made between two of its turns instead of being rebuilt every time.
        self._known: Knowledge | None = None
        self._no_decl: tuple[object, ...] | None = None  # the last ask with no declaration

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Pickled (to a worker process) as its random state; the kept knowledge is rebuilt
        # from the next view, which gives the same choices. Compiled, the class needs this.
        return (_restore_heuristic, (self.rng.getstate(),))

    # ================================================================ entry point
    def act(self, view: View) -> Action:
        """The heuristic's action for the seat's view: declare or pass, bury, or play."""
        seat = view.seat
        assert seat is not None, "an agent plays a seat"
        phase = view.phase
        if phase in ("deal", "declare"):
            return self._declare(view, seat)
        if phase == "kitty":
            return Bury(seat, tuple(self._bury(view)))
        if phase == "play":
            return Play(seat, tuple(CARDS[i] for i in self._play(view, seat)))
        raise ValueError(f"nothing to do in phase {phase!r}")

    # ================================================================ declaring (§3.3)
    @staticmethod
    def _trump_count(hand: Sequence[Card], rank: str | None, suit: str | None) -> float:
        """How many of these cards would be trumps (high trumps count a bit more)."""
        n = 0.0
        for c in hand:
            if c.is_joker:
                n += 1.5
            elif c.rank == rank:
                n += 1.3 if c.suit == suit else 1.1
            elif suit is not None and c.suit == suit:
                n += 1.1 if c.rank in ("A", "K") else 1.0
        return n

    @staticmethod
    def _no_trump_score(hand: Sequence[Card]) -> float:
        """A no-trump round favours aces, pairs and jokers."""
        score = 0.0
        seen: set[int] = set()
        for c in hand:
            if c.is_joker:
                score += 1.5
            elif c.rank == "A":
                score += 1.2
            if c.id in seen:
                score += 0.5
            seen.add(c.id)
        return score

    def _declare(self, view: View, seat: int) -> Action:
        # A declaration needs a trump-rank card or a joker pair (§3.3): without one, or
        # with the same such cards and the same standing declaration as at the last ask
        # when there was nothing to declare, pass without listing the declarations.
        rank = view.trump_rank
        marks = tuple(c.id for c in view.hand if c.rank == rank or c.is_joker)
        if not marks:
            return Pass(seat)
        ask = (view.round_no, seat, view.phase, len(view.declarations), marks)
        if ask == self._no_decl:
            return Pass(seat)
        options = view.legal_declarations()
        if not options:
            self._no_decl = ask
            return Pass(seat)
        hand = view.hand
        n = len(hand)
        final = view.phase == "declare"
        first_round = view.declaring_team is None  # the declaration picks the declarers
        standing = view.declarer
        best: tuple[float, tuple[Card, ...]] | None = None
        for opt in options:
            cards = tuple(opt)
            if cards[0].is_joker:
                q = self._no_trump_score(hand) - 1.0
            else:
                q = self._trump_count(hand, rank, cards[0].suit)
            frac = q / max(n, 1)
            if best is None or frac > best[0]:
                best = (frac, cards)
        assert best is not None
        frac, cards = best
        if standing is None:
            if final:
                ok = first_round or frac >= 0.28
            else:
                # Early in the deal a long suit is a weak signal: ask for more.
                need = 0.5 if n < 6 else 0.4 if n < 12 else 0.34
                ok = frac >= need + self.rng.uniform(-0.02, 0.02)
        elif standing % 2 == seat % 2:
            cur = self._standing_quality(view, hand)
            ok = frac - cur >= 0.2 and not first_round
        else:
            cur = self._standing_quality(view, hand)
            gain = frac - cur
            ok = (first_round and (frac >= 0.3 or final)) or gain >= 0.08
        return Declare(seat, cards) if ok else Pass(seat)

    def _standing_quality(self, view: View, hand: Sequence[Card]) -> float:
        decl = view.declarations[-1][1] if view.declarations else ()
        if not decl:
            return 0.0
        if decl[0].is_joker:
            return self._no_trump_score(hand) / max(len(hand), 1)
        return self._trump_count(hand, view.trump_rank, decl[0].suit) / max(len(hand), 1)

    # ================================================================ the kitty (§4)
    def _bury(self, view: View) -> list[Card]:
        return [CARDS[i] for i in self.bury_options(view, 1)[0]]

    def bury_options(self, view: View, n: int) -> list[list[int]]:
        """The `n` best distinct kitties (ids) by this bot's judgement, best first (§4).

        A kitty is scored by what its cards are worth keeping (trumps, aces, pairs and
        points are expensive: points buried are at risk of the kitty multiplier, §8.1),
        with a bonus for each side suit it empties (a void lets the starter ruff).
        """
        t = view.trump
        assert t is not None
        hand = [c.id for c in view.hand]
        counts = [0] * N_IDS
        for i in hand:
            counts[i] += 1
        ps_of = t.play_suit
        level = t.level

        def cost(i: int) -> float:
            c = CARDS[i]
            v = float(level[i])
            if ps_of[i] == TRUMP:
                return 1000.0 + v
            if c.rank == "A":
                v += self.ace_keep
            v += self.point_keep * c.points
            if counts[i] >= 2:
                v += _PAIR_BONUS + 4
            return v

        side = [[i for i in hand if ps_of[i] == s] for s in range(4)]
        found: dict[tuple[int, ...], float] = {}
        suits = [s for s in range(4) if side[s]]
        for r in range(len(suits) + 1):
            for subset in combinations(suits, r):
                chosen = [i for s in subset for i in side[s]]
                if len(chosen) > 8:
                    continue
                # sums of float costs start at 0.0: compiled by mypyc, sum() from the int
                # 0 is read as an int and refuses the float it gets
                total = sum((cost(i) for i in chosen), 0.0) - self.void_bonus * len(subset)
                rest = sorted(
                    (i for i in hand if ps_of[i] == TRUMP or ps_of[i] not in subset),
                    key=lambda i: (cost(i), i),
                )
                fill = rest[: 8 - len(chosen)]
                total += sum((cost(i) for i in fill), 0.0)
                total += self._lone_cards(side, subset, fill, t) * self.lone_penalty / _LONE_PENALTY
                key = tuple(sorted(chosen + fill))
                if len(key) == 8 and total < found.get(key, float("inf")):
                    found[key] = total
        ranked = sorted(found.items(), key=lambda kv: (kv[1], kv[0]))
        return [list(k) for k, _ in ranked[:n]]

    @staticmethod
    def _lone_cards(
        side: list[list[int]], emptied: tuple[int, ...], fill: list[int], t: Trump
    ) -> float:
        """Bury rule: a side suit left with one low card is nearly a void wasted (§4).

        A lone card must be played the first time the suit is led and usually loses;
        burying it too would have made a void. A lone top card is fine.
        """
        penalty = 0.0
        for s in range(4):
            if s in emptied or not side[s]:
                continue
            left = list(side[s])
            for i in fill:
                if i in left:
                    left.remove(i)
            if len(left) == 1 and t.level[left[0]] < len(t.ids_at_level[s]) - 1:
                penalty += _LONE_PENALTY
        return penalty

    # ================================================================ the play (§6)
    def play_ids(self, view: View) -> Ids:
        """The play (card ids) this bot would make from `view` (its seat's turn, §6)."""
        assert view.seat is not None
        return self._play(view, view.seat)

    def _play(self, view: View, seat: int) -> Ids:
        t = view.trump
        assert t is not None
        k = self._known
        if k is None or not k.sync(view):
            k = self._known = Knowledge(view, t)
        trick = view.current_trick
        plays = [] if trick is None else [(s, [c.id for c in cs]) for s, cs in trick.plays]
        return self.choose_play(k, plays)

    def choose_play(self, k: Knowledge, plays: Sequence[tuple[int, Sequence[int]]]) -> Ids:
        """The play (ids) for the seat `k` knows about, given the current trick's plays.

        The view-free core of the play phase, also used as the search's rollout policy.
        """
        if not plays:
            return self._lead(k)
        t = k.t
        lead = plays[0][1]
        n = len(lead)
        ps = t.play_suit[lead[0]]
        if k.suit_len[ps] == n or k.n_hand == n:  # one legal play: all of them (§6.2)
            hand = k.hand
            pool = t.suit_ids[ps] if k.suit_len[ps] == n else range(N_IDS)
            return [i for i in pool for _ in range(hand[i])]
        shape = _shape_of(lead, t)
        choice = self._follow(k, plays, shape)
        if n == 1:  # a single: legal if in the led suit or void in it (§6.2)
            if len(choice) == 1 and k.hand[choice[0]] and (
                t.play_suit[choice[0]] == ps or k.suit_len[ps] == 0
            ):
                return choice
        elif follow_error(k.hand, shape, choice, t, k.strict) is None:
            return choice
        return self._fallback(k, shape)

    # ---------------------------------------------------------------- shared helpers
    def _keep(self, k: Knowledge, i: int) -> float:
        """How much a card is worth keeping (bigger = keep)."""
        t = k.t
        ps = t.play_suit[i]
        lv = t.level[i]
        v = float(lv)
        if ps == TRUMP:
            v += _TRUMP_BONUS
        else:
            sure = k.sure_cache[ps]
            if lv >= (sure if sure is not None else k.sure_level(ps)):
                v += 6  # a sure winner
        if k.hand[i] >= 2:
            v += _PAIR_BONUS
        return v

    def _dump_cost(self, k: Knowledge, i: int, point_weight: float) -> float:
        return self._keep(k, i) + point_weight * POINTS[i]

    def _reserve(self, k: Knowledge) -> set[int]:
        """The top trump kept back for the last trick when the kitty is worth it (§8.1)."""
        n = k.n_hand
        if n > 4 or n <= 1:
            return set()
        if self._kitty_value(k) < self.reserve_kitty:
            return set()
        t = k.t
        trumps = [i for i in range(N_IDS) if k.hand[i] and t.play_suit[i] == TRUMP]
        if not trumps:
            return set()
        top = max(trumps, key=lambda i: t.level[i])
        if k.higher_single(TRUMP, t.level[top], other_seats(k.me)):
            return set()
        return {top}

    def _kitty_value(self, k: Knowledge) -> float:
        """Points the kitty would add at the single-card multiplier (estimated if unseen)."""
        if k.starter_kitty:
            return 2.0 * k.kitty_pts
        unseen_cards = k.n_unseen
        if unseen_cards <= 0:
            return 0.0
        unseen_pts = k.unseen_pts
        # A starter rarely buries points: count the kitty's fair share at half.
        return 2.0 * self.kitty_share * unseen_pts * 8 / unseen_cards

    # ---------------------------------------------------------------- leading (§6.1)
    def _lead(self, k: Knowledge) -> Ids:
        """The first lead rule that applies, in order of priority (each one small)."""
        c = _LeadContext(self, k)
        # called one by one, not from a tuple of bound methods: compiled code then calls
        # each rule directly instead of through the interpreter's call protocol
        choice = self._lead_pull_trumps(c)
        if not choice:
            choice = self._lead_side_winners(c)
        if not choice:
            choice = self._lead_trump_pair(c)
        if not choice:
            choice = self._lead_to_partner_void(c)
        return choice if choice else self._lead_cheap(c)

    def _lead_pull_trumps(self, c: _LeadContext) -> Ids | None:
        """1. Strong in trumps: pull them with sure winners (pairs and tractors first)."""
        if c.strong and c.opp_trumps_possible:
            return c.winners(TRUMP) or None
        return None

    def _lead_side_winners(self, c: _LeadContext) -> Ids | None:
        """2. Side-suit sure winners that nobody can ruff: lead them, as a throw if several."""
        k = c.k
        best_side: tuple[float, Ids] | None = None
        for ps in range(4):
            w = c.winners(ps)
            if not w:
                continue
            risk = k.ruff_risk(ps, c.opps)
            if risk > self.max_ruff_risk:
                continue
            score = len(w) * 3 + sum(POINTS[i] for i in w) - 20 * risk
            if best_side is None or score > best_side[0]:
                best_side = (score, w)
        return None if best_side is None else best_side[1]

    def _lead_trump_pair(self, c: _LeadContext) -> Ids | None:
        """3. Strong in trumps: pull with the lowest trump pair (or tractor)."""
        if c.strong and c.opp_trumps_possible:
            pairs = [u for u in c.units(TRUMP) if u.npairs >= 1]
            if pairs:
                u = min(pairs, key=lambda u: (u.top, -u.npairs))
                return list(u.ids)
        return None

    def _lead_to_partner_void(self, c: _LeadContext) -> Ids | None:
        """4. Partner is void in a side suit where the opponents are not: lead it low."""
        k, t, partner = c.k, c.k.t, c.partner
        if k.void[partner][TRUMP] or k.hand_sizes[partner] <= 0:
            return None
        for ps in range(4):
            ids = c.by_suit[ps]
            if ids and k.void[partner][ps] and not any(k.void[s][ps] for s in c.opps):
                low = min(ids, key=lambda i: (POINTS[i], t.level[i]))
                if POINTS[low] == 0:
                    return [low]
        return None

    def _lead_cheap(self, c: _LeadContext) -> Ids:
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
                if u.npairs >= 2 and self.tractor_lead_bonus <= 0:
                    continue
                cost = sum((self._dump_cost(k, i, 3.0) for i in u.ids), 0.0)
                if u.npairs >= 1:
                    # A pair (or tractor) led makes the others follow with pairs or
                    # break theirs (§6.2): worth leading even when it can be beaten.
                    cost = cost / (2 * u.npairs) + 2 - _PAIR_BONUS - self.pair_lead_bonus
                    if u.npairs >= 2:
                        cost -= self.tractor_lead_bonus
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
        return close[self.rng.randrange(len(close))][1]

    # ---------------------------------------------------------------- following (§6.2)
    def _follow(
        self, k: Knowledge, plays: Sequence[tuple[int, Sequence[int]]], shape: Shape
    ) -> Ids:
        """Feed a partner who holds the trick safely; else win it when the points are
        worth the cards; else play the cheapest legal cards."""
        c = _FollowContext(self, k, plays, shape)
        if c.partner_safe:
            return self._follow_feed_partner(c)
        wins = self._winning_plays(k, shape, c.w_suit, c.w_val, c.reserve)
        dump = self._discard(k, shape, point_weight=2.5, reserve=c.reserve)
        if not wins:
            return dump
        if c.last:
            return self._follow_last_win(c, wins, dump)
        return self._follow_try_win(c, wins, dump)

    def _follow_feed_partner(self, c: _FollowContext) -> Ids:
        """The partner holds the trick and nobody after can beat it: give it points."""
        return self._discard(c.k, c.shape, point_weight=-self.feed_weight, reserve=c.reserve)

    def _follow_try_win(self, c: _FollowContext, wins: list[Ids], dump: Ids) -> Ids:
        """Not last: win with a play nobody after can beat, if the trick is worth it."""
        k, t, shape = c.k, c.k.t, c.shape
        dump_cost = sum((self._keep(k, i) for i in dump), 0.0)
        expected = c.trick_pts + c.kitty_val
        safe = [
            p for p in wins
            if not self._beatable_by(k, p, t.play_suit[p[0]], _val(p, shape, t), shape,
                                     c.later_opps)
        ]
        if safe:
            p = safe[0]
            gain = expected + self.lead_worth + (5 if c.partner in c.later else 0)
            if c.partner_winning and c.trick_pts + c.kitty_val < 5:
                return dump if dump_cost <= sum((self._keep(k, i) for i in p), 0.0) else p
            if gain * self.win_weight >= sum((self._keep(k, i) for i in p), 0.0) - dump_cost:
                return p
            return dump
        if c.partner_winning:
            return self._discard(k, shape, point_weight=2.5, reserve=c.reserve)
        if expected >= 10:
            return wins[-1]
        return dump

    def _follow_last_win(self, c: _FollowContext, wins: list[Ids], dump: Ids) -> Ids:
        """Last to play and an opponent holds the trick: win it cheaply if worth it."""
        k = c.k
        dump_cost = sum((self._keep(k, i) for i in dump), 0.0)
        p = wins[0]
        gain = c.trick_pts + c.kitty_val + self.lead_worth
        if gain * self.win_weight >= sum((self._keep(k, i) for i in p), 0.0) - dump_cost:
            return p
        return dump

    def _beatable_by(
        self, k: Knowledge, ids: Sequence[int], suit: int, val: int, shape: Shape,
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
        if suit == lead_suit:
            # Followers who still hold the led suit can beat in suit; void ones can ruff.
            in_suit_seats = [s for s in seats if not k.void[s][lead_suit]]
            if in_suit_seats and k.unit_beatable(lead_suit, npairs, val, in_suit_seats):
                return True
            return lead_suit != TRUMP and k.ruff_risk(lead_suit, seats) > 0.3
        # A ruff: beaten only by a higher ruff from a seat void in the led suit.
        void_seats = [s for s in seats if k.void[s][lead_suit]]
        if not void_seats:
            risky = k.ruff_risk(lead_suit, seats)
            if risky < 0.3:
                return False
            void_seats = list(seats)
        return k.unit_beatable(TRUMP, npairs, val, void_seats)

    def _winning_plays(
        self, k: Knowledge, shape: Shape, w_suit: int, w_val: int, reserve: set[int]
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
            for u in self._units_in(hand, t, suit, npairs):
                if not need_higher or u[1] > w_val:
                    out.append(u[0])
            return out
        # Ruffing a throw: carve the lead's units out of our trumps.
        for high in (False, True):
            p = self._carve(hand, t, suit, shape, high)
            if p is None:
                continue
            v = match_value(p, shape, t)
            if v is not None and (not need_higher or v > w_val) and p not in out:
                out.append(p)
        return out

    @staticmethod
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
        self, hand: Sequence[int], t: Trump, ps: int, shape: Shape, high: bool
    ) -> Ids | None:
        """Cards of suit `ps` that split into the units of a throw, lowest (or highest) first."""
        h = list(hand)
        out: Ids = []
        for u in shape.units:
            if u.npairs == 0:
                continue
            opts = self._units_in(h, t, ps, u.npairs)
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
        self, k: Knowledge, shape: Shape, point_weight: float, reserve: set[int]
    ) -> Ids:
        """The cheapest legal cards to play when not trying to win (§6.2).

        `point_weight` > 0 keeps point cards back (the opponents take the trick);
        < 0 plays them (the partner holds it).
        """
        t = k.t
        lead_suit = shape.play_suit
        n = shape.n_cards
        hand = k.hand
        h = k.suit_len[lead_suit]
        costs: dict[int, float] = {}
        # Sorting and taking minima on (cost, id) pairs: plain loops and decorated sorts
        # rather than key closures, which compiled code calls through the interpreter.
        if h >= n and n == 1:  # the common case: the cheapest single of the suit
            best = -1
            best_c = 0.0
            for i in t.suit_ids[lead_suit]:
                if hand[i]:
                    c = self._discard_cost(k, i, point_weight, reserve, costs)
                    if hand[i] >= 2:
                        c += _PAIR_BONUS
                    if best < 0 or c < best_c or (c == best_c and i < best):
                        best, best_c = i, c
            return [best]
        suit_cards = [i for i in t.suit_ids[lead_suit] for _ in range(hand[i])]
        if h >= n:
            q_ids = [i for i in t.suit_ids[lead_suit] if hand[i] >= 2]
            need = min(shape.n_pairs, len(q_ids))
            chosen: Ids = []
            if need:
                ranked = sorted([
                    (2 * self._discard_cost(k, i, point_weight, reserve, costs), i)
                    for i in q_ids
                ])
                for _, i in ranked[:need]:
                    chosen += [i, i]
            rest = list(suit_cards)
            for i in chosen:
                rest.remove(i)
            keyed: list[tuple[float, int]] = []
            for i in rest:
                c = self._discard_cost(k, i, point_weight, reserve, costs)
                keyed.append((c + _PAIR_BONUS if hand[i] >= 2 else c, i))
            keyed.sort()
            return chosen + [i for _, i in keyed[: n - len(chosen)]]
        chosen = list(suit_cards)
        ps_of = t.play_suit
        # Emptying a short side suit (towards a void) is a small bonus.
        side_len = k.suit_len
        others: list[tuple[float, int]] = []
        for i in range(N_IDS):
            if hand[i] and ps_of[i] != lead_suit:
                c = self._discard_cost(k, i, point_weight, reserve, costs)
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
        self, k: Knowledge, i: int, point_weight: float, reserve: set[int],
        costs: dict[int, float],
    ) -> float:
        """What playing card `i` away costs (`_discard`), remembered in `costs`."""
        c = costs.get(i)
        if c is None:
            c = self._dump_cost(k, i, point_weight)
            if point_weight < 0 and k.t.play_suit[i] == TRUMP:
                c -= point_weight * POINTS[i]  # never feed trump points on purpose
            if i in reserve:
                c += 100
            costs[i] = c
        return c

    def _fallback(self, k: Knowledge, shape: Shape) -> Ids:
        """When a built play is not legal (e.g. `strict_tractor_follow`): the cheapest legal one."""
        best: tuple[float, Ids] | None = None
        for count, play in enumerate(iter_follows(k.hand, shape, k.t, k.strict)):
            ids = list(play)
            c = sum((self._dump_cost(k, i, 2.5) for i in ids), 0.0)
            if best is None or c < best[0]:
                best = (c, ids)
            if count >= 2000:
                break
        assert best is not None, "a seat to act always has a legal play"
        return best[1]


_UNITS: dict[tuple[Trump, tuple[int, ...]], list[Unit]] = {}


def _units_of(ids: Sequence[int], t: Trump) -> list[Unit]:
    """`decompose` (§6.1) of the same cards in the same order, remembered: a hand's suit
    changes by one play at a time and the same suits come back turn after turn."""
    key = (t, tuple(ids))
    got = _UNITS.get(key)
    if got is None:
        if len(_UNITS) >= 20000:
            _UNITS.clear()
        got = _UNITS[key] = decompose(ids, t)
    return got


_SHAPES: dict[tuple[Trump, tuple[int, ...]], Shape] = {}


def _shape_of(ids: Sequence[int], t: Trump) -> Shape:
    """`shape_of` a lead (§6.1), remembered: the lead is read again by every follower."""
    key = (t, tuple(ids))
    got = _SHAPES.get(key)
    if got is None:
        if len(_SHAPES) >= 20000:
            _SHAPES.clear()
        got = _SHAPES[key] = shape_of(ids, t)
    return got



def _val(ids: Sequence[int], shape: Shape, t: Trump) -> int:
    v = match_value(ids, shape, t)
    return -1 if v is None else v


__all__ = ["HeuristicAgent"]


def _restore_heuristic(rng_state: tuple[Any, ...]) -> HeuristicAgent:
    """A `HeuristicAgent` with this random state (unpickling)."""
    agent = HeuristicAgent(0)
    agent.rng.setstate(rng_state)
    return agent

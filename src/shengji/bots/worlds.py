"""Determinized worlds for search: hidden cards placed consistently with one seat's view.

`WorldFacts.from_view(view)` gathers what the seat knows (RULES §11): its own
hand, every card played, the kitty it buried as the starter, and what play
revealed about the other hands — voids (a follower who did not follow suit has
none of it left), missing pairs (a follower who could not follow a pair has no
pair there), cards shown to stop a failed throw and the cards the thrower took
back (§6.4; still held unless played since) and declarations (§3.3: the declarer
held those cards; unless played since, they are still in hand, or buried in the
kitty by a starter void in trumps).
`sample_world(facts, rng)` deals the unseen cards into the other hands (and the
hidden kitty) so that every one of those facts holds; `determinize(view, rng)`
turns such a world into a `Round` to search on.

During the deal and its final window (RULES §3.1, §3.3) `DealFacts.from_view`
knows the seat's cards so far, the others' hand sizes and the declarations made
(a declarer still holds what it showed: nothing leaves a hand before the kitty);
`sample_deal` places the unseen cards in the other hands and in the undealt rest
of the deck, in drawing order, and `deal_round` builds the round in that position.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Protocol

from ..actions import Declare, Draw, Pass
from ..cards import CARDS, N_IDS
from ..errors import IllegalAction
from ..results import TrickView
from ..round import Round
from ..trump import Trump
from ..views import View
from ..vocab import Phase
from .heuristic_declare import choose_declaration
from .knowledge import Knowledge, declared_held
from .sampling import greedy_draw, pinned_start, world_of

KITTY = 4  # the hidden kitty's location index in a four-player world (seats are 0-3);
# at a table of N seats (RULES §12.1) it is N: `WorldFacts.kitty_loc`

__all__ = [
    "KITTY", "DealFacts", "PlayPolicy", "WorldError", "WorldFacts", "deal_error", "deal_round",
    "Likelihood", "determinize", "play_likelihood", "sample_deal", "sample_world", "world_error",
]


class WorldError(ValueError):
    """No placement of the hidden cards agrees with the view's facts."""


class PlayPolicy(Protocol):
    """A play policy that can be asked what it would play from a view (as card ids)."""

    def play_ids(self, view: View) -> list[int]:
        """The card ids the policy would play from `view` (its seat's turn to play)."""
        ...


@dataclass
class WorldFacts:
    """What one seat knows about where the hidden cards are (RULES §11, §6.2-§6.4, §3.3).

    `pool[i]`: unseen copies of card id `i`; `capacity[loc]`: hidden cards at each
    location (seats 0..N-1, then the kitty at `kitty_loc` = N: `KITTY` at four seats,
    RULES §12.1); `void[s][ps]`, `nopair[s][ps]` per seat and play suit (`nopair`: no
    pair, or at a table of other than two decks no k-tuple, so at most one copy of each
    card there, §6.2, §12.3); `pinned[loc][i]`: copies of `i` known to be at `loc`;
    `either[i]`: copies of `i` the starter declared with and has not played, while the
    kitty is hidden: in the starter's hand or buried in the kitty (§3.3, §4), on top of
    the pinned ones.
    """

    seat: int
    trump: Trump
    hand: list[int]
    pool: list[int]
    capacity: list[int]
    void: list[list[bool]]
    nopair: list[list[bool]]
    pinned: list[list[int]]
    kitty_known: tuple[int, ...] | None
    either: list[int] | None = None
    starter: int | None = None  # whose hand `either` may be in

    @property
    def n(self) -> int:
        """The seats at the table (RULES §12.1)."""
        return len(self.capacity) - 1

    @property
    def kitty_loc(self) -> int:
        """The kitty's location index: after the seats, so `n` (`KITTY` at four seats)."""
        return self.n

    @classmethod
    def from_view(cls, view: View) -> WorldFacts:
        """The facts of `view` (kitty or play phase, a seat's view), as `Knowledge`
        derives them: voids, missing pairs, cards held since a failed throw (§6.4), and
        declared cards not played since (§3.3, `declared_held`)."""
        me = view.seat
        t = view.trump
        if me is None or t is None or view.phase not in ("kitty", "play"):
            raise ValueError("world facts need a seat's view in the kitty or play phase")
        _check_copies(view, t.decks)
        n_seats = len(view.hand_sizes)
        kloc = n_seats
        k = Knowledge(view, t)
        hand = list(k.hand)
        pool = list(k.unseen)
        kitty_known: tuple[int, ...] | None = None
        kitty_hidden = view.phase == "play" and view.starter != me
        if k.starter_kitty:
            kitty_known = tuple(k.kitty_ids())
        if view.phase == "kitty" and view.kitty_taken is not None:
            kitty_known = tuple(c.id for c in view.kitty_taken)  # already in the hand
        capacity = [0] * (n_seats + 1)
        for s in range(n_seats):
            if s != me:
                capacity[s] = view.hand_sizes[s]
        capacity[kloc] = view.options.n_kitty if kitty_hidden else 0
        # Cards known to be in a hand: declared (§3.3) or shown to stop a throw (§6.4),
        # minus what that seat played since.
        need = declared_held(view)
        if k.held:
            for s, h in k.held.items():
                row = need[s]
                for i, n in enumerate(h):
                    if n > row[i]:
                        row[i] = n
        void, nopair = k.void, k.nopair
        ps_of = t.play_suit
        pinned = [[0] * N_IDS for _ in range(n_seats + 1)]
        either = [0] * N_IDS
        left = list(pool)
        held = k.held or {}
        for s in range(n_seats):
            for i in range(N_IDS):
                n = min(need[s][i], left[i])
                if n <= 0:
                    continue
                loc = s
                if void[s][ps_of[i]] or (n >= 2 and nopair[s][ps_of[i]]):
                    # It left that hand without being played: the starter buried it (§4).
                    if s != view.starter or not kitty_hidden:
                        continue
                    loc = kloc
                elif s == view.starter and kitty_hidden:
                    # Cards shown to stop a throw (§6.4) are in the hand; cards it only
                    # declared with may have been buried (§4).
                    shown = held[s][i] if s in held else 0
                    maybe = n - min(n, shown)
                    either[i] += maybe
                    left[i] -= maybe
                    n -= maybe
                    if n <= 0:
                        continue
                pinned[loc][i] += n
                left[i] -= n
        return cls(me, t, hand, pool, capacity, [list(v) for v in void],
                   [list(v) for v in nopair], pinned, kitty_known,
                   either if any(either) else None,
                   view.starter if any(either) else None)


def _check_copies(view: View, decks: int) -> None:
    """Refuse a view that shows a card more than `decks` times (its own hand, every play
    and the kitty it buried: two decks, RULES §2; d decks, §12.1)."""
    seen = [0] * N_IDS
    for c in view.hand:
        seen[c.id] += 1
    for _, cards in view.plays_so_far():
        for c in cards:
            seen[c.id] += 1
    if view.kitty is not None and view.starter == view.seat:
        for c in view.kitty:
            seen[c.id] += 1
    if max(seen) > decks:
        raise ValueError(f"the view shows more than {decks} copies of a card")


def _allowed(f: WorldFacts, loc: int, i: int) -> bool:
    if loc == f.kitty_loc:
        return True
    return not f.void[loc][f.trump.play_suit[i]]


def sample_world(f: WorldFacts, rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """Deal the unseen cards consistently with the facts: the N hands (count arrays, the
    seat's own as it is) and the kitty ids (the known kitty, or the sampled hidden one)."""
    for _ in range(60):
        out = _try_sample(f, rng)
        if out is not None:
            return out
    # The greedy draws above can paint themselves into a corner (a card whose every
    # allowed place is already full) although a world exists: the true one always
    # does. An exact search (a flow of cards to places) then finds one, if any; only
    # when none keeps every fact is a pair allowed where a seat showed none.
    out = _flow_sample(f, rng) or _try_sample(f, rng, relax_pairs=True)
    if out is not None:
        return out
    raise WorldError("no world is consistent with this view")  # only for an impossible view


def _pinned_start(f: WorldFacts) -> tuple[list[list[int]], list[int], list[int]]:
    """The start of every draw (`sampling.pinned_start`): each place's hand holding its
    pinned cards, each place's capacity left, the pool's copies left to place."""
    return pinned_start(f.capacity, f.pool, f.pinned)


def _flow_sample(
    f: WorldFacts, rng: random.Random
) -> tuple[list[list[int]], list[int]] | None:
    """A world that keeps every fact, found exactly (augmenting paths on the flow
    network unseen card -> place -> capacity), or None if no world keeps them all.

    The places' order is shuffled so that repeated calls differ, but the draw is not
    uniform: `sample_world` uses it only when the weighted greedy draws failed.
    """
    hands, cap, rest = _pinned_start(f)
    if f.either is None:
        return _flow_fill(f, hands, cap, rest, rng)
    # The copies that are in the starter's hand or the kitty: try every split (a few
    # copies at most, so a few splits), each completed by the flow.
    st = f.starter
    assert st is not None
    copies = [i for i, n in enumerate(f.either) for _ in range(n)]
    splits = list(range(1 << len(copies)))[:256]
    rng.shuffle(splits)
    for mask in splits:
        h = [row[:] for row in hands]
        c, r = list(cap), list(rest)
        for b, i in enumerate(copies):
            loc = st if mask >> b & 1 else f.kitty_loc
            h[loc][i] += 1
            c[loc] -= 1
            r[i] -= 1
        if any(h[st][i] and f.void[st][f.trump.play_suit[i]] for i in copies):
            continue
        out = _flow_fill(f, h, c, r, rng)
        if out is not None and world_error(f, *out) is None:
            return out
    return None


def _flow_fill(
    f: WorldFacts,
    hands: list[list[int]],
    cap: list[int],
    rest: list[int],
    rng: random.Random,
) -> tuple[list[list[int]], list[int]] | None:
    """Complete `hands` (pins placed, `cap` room left, `rest` copies to place) exactly."""
    if min(cap) < 0 or min(rest) < 0 or sum(rest) != sum(c for c in cap if c > 0):
        return None
    ps_of = f.trump.play_suit
    n_locs = len(cap)
    kloc = n_locs - 1
    # room[i][loc]: how many more copies of card i place loc may take (a seat that
    # showed no pair in the card's play suit holds at most one copy, RULES §6.2)
    room = [[0] * n_locs for _ in range(N_IDS)]
    for i in range(N_IDS):
        if not rest[i]:
            continue
        for loc in range(n_locs):
            if cap[loc] <= 0 or not _allowed(f, loc, i):
                continue
            if loc != kloc and f.nopair[loc][ps_of[i]]:
                room[i][loc] = max(0, 1 - hands[loc][i])
            else:
                room[i][loc] = rest[i]
    flow = [[0] * n_locs for _ in range(N_IDS)]
    used = [0] * n_locs
    order = list(range(n_locs))
    for i in range(N_IDS):
        for _ in range(rest[i]):
            rng.shuffle(order)
            if not _augment(i, room, flow, used, cap, order):
                return None
    for i in range(N_IDS):
        for loc in range(n_locs):
            hands[loc][i] += flow[i][loc]
    return _world_of(f, hands)


def _augment(
    card: int,
    room: list[list[int]],
    flow: list[list[int]],
    used: list[int],
    cap: list[int],
    order: list[int],
) -> bool:
    """Place one more copy of `card`, moving earlier cards between places if needed
    (a breadth-first augmenting path card -> place -> card -> ... -> a place with room)."""
    # BFS over places; parent[loc] = (previous place or -1, the card moved into loc)
    parent: dict[int, tuple[int, int]] = {}
    queue: list[int] = []
    for loc in order:
        if flow[card][loc] < room[card][loc]:
            parent[loc] = (-1, card)
            queue.append(loc)
    head = 0
    while head < len(queue):
        loc = queue[head]
        head += 1
        if used[loc] < cap[loc]:
            used[loc] += 1  # the path ends here: only this place holds one more card
            while True:  # apply the moves back to the new copy of `card`
                prev, moved = parent[loc]
                flow[moved][loc] += 1
                if prev < 0:
                    return True
                flow[moved][prev] -= 1
                loc = prev
        for other in range(N_IDS):
            if not flow[other][loc]:
                continue
            for nxt in order:
                if nxt not in parent and flow[other][nxt] < room[other][nxt]:
                    parent[nxt] = (loc, other)
                    queue.append(nxt)
    return False



def _try_sample(
    f: WorldFacts, rng: random.Random, relax_pairs: bool = False
) -> tuple[list[list[int]], list[int]] | None:
    """One greedy draw (compiled: `sampling.greedy_draw`), or None if it got stuck."""
    return greedy_draw(f.seat, f.trump, f.hand, f.pool, f.capacity, f.void, f.nopair,
                       f.pinned, f.kitty_known, f.either, f.starter, rng, relax_pairs)


def _world_of(
    f: WorldFacts, hands: list[list[int]]
) -> tuple[list[list[int]], list[int]]:
    """The world of filled places (`sampling.world_of`): the seats' hands and the kitty."""
    return world_of(f.seat, f.hand, f.kitty_known, hands)


def world_error(f: WorldFacts, hands: list[list[int]], kitty: list[int]) -> str | None:
    """Which fact a world breaks (None: consistent) — used by tests and assertions."""
    kloc = f.kitty_loc
    if len(hands) != kloc:
        return f"{len(hands)} hands, not {kloc}"
    total = [0] * N_IDS
    for h in hands:
        for i, n in enumerate(h):
            total[i] += n
    if hands[f.seat] != f.hand:
        return "the seat's own hand changed"
    for s in range(kloc):
        if s != f.seat and sum(hands[s]) != f.capacity[s]:
            return f"seat {s} holds {sum(hands[s])} cards, not {f.capacity[s]}"
        for i, n in enumerate(hands[s]):
            if not n or s == f.seat:
                continue
            ps = f.trump.play_suit[i]
            if f.void[s][ps]:
                return f"seat {s} is void in play suit {ps} but holds card {i}"
            if f.nopair[s][ps] and n >= 2:
                return f"seat {s} showed no pair in play suit {ps} but holds a pair of {i}"
        for i, n in enumerate(f.pinned[s]):
            if hands[s][i] < n:
                return f"seat {s} must still hold {n} of card {i} (declared or shown)"
    hidden_kitty = f.capacity[kloc] > 0
    if hidden_kitty:
        if len(kitty) != f.capacity[kloc]:
            return f"the hidden kitty must hold {f.capacity[kloc]} cards"
        for i in kitty:
            total[i] += 1
        for i, n in enumerate(f.pinned[kloc]):
            if kitty.count(i) < n:
                return f"the kitty must hold card {i}"
    if f.either is not None and f.starter is not None:
        for i, n in enumerate(f.either):
            at = (hands[f.starter][i] - f.pinned[f.starter][i]
                  + kitty.count(i) - f.pinned[kloc][i])
            if n and at < n:
                return f"the starter's hand or the kitty must hold card {i} (declared)"
    unseen_total = [total[i] - f.hand[i] for i in range(N_IDS)]
    if unseen_total != f.pool:
        return "the unseen cards are not conserved"
    return None


def determinize(view: View, rng: random.Random, facts: WorldFacts | None = None) -> Round:
    """A round in `view`'s position with the hidden cards sampled by `sample_world`."""
    f = facts or WorldFacts.from_view(view)
    hands, kitty = sample_world(f, rng)
    return Round.from_view(view, hands, kitty)


def play_likelihood(
    view: View,
    hands: list[list[int]],
    kitty: list[int],
    policy: PlayPolicy,
    tricks_back: int = 2,
    miss: float = 0.35,
) -> float:
    """How likely the other seats' recent plays are in this world, under `policy`.

    Each play by another seat in the current trick and the last `tricks_back`
    completed tricks is replayed from that seat's position then (its hand in this
    world plus what it played since; what it could see then): a play the policy
    would also have made counts 1, another play counts `miss`. The product weighs a
    world by how well it explains what the others did (inference from play).
    `Likelihood` is the same for many worlds of one view (the search).
    """
    return Likelihood(view, tricks_back, miss).weight(hands, kitty, policy)


class _Point:
    """One play `Likelihood` replays: who played what, at which point of the round."""

    __slots__ = ("ti", "j", "seat", "played", "back", "sizes", "plays", "trick", "fast",
                 "template", "pool")

    def __init__(self, ti: int, j: int, seat: int, played: list[int], back: list[int],
                 sizes: tuple[int, ...], plays: list[tuple[int, list[int]]],
                 trick: TrickView, fast: bool) -> None:
        self.ti, self.j, self.seat, self.played, self.back = ti, j, seat, played, back
        self.sizes, self.plays, self.trick, self.fast = sizes, plays, trick, fast
        self.template: Knowledge | None = None
        self.pool: tuple[list[int], list[int], int, int] | None = None  # template.pool()


class Likelihood:
    """`play_likelihood` for one view, ready to weigh many sampled worlds (issue 31).

    What does not depend on the world is found once: the plays to replay, the cards each
    seat played since, the hand sizes then. The knowledge a seat had at such a point is
    built from its view then (`Knowledge(view)`) for the first world only; for the next
    worlds it is that knowledge with the world's hand (and kitty, for the starter) put in
    (`Knowledge.for_seat`: the same arrays a view would give, RULES §11), so no view is
    made and no trick is read again. A point after a failed throw (the thrower's and the
    blocker's cards held since, §6.4) and a policy without `choose_play` are replayed
    from a view every time, as `play_likelihood` always did.
    """

    def __init__(self, view: View, tricks_back: int = 2, miss: float = 0.35,
                 passes: bool = False) -> None:
        self.view, self.miss = view, miss
        self.points: list[_Point] = []
        #: `passes`: the seats whose last word in the final declaration window was a pass
        #: (`_Passed`), weighed by whether the policy would have declared instead
        self.passed: list[_Passed] = []
        me = view.seat
        if me is None or view.trump is None or view.phase != "play":
            return
        if passes:
            self.passed = _passed_seats(view)
        tricks = list(view.tricks)
        cur = view.current_trick
        seq: list[tuple[int, int]] = []  # (trick index, play index) of others' plays
        first = max(0, len(tricks) - tricks_back)
        for ti in range(first, len(tricks)):
            seq += [(ti, j) for j, (s, _) in enumerate(tricks[ti].plays) if s != me]
        all_tricks = tricks + ([cur] if cur is not None and cur.plays else [])
        if cur is not None and cur.plays:
            seq += [(len(tricks), j) for j, (s, _) in enumerate(cur.plays) if s != me]
        for ti, j in seq:
            trick = all_tricks[ti]
            seat, cards = trick.plays[j]
            if any(f.trick == ti and f.seat == seat for f in view.failed_throws) and j == 0:
                continue  # a failed throw's lead was not what the seat chose to play
            back: list[int] = []
            sizes = list(view.hand_sizes)
            for tj in range(ti, len(all_tricks)):  # give back what was played since
                for k, (s, cs) in enumerate(all_tricks[tj].plays):
                    if tj == ti and k < j:
                        continue
                    sizes[s] += len(cs)
                    if s == seat:
                        back += [c.id for c in cs]
            self.points.append(_Point(
                ti, j, seat, sorted(c.id for c in cards), back,
                tuple(sizes),
                [(s, [c.id for c in cs]) for s, cs in trick.plays[:j]], trick,
                not any(f.trick < ti for f in view.failed_throws)))

    def weight(self, hands: list[list[int]], kitty: list[int], policy: PlayPolicy) -> float:
        """The world's weight (`play_likelihood`) under `policy`."""
        return self._weigh(hands, kitty, policy, -1.0)

    def accepts(
        self, hands: list[list[int]], kitty: list[int], policy: PlayPolicy, draw: float
    ) -> bool:
        """Whether rejection sampling keeps the world for the uniform `draw`:
        `draw < weight(...)`, found without replaying the plays left once the weight
        (which only falls) is down to `draw`."""
        return draw < self._weigh(hands, kitty, policy, draw)

    def _weigh(
        self, hands: list[list[int]], kitty: list[int], policy: PlayPolicy, floor: float
    ) -> float:
        """The weight, or a value at most `floor` as soon as it is known to be."""
        view = self.view
        starter = view.starter
        choose = getattr(policy, "choose_play", None)
        weight = 1.0
        for passed in self.passed:
            if passed.would_declare(hands[passed.seat]):
                weight *= self.miss
                if weight <= floor:
                    return weight
        for p in self.points:
            seat = p.seat
            hand = list(hands[seat])
            for i in p.back:
                hand[i] += 1
            own_kitty = kitty if seat == starter else None
            tk = p.template
            if choose is not None and p.fast and tk is not None:
                if p.pool is None:
                    p.pool = tk.pool()
                k = tk.for_seat(seat, hand, own_kitty, tk.void, tk.nopair, tk.hand_sizes,
                                p.pool)
                choice = choose(k, p.plays)
            else:
                trick = p.trick
                past = replace(
                    view,
                    seat=seat,
                    hand=tuple([CARDS[i] for i in range(N_IDS) for _ in range(hand[i])]),
                    hand_sizes=p.sizes,
                    tricks=tuple(view.tricks[:p.ti]),
                    current_trick=TrickView(trick.leader, trick.plays[:p.j], None, 0),
                    failed_throws=tuple(f for f in view.failed_throws if f.trick < p.ti),
                    kitty=tuple(CARDS[i] for i in own_kitty) if own_kitty is not None else None,
                    to_act=seat,
                )
                if choose is not None and p.fast:
                    t = view.trump
                    assert t is not None
                    tk = p.template = Knowledge(past, t)
                    choice = choose(tk, p.plays)
                else:
                    choice = policy.play_ids(past)
            if sorted(choice) != p.played:
                weight *= self.miss
                if weight <= floor:
                    return weight
        return weight


class _Passed:
    """A seat that passed when the final declaration window closed (RULES §3.3: the
    window closes once every seat in a row has passed), facing the declaration that
    stood: would the heuristic have overturned it with that seat's hand then? Its hand
    then is its hand now and every card it has played (nothing enters a hand but the
    starter's, with the kitty, §4). The heuristic reads a first round (the declaration
    picks the declarers, §3.4) otherwise than a later one, and a view in play does not
    say which this was unless the declarer did not become the starter: when either
    could be, the pass counts only if both readings would have declared."""

    __slots__ = ("seat", "played", "key_ids", "need", "views")

    def __init__(self, view: View, seat: int, played: list[int]) -> None:
        self.seat = seat
        self.played = played
        rank = view.trump_rank
        # the ids that could make a declaration (§3.3): the trump rank's cards, the jokers
        self.key_ids = [i for i in range(N_IDS) if CARDS[i].is_joker or CARDS[i].rank == rank]
        # fewer copies of every such id than this cannot declare over what stood
        self.need = 2 if view.declarations else 1
        first = view.declarer is None or view.starter == view.declarer
        readings = [view.declaring_team] + ([None] if first and view.declaring_team is not None
                                            else [])
        base = replace(view, seat=seat, phase=Phase.DECLARE, to_act=seat, tricks=(),
                       current_trick=None, failed_throws=(), kitty=None, kitty_taken=None,
                       lead_shape=None, trump=None)
        self.views = [replace(base, declaring_team=team) for team in readings]

    def would_declare(self, hand_now: list[int]) -> bool:
        """Whether the heuristic, holding `hand_now` plus what this seat has played, would
        have declared in the window under every reading of the round."""
        hand = list(hand_now)
        for i in self.played:
            hand[i] += 1
        if all(hand[i] < self.need for i in self.key_ids):
            return False  # no declaration to make (the common case: no view built)
        cards = tuple([CARDS[i] for i in range(N_IDS) for _ in range(hand[i])])
        for v in self.views:
            past = replace(v, hand=cards, hand_counts=None)
            options = past.legal_declarations()
            if not options:
                return False
            if not isinstance(choose_declaration(past, self.seat, options, _NO_RNG), Declare):
                return False
        return True


#: the heuristic draws no noise in the final window (`choose_declaration`)
_NO_RNG = random.Random(0)


def _passed_seats(view: View) -> list[_Passed]:
    """The other seats whose passes in the final window `Likelihood` weighs: not the
    standing declarer (it does not overturn itself), not the starter (its hand then held
    kitty cards it later buried, which nobody else saw, §4), at four seats in teams only
    (friends mode reads its declarations otherwise, §12.4)."""
    me = view.seat
    if view.sides or view.options.n_players != 4 or view.trump_rank is None:
        return []
    played: dict[int, list[int]] = {}
    for s, cards in view.plays_so_far():
        played.setdefault(s, []).extend(c.id for c in cards)
    return [_Passed(view, s, played.get(s, [])) for s in range(view.options.n_players)
            if s not in (me, view.starter, view.declarer)]


# ==================================================================== the deal (§3)
@dataclass
class DealFacts:
    """What one seat knows about the hidden cards during the deal or its final window.

    `hand`: its own cards so far (counts per id); `pool[i]`: unseen copies of id `i`
    (in other hands or still to be drawn); `sizes[s]`: cards seat `s` holds now (N seats,
    RULES §12.1); `n_undealt`: cards still in the deck, the kitty included; `pinned[s][i]`:
    copies of `i` seat `s` is known to hold (it declared with them, RULES §3.3).
    """

    seat: int
    hand: list[int]
    pool: list[int]
    sizes: list[int]
    n_undealt: int
    pinned: list[list[int]]

    @classmethod
    def from_view(cls, view: View) -> DealFacts:
        """The facts of `view` (a seat's view in the deal or declare phase)."""
        me = view.seat
        if me is None or view.phase not in ("deal", "declare"):
            raise ValueError("deal facts need a seat's view in the deal or declare phase")
        decks = view.options.n_decks
        hand = [0] * N_IDS
        for c in view.hand:
            hand[c.id] += 1
        pool = [decks - n for n in hand]
        if min(pool) < 0:
            raise ValueError(f"the view shows more than {decks} copies of a card")
        sizes = list(view.hand_sizes)
        drawn = sum(sizes)
        pinned = declared_held(view)  # nothing has left a hand yet (§3.1)
        for i in range(N_IDS):
            if sum(row[i] for row in pinned) > pool[i]:
                raise ValueError(f"the declarations show more copies of card {i} than unseen")
        return cls(me, hand, pool, sizes, N_IDS * decks - drawn, pinned)


def sample_deal(f: DealFacts, rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """Deal the unseen cards consistently with the facts: the N hands (count arrays, the
    seat's own as it is) and the undealt cards in drawing order (the kitty last).

    Uniform over the placements that keep every declarer's shown cards in its hand;
    that a seat did not declare is not read as a fact (bots wait for a long suit).
    """
    n_seats = len(f.sizes)
    hands = [[0] * N_IDS for _ in range(n_seats)]
    rest = list(f.pool)
    cap = list(f.sizes)
    cap[f.seat] = 0
    for s in range(n_seats):
        if s == f.seat:
            continue
        for i, n in enumerate(f.pinned[s]):
            if n:
                hands[s][i] += n
                rest[i] -= n
                cap[s] -= n
    if min(cap) < 0:
        raise WorldError("a declarer holds fewer cards than it declared with")
    cards = [i for i in range(N_IDS) for _ in range(rest[i])]
    rng.shuffle(cards)
    k = 0
    for s in range(n_seats):
        for i in cards[k : k + cap[s]]:
            hands[s][i] += 1
        k += cap[s]
    undealt = cards[k:]
    if len(undealt) != f.n_undealt:
        raise WorldError("the view's hand sizes and undealt cards do not add up to the deck")
    hands[f.seat] = f.hand[:]
    return hands, undealt


def deal_error(f: DealFacts, hands: list[list[int]], undealt: list[int]) -> str | None:
    """Which fact a deal-phase world breaks (None: consistent) — for tests and assertions."""
    if hands[f.seat] != f.hand:
        return "the seat's own hand changed"
    if len(hands) != len(f.sizes):
        return f"{len(hands)} hands, not {len(f.sizes)}"
    for s in range(len(f.sizes)):
        if sum(hands[s]) != f.sizes[s]:
            return f"seat {s} holds {sum(hands[s])} cards, not {f.sizes[s]}"
        for i, n in enumerate(f.pinned[s]):
            if hands[s][i] < n:
                return f"seat {s} must still hold {n} of card {i} (declared)"
    if len(undealt) != f.n_undealt:
        return f"{len(undealt)} undealt cards, not {f.n_undealt}"
    unseen = [-f.hand[i] for i in range(N_IDS)]
    for h in hands:
        for i, n in enumerate(h):
            unseen[i] += n
    for i in undealt:
        unseen[i] += 1
    if unseen != f.pool:
        return "the unseen cards are not conserved"
    return None


def deal_round(view: View, hands: list[list[int]], undealt: list[int]) -> Round:
    """A round in the deal (or final declaration window) position `view` shows, with the
    hidden cards placed as given: the hands so far and the rest of the deck in drawing order.

    Built through the public engine: a deck (`Round(..., deck=)`) with each seat's cards
    at the places it drew from, its declared cards first, the draws made so far and the
    declarations replayed in order (RULES §3.1, §3.3). In the final window the seats asked
    before the one asked now are taken to have passed since the deal ended (a view does
    not tell whether the last declaration came in the window). The result has its own
    action history, not the real one's. Raises `WorldError` if the world does not fit.
    """
    me = view.seat
    if me is None or view.phase not in ("deal", "declare") or view.trump_rank is None:
        raise WorldError("a deal world needs a seat's view in the deal or declare phase")
    options = view.options
    n_seats = len(view.hand_sizes)
    deck_size = N_IDS * options.n_decks
    first = view.starter if view.starter is not None else options.first_drawer
    sizes = [sum(h) for h in hands]
    drawn = sum(sizes)
    if len(hands) != n_seats or drawn + len(undealt) != deck_size:
        raise WorldError(
            f"{n_seats} hands and the undealt cards must make the {deck_size} cards")
    declared = [[0] * N_IDS for _ in range(n_seats)]
    for s, cards in view.declarations:
        cnt: dict[int, int] = {}
        for c in cards:
            cnt[c.id] = cnt.get(c.id, 0) + 1
        for i, n in cnt.items():
            declared[s][i] = max(declared[s][i], n)
    per_seat: list[list[int]] = []
    for s in range(n_seats):
        first_ids = [i for i in range(N_IDS) for _ in range(min(declared[s][i], hands[s][i]))]
        rest = list(hands[s])
        for i in first_ids:
            rest[i] -= 1
        per_seat.append(first_ids + [i for i in range(N_IDS) for _ in range(rest[i])])
    deck: list[int] = []
    taken = [0] * n_seats
    for p in range(drawn):
        s = (first + p) % n_seats
        if taken[s] >= len(per_seat[s]):
            raise WorldError("the hand sizes do not fit the drawing order (RULES §3.1)")
        deck.append(per_seat[s][taken[s]])
        taken[s] += 1
    if taken != sizes:
        raise WorldError("the hand sizes do not fit the drawing order (RULES §3.1)")
    deck += undealt
    try:
        rnd = Round(
            "world", options, trump_rank=view.trump_rank, starter=view.starter,
            declaring_team=view.declaring_team, round_no=view.round_no, levels=view.levels,
            deck=deck,
        )
        window = view.phase == "declare"
        draw = Draw()
        for _ in range(drawn - 1 if window else drawn):
            rnd.step(draw)
        for s, cards in view.declarations:
            rnd.step(Declare(s, tuple(cards)))
        if window:
            rnd.step(draw)
            for _ in range(n_seats - 1):
                asked = rnd.decision().seat
                if asked is None or asked == view.to_act:
                    break
                rnd.step(Pass(asked))
    except IllegalAction as e:
        raise WorldError(f"the world does not fit the view: {e}") from None
    d = rnd.decision()
    asked = d.seat if window else d.last_drawer
    if str(d.phase) != str(view.phase) or asked != me or rnd.hand_counts(me) != tuple(
        hands[me]
    ):
        raise WorldError("the rebuilt deal is not in the view's position")
    return rnd

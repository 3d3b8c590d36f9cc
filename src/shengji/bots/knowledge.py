"""What one seat knows about the hidden cards: the one information-set module of the bots.

A seat sees its own hand, every card played, the declarations (RULES §3.3), the
kitty it buried if it is the starter (§4) and the failed throws (§6.4) — nothing
else (§11). From those, play reveals facts about the other hands:

- a follower who played fewer cards of the led suit than were led has none left:
  it is void there (§6.2);
- a follower who could not match the pairs of a lead with pairs of the led suit has
  no pair left there (§6.2: pairs must follow pairs while the hand has them);
- a failed throw shows the blocker's beating cards and gives the rest back to the
  thrower: both stay in those hands until played (§6.4);
- a declarer held the cards it declared with (§3.3); unless played since they are
  still in its hand, or in the kitty the starter buried (`declared_held`).

`Knowledge` keeps these facts as count arrays for the heuristic (and for the
expert's rollouts, where it is updated one play at a time: the hot path); the
expert's world sampler (`worlds.WorldFacts`) reads the same object, so each fact is
derived here only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..botkit import N_IDS, POINTS, TRUMP, Card, Trump, View, as_list

if TYPE_CHECKING:
    from ..botkit import TrickView

__all__ = [
    "Knowledge", "declared_held", "open_calls", "other_seats", "seat_sides", "sides_of",
    "view_key",
]


class Knowledge:
    """What one seat knows during the play (RULES §11), as count arrays per card id.

    Built from a seat's `View` (`Knowledge(view, view.trump)`), then kept up to date
    from the plays made since (`sync(view)`, or `observe` / `observe_public` one play at
    a time in a search world). Its fields are public for the bots to read; only this
    class writes them:

    - `hand[i]`, `suit_len[ps]`, `n_hand`: the seat's own cards (per id, per play suit);
    - `unseen[i]`, `unseen_len[ps]`, `n_unseen`, `unseen_pts`: copies the seat has not
      seen (not in its hand, not played, not in the kitty it buried as the starter, §4);
    - `void[s][ps]`: seat `s` showed it has no card of play suit `ps` left (it did not
      follow suit, §6.2); `nopair[s][ps]`: it showed no pair there (it did not follow a
      pair, or a tractor's or throw's pairs, with pairs, §6.2);
    - `held[s][i]`: copies of `i` known to be in seat `s`'s hand since a failed throw
      (the blocker's shown cards and the thrower's taken-back ones, less what it played
      since, §6.4), None when there was no failed throw;
    - `hand_sizes[s]`; `starter_kitty`, `kitty_pts` and `kitty_ids()`: the kitty the
      seat buried itself, if it is the starter (§4, §8.1);
    - what it proves: `higher_single` / `higher_pair` / `higher_tractor` /
      `unit_beatable` (could one of some seats beat a unit, §6.1, §6.3), `sure_level`,
      `ruff_risk`, `unseen_for` (the unseen cards some seats may hold).

    `world` and `for_seat` give the four seats' knowledge in a sampled world (search).
    """

    __slots__ = (
        "t", "me", "hand", "unseen", "void", "nopair", "n_levels", "suit_len",
        "unseen_len", "hand_sizes", "starter_kitty", "kitty_pts", "strict", "_buried",
        "n_hand", "n_unseen", "unseen_pts", "sure_cache", "held", "options", "key", "n_done",
        "n_part", "mark", "declarers", "n", "mates", "declaring", "n_kitty",
        "open_calls", "leader", "friends",
    )

    def __init__(self, view: View | None, t: Trump) -> None:
        self.t = t
        if view is None:  # a blank to fill in (`_in_world`); compiled classes have no
            return  # object.__new__ path
        me = view.seat
        assert me is not None
        self.me = me
        # The hand before the tricks of the view: its own plays are observed below.
        hand = [0] * N_IDS
        for c in view.hand:
            hand[c.id] += 1
        for s, cards in view.plays_so_far():
            if s == me:
                for c in cards:
                    hand[c.id] += 1
        self.hand = hand
        self.n = n_seats = len(view.hand_sizes)
        self.unseen = [t.decks - n for n in hand]
        self.void = [[False] * 5 for _ in range(n_seats)]
        self.nopair = [[False] * 5 for _ in range(n_seats)]
        self.options = view.options
        self.n_kitty = view.options.n_kitty
        self.declarers = view.declaring_team if view.declaring_team is not None else -1
        # friends mode (§12.4): the leader (-1 before it is known; None in teams mode)
        # and the friends who joined
        self.leader = _leader_of(view)
        self.friends: tuple[int, ...] = view.friends
        self.mates, self.declaring = sides_of(view)
        self.open_calls = open_calls(view)
        self.strict = view.options.strict_tractor_follow
        self.key: tuple[object, ...] | None = view_key(view)
        self.starter_kitty = False
        self._buried: list[int] = []
        self.kitty_pts = 0
        unseen = self.unseen
        if view.kitty is not None and view.starter == me and not view.game_over:
            self.starter_kitty = True
            self._buried = [c.id for c in view.kitty]
            for c in view.kitty:
                unseen[c.id] -= 1
                self.kitty_pts += c.points
        self.n_levels = [len(lv) for lv in t.ids_at_level]
        self.suit_len = [sum(hand[i] for i in ids) for ids in t.suit_ids]
        self.n_done = 0
        self.n_part = 0
        self.mark: tuple[tuple[int, tuple[Card, ...]], ...] = ()
        for i in range(N_IDS):
            if unseen[i] < 0:  # defensive: never negative
                unseen[i] = 0
        self._count()
        self.unseen_len = [sum(unseen[i] for i in ids) for ids in t.suit_ids]
        self.held: dict[int, list[int]] | None = None
        self.hand_sizes = list(view.hand_sizes)
        if not self._catch_up(view):
            raise ValueError("the view's hand does not match its tricks")

    def sync(self, view: View) -> bool:
        """Bring this knowledge up to `view` from the plays made since it was last synced
        (RULES §11: only what the seat saw). False when `view` is not a later moment of
        the same round for the same seat (the caller then rebuilds from the view)."""
        if view_key(view) != self.key:
            return False
        return self._catch_up(view)

    def _catch_up(self, view: View) -> bool:
        """Observe every play of `view` not seen yet; check the result against its hand."""
        tricks = view.tricks
        cur = view.current_trick
        nd, npart = self.n_done, self.n_part
        n_tricks = len(tricks)
        if n_tricks < nd:
            return False
        # What was seen last must still be there, unchanged.
        if npart:
            src = tricks[nd].plays if n_tricks > nd else (cur.plays if cur is not None else ())
            if src[:npart] != self.mark:
                return False
        elif nd and tricks[nd - 1].plays != self.mark:
            return False
        for ti in range(nd, n_tricks):
            self._see_trick(tricks[ti].plays, npart if ti == nd else 0)
        cur_plays = cur.plays if cur is not None else ()
        start = npart if n_tricks == nd else 0
        if len(cur_plays) > start:
            self._see_trick(cur_plays, start)
        if cur_plays:
            self.n_done, self.n_part, self.mark = n_tricks, len(cur_plays), cur_plays
        elif n_tricks:
            self.n_done, self.n_part, self.mark = n_tricks, 0, tricks[-1].plays
        self.hand_sizes = list(view.hand_sizes)
        if view.calls:  # friends mode (§12.4): a friend may have joined since
            self.mates, self.declaring = sides_of(view)
            self.open_calls = open_calls(view)
            self.friends = view.friends
        if view.failed_throws:  # rare: recomputed from the tricks
            self.held = self._failed_throw_cards(view, tricks, cur)
        # The seat's own hand is the check that nothing was missed.
        hand = self.hand
        if self.n_hand != len(view.hand):
            return False
        seen = [0] * N_IDS
        for c in view.hand:
            i = c.id
            seen[i] += 1
            if seen[i] > hand[i]:
                return False
        return True

    def _see_trick(self, plays: Sequence[tuple[int, Sequence[Card]]], start: int) -> None:
        lead = [c.id for c in plays[0][1]]
        lead_pairs = len(lead) - len(set(lead)) if self.t.decks == 2 else -1
        for j in range(start, len(plays)):
            seat, cards = plays[j]
            ids = lead if j == 0 else [c.id for c in cards]
            self.observe(seat, ids, None)
            if j:
                self._see_follow(seat, ids, lead, lead_pairs)

    def world(
        self, hands: Sequence[Sequence[int]], kitty: Sequence[int], starter: int,
        pool: tuple[list[int], list[int], int, int] | None = None,
    ) -> list[Knowledge]:
        """Every seat's knowledge in a determinized world (search rollouts).

        `self` is the searching seat's knowledge of the position; `hands` the world's
        hands (one per seat, RULES §12.1) and `kitty` its buried kitty (known to `starter`
        only). The public facts (voids, missing pairs, hand sizes) are fresh copies shared
        by all the seats. `pool`: `self.pool()` if the caller kept it (it is the same for
        every world of one decision).
        """
        void = [list(v) for v in self.void]
        nopair = [list(v) for v in self.nopair]
        sizes = [sum(h) for h in hands]
        if pool is None:
            pool = self.pool()
        return [
            self._in_world(s, hands[s], kitty if s == starter else None, void, nopair, sizes,
                           pool)
            for s in range(len(hands))
        ]

    def for_seat(
        self, seat: int, hand: Sequence[int], kitty: Sequence[int] | None,
        void: list[list[bool]], nopair: list[list[bool]], hand_sizes: list[int],
        pool: tuple[list[int], list[int], int, int] | None = None,
    ) -> Knowledge:
        """The knowledge `seat` would have in a world where it holds `hand` (search only).

        `self`'s own hand and kitty go back to the unseen pool first; `kitty` is the
        seat's buried kitty if it is the starter; the public facts are the given lists;
        `pool`: `self.pool()` if the caller kept it.
        """
        return self._in_world(seat, hand, kitty, void, nopair, hand_sizes,
                              self.pool() if pool is None else pool)

    def pool(self) -> tuple[list[int], list[int], int, int]:
        """The cards not played yet (unseen, own hand, own kitty): per id, per play suit,
        their points and their number (`world`; read only, not to be changed)."""
        pool = [u + h for u, h in zip(self.unseen, self.hand, strict=True)]
        if self.starter_kitty:
            for i in self._buried:
                pool[i] += 1
        ps_of = self.t.play_suit
        per_suit = [0] * 5
        pts = n_all = 0
        for i, n in enumerate(pool):
            if n:
                per_suit[ps_of[i]] += n
                pts += POINTS[i] * n
                n_all += n
        return pool, per_suit, pts, n_all

    def _in_world(
        self, seat: int, hand: Sequence[int], kitty: Sequence[int] | None,
        void: list[list[bool]], nopair: list[list[bool]], hand_sizes: list[int],
        pool: tuple[list[int], list[int], int, int],
    ) -> Knowledge:
        ids_left, per_suit, pts, n_unseen = pool
        ps_of = self.t.play_suit
        k = Knowledge(None, self.t)
        k.me = seat
        k.hand = list(hand)
        unseen = list(ids_left)
        unseen_len = list(per_suit)
        suit_len = [0] * 5
        n_hand = 0
        for i, n in enumerate(hand):
            if n:
                unseen[i] -= n
                ps = ps_of[i]
                suit_len[ps] += n
                unseen_len[ps] -= n
                pts -= POINTS[i] * n
                n_unseen -= n
                n_hand += n
        k.kitty_pts = 0
        k.starter_kitty = kitty is not None
        k._buried = list(kitty) if kitty is not None else []
        if kitty is not None:
            for i in kitty:
                unseen[i] -= 1
                unseen_len[ps_of[i]] -= 1
                pts -= POINTS[i]
                n_unseen -= 1
                k.kitty_pts += POINTS[i]
        k.unseen = unseen
        k.sure_cache = [None] * 5
        k.n_hand = n_hand
        k.n_unseen = n_unseen
        k.unseen_pts = pts
        k.held = None
        k.void = void
        k.nopair = nopair
        k.n_levels = self.n_levels
        k.suit_len = suit_len
        k.unseen_len = unseen_len
        k.hand_sizes = hand_sizes
        k.strict = self.strict
        k.options = self.options
        k.declarers = self.declarers
        k.n = self.n
        k.n_kitty = self.n_kitty
        k.open_calls = self.open_calls
        k.leader, k.friends = self.leader, self.friends
        if self.n == 4 and self.declarers >= 0:  # four-player teams: the partner
            k.mates, k.declaring = [(seat + 2) % 4], seat % 2 == self.declarers
        else:  # §12 tables: the seat's side as it knows it, from its own hand (§12.4)
            k.mates, k.declaring = seat_sides(
                seat, self.n, self.declarers, self.leader, self.friends, hand, self.open_calls)
        k.key = None
        k.n_done = k.n_part = 0
        k.mark = ()
        return k

    def see_join(self, friends: tuple[int, ...], open_ids: list[int]) -> None:
        """A friend joined or a call was spent (RULES §12.4, in a search world): the
        joined friends and the open calls now; the seat's side follows again from them
        and from its own hand (`seat_sides`)."""
        self.friends, self.open_calls = friends, open_ids
        self.mates, self.declaring = seat_sides(
            self.me, self.n, self.declarers, self.leader, friends, self.hand, open_ids)

    def sure_level(self, ps: int) -> int:
        """A card of play suit `ps` at this level or above beats every unseen single of
        the other hands (`higher_single` is false for it); cached until the next play."""
        got = self.sure_cache[ps]
        if got is not None:
            return got
        top = -1
        if self._holders(ps, other_seats(self.me)):
            unseen = self.unseen
            levels = self.t.ids_at_level[ps]
            for lv in range(len(levels) - 1, -1, -1):
                if any(unseen[i] for i in levels[lv]):
                    top = lv
                    break
        self.sure_cache[ps] = top
        return top

    def _count(self) -> None:
        self.sure_cache: list[int | None] = [None] * 5
        self.n_hand = sum(self.hand)
        self.n_unseen = sum(self.unseen)
        self.unseen_pts = sum(POINTS[i] * n for i, n in enumerate(self.unseen) if n)

    def kitty_ids(self) -> list[int]:
        """The starter's own buried kitty (ids) when this knowledge holds it, else []."""
        return list(self._buried)

    def observe(self, seat: int, ids: Sequence[int], lead: Sequence[int] | None) -> None:
        """Update after `seat` played `ids` (`lead`: the trick's lead, None if this is it).

        Own plays leave the hand; others' plays leave the unseen pool. Voids and
        hand sizes are shared between the seats of one search world, so the caller
        updates those once with `observe_public`.
        """
        ps_of = self.t.play_suit
        ids = as_list(ids)
        sure = self.sure_cache  # emptied in place: a rollout observes every play, 4 seats
        sure[0] = sure[1] = sure[2] = sure[3] = sure[4] = None
        if seat == self.me:
            hand = self.hand
            self.n_hand -= len(ids)
            for i in ids:
                hand[i] -= 1
                self.suit_len[ps_of[i]] -= 1
        else:
            unseen = self.unseen
            for i in ids:
                if unseen[i] > 0:
                    unseen[i] -= 1
                    self.unseen_len[ps_of[i]] -= 1
                    self.n_unseen -= 1
                    self.unseen_pts -= POINTS[i]

    def observe_public(self, seat: int, ids: Sequence[int], lead: Sequence[int] | None) -> None:
        """The public part of a play: hand sizes, and the voids and missing pairs it shows."""
        self.hand_sizes[seat] -= len(ids)
        if lead is not None:
            self._see_follow(seat, ids, lead)

    def _see_follow(
        self, seat: int, ids: Sequence[int], lead: Sequence[int], lead_pairs: int = -1
    ) -> None:
        """The voids and missing pairs a follow to `lead` shows (§6.2); `lead_pairs`: the
        pairs in the lead if known (a lead is one suit, so its repeated cards)."""
        ps_of = self.t.play_suit
        ids = as_list(ids)
        lead = as_list(lead)
        lead_suit = ps_of[lead[0]]
        n = len(lead)
        in_suit = [i for i in ids if ps_of[i] == lead_suit]
        if len(in_suit) < n:
            self.void[seat][lead_suit] = True
        elif n > 1 and self.t.decks != 2:
            # §12.3: a lead with a pair to take makes a follower holding any k-tuple
            # (k >= 2) of the suit play one; a follow with no repeated card shows none
            if len(set(lead)) < n and len(set(in_suit)) == n:
                self.nopair[seat][lead_suit] = True
        elif n > 1:
            if lead_pairs < 0:
                lead_pairs = n - len(set(lead))
            if lead_pairs and n - len(set(in_suit)) < lead_pairs:
                self.nopair[seat][lead_suit] = True

    # ------------------------------------------------------------ who may hold what
    def _holders(self, ps: int, seats: Sequence[int], pairs: bool = False) -> bool:
        for s in as_list(seats):
            if self.void[s][ps] or self.hand_sizes[s] == 0:
                continue
            if pairs and self.nopair[s][ps]:
                continue
            return True
        return False

    def _failed_throw_cards(
        self, view: View, done: Sequence[TrickView], cur: TrickView | None
    ) -> dict[int, list[int]]:
        """Unseen cards known to be in a hand since a failed throw (§6.4): the cards the
        blocker showed and those the thrower took back, less what each played since."""
        held: dict[int, list[int]] = {}
        tricks = list(done)
        if cur is not None and cur.plays:
            tricks.append(cur)
        for f in view.failed_throws:
            back = list(f.attempted)
            for c in f.forced:
                back.remove(c)
            for s, cards in ((f.blocker, f.shown), (f.seat, tuple(back))):
                if s == self.me:
                    continue
                h = held.setdefault(s, [0] * N_IDS)
                have = [0] * N_IDS
                for c in cards:
                    have[c.id] += 1
                for trick in tricks[f.trick :]:
                    for seat, played in trick.plays:
                        if seat == s:
                            for c in played:
                                have[c.id] -= 1
                for i, n in enumerate(have):
                    if n > h[i]:
                        h[i] = min(n, self.unseen[i])
        return held

    def unseen_for(self, seats: Sequence[int]) -> list[int]:
        """Unseen copies that one of `seats` may hold: less those known elsewhere."""
        held = self.held
        if not held:
            return self.unseen
        out = list(self.unseen)
        for s, h in held.items():
            if s not in seats:
                for i, n in enumerate(h):
                    if n:
                        out[i] = max(0, out[i] - n)
        return out

    def higher_single(self, ps: int, lvl: int, seats: Sequence[int]) -> bool:
        """Could one of `seats` hold a single of play suit `ps` above level `lvl` (§6.3)?
        Not if each is void there or out of cards; cards known elsewhere do not count."""
        if not self._holders(ps, seats):
            return False
        levels = self.t.ids_at_level[ps]
        unseen = self.unseen_for(seats)
        for lv in range(lvl + 1, len(levels)):
            for i in levels[lv]:
                if unseen[i]:
                    return True
        return False

    def higher_pair(self, ps: int, lvl: int, seats: Sequence[int], k: int = 2) -> bool:
        """Could one of `seats` hold a pair (a `k`-tuple, §12.3) of play suit `ps` above
        level `lvl` (§6.1)? Not if each is void there, showed no pair there (§6.2) or is
        out of cards."""
        if not self._holders(ps, seats, pairs=True):
            return False
        levels = self.t.ids_at_level[ps]
        unseen = self.unseen_for(seats)
        for lv in range(lvl + 1, len(levels)):
            for i in levels[lv]:
                if unseen[i] >= k:
                    return True
        return False

    def higher_tractor(
        self, ps: int, k: int, top: int, seats: Sequence[int], tk: int = 2
    ) -> bool:
        """Could one of `seats` hold a tractor of `k` pairs (of `k` `tk`-tuples, §12.3) in
        play suit `ps` whose top is above level `top` (§5.4, §6.1)? Judged from the unseen
        pairs (tuples) of adjacent levels."""
        if not self._holders(ps, seats, pairs=True):
            return False
        levels = self.t.ids_at_level[ps]
        unseen = self.unseen_for(seats)
        run = 0
        for lv in range(len(levels)):
            if any(unseen[i] >= tk for i in levels[lv]):
                run += 1
                if run >= k and lv > top:
                    return True
            else:
                run = 0
        return False

    def unit_beatable(
        self, ps: int, npairs: int, top: int, seats: Sequence[int], k: int = 2
    ) -> bool:
        """Could one of `seats` hold a higher unit of this shape in suit `ps` (§6.1)?
        `npairs` is `Unit.npairs` (the tuples of a tractor, 1 for one tuple, 0 for a
        single) and `k` the tuple size (`Unit.k`, §12.3)."""
        if npairs == 0:
            return self.higher_single(ps, top, seats)
        if npairs == 1:
            return self.higher_pair(ps, top, seats, k)
        return self.higher_tractor(ps, npairs, top, seats, k)

    def ruff_risk(self, ps: int, seats: Sequence[int]) -> float:
        """Rough chance that one of `seats` is void in side suit `ps` and can trump it."""
        if ps == TRUMP:
            return 0.0
        live = [s for s in seats if not self.void[s][TRUMP] and self.hand_sizes[s] > 0]
        if not live:
            return 0.0
        if any(self.void[s][ps] for s in live):
            return 1.0
        others = [s for s in range(self.n) if s != self.me and not self.void[s][ps]]
        u = self.unseen_len[ps]
        if not others:
            return 0.0
        p_void = (1 - 1 / len(others)) ** u if len(others) > 1 else 0.0
        return 1 - (1 - p_void) ** len(live)


def view_key(view: View) -> tuple[object, ...]:
    """What must not change between two views of the same round for one seat."""
    return (view.round_no, view.seat, view.starter, view.trump, view.declarer,
            view.declaring_team, view.options, view.levels, view.kitty)


def other_seats(me: int, n: int = 4) -> list[int]:
    """The `n - 1` other seats after `me`, in playing order (RULES §6, §12.1)."""
    if n == 4:
        return [(me + j) % 4 for j in (1, 2, 3)]
    return [(me + j) % n for j in range(1, n)]


def sides_of(view: View) -> tuple[list[int], bool]:
    """The seats the viewer plays with (its side, less itself) and whether that side is
    the declaring one, as far as the viewer knows (RULES §11, §12.2, §12.4).

    Teams (§12.2): the seats of the viewer's parity. Friends mode (§12.4): the leader's
    side is the leader and the joined friends, and a seat that holds a copy of a called
    card whose call is still open counts itself on it (it plays for the leader: it
    will join when it plays that copy). **Decision** (the issue is silent): every other
    seat is taken as an opponent of the leader's side, so a seat off the known side
    plays with all the seats off it."""
    me = view.seat
    assert me is not None
    n = len(view.hand_sizes)
    dt = view.declaring_team if view.declaring_team is not None else -1
    leader = _leader_of(view)
    if leader is None:  # teams (the four-player game too)
        return seat_sides(me, n, dt, None, (), (), [])
    held = view.counts()
    cur = view.current_trick
    if cur is not None:  # a copy it has just played joins it when the trick ends
        for s, cards in cur.plays:
            if s == me:
                for c in cards:
                    held[c.id] += 1
    return seat_sides(me, n, dt, leader, view.friends, held, open_calls(view))


def _leader_of(view: View) -> int | None:
    """The leader in friends mode (RULES §12.4; -1 while it is not known), None in teams."""
    if view.options.mode != "friends":
        return None
    return view.starter if view.starter is not None else -1


def seat_sides(
    me: int, n: int, declarers: int, leader: int | None, friends: Sequence[int],
    held: Sequence[int], open_ids: Sequence[int],
) -> tuple[list[int], bool]:
    """`sides_of` from its parts, for a view or a search world: the seats `me` plays with
    and whether its side declares. Teams (`leader` None, RULES §12.2): the seats of its
    parity, declaring when that parity is `declarers`. Friends mode (§12.4): the leader's
    side is the leader, the joined `friends` and `me` if it holds (`held`, counts per
    card id) a copy of an open call (`open_ids`)."""
    if leader is None:
        if n == 4:
            return [(me + 2) % 4], me % 2 == declarers
        return [s for s in range(me % 2, n, 2) if s != me], me % 2 == declarers
    side = {leader, *friends}
    if me not in side and any(held[i] for i in open_ids):
        side.add(me)
    if me in side:
        return [s for s in range(n) if s in side and s != me], True
    return [s for s in range(n) if s not in side and s != me], False

def open_calls(view: View) -> list[int]:
    """The card ids of the calls (RULES §12.4) whose copy has not been played yet and
    that are not spent (public); [] in teams mode and before the call."""
    return [card.id for card, _, by, spent in view.calls if by is None and not spent]


def declared_held(view: View) -> list[list[int]]:
    """Per seat (the viewer's own row stays zero), copies of each card id it declared
    with (RULES §3.3) and has not played since: still in its hand, unless the starter
    buried them in the kitty (§4)."""
    me = view.seat
    n = len(view.hand_sizes)
    played_by = [[0] * N_IDS for _ in range(n)]
    for s, cards in view.plays_so_far():
        for c in cards:
            played_by[s][c.id] += 1
    need = [[0] * N_IDS for _ in range(n)]
    for s, cards in view.declarations:
        if s == me:
            continue
        cnt: dict[int, int] = {}
        for c in cards:
            cnt[c.id] = cnt.get(c.id, 0) + 1
        for i, n in cnt.items():
            need[s][i] = max(need[s][i], n - played_by[s][i])
    return need

"""Trump-relative card slots, the fixed action space and observation tensors (docs/ENV.md).

Everything here is computed from one seat's `View` (RULES §11) and the cards the
seat has selected so far; nothing reads a round's private state.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..cards import BJ_ID, N_IDS, RANKS, RJ_ID, SUITS, Card
from ..round import level_index
from ..shapes import shape_of
from ..trump import TRUMP, Trump, trump_for
from ..views import View

F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]

# ---------------------------------------------------------------- the action space

DONE = 54
"""Action: commit the selected cards as a lead (RULES §6.1)."""
PASS = 55
"""Action: do not declare now (RULES §3.3)."""
DECLARE_SINGLE = 56
"""Actions 56-59: declare one trump-rank card of suit S, H, D, C (§3.3)."""
DECLARE_PAIR = 60
"""Actions 60-63: declare two trump-rank cards of suit S, H, D, C (§3.3)."""
DECLARE_BJ = 64
"""Action: declare two black jokers (§3.3)."""
DECLARE_RJ = 65
"""Action: declare two red jokers (§3.3)."""
CLOSE = 66
"""Actions 66-119: put down card id `a - 66` and commit the lead with it (RULES §6.1): a
one-card lead, or the last card of a multi-card one, in one step."""
N_ACTIONS = 120
"""Size of the fixed discrete action space (0-53 pick a card by id)."""

ACTION_NAMES: tuple[str, ...] = tuple(
    [f"card:{i}" for i in range(N_IDS)]
    + ["done", "pass"]
    + [f"declare:{s}" for s in SUITS]
    + [f"declare:{s}{s}" for s in SUITS]
    + ["declare:BJBJ", "declare:RJRJ"]
    + [f"close:{i}" for i in range(N_IDS)]
)


def declaration_action(ids: Sequence[int]) -> int:
    """The action id of a declaration given as card ids (RULES §3.3)."""
    i = ids[0]
    if i == BJ_ID:
        return DECLARE_BJ
    if i == RJ_ID:
        return DECLARE_RJ
    return (DECLARE_SINGLE if len(ids) == 1 else DECLARE_PAIR) + i // 13


def declaration_ids(action: int, trump_rank: str) -> tuple[int, ...]:
    """The card ids a declaration action shows, for this trump rank (RULES §3.3)."""
    if action == DECLARE_BJ:
        return (BJ_ID, BJ_ID)
    if action == DECLARE_RJ:
        return (RJ_ID, RJ_ID)
    r = RANKS.index(trump_rank)
    if DECLARE_SINGLE <= action < DECLARE_PAIR:
        return ((action - DECLARE_SINGLE) * 13 + r,)
    if DECLARE_PAIR <= action < DECLARE_BJ:
        i = (action - DECLARE_PAIR) * 13 + r
        return (i, i)
    raise ValueError(f"action {action} is not a declaration")


# ---------------------------------------------------------------- trump-relative slots


@functools.cache
def slot_tables(rank: str | None, suit: str | None) -> tuple[I64, I64, tuple[int, ...]]:
    """(`slot_of[id]`, `id_of[slot]`, `block_of_suit[natural suit]`) for a trump.

    Slots 0-11, 12-23, 24-35: the side suits in S H D C order (the trump suit skipped),
    each from 2 to A without the trump rank; 36-47: the trump suit's own cards (the
    fourth natural suit, clubs-most, when there is no trump suit); 48-51: the four
    trump-rank cards, off-suit ones in side-suit order first and the trump suit's last;
    52 BJ; 53 RJ. `block_of_suit` maps a natural suit 0-3 to its block 0-3.
    """
    s_idx = SUITS.index(suit) if suit is not None else -1
    r_idx = RANKS.index(rank) if rank is not None else 0
    order = [s for s in range(4) if s != s_idx] + ([s_idx] if s_idx >= 0 else [])
    slot_of = np.zeros(N_IDS, dtype=np.int64)
    block_of = [0, 0, 0, 0]
    slot = 0
    for b, s in enumerate(order):
        block_of[s] = b
        for ri in range(13):
            if ri != r_idx:
                slot_of[s * 13 + ri] = slot
                slot += 1
    for s in order:
        slot_of[s * 13 + r_idx] = slot
        slot += 1
    slot_of[BJ_ID] = 52
    slot_of[RJ_ID] = 53
    id_of = np.zeros(N_IDS, dtype=np.int64)
    id_of[slot_of] = np.arange(N_IDS)
    return slot_of, id_of, tuple(block_of)


def view_trump(view: View) -> Trump:
    """The final trump, else the one the standing declaration would make (for slots)."""
    if view.trump is not None:
        return view.trump
    if view.display_trump is not None:
        return view.display_trump
    return trump_for(view.trump_rank, view.trump_suit)


def suit_block(t: Trump) -> list[int]:
    """Play suit (0-3 natural, 4 trump) → the observation's suit index 0-4 (4 = trumps)."""
    _, _, block_of = slot_tables(t.rank, t.suit)
    return [block_of[s] for s in range(4)] + [TRUMP]


def to_slots(counts: Sequence[int] | npt.NDArray[np.generic], t: Trump) -> F32:
    """A per-id count array (54) as a trump-relative slot vector (float32)."""
    _, id_of, _ = slot_tables(t.rank, t.suit)
    return np.asarray(counts, dtype=np.float32)[id_of]


# ---------------------------------------------------------------- observations

PHASES = ("deal", "declare", "kitty", "play", "over")

# (name, size, meaning) -- the observation vector is these blocks, in this order.
OBS_BLOCKS: tuple[tuple[str, int, str], ...] = (
    ("hand", 54, "own cards not yet selected, count 0-2 per slot"),
    ("selected", 54, "cards selected so far for the play or bury being built"),
    ("played_me", 54, "cards this seat played in completed and current tricks"),
    ("played_left", 54, "... by the next seat in play order"),
    ("played_partner", 54, "... by the partner"),
    ("played_right", 54, "... by the previous seat"),
    ("trick_me", 54, "cards in the current trick by this seat"),
    ("trick_left", 54, "... by the next seat"),
    ("trick_partner", 54, "... by the partner"),
    ("trick_right", 54, "... by the previous seat"),
    ("unseen", 54, "cards this seat has not seen: 2 - own cards - played - kitty it buried"),
    ("kitty", 54, "the buried kitty when this seat knows it (starter; everyone at the end)"),
    ("kitty_flip", 54, "kitty cards turned up to find the trump suit (§3.5)"),
    ("declared", 54, "cards of the standing declaration"),
    ("declarer", 5, "standing declarer relative to me (me, left, partner, right), or none"),
    ("starter", 5, "starter relative to me, or none yet"),
    ("void", 20, "4 relative seats x 5 suits (3 side blocks, block 3, trumps): shown void"),
    ("phase", 5, "deal, declare, kitty, play, over"),
    ("trump_rank", 13, "one-hot 2..A"),
    ("trump_kind", 3, "suit trump, no trump suit (two jokers), not final yet"),
    ("levels", 28, "my team's level one-hot (14: 2..A, A+), then the other team's"),
    ("scalars", 16, "see docs/ENV.md"),
)
OBS_SIZE = sum(n for _, n, _ in OBS_BLOCKS)
OBS_OFFSETS: dict[str, int] = {}
_off = 0
for _name, _n, _ in OBS_BLOCKS:
    OBS_OFFSETS[_name] = _off
    _off += _n


_SEAT_ORDER = [np.array([(me + r) % 4 for r in range(4)]) for me in range(4)]


@functools.cache
def _block_perm_t(blocks: tuple[int, ...]) -> I64:
    perm = np.zeros(5, dtype=np.int64)
    for ps_i, b in enumerate(blocks):
        perm[b] = ps_i
    return perm


def _block_perm(blocks: list[int]) -> I64:
    """Columns of a by-play-suit array in observation suit order (blocks 0-3, trumps)."""
    return _block_perm_t(tuple(blocks))


def _count(ids: Sequence[int]) -> F32:
    """Per-id counts (54 float32) of card ids."""
    if not ids:
        return np.zeros(N_IDS, dtype=np.float32)
    return np.bincount(np.asarray(ids, dtype=np.int64), minlength=N_IDS).astype(np.float32)


def _rel(seat: int, me: int) -> int:
    return (seat - me) % 4


class Tracker:
    """Per-seat memory of completed tricks (played cards, shown voids), from views only.

    Completed tricks never change, so each is read once; `update(view)` reads new ones.
    """

    __slots__ = ("seat", "n_tricks", "played", "void", "round_key")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.n_tricks = 0
        self.played = np.zeros((4, N_IDS), dtype=np.float32)  # by absolute seat, by id
        self.void = np.zeros((4, 5), dtype=np.float32)  # by absolute seat, by play suit
        self.round_key: object = None

    def reset(self) -> None:
        """Forget the round: no tricks read, nothing played, no seat known void."""
        self.n_tricks = 0
        self.played[:] = 0
        self.void[:] = 0

    def _read(self, plays: Sequence[tuple[int, Sequence[Card]]], t: Trump) -> None:
        ps = t.play_suit
        lead_ids = [c.id for c in plays[0][1]]
        lead_suit = ps[lead_ids[0]]
        n = len(lead_ids)
        for seat, cards in plays:
            k = 0
            for c in cards:
                i = c.id
                self.played[seat, i] += 1
                if ps[i] == lead_suit:
                    k += 1
            if k < n:
                self.void[seat, lead_suit] = 1

    def update(self, view: View, t: Trump) -> None:
        """Read the completed tricks of `view` not read yet."""
        tricks = view.tricks
        if len(tricks) < self.n_tricks:
            self.reset()
        for trick in tricks[self.n_tricks :]:
            self._read(trick.plays, t)
        self.n_tricks = len(tricks)


def encode(
    view: View,
    selected: Sequence[int] = (),
    tracker: Tracker | None = None,
    bury_left: int = 0,
) -> F32:
    """The observation vector (`OBS_SIZE` float32) of `view.seat`, trump-relative.

    `selected`: card ids this seat has selected for the play or bury it is building.
    `tracker`: a `Tracker` for this seat (built fresh when None).
    """
    me = view.seat
    if me is None:
        raise ValueError("observations are per seat; a spectator view has none")
    t = view_trump(view)
    _, id_of, _ = slot_tables(t.rank, t.suit)
    blocks = suit_block(t)
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    o = OBS_OFFSETS

    hand = _count([c.id for c in view.hand])
    sel = _count(selected)
    obs[o["hand"] : o["hand"] + 54] = (hand - sel)[id_of]
    obs[o["selected"] : o["selected"] + 54] = sel[id_of]

    if tracker is None:
        tracker = Tracker(me)
    if tracker.round_key != view.round_no:  # a new round of a game: forget the last one
        tracker.reset()
        tracker.round_key = view.round_no
    if view.phase in ("play", "over") and view.trump is not None:
        tracker.update(view, view.trump)
    played = tracker.played.copy()
    void = tracker.void.copy()
    cur = np.zeros((4, N_IDS), dtype=np.float32)
    trick = view.current_trick
    if trick is not None and trick.plays and view.trump is not None:
        ps = view.trump.play_suit
        lead = trick.plays[0][1]
        lead_suit = ps[lead[0].id]
        n = len(lead)
        for seat, cards in trick.plays:
            k = 0
            for c in cards:
                cur[seat, c.id] += 1
                if ps[c.id] == lead_suit:
                    k += 1
            if k < n:
                void[seat, lead_suit] = 1
        played += cur
    order = _SEAT_ORDER[me]  # absolute seats in relative order: me, left, partner, right
    a = o["played_me"]
    obs[a : a + 216] = played[order][:, id_of].ravel()
    a = o["trick_me"]
    obs[a : a + 216] = cur[order][:, id_of].ravel()
    obs[o["void"] : o["void"] + 20] = void[order][:, _block_perm(blocks)].ravel()

    kitty = _count([c.id for c in view.kitty] if view.kitty is not None else ())
    obs[o["kitty"] : o["kitty"] + 54] = kitty[id_of]
    own_kitty = kitty if view.phase != "over" else np.zeros(N_IDS, dtype=np.float32)
    unseen = 2.0 - hand - played.sum(axis=0) - own_kitty
    obs[o["unseen"] : o["unseen"] + 54] = np.maximum(unseen, 0.0)[id_of]

    if view.kitty_flip:
        flip = _count([c.id for c in view.kitty_flip])
        obs[o["kitty_flip"] : o["kitty_flip"] + 54] = flip[id_of]
    if view.declarations:
        dec = _count([c.id for c in view.declarations[-1][1]])
        obs[o["declared"] : o["declared"] + 54] = dec[id_of]
    if view.declarer is not None:
        obs[o["declarer"] + _rel(view.declarer, me)] = 1.0
    else:
        obs[o["declarer"] + 4] = 1.0
    if view.starter is not None:
        obs[o["starter"] + _rel(view.starter, me)] = 1.0
    else:
        obs[o["starter"] + 4] = 1.0
    obs[o["phase"] + PHASES.index(view.phase)] = 1.0
    if view.trump_rank is not None:
        obs[o["trump_rank"] + RANKS.index(view.trump_rank)] = 1.0
    if view.trump is None:
        obs[o["trump_kind"] + 2] = 1.0
    elif view.trump.suit is None:
        obs[o["trump_kind"] + 1] = 1.0
    else:
        obs[o["trump_kind"]] = 1.0
    my_team = me % 2
    obs[o["levels"] + level_index(view.levels[my_team])] = 1.0
    obs[o["levels"] + 14 + level_index(view.levels[1 - my_team])] = 1.0

    s = o["scalars"]
    dt = view.declaring_team
    obs[s + 0] = 1.0 if dt is not None and dt == my_team else 0.0
    obs[s + 1] = 1.0 if dt is not None and dt != my_team else 0.0
    obs[s + 2] = min(max(view.opponents_points / 200.0, 0.0), 2.0)
    obs[s + 3] = (trick.points if trick is not None else 0) / 100.0
    obs[s + 4] = view.cards_left / 100.0
    for seat in range(4):
        obs[s + 5 + _rel(seat, me)] = view.hand_sizes[seat] / 33.0
    led = view.lead
    if led is not None and view.trump is not None:
        shape = shape_of([c.id for c in led], view.trump)
        obs[s + 9] = shape.n_cards / 25.0
        obs[s + 10] = shape.n_pairs / 12.0
        obs[s + 11] = (blocks[shape.play_suit] + 1) / 5.0
        obs[s + 12] = len(trick.plays) / 4.0 if trick is not None else 0.0
    obs[s + 13] = len(view.tricks) / 25.0
    obs[s + 14] = bury_left / 8.0
    obs[s + 15] = 1.0 if view.to_act == me else 0.0
    return obs


__all__ = [
    "ACTION_NAMES", "CLOSE", "DECLARE_BJ", "DECLARE_PAIR", "DECLARE_RJ", "DECLARE_SINGLE", "DONE",
    "N_ACTIONS", "OBS_BLOCKS", "OBS_OFFSETS", "OBS_SIZE", "PASS", "Tracker",
    "declaration_action", "declaration_ids", "encode", "slot_tables", "suit_block",
    "to_slots", "view_trump",
]

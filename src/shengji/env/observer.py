"""Incremental observations: the four seats' observation vectors kept up to date from events.

`encode(view)` builds an observation from scratch (~100+ µs in Python). An RL loop asks
for one at nearly every step, and between two steps only a card or two changed. An
`Observer` keeps one flat float32 *state* vector per round, by absolute seat, and
updates it in place from the events `Round.apply` returns (`shengji.events`), or, where
the table advanced the round with `Round.step` (draws and plays), from its notices
(`dealt`, `played`, `trick_won`, `round_over`). Its 54-entry card blocks are in the
trump-relative *slot* order of the trump shown now (`encoding.slot_tables`): a card id
is written at its slot (`_slot`), and when a declaration changes the trump the blocks
are permuted once. A seat's observation then reads whole card blocks as they lie, so
it is a copy of a few dozen runs of consecutive entries (`arrays.gather_runs` over
`runs[seat]`, cached per seat and trump: ~60 runs for 851 entries), not 851 single
reads: relative seats, "my team" and the voids' suit order are in the runs, not in
the state. `obs_index` gives the same mapping entry by entry.

Hidden information (RULES §11): the observer sees every event unredacted, but a card
only one seat may see (a draw, the taken or buried kitty, its own plays' removal from
its hand) is written only into that seat's own rows (`hand`, `unseen`, `kitty`), and
a seat's index reads only its own rows besides the public ones. `tests/test_env.py`
checks that the result equals `encode(view)` of the seat's view at random points of
random deals, and that scrambling hidden cards changes no observation.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..cards import N_IDS, POINTS, RANKS
from ..events import (
    Declared,
    Drew,
    Event,
    KittyBuried,
    KittyFlipped,
    KittyTaken,
    Played,
    Redealt,
    RoundOver,
    TrickWon,
    TrumpFixed,
)
from ..round import Round, level_index
from .arrays import gather_runs
from .encoding import F32, OBS_SIZE, PHASES, slot_tables

I64 = npt.NDArray[np.int64]

# ---------------------------------------------------------------- the state vector layout

_LAYOUT: dict[str, int] = {}
_STATE_SIZE = 0


def _field(name: str, size: int) -> int:
    global _STATE_SIZE
    _LAYOUT[name] = _STATE_SIZE
    _STATE_SIZE += size
    return _LAYOUT[name]


HAND = _field("hand", 4 * N_IDS)  # by absolute seat: own cards not selected (private)
SEL = _field("selected", 4 * N_IDS)  # by seat: cards selected for the play/bury being built
PLAYED = _field("played", 4 * N_IDS)  # by seat: cards played this round (public)
TRICK = _field("trick", 4 * N_IDS)  # by seat: cards in the current trick (public)
UNSEEN = _field("unseen", 4 * N_IDS)  # by seat: 2 - own cards - played - own known kitty
KITTY = _field("kitty", 4 * N_IDS)  # by seat: the buried kitty where that seat knows it
FLIP = _field("kitty_flip", N_IDS)
DECLARED = _field("declared", N_IDS)
DECLARER = _field("declarer", 5)  # absolute seat one-hot, 4 = none
STARTER = _field("starter", 5)
VOID = _field("void", 20)  # by seat x play suit (0-3 natural, 4 trumps)
PHASE = _field("phase", 5)
TRUMP_RANK = _field("trump_rank", 13)
TRUMP_KIND = _field("trump_kind", 3)
LEVELS = _field("levels", 28)  # team 0's level one-hot, then team 1's
DT = _field("declaring_team", 2)  # team 0 declares, team 1 declares
OPP = _field("opponents_points", 1)
TRICK_POINTS = _field("trick_points", 1)
CARDS_LEFT = _field("cards_left", 1)
SIZES = _field("hand_sizes", 4)  # by absolute seat
LEAD_N = _field("lead_cards", 1)
LEAD_PAIRS = _field("lead_pairs", 1)
LEAD_BLOCK = _field("lead_block", 1)
N_PLAYS = _field("trick_plays", 1)
N_TRICKS = _field("tricks_done", 1)
BURY = _field("bury_left", 4)  # by seat
TURN = _field("to_act", 4)  # by seat
STATE_SIZE = _STATE_SIZE
_CARDS_END = DECLARED + N_IDS  # HAND .. DECLARED: the 26 card blocks, one after another


@functools.cache
def obs_index(me: int, rank: str | None, suit: str | None) -> I64:
    """For seat `me` under trump (rank, suit): the state entry each observation entry reads
    (the state's card blocks being in that trump's slot order).

    The order is that of `encoding.OBS_BLOCKS` (docs/ENV.md); `encode` is the reference.
    """
    block_of = slot_tables(rank, suit)[2]
    order = [(me + r) % 4 for r in range(4)]
    blocks = [block_of[s] for s in range(4)] + [4]
    perm = [0] * 5  # observation suit index -> play suit
    for ps_i, b in enumerate(blocks):
        perm[b] = ps_i
    my_team = me % 2

    def cards(base: int) -> list[int]:
        return list(range(base, base + N_IDS))

    idx: list[int] = []
    idx += cards(HAND + me * N_IDS)
    idx += cards(SEL + me * N_IDS)
    for s in order:
        idx += cards(PLAYED + s * N_IDS)
    for s in order:
        idx += cards(TRICK + s * N_IDS)
    idx += cards(UNSEEN + me * N_IDS)
    idx += cards(KITTY + me * N_IDS)
    idx += cards(FLIP)
    idx += cards(DECLARED)
    idx += [DECLARER + s for s in order] + [DECLARER + 4]
    idx += [STARTER + s for s in order] + [STARTER + 4]
    for s in order:
        idx += [VOID + s * 5 + perm[b] for b in range(5)]
    idx += [PHASE + k for k in range(5)]
    idx += [TRUMP_RANK + k for k in range(13)]
    idx += [TRUMP_KIND + k for k in range(3)]
    idx += [LEVELS + my_team * 14 + k for k in range(14)]
    idx += [LEVELS + (1 - my_team) * 14 + k for k in range(14)]
    idx += [DT + my_team, DT + 1 - my_team, OPP, TRICK_POINTS, CARDS_LEFT]
    idx += [SIZES + s for s in order]
    idx += [LEAD_N, LEAD_PAIRS, LEAD_BLOCK, N_PLAYS, N_TRICKS, BURY + me, TURN + me]
    assert len(idx) == OBS_SIZE
    out = np.array(idx, dtype=np.int64)
    out.flags.writeable = False
    return out


@functools.cache
def obs_runs(me: int, rank: str | None, suit: str | None) -> I64:
    """`obs_index(me, rank, suit)` as runs of consecutive state entries: rows
    `(first entry, length)`, for `arrays.gather_runs` (read-only, shared)."""
    idx = obs_index(me, rank, suit).tolist()
    runs: list[list[int]] = []
    for i in idx:
        if runs and runs[-1][0] + runs[-1][1] == i:
            runs[-1][1] += 1
        else:
            runs.append([i, 1])
    out = np.array(runs, dtype=np.int64)
    out.flags.writeable = False
    return out


@functools.cache
def _slot_array(key: tuple[str | None, str | None]) -> array[int]:
    """Card id -> slot under the trump `key` (rank, suit); ("", "") before any trump is
    shown: the ids themselves. Shared, never written."""
    if key == ("", ""):
        return array("i", range(N_IDS))
    return array("i", slot_tables(*key)[0].tolist())


@functools.cache
def _reorder(old: tuple[str | None, str | None], new: tuple[str | None, str | None]) -> I64:
    """The column order that takes card blocks from `old`'s slot order to `new`'s: new
    slot k holds the card `id_of[k]`, which was at that card's old slot."""
    before = np.array(_slot_array(old), dtype=np.int64)
    out = before[slot_tables(*new)[1]]
    out.flags.writeable = False
    return out


_TURN_NONE = -1
# per seat: where the other three seats' `unseen` rows start
_OTHERS_UNSEEN = tuple(
    tuple(UNSEEN + s * N_IDS for s in range(4) if s != me) for me in range(4)
)
_PHASE_SLOT = {p: PHASE + k for k, p in enumerate(PHASES)}


class Observer:
    """The four seats' observations of one round, updated from the round's events.

    Create it on a round before any action. Then, for every action applied to the
    round, either pass the events `Round.apply` returned to `feed` (in order), or, on
    the fast path where the round was advanced with `Round.step` (no events built),
    call the matching notices: `dealt` for draws, `played` (then `trick_won`,
    `round_over`) for a play, and `refresh`. `observation(seat)` is that seat's vector
    now (a new array). `pick`/`unpick` record the cards a seat selects for the play or
    bury it is building (the `hand` and `selected` blocks).
    """

    __slots__ = (
        "rnd", "buf", "state", "runs", "_slot", "trump_key", "phase", "turn", "lead_suit",
        "lead_n", "drawn", "_trick_points", "_n_plays", "points", "_ps", "_block_of",
        "_sizes",
    )

    def __init__(self, rnd: Round) -> None:
        if rnd.actions:
            raise ValueError("an Observer follows a round from its start (no actions yet)")
        self.rnd = rnd
        self.buf = array("f", bytes(4 * STATE_SIZE))  # fast scalar writes from Python
        self.state: F32 = np.frombuffer(self.buf, dtype=np.float32)  # same memory
        self.runs: list[I64] = []
        self._slot = _slot_array(("", ""))  # card id -> its entry in a card block
        self.trump_key: tuple[str | None, str | None] = ("", "")
        self.phase = ""
        self.turn = _TURN_NONE
        self.lead_suit = -1
        self.lead_n = 0
        self.drawn = 0
        self._trick_points = 0
        self._n_plays = 0
        self.points = 0
        self._ps: Sequence[int] = ()  # the fixed trump's play suit per card id
        self._block_of: tuple[int, ...] = (0, 1, 2, 3)
        self._sizes = [0, 0, 0, 0]  # hand sizes (public), written exactly as size / 33
        self._reset()

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle/deepcopy support, the same for the pure-Python and the compiled class:
        the state vector travels as bytes, and `state` is rebuilt over a new `buf`."""
        st: dict[str, object] = {
            k: getattr(self, k) for k in self.__slots__ if k not in ("buf", "state", "_slot")
        }  # `_slot` follows from `trump_key`
        st["buf"] = self.state.tobytes()
        return (_blank_observer, (), st)

    def __setstate__(self, st: dict[str, object]) -> None:
        for k, v in st.items():
            if k != "buf":
                setattr(self, k, v)
        key = st["trump_key"]
        assert isinstance(key, tuple)
        self._slot = _slot_array(key)
        raw = st["buf"]
        assert isinstance(raw, bytes)
        self.buf = array("f", raw)
        self.state = np.frombuffer(self.buf, dtype=np.float32)

    # ------------------------------------------------------------ reading

    def observation(self, seat: int, out: F32 | None = None) -> F32:
        """The observation vector (`OBS_SIZE` float32, docs/ENV.md) of `seat` now: a new
        array, or written into `out` (and returned)."""
        return gather_runs(self.state, self.runs[seat], out)

    # ------------------------------------------------------------ selection

    def pick(self, seat: int, card_id: int) -> None:
        """`seat` selected one card for the play or bury it is building."""
        b = self.buf
        k = self._slot[card_id]
        b[HAND + seat * N_IDS + k] -= 1.0
        b[SEL + seat * N_IDS + k] += 1.0

    def unpick(self, seat: int, ids: Sequence[int]) -> None:
        """Clear `seat`'s selection (the cards go back to its hand block)."""
        b = self.buf
        slot = self._slot
        for i in ids:
            b[HAND + seat * N_IDS + slot[i]] += 1.0
            b[SEL + seat * N_IDS + slot[i]] -= 1.0

    def set_bury_left(self, seat: int, value: float) -> None:
        """The `bury picks left / 8` scalar of `seat` (0 when it is not burying)."""
        self.buf[BURY + seat] = value

    # ------------------------------------------------------------ fast-path notices

    def dealt(self, deck: Sequence[int], start: int, end: int, first_drawer: int) -> None:
        """The deal's cards `deck[start:end]` were drawn (RULES §3.1), the first of them
        by seat `(first_drawer + start) % 4`; each is written into its drawer's rows only."""
        b = self.buf
        slot = self._slot
        for d in range(start, end):
            o = ((first_drawer + d) & 3) * N_IDS + slot[deck[d]]
            b[HAND + o] += 1.0
            b[UNSEEN + o] -= 1.0
        self.drawn = end
        self._read_sizes()
        if end < 100:
            b[CARDS_LEFT] = (100 - end) / 100.0
        else:
            self.refresh()

    def played(self, seat: int, ids: Sequence[int], lead: bool) -> None:
        """`seat` played the cards `ids` (RULES §6; a failed throw's forced cards, §6.4),
        leading the trick if `lead`. Call `trick_won` next if it completed the trick."""
        b = self.buf
        ps = self._ps
        if lead:
            shape = self.rnd.lead_shape
            assert shape is not None
            self.lead_suit = lead_suit = shape.play_suit
            self.lead_n = len(ids)
            b[LEAD_N] = shape.n_cards / 25.0
            b[LEAD_PAIRS] = shape.n_pairs / 12.0
            b[LEAD_BLOCK] = ((self._block_of[lead_suit] if lead_suit < 4 else 4) + 1) / 5.0
        else:
            lead_suit = self.lead_suit
        o_hand = HAND + seat * N_IDS
        o_played = PLAYED + seat * N_IDS
        o_trick = TRICK + seat * N_IDS
        u0, u1, u2 = _OTHERS_UNSEEN[seat]
        slot = self._slot
        pts = 0
        k = 0
        for i in ids:
            j = slot[i]
            b[o_hand + j] -= 1.0
            b[o_played + j] += 1.0
            b[o_trick + j] += 1.0
            b[u0 + j] -= 1.0
            b[u1 + j] -= 1.0
            b[u2 + j] -= 1.0
            pts += POINTS[i]
            if ps[i] == lead_suit:
                k += 1
        if k < self.lead_n:
            b[VOID + seat * 5 + lead_suit] = 1.0
        n = self._sizes[seat] - len(ids)
        self._sizes[seat] = n
        b[SIZES + seat] = n / 33.0
        self._trick_points += pts
        b[TRICK_POINTS] = self._trick_points / 100.0
        self._n_plays += 1
        b[N_PLAYS] = self._n_plays / 4.0

    def trick_won(self, n_tricks: int) -> None:
        """The current trick is complete; `n_tricks` tricks are done now (RULES §6.3)."""
        b = self.buf
        self.state[TRICK : TRICK + 4 * N_IDS] = 0.0
        self._trick_points = 0
        self._n_plays = 0
        self.lead_suit = -1
        self.lead_n = 0
        b[TRICK_POINTS] = 0.0
        b[N_PLAYS] = 0.0
        b[LEAD_N] = 0.0
        b[LEAD_PAIRS] = 0.0
        b[LEAD_BLOCK] = 0.0
        b[N_TRICKS] = n_tricks / 25.0

    def round_over(self) -> None:
        """The round ended (RULES §8): everyone sees the kitty now (§11)."""
        rnd = self.rnd
        starter = rnd.starter
        kitty = rnd.kitty
        for s in range(4):
            self.state[KITTY + s * N_IDS : KITTY + (s + 1) * N_IDS] = 0.0
            self._add(KITTY, s, kitty, 1.0)
        if starter is not None:  # its "unseen" stops subtracting the kitty it buried
            self._add(UNSEEN, starter, kitty, 1.0)

    # ------------------------------------------------------------ events

    def drew(self, draws: Sequence[Drew]) -> None:
        """`Drew` events, in order (the deal's hundred draws may come in batches)."""
        b = self.buf
        for ev in draws:
            seat = ev.seat
            card = ev.card
            assert card is not None
            i = self._slot[card.id]
            b[HAND + seat * N_IDS + i] += 1.0
            b[UNSEEN + seat * N_IDS + i] -= 1.0
            self._sizes[seat] = ev.hand_size
            b[SIZES + seat] = ev.hand_size / 33.0
        self.drawn += len(draws)
        if self.drawn < 100:
            b[CARDS_LEFT] = (100 - self.drawn) / 100.0
        else:
            self.refresh()

    def feed(self, events: Sequence[Event]) -> None:
        """Apply the events of one action, then refresh the public scalars."""
        for ev in events:
            k = type(ev)
            if k is Played:
                assert isinstance(ev, Played)
                self.played(ev.seat, [c.id for c in ev.cards], ev.lead)
            elif k is TrickWon:
                assert isinstance(ev, TrickWon)
                self.trick_won(ev.trick + 1)
            elif k is Drew:
                assert isinstance(ev, Drew)
                self.drew((ev,))
            elif k is Declared:
                assert isinstance(ev, Declared)
                self._declared(ev)
            elif k is KittyTaken:
                assert isinstance(ev, KittyTaken) and ev.cards is not None
                self._add(HAND, ev.seat, [c.id for c in ev.cards], 1.0)
                self._add(UNSEEN, ev.seat, [c.id for c in ev.cards], -1.0)
                self._read_sizes()
            elif k is KittyBuried:
                assert isinstance(ev, KittyBuried) and ev.cards is not None
                ids = [c.id for c in ev.cards]
                self._add(HAND, ev.seat, ids, -1.0)
                self._add(KITTY, ev.seat, ids, 1.0)
                self._read_sizes()
            elif k is KittyFlipped:
                assert isinstance(ev, KittyFlipped)
                self.state[FLIP : FLIP + N_IDS] = 0.0
                for c in ev.cards:
                    self.buf[FLIP + self._slot[c.id]] += 1.0
            elif k is TrumpFixed:
                assert isinstance(ev, TrumpFixed)
                self._trump_fixed(ev)
            elif k is RoundOver:
                self.round_over()
            elif k is Redealt:
                self._reset()
        self.refresh()

    def _read_sizes(self) -> None:
        b = self.buf
        sizes = self._sizes
        for s, n in enumerate(self.rnd.hand_sizes):
            sizes[s] = n
            b[SIZES + s] = n / 33.0

    def _add(self, base: int, seat: int, ids: Sequence[int], d: float) -> None:
        b = self.buf
        slot = self._slot
        o = base + seat * N_IDS
        for i in ids:
            b[o + slot[i]] += d

    def _declared(self, ev: Declared) -> None:
        b = self.buf
        self.state[DECLARED : DECLARED + N_IDS] = 0.0
        for c in ev.cards:
            b[DECLARED + self._slot[c.id]] += 1.0
        self.state[DECLARER : DECLARER + 5] = 0.0
        b[DECLARER + ev.seat] = 1.0
        self._set_trump()

    def _trump_fixed(self, ev: TrumpFixed) -> None:
        b = self.buf
        self.state[TRUMP_RANK : TRUMP_RANK + 13] = 0.0
        if ev.rank is not None:
            b[TRUMP_RANK + RANKS.index(ev.rank)] = 1.0
        self.state[TRUMP_KIND : TRUMP_KIND + 3] = 0.0
        b[TRUMP_KIND + (1 if ev.suit is None else 0)] = 1.0
        self.state[STARTER : STARTER + 5] = 0.0
        b[STARTER + ev.starter] = 1.0
        self.state[DT : DT + 2] = 0.0
        b[DT + ev.declaring_team] = 1.0
        self._set_trump()

    # ------------------------------------------------------------ public facts

    def refresh(self) -> None:
        """Re-read the public facts that change without an event of their own: the
        phase, whose turn it is (`View.to_act`) and the opponents' points."""
        rnd = self.rnd
        b = self.buf
        phase = rnd.phase
        if phase != self.phase:
            if self.phase:
                b[_PHASE_SLOT[self.phase]] = 0.0
            b[_PHASE_SLOT[phase]] = 1.0
            self.phase = phase
            if phase != "deal":
                b[CARDS_LEFT] = 0.0
        if phase == "play":
            turn = rnd.to_act
        elif phase == "declare":
            turn = rnd.ask
        elif phase == "kitty":
            turn = rnd.starter
        else:
            turn = None
        t = _TURN_NONE if turn is None else turn
        if t != self.turn:
            if self.turn != _TURN_NONE:
                b[TURN + self.turn] = 0.0
            if t != _TURN_NONE:
                b[TURN + t] = 1.0
            self.turn = t
        p = rnd.opponents_points
        if p != self.points:
            self.points = p
            b[OPP] = min(max(p / 200.0, 0.0), 2.0)

    def play_turn(self, seat: int | None) -> None:
        """The fast path's `refresh` after a play: `seat` is to act (None: the round is
        over, and the phase changed); re-reads the opponents' points."""
        if seat is None:
            self.refresh()
            return
        b = self.buf
        if seat != self.turn:
            if self.turn != _TURN_NONE:
                b[TURN + self.turn] = 0.0
            b[TURN + seat] = 1.0
            self.turn = seat
        p = self.rnd.opponents_points
        if p != self.points:
            self.points = p
            b[OPP] = min(max(p / 200.0, 0.0), 2.0)

    def _set_trump(self) -> None:
        rnd = self.rnd
        t = rnd.display_trump()
        key = (t.rank, t.suit)
        if key != self.trump_key:
            # the card blocks to the new slot order
            cards = self.state[HAND:_CARDS_END].reshape(-1, N_IDS)
            cards[:] = cards[:, _reorder(self.trump_key, key)]
            self.trump_key = key
            self.runs = [obs_runs(s, t.rank, t.suit) for s in range(4)]
            self._block_of = slot_tables(t.rank, t.suit)[2]
            self._slot = _slot_array(key)
        fixed = rnd.trump
        self._ps = fixed.play_suit if fixed is not None else ()

    def _reset(self) -> None:
        """The state of a round before its first card (also after a redeal, §3.5)."""
        rnd = self.rnd
        b = self.buf
        self.state[:] = 0.0
        self.state[UNSEEN : UNSEEN + 4 * N_IDS] = 2.0
        self.phase = ""
        self.turn = _TURN_NONE
        self.lead_suit = -1
        self.lead_n = 0
        self.drawn = 0
        self._trick_points = 0
        self._n_plays = 0
        self.points = 0
        self._sizes = [0, 0, 0, 0]
        b[DECLARER + 4] = 1.0
        b[STARTER + (rnd.starter if rnd.starter is not None else 4)] = 1.0
        b[TRUMP_RANK + RANKS.index(rnd.trump_rank)] = 1.0
        b[TRUMP_KIND + 2] = 1.0
        b[LEVELS + level_index(rnd.levels[0])] = 1.0
        b[LEVELS + 14 + level_index(rnd.levels[1])] = 1.0
        if rnd.declaring_team is not None:
            b[DT + rnd.declaring_team] = 1.0
        b[CARDS_LEFT] = 1.0
        self.trump_key = ("", "")
        self._set_trump()
        self.refresh()


def _blank_observer() -> Observer:
    """An Observer with no state yet, for `__setstate__` to fill (unpickling)."""
    return Observer.__new__(Observer)


__all__ = ["Observer", "STATE_SIZE", "obs_index"]

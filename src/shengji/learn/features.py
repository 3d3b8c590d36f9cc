"""Features of (state, candidate play) pairs for Deep Monte-Carlo, from one seat's view.

The state is the environment's observation (`shengji.env.encoding.encode`); a
candidate play is its 54 trump-relative slot counts plus summary numbers and (feature
version 2) what it does to the trick: whether it wins the trick now given the cards
played so far (RULES §6.3), the points at stake, whether the partner is winning before
it, whether it is a throw (§6.1), how many seats play after it, and whether it is the
heuristic agent's choice. Candidates: when leading, every single, pair and tractor
(§6.1); when following, every legal follow (§6.2), a seeded random sample of `cap` of
them when there are more; plus any `extra` plays the caller adds (the agent adds the
heuristic's choice, so throws, §6.4, are among the candidates).

Version 3 also scores the declarations and the bury in the same rows, marked by three
columns: a declaration offer's candidates are "pass" (no cards) and every legal
declaration (§3.3); the bury (§4) is eight picks, each candidate one distinct card of
the hand, with the cards picked so far in the state's `selected` block.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import numpy as np

from ..cards import N_IDS, POINTS
from ..env.encoding import F32, OBS_SIZE, Tracker, encode, slot_tables
from ..follow import iter_follows
from ..shapes import THROW, shape_of
from ..trick import winner_index
from ..trump import TRUMP, Trump
from ..views import View

FEATURE_VERSION = 3
"""Version of the features; a checkpoint records the one it was trained on."""
ACTION_SIZES = {1: N_IDS + 6, 2: N_IDS + 12, 3: N_IDS + 15}
"""Length of a candidate play's feature vector, per feature version (a version's
columns are the first ones of the next)."""
ACTION_SIZE = ACTION_SIZES[FEATURE_VERSION]
"""Length of a candidate play's feature vector."""
FEATURE_SIZE = OBS_SIZE + ACTION_SIZE
"""Length of one (state, play) feature row."""

Play = tuple[int, ...]

# Version 3's columns: the row is a declaration offer's candidate, that candidate is the
# pass, the row is a bury pick (a play's row has all three 0)
DECLARE_COL, PASS_COL, BURY_COL = N_IDS + 12, N_IDS + 13, N_IDS + 14
MARKED_COL = N_IDS + 11  # is the heuristic's choice (version 2 on)


def hand_counts(view: View) -> list[int]:
    """The seat's hand as per-id counts (a new list)."""
    return view.counts()


def lead_candidates(hand: Sequence[int], t: Trump) -> list[Play]:
    """Every single, pair and tractor (contiguous pairs of one play suit) in the hand."""
    out: list[Play] = []
    for i in range(N_IDS):
        if hand[i]:
            out.append((i,))
    for i in range(N_IDS):
        if hand[i] >= 2:
            out.append((i, i))
    for ps in range(5):
        levels = t.ids_at_level[ps]
        pair_at = [next((i for i in lv if hand[i] >= 2), -1) for lv in levels]
        lvl = 0
        while lvl < len(levels):
            if pair_at[lvl] < 0:
                lvl += 1
                continue
            end = lvl
            while end + 1 < len(levels) and pair_at[end + 1] >= 0:
                end += 1
            for a in range(lvl, end + 1):
                for b in range(a + 1, end + 1):
                    out.append(tuple(i for lv in range(a, b + 1) for i in (pair_at[lv],) * 2))
            lvl = end + 1
    return out


def play_candidates(
    view: View, rng: random.Random, cap: int = 48, extra: Sequence[Play] = ()
) -> list[Play]:
    """The candidate plays of the seat to act (see the module docstring); `extra`
    plays (legal ones, e.g. the heuristic's throw) are added if not there already."""
    plays = _candidates(view, rng, cap)
    if extra:
        have = {tuple(sorted(q)) for q in plays}
        for p in extra:
            key = tuple(sorted(p))
            if key not in have:
                have.add(key)
                plays.append(key)
    return plays


def _candidates(view: View, rng: random.Random, cap: int) -> list[Play]:
    t = view.trump
    assert t is not None
    hand = hand_counts(view)
    lead = view.lead
    if lead is None:
        return lead_candidates(hand, t)
    shape = shape_of([c.id for c in lead], t)
    follows = list(
        itertools.islice(iter_follows(hand, shape, t, view.options.strict_tractor_follow), 400)
    )
    if len(follows) > cap:
        follows = rng.sample(follows, cap)
    return follows


def action_features(
    plays: Sequence[Play], t: Trump, view: View | None = None, marked: Play | None = None
) -> F32:
    """Rows of `ACTION_SIZE`: slot counts, then cards/25, points/50, pairs/12, is trump,
    the highest card's level in its suit/16, and the unit count/12; then (version 2,
    from `view`'s current trick) wins the trick now, points at stake (the trick's and
    the play's)/50, partner winning before it, is a throw, seats still to play/3, and
    is `marked` (the heuristic's choice)."""
    slot_of, _, _ = slot_tables(t.rank, t.suit)
    out = np.zeros((len(plays), ACTION_SIZE), dtype=np.float32)
    if view is not None:
        _trick_features(out, plays, t, view, marked)
    for r, ids in enumerate(plays):
        row = out[r]
        pts = 0
        for i in ids:
            row[slot_of[i]] += 1
            pts += POINTS[i]
        n = len(ids)
        row[54] = n / 25.0
        row[55] = pts / 50.0
        pairs = len(ids) - len(set(ids))
        row[56] = pairs / 12.0
        row[57] = 1.0 if all(t.play_suit[i] == TRUMP for i in ids) else 0.0
        row[58] = max(t.level[i] for i in ids) / 16.0
        row[59] = (n - pairs) / 12.0
    return out


def _trick_features(
    out: F32, plays: Sequence[Play], t: Trump, view: View, marked: Play | None
) -> None:
    trick = view.current_trick
    before = [[c.id for c in cards] for _s, cards in trick.plays] if trick else []
    base_points = trick.points if trick is not None else 0
    me = view.seat
    partner_winning = 0.0
    shape = None
    if before:
        shape = shape_of(before[0], t)
        assert trick is not None
        win_seat = trick.plays[winner_index(before, shape, t)][0]
        partner_winning = 1.0 if me is not None and win_seat == (me + 2) % 4 else 0.0
    left = (3 - len(before)) / 3.0
    mark = tuple(sorted(marked)) if marked is not None else None
    for r, ids in enumerate(plays):
        row = out[r]
        if shape is None:
            row[60] = 1.0  # a lead wins the trick so far (a throw may still fail, §6.4)
            row[63] = 1.0 if len(ids) > 1 and shape_of(list(ids), t).kind == THROW else 0.0
        else:
            row[60] = 1.0 if winner_index([*before, list(ids)], shape, t) == len(before) else 0.0
        row[61] = (base_points + sum(POINTS[i] for i in ids)) / 50.0
        row[62] = partner_winning
        row[64] = left
        row[MARKED_COL] = 1.0 if mark is not None and tuple(sorted(ids)) == mark else 0.0


def declare_candidates(view: View) -> list[Play]:
    """A declaration offer's candidates (RULES §3.3): pass (no cards), then every legal
    declaration, weakest first, as sorted card ids."""
    return [(), *(tuple(sorted(c.id for c in cards)) for cards in view.legal_declarations())]


def declare_features(plays: Sequence[Play], t: Trump, marked: Play) -> F32:
    """Rows of `ACTION_SIZE` for `declare_candidates`: the cards' slot counts (under `t`,
    the trump the standing declaration would make), cards/25, pairs/12, is `marked`
    (the heuristic's answer), and the declaration and pass columns."""
    slot_of, _, _ = slot_tables(t.rank, t.suit)
    out = np.zeros((len(plays), ACTION_SIZE), dtype=np.float32)
    for r, ids in enumerate(plays):
        row = out[r]
        for i in ids:
            row[slot_of[i]] += 1
        row[54] = len(ids) / 25.0
        row[56] = (len(ids) - len(set(ids))) / 12.0
        row[MARKED_COL] = 1.0 if tuple(sorted(ids)) == marked else 0.0
        row[DECLARE_COL] = 1.0
        row[PASS_COL] = 0.0 if ids else 1.0
    return out


def bury_features(cards: Sequence[int], t: Trump, marked: Sequence[int]) -> F32:
    """Rows of `ACTION_SIZE` for one bury pick (RULES §4), one per candidate card id:
    its slot, 1/25, points/50, is trump, its level/16, is one of `marked` (the cards
    of the heuristic's bury not picked yet), and the bury column."""
    slot_of, _, _ = slot_tables(t.rank, t.suit)
    out = np.zeros((len(cards), ACTION_SIZE), dtype=np.float32)
    for r, i in enumerate(cards):
        row = out[r]
        row[slot_of[i]] = 1.0
        row[54] = 1 / 25.0
        row[55] = POINTS[i] / 50.0
        row[57] = 1.0 if t.play_suit[i] == TRUMP else 0.0
        row[58] = t.level[i] / 16.0
        row[59] = 1 / 12.0
        row[MARKED_COL] = 1.0 if i in marked else 0.0
        row[BURY_COL] = 1.0
    return out


def decision_features(
    view: View, tracker: Tracker, plays: Sequence[Play], marked: Play | None = None
) -> tuple[F32, F32]:
    """The state vector (OBS_SIZE) and the candidates' rows (len(plays), ACTION_SIZE)."""
    t = view.trump
    assert t is not None
    return encode(view, (), tracker), action_features(plays, t, view, marked)


def decision_rows(
    view: View, tracker: Tracker, plays: Sequence[Play], marked: Play | None = None
) -> F32:
    """(len(plays), FEATURE_SIZE) rows: the state repeated, next to each candidate."""
    state, acts = decision_features(view, tracker, plays, marked)
    rows = np.empty((len(plays), FEATURE_SIZE), dtype=np.float32)
    rows[:, :OBS_SIZE] = state
    rows[:, OBS_SIZE:] = acts
    return rows


__all__ = [
    "ACTION_SIZE", "ACTION_SIZES", "BURY_COL", "DECLARE_COL", "FEATURE_SIZE", "FEATURE_VERSION",
    "MARKED_COL", "PASS_COL", "action_features", "bury_features", "decision_features",
    "decision_rows", "declare_candidates", "declare_features", "hand_counts",
    "lead_candidates", "play_candidates",
]

"""Features of (state, candidate play) pairs for Deep Monte-Carlo, from one seat's view.

The state is the environment's observation (`shengji.env.encoding.encode`); a
candidate play is its 54 trump-relative slot counts plus a few summary numbers.
Candidates: when leading, every single, pair and tractor (RULES §6.1; throws are
left to other agents); when following, every legal follow (§6.2), a seeded random
sample of `cap` of them when there are more.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import numpy as np

from ..cards import N_IDS, POINTS
from ..env.encoding import F32, OBS_SIZE, Tracker, encode, slot_tables
from ..follow import iter_follows
from ..shapes import shape_of
from ..trump import TRUMP, Trump
from ..views import View

ACTION_SIZE = N_IDS + 6
"""Length of a candidate play's feature vector."""
FEATURE_SIZE = OBS_SIZE + ACTION_SIZE
"""Length of one (state, play) feature row."""

Play = tuple[int, ...]


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


def play_candidates(view: View, rng: random.Random, cap: int = 48) -> list[Play]:
    """The candidate plays of the seat to act (see the module docstring)."""
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


def action_features(plays: Sequence[Play], t: Trump) -> F32:
    """Rows of `ACTION_SIZE`: slot counts, then cards/25, points/50, pairs/12, is trump,
    the highest card's level in its suit/16, and the unit count/12."""
    slot_of, _, _ = slot_tables(t.rank, t.suit)
    out = np.zeros((len(plays), ACTION_SIZE), dtype=np.float32)
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


def decision_features(view: View, tracker: Tracker, plays: Sequence[Play]) -> tuple[F32, F32]:
    """The state vector (OBS_SIZE) and the candidates' rows (len(plays), ACTION_SIZE)."""
    t = view.trump
    assert t is not None
    return encode(view, (), tracker), action_features(plays, t)


def decision_rows(view: View, tracker: Tracker, plays: Sequence[Play]) -> F32:
    """(len(plays), FEATURE_SIZE) rows: the state repeated, next to each candidate."""
    state, acts = decision_features(view, tracker, plays)
    rows = np.empty((len(plays), FEATURE_SIZE), dtype=np.float32)
    rows[:, :OBS_SIZE] = state
    rows[:, OBS_SIZE:] = acts
    return rows


__all__ = [
    "ACTION_SIZE", "FEATURE_SIZE", "action_features", "decision_features", "decision_rows",
    "hand_counts",
    "lead_candidates", "play_candidates",
]

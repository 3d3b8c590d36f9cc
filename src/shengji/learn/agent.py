"""The `dmc:PATH` agent: plays the candidate with the highest learned Q, from its view only.

A model on feature version 3 makes every decision of a four-player round by its network:
its declarations (pass or one of the legal ones, RULES §3.3), its bury (eight picks,
§4) and its plays (§6). On version 2 the declarations and the bury are the heuristic
agent's, and the heuristic's play is among its candidates, marked (so throws, §6.4, are
candidates); version 1 models play as they were trained. With `epsilon` > 0 it explores
with a uniformly random candidate. Friends mode's calls (§12.4) are the heuristic's.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Protocol

import torch

from ..actions import Action, Bury, Declare, Pass, Play
from ..bots.heuristic import HeuristicAgent
from ..cards import CARDS, N_IDS
from ..env.encoding import F32, Tracker, encode, view_trump
from ..views import View
from .features import Play as Ids
from .features import (
    action_features,
    bury_features,
    decision_features,
    declare_candidates,
    declare_features,
    play_candidates,
)
from .model import QNet, load_model

#: An imitation record of one decision (`DMCAgent.imitating`): the state, the
#: candidates' rows and the index of the teacher's candidate.
Imitated = tuple[F32, F32, int]


class Teacher(Protocol):
    """Whom the warm start imitates: any bot (`bots.Agent`, not imported here: the bots
    package makes `dmc:` agents from this module)."""

    def act(self, view: View) -> Action:
        """The bot's action for `view`."""
        ...


class DMCAgent:
    """A Deep Monte-Carlo agent (see `shengji.learn`). `model` is a path or a `QNet`."""

    def __init__(
        self, model: QNet | str | Path, seed: int = 0, epsilon: float = 0.0, cap: int = 48
    ) -> None:
        if torch.get_num_threads() > 1:
            torch.set_num_threads(1)  # one small matrix per decision: threads only spin
        self.model = model if isinstance(model, QNet) else load_model(model)
        self.rng = random.Random(seed)
        self.epsilon = epsilon
        self.cap = cap
        self.heuristic = HeuristicAgent(seed)
        self.tracker: Tracker | None = None
        self.last_rows: torch.Tensor | None = None  # the chosen row, for training actors
        #: the rows of the declarations and bury picks it chose by its network (version
        #: 3), for training actors to collect; emptied by whoever reads them
        self.decided: list[torch.Tensor] = []
        #: when a list: declarations and bury picks are answered as `teacher` does and
        #: recorded here (`Imitated`) instead, for the imitation warm start
        self.imitating: list[Imitated] | None = None
        #: whom the warm start imitates: the heuristic, or a stronger bot (`shengji train
        #: --teacher expert:iters=N`); the heuristic's answer stays the marked feature
        self.teacher: Teacher = self.heuristic

    @property
    def learns_all(self) -> bool:
        """True if the network also declares and buries (feature version 3)."""
        return self.model.features >= 3

    def _tracker(self, seat: int) -> Tracker:
        if self.tracker is None or self.tracker.seat != seat:
            self.tracker = Tracker(seat)
        return self.tracker

    def candidates(
        self, view: View, state_np: F32 | None = None, extra: tuple[Ids, ...] = ()
    ) -> tuple[list[Ids], Ids | None, F32, F32]:
        """The decision's candidate plays, the heuristic's choice among them (feature
        version 2 on; None for version 1), the state vector and the candidates' rows.
        `state_np`: the seat's observation now if the caller keeps one (the env's
        incremental `Observer`, equal to `encode(view)`); encoded from the view otherwise.
        `extra`: legal plays that must be among the candidates (a teacher's)."""
        assert view.seat is not None
        marked: Ids | None = None
        if self.model.features >= 2:
            h = self.heuristic.act(view)
            assert isinstance(h, Play)
            marked = tuple(sorted(c.id for c in h.cards))
        must = ((marked,) if marked is not None else ()) + extra
        plays = play_candidates(view, self.rng, self.cap, must)
        if state_np is None:
            state_np, acts_np = decision_features(view, self._tracker(view.seat), plays, marked)
        else:
            acts_np = action_features(plays, view_trump(view), view, marked)
        return plays, marked, state_np, acts_np[:, : self.model.action_size]

    def _pick(self, n: int, state_np: F32, acts_np: F32) -> tuple[int, torch.Tensor]:
        """The index of the best of `n` candidates by the network (or a random one while
        exploring) and its feature row. All candidates are scored in one batched pass
        (the state's share once)."""
        state, acts = torch.from_numpy(state_np), torch.from_numpy(acts_np)
        if n == 1:
            k = 0
        elif self.epsilon and self.rng.random() < self.epsilon:
            k = self.rng.randrange(n)
        else:
            with torch.no_grad():
                k = int(torch.argmax(self.model.score(state, acts)).item())
        return k, torch.cat((state, acts[k]))

    def choose(self, view: View, state_np: F32 | None = None) -> tuple[Ids, torch.Tensor]:
        """The chosen play's card ids and its feature row (`state_np`: see `candidates`)."""
        plays, _marked, state_np, acts_np = self.candidates(view, state_np)
        k, row = self._pick(len(plays), state_np, acts_np)
        return plays[k], row

    def act(self, view: View) -> Action:
        """Play by the network; declare and bury by it too on feature version 3 (else as
        the heuristic agent does)."""
        seat = view.seat
        assert seat is not None
        self.last_rows = None
        if view.phase == "play":
            ids, row = self.choose(view)
            self.last_rows = row
            return Play(seat, tuple(CARDS[i] for i in ids))
        if self.learns_all and view.phase in ("deal", "declare") and view.legal_declarations():
            return self._declare(view, seat)
        if self.learns_all and view.phase == "kitty":
            return self._bury(view, seat)
        return self.heuristic.act(view)

    def _declare(self, view: View, seat: int) -> Action:
        """Pass or declare (RULES §3.3): the candidate the network scores highest."""
        h = self.heuristic.act(view)
        marked: Ids = tuple(sorted(c.id for c in h.cards)) if isinstance(h, Declare) else ()
        plays = declare_candidates(view)
        state = encode(view, (), self._tracker(seat))
        acts = declare_features(plays, view_trump(view), marked)[:, : self.model.action_size]
        if self.imitating is not None:
            if self.teacher is not self.heuristic:
                h = self.teacher.act(view)
            label: Ids = tuple(sorted(c.id for c in h.cards)) if isinstance(h, Declare) else ()
            self.imitating.append((state, acts, plays.index(label)))
            return h
        k, row = self._pick(len(plays), state, acts)
        self.decided.append(row)
        ids = plays[k]
        return Declare(seat, tuple(CARDS[i] for i in ids)) if ids else Pass(seat)

    def _bury(self, view: View, seat: int) -> Action:
        """The kitty (RULES §4) as `n_kitty` picks, each a card of the hand not picked yet
        scored with the picks so far in the state (`encode`'s `selected`)."""
        h = self.heuristic.act(view)
        assert isinstance(h, Bury)
        left = [c.id for c in h.cards]  # the heuristic's bury, less the cards picked
        # the teacher's bury, less the cards picked (imitation: its lowest one is the label)
        b = self.teacher.act(view) if self.imitating is not None and \
            self.teacher is not self.heuristic else h
        assert isinstance(b, Bury)
        taught = [c.id for c in b.cards]
        hand = view.counts()
        t = view_trump(view)
        tracker = self._tracker(seat)
        n_kitty = len(h.cards)
        picked: list[int] = []
        for j in range(n_kitty):
            cands = [i for i in range(N_IDS) if hand[i]]
            state = encode(view, picked, tracker, n_kitty - j)
            acts = bury_features(cands, t, left)[:, : self.model.action_size]
            if self.imitating is not None:
                k = cands.index(min(taught))  # the teacher's lowest card not picked
                self.imitating.append((state, acts, k))
            else:
                k, row = self._pick(len(cands), state, acts)
                self.decided.append(row)
            i = cands[k]
            hand[i] -= 1
            picked.append(i)
            for rest in (left, taught):
                if i in rest:
                    rest.remove(i)
        return Bury(seat, tuple(CARDS[i] for i in picked))


__all__ = ["DMCAgent", "Imitated"]

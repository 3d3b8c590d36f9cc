"""The `dmc:PATH` agent: plays the candidate with the highest learned Q, from its view only.

Declarations and the bury are the heuristic agent's (the network scores plays,
RULES §6); with `epsilon` > 0 it explores with a uniformly random candidate. A model
on feature version 2 also gets the heuristic's play among its candidates, marked (so
throws, §6.4, are candidates); version 1 models play as they were trained.
"""

from __future__ import annotations

import random
from pathlib import Path

import torch

from ..actions import Action, Play
from ..bots.heuristic import HeuristicAgent
from ..cards import CARDS
from ..env.encoding import F32, Tracker, view_trump
from ..views import View
from .features import Play as Ids
from .features import action_features, decision_features, play_candidates
from .model import QNet, load_model


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

    def candidates(
        self, view: View, state_np: F32 | None = None
    ) -> tuple[list[Ids], Ids | None, F32, F32]:
        """The decision's candidate plays, the heuristic's choice among them (feature
        version 2; None for version 1), the state vector and the candidates' rows.
        `state_np`: the seat's observation now if the caller keeps one (the env's
        incremental `Observer`, equal to `encode(view)`); encoded from the view otherwise."""
        assert view.seat is not None
        marked: Ids | None = None
        if self.model.features >= 2:
            h = self.heuristic.act(view)
            assert isinstance(h, Play)
            marked = tuple(sorted(c.id for c in h.cards))
        plays = play_candidates(view, self.rng, self.cap, (marked,) if marked else ())
        if state_np is None:
            if self.tracker is None or self.tracker.seat != view.seat:
                self.tracker = Tracker(view.seat)
            state_np, acts_np = decision_features(view, self.tracker, plays, marked)
        else:
            acts_np = action_features(plays, view_trump(view), view, marked)
        return plays, marked, state_np, acts_np[:, : self.model.action_size]

    def choose(self, view: View, state_np: F32 | None = None) -> tuple[Ids, torch.Tensor]:
        """The chosen play's card ids and its feature row (`state_np`: see `candidates`).
        All candidates are scored in one batched pass (the state's share once)."""
        plays, _marked, state_np, acts_np = self.candidates(view, state_np)
        state, acts = torch.from_numpy(state_np), torch.from_numpy(acts_np)
        if len(plays) == 1:
            k = 0
        elif self.epsilon and self.rng.random() < self.epsilon:
            k = self.rng.randrange(len(plays))
        else:
            with torch.no_grad():
                k = int(torch.argmax(self.model.score(state, acts)).item())
        return plays[k], torch.cat((state, acts[k]))

    def act(self, view: View) -> Action:
        """Play by the network; declare and bury as the heuristic agent does."""
        if view.phase != "play":
            self.last_rows = None
            return self.heuristic.act(view)
        assert view.seat is not None
        ids, row = self.choose(view)
        self.last_rows = row
        return Play(view.seat, tuple(CARDS[i] for i in ids))


__all__ = ["DMCAgent"]

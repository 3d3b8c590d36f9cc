"""`shengji/Tractor-v0`: one seat of a round against bots, as a Gymnasium environment.

    import gymnasium, shengji.env
    env = gymnasium.make("shengji/Tractor-v0", opponents="heuristic")
    obs, info = env.reset(seed=0)
    while True:
        obs, reward, terminated, truncated, info = env.step(
            env.action_space.sample(obs["action_mask"]))
        if terminated or truncated: break
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..bots import Agent, make_agent
from ..cards import RANKS
from ..options import RuleOptions
from .encoding import N_ACTIONS, OBS_SIZE
from .table import Table

ObsDict = dict[str, Any]


class TractorEnv(gym.Env[ObsDict, np.int64]):
    """The learner holds seat `seat` (None: a seeded random seat each reset); the other
    three seats, the partner included, are bots of kind `opponents` (any agent kind,
    e.g. "random", "heuristic" or "dmc:ckpt.pt"), which see only their own views.

    The observation, action space and reward are those of `shengji_v0` (docs/ENV.md);
    `info["action_mask"]` repeats the mask. An illegal action ends the episode with
    `illegal_reward` and `info["illegal_action"] = True`. `skip_forced` (default False):
    decisions with only one legal action are taken for the learner (and the bots).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        opponents: str = "heuristic",
        seat: int | None = 0,
        options: RuleOptions | dict[str, Any] | None = None,
        levels: tuple[str, str] | None = ("2", "2"),
        starter: int | None = None,
        reward_points: float = 0.0,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        skip_forced: bool = False,
    ) -> None:
        make_agent(opponents, 0)  # fail early on an unknown kind
        if seat is not None and seat not in (0, 1, 2, 3):
            raise ValueError(f"seat must be 0-3 or None, not {seat!r}")
        if starter is not None and starter not in (0, 1, 2, 3):
            raise ValueError(f"starter must be 0-3 or None, not {starter!r}")
        self.opponents = opponents
        self.fixed_seat = seat
        self.fixed_starter = starter
        self.rule_options = (
            options if isinstance(options, RuleOptions) else RuleOptions.from_json(options)
        )
        self.fixed_levels = levels
        self.reward_points = reward_points
        self.skip_forced = skip_forced
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 2.0, (OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.table: Table | None = None
        self.seat = 0
        self._bots: list[Agent] = []

    def _obs(self) -> ObsDict:
        assert self.table is not None
        return {
            "observation": self.table.observation(self.seat),
            "action_mask": self.table.action_mask(self.seat),
        }

    def _info(self, **extra: Any) -> dict[str, Any]:
        assert self.table is not None
        info: dict[str, Any] = {
            "action_mask": self.table.action_mask(self.seat),
            "kind": self.table.kind,
            "seat": self.seat,
        }
        info.update(extra)
        return info

    def _run_bots(self) -> None:
        t = self.table
        assert t is not None
        while t.seat is not None and t.seat != self.seat:
            s = t.seat
            t.act(self._bots[s].act(t.view(s)))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Deal a new round and play the bots up to the learner's first decision."""
        super().reset(seed=seed)
        rng = self.np_random
        deal_seed = int(rng.integers(2**48))
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(4))
        starter = (
            self.fixed_starter if self.fixed_starter is not None else int(rng.integers(4))
        )
        levels = self.fixed_levels or (
            RANKS[int(rng.integers(13))], RANKS[int(rng.integers(13))]
        )
        self.table = Table(
            deal_seed, self.rule_options, starter=starter, levels=levels,
            reward_points=self.reward_points, skip_forced=self.skip_forced,
        )
        self._bots = [
            make_agent(self.opponents, int(rng.integers(2**48))) for _ in range(4)
        ]
        self._run_bots()
        return self._obs(), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        """Apply the learner's action, then the bots' until the learner acts again."""
        t = self.table
        assert t is not None, "call reset() first"
        if t.is_over:
            raise RuntimeError("the episode is over; call reset()")
        a = int(action)
        if not 0 <= a < N_ACTIONS or not t.action_mask(self.seat)[a]:
            return self._obs(), self.illegal_reward, True, False, self._info(illegal_action=True)
        t.step(a)
        self._run_bots()
        if t.is_over:
            reward = t.rewards()[self.seat]
            return self._obs(), reward, True, False, self._info(result=t.round.result)
        return self._obs(), 0.0, False, False, self._info()

    def render(self) -> str | None:
        """The learner's hand and the current trick as text."""
        if self.table is None:
            return None
        v = self.table.view(self.seat)
        from ..cards import format_cards

        trick = v.current_trick
        cur = "  ".join(f"{s}:{format_cards(c)}" for s, c in trick.plays) if trick else ""
        return f"seat {self.seat} {v.phase}: hand {format_cards(v.hand)} | trick {cur}"


__all__ = ["TractorEnv"]

"""Reinforcement-learning environments: PettingZoo `shengji_v0` and Gymnasium
`shengji/Tractor-v0` (needs the `[rl]` extra). See docs/ENV.md for the action space,
the observation table and the rewards.
"""

from __future__ import annotations

import gymnasium

from . import shengji_v0
from .encoding import N_ACTIONS, OBS_BLOCKS, OBS_SIZE, encode
from .gym_env import TractorEnv
from .table import Table

ENV_ID = "shengji/Tractor-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="shengji.env.gym_env:TractorEnv")

__all__ = [
    "ENV_ID", "N_ACTIONS", "OBS_BLOCKS", "OBS_SIZE", "Table", "TractorEnv", "encode",
    "shengji_v0",
]

"""`shengji_v0`: a PettingZoo AEC environment over one whole round of Tractor (docs/ENV.md).

    from shengji.env import shengji_v0
    env = shengji_v0.env()
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(
            obs["action_mask"])
        env.step(action)
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..cards import RANKS, format_cards
from ..options import RuleOptions
from .encoding import N_ACTIONS, OBS_SIZE
from .table import Table

AGENTS = ("seat_0", "seat_1", "seat_2", "seat_3")
_SEAT = {a: i for i, a in enumerate(AGENTS)}


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment with PettingZoo's standard wrappers: an illegal action ends
    the round with `illegal_reward` (-1) for the offender; order and bounds are enforced."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):  # type: ignore[misc]  # noqa: N801 (PettingZoo's name)
    """One round of Tractor for four agents `seat_0`..`seat_3` (teams 0+2 and 1+3).

    Keyword arguments:
    - `options`: `RuleOptions` (RULES §10) or a JSON dict of them;
    - `starter`: the starting seat (its team declares, §3.4), or None for a seeded
      random seat each reset;
    - `levels`: the teams' levels, or None for seeded random levels 2..A each reset;
    - `reward_points`: weight of the point margin added to the level reward (0: off);
    - `render_mode`: None, "ansi" or "human" (prints the public table);
    - `skip_forced`: take for the agent every decision with only one legal action (a
      follow's last cards when one completion is legal, a lead's `done` once no card can
      be added), so that agents are asked only when they have a choice (default False:
      every decision is offered, as documented in docs/ENV.md).
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human"],
        "name": "shengji_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        options: RuleOptions | dict[str, Any] | None = None,
        starter: int | None = None,
        levels: tuple[str, str] | None = ("2", "2"),
        reward_points: float = 0.0,
        render_mode: str | None = None,
        skip_forced: bool = False,
    ) -> None:
        super().__init__()
        self.rule_options = (
            options if isinstance(options, RuleOptions) else RuleOptions.from_json(options)
        )
        if starter is not None and starter not in (0, 1, 2, 3):
            raise ValueError(f"starter must be a seat 0-3 or None, not {starter!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.fixed_starter = starter
        self.fixed_levels = levels
        self.reward_points = reward_points
        self.skip_forced = skip_forced
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 2.0, (OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self._rng = random.Random()
        self.table: Table | None = None
        self._steps = _Steps(self, None)

    def agent_iter(self, max_iter: int = 2**63) -> _Agents:
        """`AECEnv.agent_iter`: yields the selected agent until every agent is done (or
        `max_iter` agents were yielded); step the env once per agent yielded. The same
        contract as PettingZoo's iterable, compiled with the env (issue 12)."""
        return _Agents(self, max_iter)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The Dict space of `observation` (float32 vector) and `action_mask` (int8)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Discrete(120): 0-53 pick a card id, 54 done, 55 pass, 56-65 declarations,
        66-119 close a lead with card id `a - 66`."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------ lifecycle

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new round; the same `seed` gives the same deal, starter and levels."""
        if seed is not None:
            self._rng = random.Random(seed)
        deal_seed = self._rng.getrandbits(48)
        starter = self.fixed_starter if self.fixed_starter is not None else self._rng.randrange(4)
        if self.fixed_levels is not None:
            levels = self.fixed_levels
        else:
            levels = (RANKS[self._rng.randrange(13)], RANKS[self._rng.randrange(13)])
        self.table = Table(
            deal_seed, self.rule_options, starter=starter, levels=levels,
            reward_points=self.reward_points, skip_forced=self.skip_forced,
        )
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        # `last` and `step` of this round: the stepper's C methods, bound on the instance
        # (an agent loop then calls C directly, ~1,000 instructions a step fewer than
        # through the class's methods, which delegate and serve before the first reset)
        self._steps = steps = _Steps(self, self.table)
        self.last = steps.last  # type: ignore[method-assign]
        self.step = steps.step  # type: ignore[method-assign]
        self._select()

    def _select(self) -> None:
        t = self.table
        assert t is not None
        if t.seat is not None:
            self.agent_selection = AGENTS[t.seat]
            self.infos[self.agent_selection] = {"kind": t.kind}

    def observe(self, agent: str) -> dict[str, Any]:
        """`observation` (built from this seat's view only) and `action_mask`: new arrays
        at every call, the caller's to keep."""
        t = self.table
        assert t is not None, "call reset() first"
        seat = _SEAT[agent]
        return {"observation": t.observation(seat), "action_mask": t.action_mask(seat)}

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, Any] | None, float, bool, bool, dict[str, Any]]:
        """`AECEnv.last` (the selected agent's observation, accumulated reward,
        termination, truncation and info), with the observation built in one call."""
        return self._steps.last(observe)

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action (see docs/ENV.md); None for a finished agent."""
        self._steps.step(action)

    def _end(self) -> None:
        """The round is over: every agent's reward and termination (then PettingZoo's
        dead steps remove the agents one by one)."""
        t = self.table
        assert t is not None
        r = t.rewards()
        self.rewards = {a: r[i] for i, a in enumerate(AGENTS)}
        self.terminations.update(dict.fromkeys(AGENTS, True))  # (the dict `_steps` reads)
        res = t.round.result
        for a in AGENTS:
            self.infos[a] = {"result": res}
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The public table as text (a spectator's view, RULES §11)."""
        if self.render_mode is None or self.table is None:
            return None
        v = self.table.round.view(None)
        lines = [
            f"phase {v.phase}  trump {v.trump_rank}{v.trump_suit or ''}  starter {v.starter}  "
            f"to act {v.to_act}  opponents' points {v.opponents_points}"
        ]
        if v.current_trick is not None:
            lines.append(
                "trick: "
                + "  ".join(f"{s}:{format_cards(c)}" for s, c in v.current_trick.plays)
            )
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""


class _Steps:
    """`raw_env.last` and `raw_env.step` for one round (made by `reset`): compiled with
    the table typed, so a step calls the table's C methods directly (issue 12). The
    env's PettingZoo state (`agent_selection`, the per-agent dicts) stays on the env,
    read and written here as PettingZoo's own loop would (the per-agent dicts of this
    round are held here too: `reset` makes new ones, the round's end updates them)."""

    def __init__(self, env: raw_env, table: Table | None) -> None:
        self.env = env
        self.table = table
        self.cumulative = getattr(env, "_cumulative_rewards", {})
        self.terminations = getattr(env, "terminations", {})
        self.truncations = getattr(env, "truncations", {})
        self.infos = getattr(env, "infos", {})
        self.human = env.render_mode == "human"

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, Any] | None, float, bool, bool, dict[str, Any]]:
        env = self.env
        agent = env.agent_selection
        obs = None
        if observe:
            t = self.table
            assert t is not None, "call reset() first"
            seat = _SEAT[agent]
            obs = {"observation": t.observation(seat), "action_mask": t.action_mask(seat)}
        return (
            obs, self.cumulative[agent], self.terminations[agent], self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: int | None) -> None:
        env = self.env
        agent = env.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            env._was_dead_step(action)
            return
        t = self.table
        assert t is not None
        # Rewards are all 0 until the round ends (then `_end`), so the acting agent's
        # accumulated reward is 0 already: nothing to reset or add up per step.
        assert action is not None
        t.step(action)
        seat = t.seat
        if seat is None:
            env._end()
        else:
            agent = AGENTS[seat]
            env.agent_selection = agent
            self.infos[agent] = {"kind": t.kind}
        if self.human:
            print(env.render())


class _Agents:
    """What `raw_env.agent_iter` returns: each `iter()` starts a fresh countdown."""

    def __init__(self, env: raw_env, max_iter: int) -> None:
        self.env = env
        self.max_iter = max_iter

    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator:
    """PettingZoo's `AECIterator` contract: stop once `env.agents` is empty or the
    countdown ran out; else yield `env.agent_selection`."""

    def __init__(self, env: raw_env, max_iter: int) -> None:
        self.env = env
        self.left = max_iter

    def __iter__(self) -> _AgentIterator:
        return self

    def __next__(self) -> str:
        env = self.env
        if not env.agents or self.left <= 0:
            raise StopIteration
        self.left -= 1
        return env.agent_selection


__all__ = ["AGENTS", "env", "raw_env"]

"""The Q network of Deep Monte-Carlo: an MLP scoring (state, candidate play) rows.

A checkpoint is a `torch.save`d dict: `format`, `features` (the feature version it
was trained on; absent: version 1), `model` (state dict), `config` (every training
setting), `deals` (self-play deals seen), `rows`, `steps`, `seconds`, `history`
(training log rows) and `optimizer` (the Adam state, for `--init`).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import torch
from torch import nn

from ..env.encoding import OBS_SIZE
from .features import ACTION_SIZES, FEATURE_VERSION

FORMAT = "shengji-dmc-1"


class QNet(nn.Module):
    """Expected final reward of playing a candidate in a state (DouZero-style Q)."""

    def __init__(
        self, hidden: tuple[int, ...] = (512, 256, 128), features: int = FEATURE_VERSION
    ) -> None:
        super().__init__()
        if features not in ACTION_SIZES:
            raise ValueError(
                f"features version {features} is unknown to this shengji (it reads "
                f"{sorted(ACTION_SIZES)}): retrain with `shengji train`"
            )
        self.features = features
        self.action_size = ACTION_SIZES[features]
        layers: list[nn.Module] = []
        width = OBS_SIZE + self.action_size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)
        self.hidden = hidden
        # the layers after the first, kept once (slicing `self.net` builds a new
        # Sequential: ~20% of an actor's time when it was done per decision)
        self._tail: tuple[nn.Module, ...] = tuple(layers[1:])

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        """(n, FEATURE_SIZE) rows → (n,) values."""
        out: torch.Tensor = self.net(rows).squeeze(-1)
        return out

    def score(self, state: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Values of one state (OBS_SIZE) with each candidate (n, ACTION_SIZE) row; the
        same as `forward` on the concatenated rows, but the state's share of the first
        layer is computed once."""
        first = self.net[0]
        assert isinstance(first, nn.Linear)
        n_state = state.shape[-1]
        h = torch.nn.functional.linear(actions, first.weight[:, n_state:], first.bias)
        h = h + first.weight[:, :n_state] @ state
        for layer in self._tail:
            h = layer(h)
        out: torch.Tensor = h.squeeze(-1)
        return out


    def score_groups(
        self, states: torch.Tensor, actions: torch.Tensor, group: torch.Tensor
    ) -> torch.Tensor:
        """Values of many decisions at once: `states` (d, OBS_SIZE), each candidate row
        of `actions` (n, ACTION_SIZE) belonging to decision `group[j]` (n,); each
        state's share of the first layer is computed once."""
        first = self.net[0]
        assert isinstance(first, nn.Linear)
        n_state = states.shape[-1]
        h = torch.nn.functional.linear(actions, first.weight[:, n_state:], first.bias)
        h = h + (states @ first.weight[:, :n_state].T)[group]
        for layer in self._tail:
            h = layer(h)
        out: torch.Tensor = h.squeeze(-1)
        return out


def save_checkpoint(
    path: str | Path, model: QNet, *, deals: int, seconds: float,
    history: list[dict[str, float]], config: dict[str, Any], rows: int = 0, steps: int = 0,
    optimizer: dict[str, Any] | None = None,
) -> None:
    """Write a checkpoint atomically (a reader never sees half a file)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    data: dict[str, Any] = {
        "format": FORMAT, "features": model.features, "model": state,
        "config": {**config, "hidden": model.hidden}, "deals": deals, "rows": rows,
        "steps": steps, "seconds": seconds, "history": history,
    }
    if optimizer is not None:
        data["optimizer"] = optimizer
    torch.save(data, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint dict; raises `ValueError` if the file is not one."""
    try:
        data = torch.load(Path(path), map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"no checkpoint at {path}") from None
    except Exception as e:  # a corrupt or foreign file
        raise ValueError(f"{path} is not a shengji DMC checkpoint: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a shengji DMC checkpoint ({FORMAT})")
    version = data.get("features", 1)
    if version not in ACTION_SIZES:
        raise ValueError(
            f"{path} was trained on features version {version}; this shengji reads "
            f"versions {sorted(ACTION_SIZES)}: retrain it with `shengji train`"
        )
    return data


def model_from_checkpoint(data: dict[str, Any]) -> QNet:
    """A QNet in eval mode with the checkpoint's weights."""
    model = QNet(tuple(data["config"].get("hidden", (512, 256, 128))),
                 int(data.get("features", 1)))
    try:
        model.load_state_dict(data["model"])
    except RuntimeError as e:
        raise ValueError(f"checkpoint weights do not fit its features/hidden sizes: {e}") from None
    model.eval()
    return model


@functools.lru_cache(maxsize=8)
def _cached(path: str, mtime: float) -> QNet:
    return model_from_checkpoint(load_checkpoint(path))


def load_model(path: str | Path) -> QNet:
    """The model of a checkpoint file, loaded once per process (until the file changes)."""
    p = Path(path).resolve()
    try:
        mtime = p.stat().st_mtime
    except FileNotFoundError:
        raise ValueError(f"no checkpoint at {path}") from None
    return _cached(str(p), mtime)


__all__ = ["FORMAT", "QNet", "load_checkpoint", "load_model", "model_from_checkpoint",
           "save_checkpoint"]

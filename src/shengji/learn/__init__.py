"""Learned agents: Deep Monte-Carlo (DouZero-style) over (state, candidate play) pairs.

Needs the `[rl]` extra (PyTorch). `shengji train` trains a checkpoint; the agent
kind `dmc:PATH` plays it (arena, terminal, web), seeing only its own view (RULES §11).
Names are imported lazily so that `shengji.learn.cluster` works without PyTorch.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "DMCAgent": "agent", "QNet": "model", "load_checkpoint": "model", "load_model": "model",
    "TrainConfig": "train", "train": "train",
}


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DMCAgent", "QNet", "TrainConfig", "load_checkpoint", "load_model", "train"]

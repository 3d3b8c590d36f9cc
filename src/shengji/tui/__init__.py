"""The terminal client: `shengji play` (a human against bots) and `shengji replay`."""

from __future__ import annotations

from .game import QuitGame, TerminalGame, agents_for, parse_selection, play_terminal
from .replay import Replay, replay_terminal

__all__ = [
    "QuitGame", "Replay", "TerminalGame", "agents_for", "parse_selection", "play_terminal",
    "replay_terminal",
]

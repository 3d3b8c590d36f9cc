"""shengji: Tractor (拖拉机, Shengji) — a rules engine, bots, a terminal and a web game.

The public API is what this module exports; every name cites the RULES section it
implements in its docstring. See docs/ENGINE_API.md.
"""

from ._build import choose_engine

choose_engine()  # compiled with mypyc, or pure Python (SHENGJI_PURE=1, stale builds)

from .actions import Action, Bury, CloseWindow, Declare, Draw, Pass, Play, action_from_json
from .cards import CARDS, Card, card_points, format_cards, parse_cards, shuffled_deck
from .errors import IllegalAction, MalformedAction
from .follow import is_legal_follow
from .game import Game, replay
from .hand import Hand
from .options import RuleOptions
from .record import GameRecord, RecordMismatch
from .results import FailedThrow, RoundResult, TrickView
from .round import Decision, Round, Trick
from .scoring import kitty_points, level_change
from .shapes import classify_lead
from .trick import failed_throw, trick_winner
from .trump import Trump
from .views import View
from .vocab import Gainer, LeadKind, Phase

__version__ = "0.1.0"

__all__ = [
    "Action", "Bury", "CARDS", "Card", "CloseWindow", "Declare", "Decision", "Draw",
    "FailedThrow", "Gainer", "Game", "GameRecord", "Hand", "IllegalAction", "LeadKind",
    "MalformedAction", "Pass", "Phase", "Play",
    "RecordMismatch", "Round",
    "RoundResult", "RuleOptions", "Trick", "TrickView", "Trump", "View", "action_from_json",
    "card_points", "classify_lead", "failed_throw", "format_cards", "is_legal_follow",
    "kitty_points", "level_change", "parse_cards", "replay", "shuffled_deck", "trick_winner",
]

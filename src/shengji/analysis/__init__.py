"""Analysis: a coach's review of a seat's decisions, from the expert's search (issue 32).

A layer above `bots/`: it reads records and views and runs the bots' public pieces;
the engine and the bots never import it. See `analysis.review` for the readings,
the classes, the accuracy formula and the reasons.
"""

from .hint import HINT_BUDGET, Hint, hint_kind, suggest
from .review import (
    ACCURACY_K,
    CLASSES,
    THRESHOLDS,
    Budget,
    CandidateValue,
    Decision,
    Reading,
    Reason,
    RoundReview,
    accuracy,
    candidates,
    classify,
    decision_count,
    hindsight_reading,
    knowledge_reading,
    play_candidates,
    reason_text,
    review_lines,
    review_round,
)

__all__ = [
    "HINT_BUDGET", "Hint", "hint_kind", "suggest",
    "ACCURACY_K", "CLASSES", "THRESHOLDS", "Budget", "CandidateValue", "Decision", "Reading",
    "Reason", "RoundReview", "accuracy", "candidates", "classify", "decision_count",
    "hindsight_reading",
    "knowledge_reading", "play_candidates", "reason_text", "review_lines", "review_round",
]

"""Game records: options + seed + every action + a digest of each round's result.

The log is the game: a record replays to the exact same state (`shengji.replay`),
and each finished round's digest lets replay prove it reproduced the original.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .actions import action_from_json
from .errors import IllegalAction
from .options import RuleOptions
from .results import RoundResult, result_json

FORMAT = "shengji-record/1"


@dataclass
class GameRecord:
    """Everything needed to reproduce a game exactly: options, the shuffle seed, the actions."""

    options: RuleOptions
    seed: int | str
    actions: list[list[Any]] = field(default_factory=list)
    round_seeds: list[int] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON form; `round_seeds` lists each round's shuffle seed (derived from `seed`),
        `digests` each finished round's `round_digest`."""
        return {
            "format": FORMAT,
            "options": self.options.to_json(),
            "seed": self.seed,
            "round_seeds": self.round_seeds,
            "actions": self.actions,
            "digests": self.digests,
        }

    def dumps(self) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_json(), ensure_ascii=False, allow_nan=False)

    def save(self, path: str | Path) -> None:
        """Write the record to a JSON file."""
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """A record from its JSON form; raises `IllegalAction` naming what is malformed.

        Records written before digests existed load with no digests (nothing to check).
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise IllegalAction(f"malformed record: expected format {FORMAT!r}")
        seed = data.get("seed")
        if not isinstance(seed, (int, str)) or isinstance(seed, bool):
            raise IllegalAction("malformed record: seed must be an int or a string")
        options = RuleOptions.from_json(data.get("options"))
        actions = data.get("actions")
        if not isinstance(actions, list):
            raise IllegalAction("malformed record: actions must be a list")
        for a in actions:
            action_from_json(a, options.n_players)  # seats of this table (RULES §12.1)
        round_seeds = data.get("round_seeds") or []
        if not isinstance(round_seeds, list) or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in round_seeds
        ):
            raise IllegalAction("malformed record: round_seeds must be a list of ints")
        digests = data.get("digests") or []
        if not isinstance(digests, list) or not all(isinstance(x, str) for x in digests):
            raise IllegalAction("malformed record: digests must be a list of strings")
        return cls(options, seed, actions, round_seeds, digests)

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        """A record from JSON text."""
        try:
            return cls.from_json(json.loads(text))
        except json.JSONDecodeError as e:
            raise IllegalAction(f"malformed record: {e}") from None

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """A record from a JSON file."""
        return cls.loads(Path(path).read_text(encoding="utf-8"))


class RecordMismatch(IllegalAction):
    """Replaying a record did not reproduce it: `round_no` and `action_index` say where.

    Raised for an action the rules refuse at that point and for a finished round whose
    result digest differs from the recorded one (a record edited so that it stays legal).
    """

    def __init__(self, message: str, round_no: int, action_index: int) -> None:
        super().__init__(message)
        self.round_no = round_no
        self.action_index = action_index


def round_digest(result: RoundResult, n_actions: int) -> str:
    """A short digest of a finished round: its full result and the game's action count then."""
    text = json.dumps([n_actions, result_json(result)], sort_keys=True, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]

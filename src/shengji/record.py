"""Game records: options + seed + every action; replay; JSON save/load.

The log is the game: a record replays to the exact same state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .actions import action_from_json
from .errors import IllegalAction
from .options import RuleOptions

FORMAT = "shengji-record/1"


@dataclass
class GameRecord:
    """Everything needed to reproduce a game exactly: options, the shuffle seed, the actions."""

    options: RuleOptions
    seed: int | str
    actions: list[list[Any]] = field(default_factory=list)
    round_seeds: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON form; `round_seeds` lists each round's shuffle seed (derived from `seed`)."""
        return {
            "format": FORMAT,
            "options": self.options.to_json(),
            "seed": self.seed,
            "round_seeds": self.round_seeds,
            "actions": self.actions,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise IllegalAction(f"malformed record: expected format {FORMAT!r}")
        seed = data.get("seed")
        if not isinstance(seed, (int, str)) or isinstance(seed, bool):
            raise IllegalAction("malformed record: seed must be an int or a string")
        actions = data.get("actions")
        if not isinstance(actions, list):
            raise IllegalAction("malformed record: actions must be a list")
        for a in actions:
            action_from_json(a)
        round_seeds = data.get("round_seeds") or []
        if not isinstance(round_seeds, list) or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in round_seeds
        ):
            raise IllegalAction("malformed record: round_seeds must be a list of ints")
        return cls(RuleOptions.from_json(data.get("options")), seed, actions, round_seeds)

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        try:
            return cls.from_json(json.loads(text))
        except json.JSONDecodeError as e:
            raise IllegalAction(f"malformed record: {e}") from None

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        return cls.loads(Path(path).read_text(encoding="utf-8"))


def replay(record: GameRecord, upto: int | None = None) -> Game:
    """Rebuild the exact game state from a record (optionally only its first `upto` actions)."""
    game = Game(record.seed, record.options)
    for i, s in enumerate(record.round_seeds):
        if s != round_seed(record.seed, i):
            raise IllegalAction(f"malformed record: round {i}'s seed does not derive from the seed")
    actions = record.actions if upto is None else record.actions[:upto]
    for a in actions:
        game.apply(action_from_json(a))
    return game


from .game import Game, round_seed  # noqa: E402

"""Every engine refusal carries a code (and facts) that the browser's string tables word
in all seven languages (issue #29 item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shengji.errors import CODES, IllegalAction

I18N = Path(__file__).resolve().parents[1] / "src/shengji/server/static/i18n"
LANGS = ("en", "zh", "vi", "th", "ko", "sq", "mn")
MESSAGES = [
    ("RULES §6: play exactly 2 card(s), as many as the leader", "follow_count", {"n": 2}),
    ("RULES §6.2: follow suit as far as possible: play 3 card(s) of the led suit (you played 1)",
     "follow_suit", {"need": 3, "played": 1}),
    ("RULES §6.2: play pairs as far as possible: 2 pair(s) of the led suit are required "
     "(you played 0)", "follow_pairs", {"need": 2, "played": 0}),
    ("RULES §6.1: all cards of a lead must be of one play suit", "lead_one_suit", {}),
    ("RULES §4: the starter puts back exactly 8 cards, not 3", "bury_count", {"n": 3}),
    ("RULES §9: the game is over", "game_over", {}),
]


def _has(table: dict[str, str], code: str) -> bool:
    return f"refusal.{code}" in table or f"refusal.{code}.other" in table


@pytest.mark.parametrize(("message", "code", "facts"), MESSAGES)
def test_code_and_facts(message: str, code: str, facts: dict[str, int]) -> None:
    e = IllegalAction(message)
    assert (e.code, e.facts, e.message) == (code, facts, message)


def test_every_code_worded_in_all_languages() -> None:
    codes = [c for c, _ in CODES] + ["illegal"]
    for lang in LANGS:
        table = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
        missing = [c for c in codes if not _has(table, c)]
        assert not missing, (lang, missing)
        for c in codes:
            text = table.get(f"refusal.{c}") or table[f"refusal.{c}.other"]
            assert "RULES" not in text and "§" not in text, (lang, c)

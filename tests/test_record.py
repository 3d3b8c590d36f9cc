"""Game records: JSON save/load and exact replay."""

import pytest

from helpers import play_randomly, snapshot
from shengji import Game, GameRecord, IllegalAction, RuleOptions, replay


def test_replay_reproduces_the_exact_state(tmp_path):
    game = Game(12, RuleOptions(strict_tractor_follow=True))
    play_randomly(game, 12, stop=lambda g: len(g.results) == 2 and g.round.phase == "play")
    path = tmp_path / "game.json"
    game.record.save(path)
    again = replay(GameRecord.load(path))
    assert snapshot(again) == snapshot(game)
    assert again.options == game.options
    assert GameRecord.load(path).to_json()["round_seeds"] == game.record.round_seeds


def test_replay_of_a_prefix():
    game = Game(13)
    play_randomly(game, 13, stop=lambda g: len(g.actions) == 150)
    partial = replay(game.record, upto=120)
    assert len(partial.actions) == 120


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "{}",
        '{"format": "shengji-record/1", "seed": 1, "actions": [["fly"]]}',
        '{"format": "shengji-record/1", "seed": 1, "actions": [["play", 9, "AS"]]}',
        '{"format": "shengji-record/1", "seed": 1, "actions": [], "options": {"x": 1}}',
    ],
)
def test_malformed_records_are_refused(text):
    with pytest.raises(IllegalAction):
        GameRecord.loads(text)

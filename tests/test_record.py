"""Game records: JSON save/load and exact replay."""

import pytest

from helpers import play_randomly, snapshot
from shengji import Game, GameRecord, IllegalAction, RecordMismatch, RuleOptions, replay


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


def _finished_game(seed: int, rounds: int) -> Game:
    game = Game(seed)
    play_randomly(game, seed, stop=lambda g: len(g.results) == rounds)
    return game


def test_records_carry_a_digest_per_finished_round_and_replay_checks_them():
    game = _finished_game(21, 3)
    rec = GameRecord.loads(game.record.dumps())
    assert len(rec.digests) == 3 and len(set(rec.digests)) == 3
    assert list(replay(rec).digests) == rec.digests


def test_a_record_edited_so_that_it_stays_legal_is_caught_at_the_round_it_diverges():
    """Doubling the failed-throw penalty (RULES §6.4) keeps every action legal but changes
    the first round in which a throw failed: replay names that round and its last action."""
    game = _finished_game(22, 4)
    first = next(k for k, r in enumerate(game.results) if r.penalties)
    data = game.record.to_json()
    data["options"]["throw_penalty_per_card"] = 20
    tampered = GameRecord.from_json(data)
    with pytest.raises(RecordMismatch) as exc:
        replay(tampered)
    assert exc.value.round_no == first
    before = replay(game.record, exc.value.action_index)
    after = replay(game.record, exc.value.action_index + 1)
    assert len(before.results) == first and len(after.results) == first + 1
    assert f"round {first}" in str(exc.value)


def test_an_illegal_action_in_a_record_is_named_by_round_and_index():
    game = _finished_game(23, 1)
    data = game.record.to_json()
    plays = [k for k, a in enumerate(data["actions"]) if a[0] == "play"]
    i = plays[len(plays) // 2]  # a play in the middle of the game
    seat, cards = data["actions"][i][1], data["actions"][i][2]
    data["actions"][i] = ["play", (seat + 1) % 4, cards]  # out of turn (RULES §6)
    with pytest.raises(RecordMismatch) as exc:
        replay(GameRecord.from_json(data))
    assert exc.value.action_index == i
    assert exc.value.round_no == replay(game.record, i).round_no
    assert f"action {i}" in str(exc.value) and "RULES §6" in str(exc.value)


def test_records_without_digests_still_replay():
    game = _finished_game(24, 1)
    data = game.record.to_json()
    del data["digests"]
    assert replay(GameRecord.from_json(data)).digests == game.digests

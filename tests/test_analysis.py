"""The coach's review (shengji.analysis, issue 32): honest knowledge readings, thresholds
checked on a position whose loss is known by construction, determinism, the CLI."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import asdict
from functools import cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from helpers import bury_and_plays, first_round_record, scramble
from shengji import Game, Round
from shengji.actions import Action, Declare, Play, action_from_json
from shengji.analysis import (
    ACCURACY_K,
    Budget,
    accuracy,
    candidates,
    classify,
    hindsight_reading,
    knowledge_reading,
    reason_text,
    review_lines,
    review_round,
)
from shengji.cards import CARDS
from shengji.cli import app
from shengji.errors import IllegalAction
from shengji.follow import iter_follows, iter_leads
from shengji.record import GameRecord
from shengji.shapes import shape_of

SMALL = Budget(worlds=3, rollouts=2, candidates=3)
BY_NAME = {str(c): c for c in CARDS}


def C(text: str) -> list:  # type: ignore[type-arg]
    return [BY_NAME[x] for x in text.split()]


@cache
def test_classes_and_accuracy_follow_the_documented_thresholds() -> None:
    assert [classify(x) for x in (0, 1.9, 2, 4.9, 5, 9.9, 10, 24.9, 25, 80)] == [
        "best", "best", "good", "good", "inaccuracy", "inaccuracy", "mistake", "mistake",
        "blunder", "blunder"]
    assert classify(30, is_best=True) == "best"
    assert accuracy([]) is None
    assert accuracy([0, 0]) == 100.0
    assert accuracy([ACCURACY_K]) == pytest.approx(100 / 2.718281828, rel=1e-6)
    assert accuracy([0, 20]) == pytest.approx(50 * (1 + 2.718281828 ** -1), rel=1e-6)


def test_a_lead_that_hands_the_opponents_20_points_is_at_least_a_mistake_rules_6_3() -> None:
    """Seat 0 (declarer) holds KS and the red joker; seat 1 is void in spades with the
    last trump (3H), seat 3 holds 10S. Leading KS lets seat 1 ruff and seat 3 add 10S:
    20 points to the opponents (RULES §6.3, §7). Leading the joker first draws the 3H
    (§6.2: seat 1 must follow trumps) and the KS then wins the last trick: no points."""
    rnd = Round.from_position(
        [C("KS RJ"), C("3H 4C"), C("6C 7C"), C("10S 8C")],
        kitty=C("3C 3C 4C 5D 6D 7D 8D 9D"), trump_suit="H", leader=0, declaring_team=0,
    )
    ks, rj = (C("KS")[0].id,), (C("RJ")[0].id,)
    bad = hindsight_reading(rnd, 0, "play", [ks, rj], Budget(rollouts=3), seed=1)
    assert bad.best == 1 and bad.played == 0
    assert bad.loss_points == pytest.approx(20.0)
    assert bad.verdict in ("mistake", "blunder")
    assert bad.candidates[0].trick_win == 0.0 and bad.candidates[0].trick_points == 20.0
    assert bad.reason.key == "analysis.reason.loses_trick"
    assert "20 points go into it" in reason_text(bad.reason, "RJ")
    good = hindsight_reading(rnd, 0, "play", [rj, ks], Budget(rollouts=3), seed=1)
    assert good.verdict == "best" and good.loss_points == 0.0
    assert good.reason.key == "analysis.reason.best"


def _round_one(record: GameRecord) -> Iterator[tuple[Game, Action]]:
    """The record's first round replayed: the game before each of its actions, and the
    action (applied once the caller has looked)."""
    g = Game(record.seed, record.options)
    for raw in record.actions:
        a = action_from_json(raw)
        if g.round_no > 0:
            break
        yield g, a
        g.apply(a)


def _positions(record: GameRecord, seat: int) -> list[tuple[Round, Play]]:
    return [(g.round.clone(), a) for g, a in _round_one(record)
            if isinstance(a, Play) and a.seat == seat]


def test_the_knowledge_reading_ignores_the_hidden_cards_rules_11() -> None:
    """Scramble every card the seat cannot see: the knowledge verdicts stay identical
    (only the view is read), while the hindsight reading does see the change."""
    rng = random.Random(3)
    seat = 1
    checked = moved = hindsight_changed = 0
    positions = _positions(first_round_record(), seat)
    for rnd, a in positions[2:14:4]:
        played = tuple(sorted(c.id for c in a.cards))
        view = rnd.view(seat)
        cands = candidates(view, "play", played, SMALL, 9)
        if len(cands) < 2:
            continue
        first = knowledge_reading(view, "play", played, SMALL, 9, cands)
        true_h = hindsight_reading(rnd, seat, "play", cands, SMALL, 9)
        for _ in range(2):
            other = scramble(rnd, seat, rng)
            moved += any(other.hand_counts(s) != rnd.hand_counts(s) for s in range(4))
            assert other.view(seat) == view
            ocands = candidates(other.view(seat), "play", played, SMALL, 9)
            assert ocands == cands
            again = knowledge_reading(other.view(seat), "play", played, SMALL, 9, ocands)
            assert asdict(again) == asdict(first)
            h = hindsight_reading(other, seat, "play", cands, SMALL, 9)
            hindsight_changed += asdict(h) != asdict(true_h)
            checked += 1
    assert checked >= 4 and moved == checked
    assert hindsight_changed  # the scramble really changes what the hidden cards do


def test_a_round_review_is_deterministic_and_covers_the_seats_decisions() -> None:
    record = first_round_record()
    seat = 0
    mine = bury_and_plays(record, seat)
    first = review_round(record, 0, seat, SMALL, seed=4)
    again = review_round(record, 0, seat, SMALL, seed=4)
    assert first.to_json() == again.to_json()
    assert first.finished and 0 < len(first.decisions) <= mine
    for d in first.decisions:
        assert d.hindsight is not None
        k = d.knowledge
        assert k.candidates[k.played].cards == d.played
        assert k.loss_points == pytest.approx(
            max(0.0, k.candidates[k.best].points - k.candidates[k.played].points), abs=0.01)
        assert k.verdict == classify(k.loss_points, k.best == k.played)
    acc = first.accuracy
    assert acc is not None and 0 <= acc <= 100
    lines = review_lines(first)
    assert len(lines) == len(first.decisions) + 2 and lines[-1].startswith("Accuracy: ")
    data = json.loads(json.dumps(first.to_json()))
    assert data["accuracy"] == acc
    assert all("text" in d["knowledge"]["reason"] for d in data["decisions"])


def test_an_unfinished_round_has_no_hindsight_and_a_missing_round_is_refused() -> None:
    record = first_round_record()
    g = Game(record.seed, record.options)
    n = 0
    for raw in record.actions:  # stop in the middle of round 1's play
        a = action_from_json(raw)
        if isinstance(a, Play) and g.round.n_tricks >= 3:
            break
        g.apply(a)
        n += 1
    cut = GameRecord(record.options, record.seed, record.actions[:n], record.round_seeds[:1])
    review = review_round(cut, 0, 0, SMALL)
    assert not review.finished and review.decisions
    assert all(d.hindsight is None for d in review.decisions)
    assert review.hindsight_accuracy is None
    with pytest.raises(IllegalAction, match="no round 3"):
        review_round(record, 2, 0, SMALL)
    with pytest.raises(IllegalAction, match="no seat 4"):
        review_round(record, 0, 4, SMALL)


def test_shengji_analyse_prints_the_review_and_writes_json(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    first_round_record().save(path)
    out = tmp_path / "review.json"
    res = CliRunner().invoke(app, ["analyse", str(path), "--seat", "2", "--round", "1",
                                   "--worlds", "2", "--rollouts", "1", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "Round 1, seat 2" in res.output and "Accuracy: " in res.output
    assert "with hindsight" in res.output
    data = json.loads(out.read_text())
    assert data["seat"] == 2 and data["rounds"][0]["budget"]["worlds"] == 2
    bad = CliRunner().invoke(app, ["analyse", str(path), "--round", "7", "--worlds", "1"])
    assert bad.exit_code == 1 and "no round 7" in bad.output


def test_a_declaration_is_reviewed_against_passing_and_the_other_declarations_rules_3_3() -> None:
    record = first_round_record()
    declared = [a.seat for _, a in _round_one(record) if isinstance(a, Declare)]
    assert declared, "the seeded round has a declaration to review"
    seat = declared[0]
    review = review_round(record, 0, seat, SMALL, seed=2)
    decls = [d for d in review.decisions if d.kind == "declare"]
    assert decls
    d = decls[0]
    names = [c.cards for c in d.knowledge.candidates]
    assert names[0] == d.played and [] in names  # the declaration made, and passing
    assert len(names) == len({tuple(n) for n in names})
    assert d.hindsight is not None and [c.cards for c in d.hindsight.candidates] == names
    assert any(line.startswith("declare") for line in review_lines(review))


@pytest.mark.parametrize(("given", "points", "verdict"), [("5S", 5, "inaccuracy"),
                                                            ("10S", 10, "mistake"),
                                                            ("KS", 10, "mistake")])
def test_a_follow_that_feeds_the_opponents_trick_loses_its_points_rules_7(
        given: str, points: int, verdict: str) -> None:
    """Seat 0 leads AS (it wins: no trumps are played, RULES §6.2-§6.3). Seat 1, a
    declarer, follows with `given` or 3S: `given` goes to the opponents; kept, it falls
    in the last trick, which seat 3 (its partner) wins with 7D, the kitty holding no
    points (§7). The loss is `given`'s points exactly; the safe 3S is the best."""
    rnd = Round.from_position(
        [C("AS 4D"), C(given + " 3S"), C("6S 6D"), C("7S 7D")],
        kitty=C("3C 3C 4C 4C 6C 6C 7C 7C"), trump_suit="H", leader=0, declaring_team=1,
    )
    rnd.step(Play(0, tuple(C("AS"))))
    feed, safe = (C(given)[0].id,), (C("3S")[0].id,)
    bad = hindsight_reading(rnd, 1, "play", [feed, safe], Budget(rollouts=2), seed=3)
    assert (bad.best, bad.played) == (1, 0)
    assert bad.loss_points == pytest.approx(points) and bad.verdict == verdict
    assert bad.candidates[0].trick_points == points and bad.candidates[1].trick_points == 0
    assert bad.reason.key == "analysis.reason.gives_points"
    good = hindsight_reading(rnd, 1, "play", [safe, feed], Budget(rollouts=2), seed=3)
    assert good.verdict == "best" and good.loss_points == 0.0 and good.accuracy == 100.0


def test_spending_the_top_trump_early_gives_away_the_kitty_a_blunder_rules_7() -> None:
    """Seat 0 (declarer) holds RJ and 4C; the kitty holds 40 points. Leading 4C first
    (seat 1 must follow clubs, §6.2) keeps RJ for the last trick, which it wins: the
    opponents score nothing. Leading RJ first wins a pointless trick, and the last trick,
    led with 4C, goes to seat 3's higher club: the kitty's 40 points, doubled (§7), go
    to the opponents. 80 points: a blunder, and levels lost as well (§8.2)."""
    rnd = Round.from_position(
        [C("RJ 4C"), C("3H 3C"), C("6C 7C"), C("8C 9C")],
        kitty=C("KD KD 10D 10D 6D 7D 8D 9D"), trump_suit="H", leader=0, declaring_team=0,
    )
    rj, low = (C("RJ")[0].id,), (C("4C")[0].id,)
    bad = hindsight_reading(rnd, 0, "play", [rj, low], Budget(rollouts=2), seed=5)
    assert (bad.best, bad.played) == (1, 0)
    assert bad.loss_points == pytest.approx(80.0) and bad.verdict == "blunder"
    assert bad.candidates[0].trick_win == 1.0 and bad.candidates[0].trick_points == 0
    assert bad.loss_levels > 0 and bad.accuracy == pytest.approx(100 * 2.718281828 ** -4, abs=0.1)
    assert bad.reason.key == "analysis.reason.wins_dear"
    good = hindsight_reading(rnd, 0, "play", [low, rj], Budget(rollouts=2), seed=5)
    assert good.verdict == "best" and good.loss_points == 0.0


def _legal(rnd: Round) -> list[tuple[int, ...]]:
    """Every legal lead (§6.1) or follow (§6.2) of the seat to act."""
    seat, t = rnd.to_act, rnd.trump
    assert seat is not None and t is not None
    hand = rnd.hand_counts(seat)
    if rnd.current:
        return [tuple(p) for p in iter_follows(hand, shape_of(rnd.current[0][1], t), t)]
    return [tuple(p) for p in iter_leads(hand, t)]


def _minimax_points(rnd: Round, me: int) -> float:
    """Plain minimax (no pruning) of the seat's side's signed points to the round's end,
    every legal move tried: the reference the solver is checked against."""
    if rnd.phase != "play":
        res = rnd.result
        assert res is not None
        return float(-res.opponents_points if res.declaring_team == me % 2
                     else res.opponents_points)
    seat = rnd.to_act
    assert seat is not None
    values = []
    for ids in _legal(rnd):
        child = rnd.clone()
        child.step(Play(seat, tuple(CARDS[i] for i in ids)))
        values.append(_minimax_points(child, me))
    return max(values) if seat % 2 == me % 2 else min(values)


def test_hindsight_solves_the_last_tricks_exactly() -> None:
    """With every hand at 3 cards or fewer, the hindsight reading's value of each
    candidate is the exact minimax value of the true deal (both teams playing their best),
    whatever the rollout seeds; with the solver off, heuristic play-outs stand in and
    differ from it somewhere."""
    checked = differs = 0
    for seed in range(6):
        rec = first_round_record(seed)
        for seat in range(4):
            for rnd, _ in _positions(rec, seat):
                cands = _legal(rnd)
                if max(rnd.hand_sizes) > 3 or len(cands) < 2:
                    continue
                exact = []
                for c in cands:
                    child = rnd.clone()
                    child.step(Play(seat, tuple(CARDS[i] for i in c)))
                    exact.append(_minimax_points(child, seat))
                for rs in (1, 2):
                    r = hindsight_reading(rnd, seat, "play", list(cands),
                                          Budget(rollouts=2, endgame=3), seed=rs)
                    assert [v.points for v in r.candidates] == exact
                off = hindsight_reading(rnd, seat, "play", list(cands),
                                        Budget(rollouts=2, endgame=0), seed=1)
                differs += [v.points for v in off.candidates] != exact
                checked += 1
    assert checked >= 20
    assert differs  # the heuristic's play-outs are not already exact

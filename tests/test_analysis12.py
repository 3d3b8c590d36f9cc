"""Reviews and hints at the tables of RULES §12 (issue 33): N seats, d decks, friends.

The review's worlds are the expert's (now N-seat); a value counts for the side the seat
ended on in that world (§12.4), points in two-deck units (§12.3: bands 20·d wide), so the
classes mean the same at every table. The four-player readings are unchanged (the
existing tests of test_analysis.py pin them).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from helpers import bury_and_plays
from shengji.actions import Bury, Play
from shengji.analysis import Budget, hint_kind, review_round, suggest
from shengji.analysis.review import classify
from shengji.bots import HeuristicAgent
from shengji.cards import CARDS
from shengji.driver import step
from shengji.errors import IllegalAction
from shengji.game import Game
from shengji.options import RuleOptions
from shengji.record import GameRecord

SMALL = Budget(worlds=3, rollouts=2, candidates=3, endgame=3)


@cache
def _record(players: int, mode: str, seed: int = 3) -> GameRecord:
    """A §12 game whose first round heuristic bots played to its end."""
    g = Game(seed, RuleOptions(players=players, mode=mode))
    bots = [HeuristicAgent(s) for s in range(players)]
    while g.round_no == 0:
        step(g, bots)
    return g.record


@pytest.mark.parametrize(("players", "mode"), [(6, "friends"), (8, "teams"), (5, "friends")])
def test_a_round_of_a_larger_table_is_reviewed(players: int, mode: str) -> None:
    record = _record(players, mode)
    seat = players - 1
    mine = bury_and_plays(record, seat)
    review = review_round(record, 0, seat, SMALL, seed=2)
    assert review.to_json() == review_round(record, 0, seat, SMALL, seed=2).to_json()
    assert review.finished and 0 < len(review.decisions) <= mine
    for d in review.decisions:
        k = d.knowledge
        assert k.candidates[k.played].cards == d.played
        assert k.verdict == classify(k.loss_points, k.best == k.played)
        for c in k.candidates:
            # two-deck points (§12.3): the opponents' points, at most the deck's, scaled
            assert -200 <= c.points <= 200 + 100
            assert 0.0 <= c.trick_win <= 1.0
        assert d.hindsight is not None
    assert review.accuracy is not None and 0 <= review.accuracy <= 100
    with pytest.raises(IllegalAction, match=f"no seat {players}: seats are 0-{players - 1}"):
        review_round(record, 0, players, SMALL)


def test_a_hint_at_a_six_player_friends_table_is_a_legal_move() -> None:
    """The hint's search (the expert's worlds, N seats) suggests moves the engine takes."""
    by_name = {str(c): c for c in CARDS}
    g = Game(4, RuleOptions(players=6, mode="friends"))
    bots = [HeuristicAgent(s) for s in range(6)]
    kinds = set()
    while g.round_no == 0 and len(kinds) < 2:
        d = g.decision()
        seat = d.seat
        if seat is not None and d.phase in ("kitty", "play"):
            view = g.view(seat)
            kind = hint_kind(view)
            if kind is not None and (kind not in kinds or len(g.round.tricks) > 8):
                h = suggest(view, SMALL, seed=len(kinds))
                cards = tuple(by_name[x] for x in h.cards)
                g.check(Play(seat, cards) if h.kind == "play" else Bury(seat, cards))
                kinds.add(h.kind)
        step(g, bots)
    assert kinds == {"bury", "play"}


def test_shengji_analyse_reviews_any_seat_of_a_larger_table(tmp_path: Path) -> None:
    """The terminal's `analyse --seat` reaches every seat of a §12 table (0 to N-1), and a
    seat past the table's is refused with the seats it has."""
    from typer.testing import CliRunner

    from shengji.cli import app

    path = tmp_path / "six.json"
    _record(6, "friends").save(path)
    res = CliRunner().invoke(app, ["analyse", str(path), "--seat", "5", "--round", "1",
                                   "--worlds", "2", "--rollouts", "1"])
    assert res.exit_code == 0, res.output
    assert "Round 1, seat 5" in res.output
    bad = CliRunner().invoke(app, ["analyse", str(path), "--seat", "7", "--round", "1"])
    assert bad.exit_code == 1 and "no seat 7: seats are 0-5" in bad.output

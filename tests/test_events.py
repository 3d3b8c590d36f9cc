"""Events returned by `apply` (DESIGN: actions in, events out), their redaction (RULES §11),
and the typed refusals (`IllegalAction.rule`, `MalformedAction`)."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import fields

import pytest

from conftest import C
from shengji import Game, Round, action_from_json
from shengji.actions import Bury, Declare, Draw, Pass, Play
from shengji.bots import make_agent
from shengji.driver import advance
from shengji.errors import IllegalAction, MalformedAction
from shengji.events import (
    EVENT_TYPES,
    Declared,
    Drew,
    Event,
    GameOver,
    KittyBuried,
    KittyTaken,
    Played,
    Redealt,
    RoundOver,
    RoundStarted,
    TrickWon,
    TrumpFixed,
)

PRIVATE = (Drew, KittyTaken, KittyBuried)


def _random_game_events(seed: int) -> list[tuple[Game, list[Event]]]:
    game, rng = Game(seed=seed), random.Random(seed)
    out = []
    while not game.is_over:
        out.append((game, game.apply(game.random_action(rng))))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_events_tell_the_whole_game(seed: int) -> None:
    game, rng = Game(seed=seed), random.Random(seed)
    kinds: Counter[str] = Counter()
    redeals = 0
    plays_in_trick = 0
    while not game.is_over:
        rnd_before = game.round_no
        action = game.random_action(rng)
        events = game.apply(action)
        assert events, f"{action} caused no event"
        for e in events:
            kinds[e.kind] += 1
            if isinstance(e, Redealt):
                redeals += 1
            if isinstance(e, Played):
                plays_in_trick += 1
                assert e.lead == (plays_in_trick == 1)
            if isinstance(e, TrickWon):
                assert plays_in_trick == 4  # RULES §6: four plays to a trick
                plays_in_trick = 0
        if isinstance(action, Draw):
            assert isinstance(events[0], Drew)
        if isinstance(action, Play):
            assert any(isinstance(e, Played) and e.seat == action.seat for e in events)
        if game.round_no != rnd_before:
            assert isinstance(events[-2], RoundOver) and isinstance(events[-1], RoundStarted)
            assert events[-1].round_no == game.round_no
    assert isinstance(events[-1], GameOver) and events[-1].winner == game.winner
    rounds = len(game.results)
    assert kinds["drew"] == 100 * (rounds + redeals)  # RULES §3.1: 25 cards to each of 4
    assert kinds["round_over"] == rounds
    assert kinds["trump_fixed"] == kinds["kitty_taken"] == kinds["kitty_buried"] == rounds
    assert kinds["played"] == 4 * kinds["trick_won"]


def test_trick_won_matches_the_rounds_trick_and_points() -> None:
    rnd, rng = Round(seed=5), random.Random(5)
    plays: list[Played] = []
    n_tricks = 0
    while not rnd.is_over:
        for e in rnd.apply(rnd.random_action(rng)):
            if isinstance(e, Played):
                plays.append(e)
            if isinstance(e, TrickWon):
                trick = rnd.view(None).tricks[e.trick]
                assert (trick.winner, trick.points) == (e.winner, e.points)
                assert [(p.seat, p.cards) for p in plays] == list(trick.plays)
                # after the last trick the round's total also holds the kitty (RULES §8.1)
                kitty = rnd.result.kitty_points if rnd.result is not None else 0
                assert e.opponents_points == rnd.view(None).opponents_points - kitty
                plays, n_tricks = [], n_tricks + 1
            if isinstance(e, RoundOver):
                assert e.result == rnd.view(None).result
    assert n_tricks == len(rnd.view(None).tricks)


def test_declared_event_names_the_declaration_it_overturns() -> None:
    """RULES §3.3: a stronger declaration by another player overturns the standing one."""
    rnd = Round(seed=11)
    seen: list[Declared] = []
    rng = random.Random(11)
    while rnd.decision().phase == "deal":
        rnd.apply(Draw())
        for seat in range(4):
            decls = rnd.legal_declarations(seat)
            if decls and rng.random() < 0.3:
                ev = rnd.apply(Declare(seat, decls[-1]))
                assert len(ev) == 1 and isinstance(ev[0], Declared)
                seen.append(ev[0])
    assert seen, "the seed should give at least one declaration"
    assert seen[0].overturns is None
    for before, after in zip(seen, seen[1:], strict=False):
        assert after.overturns == before.seat
        assert after.strength > before.strength or after.seat == before.seat


@pytest.mark.parametrize("seed", [4, 8])
def test_redacted_events_hold_no_hidden_card(seed: int) -> None:
    """RULES §11: a seat sees its own draws and, as starter, the kitty; nothing else hidden."""
    for _, events in _random_game_events(seed):
        for e in events:
            owner = getattr(e, "seat", None)
            for seat in (None, 0, 1, 2, 3):
                r = e.for_seat(seat)
                assert type(r) is type(e)
                if isinstance(e, PRIVATE) and seat != owner:
                    assert r.is_redacted
                    hidden = "card" if isinstance(e, Drew) else "cards"
                    assert getattr(r, hidden) is None
                    assert r.to_json()[hidden] is None
                    for f in fields(e):  # type: ignore[arg-type]
                        if f.name != hidden:
                            assert getattr(r, f.name) == getattr(e, f.name)
                else:
                    assert r == e
            assert e.for_spectator() == e.for_seat(None)


def test_every_event_type_has_a_strict_json_form() -> None:
    found: set[str] = set()
    for seed in range(6):
        for _, events in _random_game_events(seed):
            for e in events:
                found.add(e.kind)
                text = json.dumps(e.to_json(), allow_nan=False)
                assert json.loads(text)["type"] == e.kind
    # every kind that random play reaches within a few games (kitty flips need later-round
    # silence, which random declarers rarely allow)
    assert {"drew", "declared", "passed", "trump_fixed", "kitty_taken", "kitty_buried",
            "played", "trick_won", "round_over", "round_started", "game_over"} <= found
    assert {t.kind for t in EVENT_TYPES} >= found


def test_trump_fixed_matches_the_view() -> None:
    rnd, rng = Round(seed=2), random.Random(2)
    while True:
        events = rnd.apply(rnd.random_action(rng))
        fixed = [e for e in events if isinstance(e, TrumpFixed)]
        if fixed:
            v = rnd.view(None)
            assert (fixed[0].rank, fixed[0].suit) == (v.trump_rank, v.trump_suit)
            assert fixed[0].starter == v.starter
            taken = [e for e in events if isinstance(e, KittyTaken)]
            mine = rnd.view(v.starter).kitty_taken or ()
            assert taken and sorted(taken[0].cards or ()) == sorted(mine)
            break


def test_driver_advance_returns_each_action_with_its_events() -> None:
    game = Game(seed=3)
    agents = [make_agent("random", seed=s) for s in range(4)]
    total = 0
    while game.round_no == 0 and not game.is_over:
        for action, events in advance(game, agents):
            total += 1
            if isinstance(action, Pass):
                assert any(e.kind in ("passed",) for e in events)
    assert total > 100


# ------------------------------------------------------------ typed refusals


def test_illegal_action_carries_its_rule_section() -> None:
    """RULES §6: playing out of turn is refused, and `.rule` says which section."""
    rnd, rng = Round(seed=1), random.Random(1)
    while rnd.decision().phase != "play":
        rnd.apply(rnd.random_action(rng))
    seat = rnd.decision().seat
    assert seat is not None
    other = (seat + 1) % 4
    card = rnd.view(other).hand[0]
    with pytest.raises(IllegalAction) as exc:
        rnd.apply(Play(other, (card,)))
    assert exc.value.rule == "6"
    assert exc.value.message == str(exc.value)
    assert IllegalAction("no rule here").rule is None


@pytest.mark.parametrize(
    "action",
    [
        Declare(0, ("2S",)),  # type: ignore[arg-type]
        Declare(0, None),  # type: ignore[arg-type]
        Play("0", tuple(C("AS"))),  # type: ignore[arg-type]
        Play(True, tuple(C("AS"))),  # type: ignore[arg-type]
        Play(7, tuple(C("AS"))),
        Pass(None),  # type: ignore[arg-type]
        Bury(0, "AS AS"),  # type: ignore[arg-type]
        "draw",
        None,
        ("play", 0, "AS"),
    ],
)
def test_malformed_actions_raise_malformed_action_and_change_nothing(action: object) -> None:
    rnd = Round(seed=1)
    for _ in range(30):
        rnd.apply(Draw())
    before = rnd.view(None).to_json(), [rnd.view(s).to_json() for s in range(4)]
    with pytest.raises(MalformedAction):
        rnd.apply(action)  # type: ignore[arg-type]
    with pytest.raises(MalformedAction):
        rnd.check(action)  # type: ignore[arg-type]
    assert (rnd.view(None).to_json(), [rnd.view(s).to_json() for s in range(4)]) == before
    assert len(rnd.actions) == 30


@pytest.mark.parametrize(
    "obj", [["play", 0, "ZZ"], ["play", 0, 5], ["fly", 0], [], ["pass", "1"], ["draw", 1], "x"]
)
def test_action_from_json_refuses_malformed_input(obj: object) -> None:
    with pytest.raises(MalformedAction):
        action_from_json(obj)


def test_a_legal_but_wrong_action_is_illegal_not_malformed() -> None:
    rnd = Round(seed=1)
    with pytest.raises(IllegalAction) as exc:
        rnd.apply(Play(0, tuple(C("AS"))))
    assert not isinstance(exc.value, MalformedAction)
    assert exc.value.rule == "6"

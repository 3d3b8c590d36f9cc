"""Actions and their JSON form (records and the web protocol carry them)."""

from __future__ import annotations

import pytest

from conftest import C
from shengji import action_from_json
from shengji.actions import Bury, CloseWindow, Declare, Draw, Pass, Play, check_well_formed
from shengji.errors import MalformedAction

EXAMPLES = [
    Draw(),
    CloseWindow(),
    Pass(3),
    Declare(1, tuple(C("2H 2H"))),
    Bury(0, tuple(C("3S 4S 5S 6S 7S 8S 9S 10S"))),
    Play(2, tuple(C("AS AS KS KS"))),
]


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: type(a).__name__)
def test_every_action_round_trips_through_json(action: object) -> None:
    data = action.to_json()  # type: ignore[attr-defined]
    assert isinstance(data, list) and isinstance(data[0], str)
    assert action_from_json(data) == action
    check_well_formed(action)


def test_json_form_is_compact_notation() -> None:
    assert Play(2, tuple(C("10H 10H"))).to_json() == ["play", 2, "10H 10H"]
    assert Pass(0).to_json() == ["pass", 0]
    assert Draw().to_json() == ["draw"]


def test_cards_may_be_a_list_of_notation_strings() -> None:
    """RULES §1: notation is case-insensitive and a list of card strings is accepted."""
    assert action_from_json(["play", 1, ["as", "AS"]]) == Play(1, tuple(C("AS AS")))


@pytest.mark.parametrize(
    "obj",
    [
        ["declare", 0],
        ["declare", 0, "2H", "extra"],
        ["bury", 4, "AS"],
        ["bury", -1, "AS"],
        ["play", False, "AS"],
        ["play", 0, None],
        ["play", 0, ["AS", 3]],
        [1, 0, "AS"],
        {"play": 0},
    ],
)
def test_malformed_json_actions_name_what_is_wrong(obj: object) -> None:
    with pytest.raises(MalformedAction) as exc:
        action_from_json(obj)
    assert str(exc.value)


def test_parsed_single_card_plays_and_draws_are_shared() -> None:
    """A server keeps every action its tables were sent; one-card plays and draws (most
    of a round's actions) parse to shared immutable objects, equal to fresh ones."""
    a = action_from_json(["play", 2, "QC"])
    assert a is action_from_json(["play", 2, "QC"])
    assert a == Play(2, tuple(C("QC")))
    assert action_from_json(["play", 3, "QC"]) is not a  # another seat, another play
    assert action_from_json(["draw"]) is action_from_json(["draw"])
    two = action_from_json(["play", 2, "QC QC"])
    assert two == Play(2, tuple(C("QC QC")))

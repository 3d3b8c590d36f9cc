"""RULES §10: the one strict schema of rule options: types, ranges, names, JSON, presets."""

from __future__ import annotations

import dataclasses
import json
import math
import random

import pytest
from pydantic import TypeAdapter, ValidationError

from helpers import snapshot
from shengji import Game, GameRecord, IllegalAction, RuleOptions, replay
from shengji.options import OPTION_INFO, PRESETS

OLD_OPTION_NAMES = (
    "self_reinforce", "strict_tractor_follow", "no_trump_keeps_rank", "band_80_115",
    "first_drawer", "throw_penalty_per_card",
)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        # wrong types
        ("first_drawer", True),  # a bool for an int
        ("first_drawer", 1.0),  # a float for an int
        ("first_drawer", "1"),  # a string for an int
        ("throw_penalty_per_card", 10.5),
        ("max_levels_per_round", False),
        ("self_reinforce", "yes"),  # a string for a bool
        ("self_reinforce", 1),  # an int for a bool
        ("strict_tractor_follow", None),
        ("band_80_115", 0),
        ("kitty_multiplier", ["power"]),
        ("stop_levels", "5,10,K"),  # a string, not a list
        ("stop_levels", [5, 10]),  # numbers, not rank strings
        ("stop_levels", {"5": True}),
        # NaN and infinity
        ("throw_penalty_per_card", math.nan),
        ("throw_penalty_per_card", math.inf),
        ("max_levels_per_round", -math.inf),
        ("first_drawer", math.nan),
        # out of range
        ("first_drawer", 4),
        ("first_drawer", -1),
        ("throw_penalty_per_card", -5),
        ("throw_penalty_per_card", 101),
        ("throw_penalty_per_card", 10**30),
        ("max_levels_per_round", 0),
        ("max_levels_per_round", 13),
        ("stop_levels", ["2"]),  # every team starts at 2: nothing to stop at
        ("stop_levels", ["B"]),
        ("throw_penalty", "double"),
        ("kitty_multiplier", "Power"),  # values are exact in JSON
        ("round1_no_declaration", "shuffle"),
        ("gap_tractors", "off"),
        ("throw_tractors", True),
        ("joker_pairs", "black_over_red"),
        ("win_at_a", "never"),
    ],
)
def test_bad_option_values_are_refused_naming_the_field_and_the_rule_rules_10(field, value):
    with pytest.raises(IllegalAction) as err:
        RuleOptions(**{field: value})
    msg = str(err.value)
    assert msg.startswith(f"RULES §10: {field} must be ")
    assert f"RULES {OPTION_INFO[field].rule}" in msg
    assert err.value.field == field
    with pytest.raises(IllegalAction) as err2:  # the same through JSON
        RuleOptions.from_json({field: value})
    assert err2.value.field == field
    with pytest.raises(ValidationError) as err3:  # the same schema for a server's body
        TypeAdapter(RuleOptions).validate_python({field: value})
    assert err3.value.errors()[0]["loc"][0] == field


def test_the_brief_message_for_first_drawer_rules_10():
    with pytest.raises(IllegalAction, match=r"^RULES §10: first_drawer must be a seat 0-3"):
        RuleOptions.from_json({"first_drawer": 1.0})


def test_nan_is_named_as_such_rules_10():
    with pytest.raises(IllegalAction, match="NaN and infinity are refused"):
        RuleOptions(throw_penalty_per_card=float("nan"))


@pytest.mark.parametrize("data", [{"nope": 1}, {"first_drawer": 0, "kitty": "x"}, {"": 1}])
def test_unknown_option_names_are_refused_rules_10(data):
    with pytest.raises(IllegalAction, match="RULES §10: unknown rule option") as err:
        RuleOptions.from_json(data)
    assert err.value.field in set(data) - set(OPTION_INFO) | {None}


@pytest.mark.parametrize("data", [[], "seed", 3, True])
def test_options_must_be_an_object_rules_10(data):
    with pytest.raises(IllegalAction, match="must be a JSON object"):
        RuleOptions.from_json(data)


def test_non_string_keys_are_refused_rules_10():
    with pytest.raises(IllegalAction, match="unknown rule option"):
        RuleOptions.from_json({1: True})


def test_a_huge_bad_value_gives_a_short_message_rules_10():
    with pytest.raises(IllegalAction) as err:
        RuleOptions.from_json({"band_80_115": "x" * 100_000})
    assert len(str(err.value)) < 300


def test_options_are_frozen_and_hashable():
    o = RuleOptions(stop_levels=["K", "5"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.first_drawer = 2  # type: ignore[misc]
    with pytest.raises(IllegalAction, match="by name"):
        RuleOptions(True)  # type: ignore[misc]
    assert hash(o) == hash(RuleOptions(stop_levels=["5", "K"]))
    assert len({o, RuleOptions(stop_levels=["5", "K", "5"])}) == 1


def test_typeadapter_accepts_json_objects_with_the_same_schema_rules_10():
    ta = TypeAdapter(RuleOptions)
    assert ta.validate_python({"kitty_multiplier": "power"}) == RuleOptions(
        kitty_multiplier="power"
    )
    assert ta.validate_json('{"stop_levels": ["K", "5"]}').stop_levels == ("5", "K")
    with pytest.raises(ValidationError):
        ta.validate_python({"nope": 1})


def test_json_round_trip_is_plain_json_rules_10():
    for o in [RuleOptions(), *PRESETS.values(),
              RuleOptions(stop_levels=["10", "5", "K"], max_levels_per_round=2)]:
        data = o.to_json()
        text = json.dumps(data, allow_nan=False)
        assert RuleOptions.from_json(json.loads(text)) == o
        assert set(data) == set(OPTION_INFO)
        for v in data.values():
            assert v is None or isinstance(v, (bool, int, str, list))
    assert RuleOptions(stop_levels=["K", "5", "10"]).to_json()["stop_levels"] == ["5", "10", "K"]
    assert RuleOptions(stop_levels=[]).stop_levels is None
    assert RuleOptions.from_json(None) == RuleOptions() == RuleOptions.from_json({})


def test_defaults_are_the_seed_reading_rules_10():
    o = RuleOptions()
    assert o.changed() == {}
    assert (o.throw_penalty, o.kitty_multiplier, o.round1_no_declaration) == (
        "returned", "per_card", "redeal",
    )
    assert (o.gap_tractors, o.throw_tractors, o.joker_pairs, o.win_at_a) == (
        "on", "on", "equal", "pass",
    )
    assert o.max_levels_per_round is None and o.stop_levels is None


def test_old_records_without_the_new_options_load_and_replay_identically_rules_10():
    game = Game(5)
    rng = random.Random(5)
    while len(game.results) < 2:
        game.apply(game.random_action(rng))
    data = game.record.to_json()
    data["options"] = {k: data["options"][k] for k in OLD_OPTION_NAMES}  # an old record
    old = GameRecord.loads(json.dumps(data))
    assert old.options == RuleOptions()
    assert snapshot(replay(old)) == snapshot(game)


def test_parse_reads_cli_text_rules_10():
    o = RuleOptions.parse([
        "self_reinforce=on", "first_drawer=2", "kitty_multiplier=power",
        "max_levels_per_round=2", "stop_levels=k, 5,T", "win_at_a=as_declarers",
    ])
    assert o.self_reinforce and o.first_drawer == 2 and o.kitty_multiplier == "power"
    assert o.max_levels_per_round == 2 and o.stop_levels == ("5", "10", "K")
    assert RuleOptions.parse(["max_levels_per_round=none", "stop_levels=none"]) == RuleOptions()
    base = RuleOptions.preset("common_online")
    assert RuleOptions.parse([], base) == base
    assert RuleOptions.parse(["throw_penalty=returned"], base).throw_penalty == "returned"


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ("self_reinforce=maybe", "self_reinforce"),
        ("first_drawer=one", "first_drawer"),
        ("first_drawer=7", "first_drawer"),
        ("throw_penalty_per_card=nan", "throw_penalty_per_card"),
        ("max_levels_per_round=0", "max_levels_per_round"),
        ("stop_levels=2,5", "stop_levels"),
        ("kitty_multiplier=double", "kitty_multiplier"),
        ("nonsense=1", "nonsense"),
        ("strict_tractor_follow", "strict_tractor_follow"),  # no value
    ],
)
def test_parse_refuses_bad_cli_text_naming_the_field_rules_10(item, field):
    with pytest.raises(IllegalAction, match="RULES §10") as err:
        RuleOptions.parse([item])
    assert err.value.field == field


def test_presets_are_listed_and_unknown_ones_refused_rules_10():
    assert set(PRESETS) == {"seed", "common_online"}
    assert PRESETS["seed"] == RuleOptions()
    assert PRESETS["common_online"].changed()  # it differs from the seed rules
    with pytest.raises(IllegalAction, match="unknown preset") as err:
        RuleOptions.preset("tournament")
    assert err.value.field == "preset"
    with pytest.raises(TypeError):
        PRESETS["mine"] = RuleOptions()  # type: ignore[index]


def test_a_game_refuses_nothing_it_was_given_with_valid_options_rules_10():
    """Options with every non-default value play and replay (stored in the record)."""
    o = RuleOptions(
        self_reinforce=True, strict_tractor_follow=True, no_trump_keeps_rank=True,
        band_80_115="stay", first_drawer=3, throw_penalty_per_card=7,
        throw_penalty="attempted", kitty_multiplier="power", round1_no_declaration="flip",
        gap_tractors="trumps_only", throw_tractors="off", joker_pairs="red_over_black",
        win_at_a="as_declarers", max_levels_per_round=2, stop_levels=["5", "10", "K"],
    )
    assert set(o.changed()) == set(OPTION_INFO)
    game = Game(11, o)
    rng = random.Random(11)
    while len(game.results) < 2:
        game.apply(game.random_action(rng))
    again = replay(GameRecord.loads(game.record.dumps()))
    assert again.options == o and snapshot(again) == snapshot(game)

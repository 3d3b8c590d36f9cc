"""RULES §3.3, §3.5, §5.4, §6.1, §6.4, §8.1, §9: each house-rule option changes the outcome
as RULES says, shown on hand-built positions (one example per option value)."""

from __future__ import annotations

import pytest

from conftest import C
from helpers import (
    THROW_HANDS,
    last_trick_result,
    play_trick,
    position,
    rigged_deal,
    round_result,
)
from shengji import (
    Bury,
    CloseWindow,
    Declare,
    Game,
    IllegalAction,
    Pass,
    Play,
    RuleOptions,
    Trump,
    classify_lead,
    trick_winner,
)
from shengji.bots import make_agent
from shengji.cards import RANKS
from shengji.driver import play_game
from shengji.options import OPTION_CHOICES, OPTION_INFO, PRESETS
from shengji.round import level_index
from shengji.scoring import kitty_multiplier, new_level

# ---------------------------------------------------------------- §3.3 declarations


def test_self_reinforce_turns_the_declarers_single_into_the_pair_of_the_same_card_rules_3_3():
    hands = {0: "2S 2S 2D 2D"}
    off = rigged_deal(hands)
    off.apply(Declare(0, tuple(C("2S"))))
    with pytest.raises(IllegalAction, match="another player"):
        off.apply(Declare(0, tuple(C("2S 2S"))))
    assert off.view(0).legal_declarations() == []

    on = rigged_deal(hands, options=RuleOptions(self_reinforce=True))
    on.apply(Declare(0, tuple(C("2S"))))
    assert on.view(0).legal_declarations() == [tuple(C("2S 2S"))]  # same card only
    with pytest.raises(IllegalAction, match="pair of the same card"):
        on.apply(Declare(0, tuple(C("2D 2D"))))
    on.apply(Declare(0, tuple(C("2S 2S"))))
    assert on.standing is not None and on.standing[:2] == (0, 2)
    assert on.view(1).declarer == 0
    with pytest.raises(IllegalAction, match="another player"):  # a pair is final for them
        on.apply(Declare(0, tuple(C("2D 2D"))))


def test_joker_pairs_red_over_black_lets_red_jokers_overturn_black_rules_3_3():
    hands = {0: "BJ BJ", 1: "RJ RJ"}
    equal = rigged_deal(hands)
    equal.apply(Declare(0, tuple(C("BJ BJ"))))
    assert equal.view(1).legal_declarations() == []
    with pytest.raises(IllegalAction, match="strictly stronger"):
        equal.apply(Declare(1, tuple(C("RJ RJ"))))

    rob = rigged_deal(hands, options=RuleOptions(joker_pairs="red_over_black"))
    rob.apply(Declare(0, tuple(C("BJ BJ"))))
    assert rob.view(1).legal_declarations() == [tuple(C("RJ RJ"))]
    rob.apply(Declare(1, tuple(C("RJ RJ"))))
    assert rob.view(0).legal_declarations() == []  # black never overturns red
    rob.apply(CloseWindow())
    assert rob.starter == 1 and rob.trump is not None and rob.trump.suit is None


# ---------------------------------------------------------------- §3.5 nobody declares


def test_round1_no_declaration_flip_turns_up_the_kitty_and_the_first_drawer_starts_rules_3_5():
    kitty = "3S 9D 2D 4C 5C 6C 7C 8C"  # 2D is the first trump-rank card turned up
    redeal = rigged_deal({}, kitty, RuleOptions(first_drawer=1))
    for seat in (1, 2, 3, 0):
        redeal.apply(Pass(seat))
    assert redeal.phase == "deal" and redeal.attempt == 1 and redeal.starter is None

    flip = rigged_deal({}, kitty, RuleOptions(first_drawer=1, round1_no_declaration="flip"))
    for seat in (1, 2, 3, 0):
        flip.apply(Pass(seat))
    assert flip.phase == "kitty" and flip.attempt == 0
    assert flip.starter == 1 and flip.declaring_team == 1
    assert flip.trump is not None and (flip.trump.rank, flip.trump.suit) == ("2", "D")
    assert flip.view(3).kitty_flip == tuple(C("3S 9D 2D"))  # everyone sees the flip
    assert flip.hand_sizes[1] == 33  # the kitty goes to the starter (§3.5, §4)
    flip.apply(Bury(1, tuple(flip.hand(1)[:8])))
    assert flip.decision().seat == 1  # and they lead


# ---------------------------------------------------------------- §5.4 the rank gap


def test_gap_tractors_trumps_only_breaks_plain_suit_tractors_across_the_rank_rules_5_4():
    on = Trump("5", "H")
    only = Trump("5", "H", gap_tractors=False)
    assert classify_lead(C("4S 4S 6S 6S"), on) == "tractor"
    assert classify_lead(C("4S 4S 6S 6S"), only) == "throw"
    assert classify_lead(C("4H 4H 6H 6H"), only) == "tractor"  # trumps keep the gap
    assert classify_lead(C("AH AH 5S 5S"), only) == "tractor"
    # The outcome of a trick: 4S 4S 6S 6S beats a low tractor only where it is one.
    plays = [C(p) for p in ("2S 2S 3S 3S", "4S 4S 6S 6S", "7D 8D 9D 10D", "JD QD KD AD")]
    assert trick_winner(plays, on) == 1
    assert trick_winner(plays, only) == 0


def test_gap_tractors_trumps_only_in_a_played_round_rules_5_4():
    hands = ["2S 2S 3S 3S", "4S 4S 6S 6S", "7D 8D 9D JD", "9C 10C JC QC"]
    for opt, winner in (("on", 1), ("trumps_only", 0)):
        rnd = position(hands, rank="5", options=RuleOptions(gap_tractors=opt))
        play_trick(rnd, *hands)
        assert rnd.tricks[-1][2] == winner


# ---------------------------------------------------------------- §6.1 tractors in throws


def test_throw_tractors_off_reads_a_throws_tractor_as_pairs_rules_6_1():
    # Seat 0 throws 3S 3S 4S 4S AS. Seat 1 holds QS QS: a higher pair, but no tractor.
    hands = ["3S 3S 4S 4S AS", "QS QS 7D 8D 9D", "5D 6D 8C 9C 10C", "3D 4D 5C 5C JD"]
    on = position(hands)
    on.apply(Play(0, tuple(C("3S 3S 4S 4S AS"))))
    assert not on.failed_throws and on.view(1).lead == tuple(C("3S 3S 4S 4S AS"))

    off = position(hands, options=RuleOptions(throw_tractors="off"))
    off.apply(Play(0, tuple(C("3S 3S 4S 4S AS"))))
    (f,) = off.failed_throws
    assert f.forced == tuple(C("3S 3S")) and f.blocker == 1 and f.shown == tuple(C("QS QS"))
    assert f.penalty == 30  # three cards taken back, paid by the declaring side
    assert off.view(2).lead == tuple(C("3S 3S"))


def test_throw_tractors_off_lets_pairs_ruff_a_throw_rules_6_1_6_3():
    lead = "3S 3S 4S 4S AS"
    ruff = "5H 5H 9H 9H 3H"  # two trump pairs and a trump: no tractor
    plays = [C(p) for p in (lead, ruff, "6D 7D 8D 9D 10D", "6C 7C 8C 9C 10C")]
    assert trick_winner(plays, Trump("2", "H")) == 0
    assert trick_winner(plays, Trump("2", "H", throw_tractors=False)) == 1


# ---------------------------------------------------------------- §6.4 failed throws


@pytest.mark.parametrize(
    ("mode", "per_card", "paid"),
    [("returned", 10, 20), ("attempted", 10, 30), ("none", 10, 0), ("attempted", 5, 15)],
)
def test_throw_penalty_counts_returned_attempted_or_no_cards_rules_6_4(mode, per_card, paid):
    # RULES §6.4's example: A♥A♥Q♥ fails on Q♥ (hearts are not trump here).
    opts = RuleOptions(throw_penalty=mode, throw_penalty_per_card=per_card)
    declarers = position(THROW_HANDS, suit="S", options=opts)
    declarers.apply(Play(0, tuple(C("AH AH QH"))))
    assert declarers.failed_throws[0].forced == tuple(C("QH"))
    assert declarers.opponents_points == paid  # the declaring side pays: added
    opponents = position(THROW_HANDS, suit="S", declaring_team=1, options=opts)
    opponents.apply(Play(0, tuple(C("AH AH QH"))))
    assert opponents.opponents_points == -paid  # an opponent throws: subtracted
    assert opponents.failed_throws[0].penalty == -paid


# ---------------------------------------------------------------- §8.1 the kitty


def last_trick_kitty(lead: str, option: str) -> tuple[int, int]:
    """(multiplier, kitty points) of `last_trick_result`."""
    r = last_trick_result(lead, option)
    return r.multiplier, r.kitty_points


def test_kitty_multiplier_power_doubles_per_pair_of_the_winning_tractor_rules_8_1():
    tractor = "9S 9S 10S 10S JS JS"  # three pairs: six cards each
    assert last_trick_kitty(tractor, "per_card") == (12, 300)
    assert last_trick_kitty(tractor, "power") == (16, 400)
    assert last_trick_kitty("9S 9S 10S 10S", "power") == (8, 200)
    assert last_trick_kitty("9S 9S", "power") == (4, 100)
    assert last_trick_kitty("AS", "power") == (2, 50)


def test_kitty_multiplier_power_counts_the_largest_unit_of_a_throw_rules_8_1():
    throw = "AS AS KS QS"  # a pair and two singles: largest unit a pair
    assert last_trick_kitty(throw, "per_card") == (8, 200)
    assert last_trick_kitty(throw, "power") == (4, 100)


def test_kitty_multiplier_flat_is_always_double_rules_8_1():
    assert last_trick_kitty("9S 9S 10S 10S JS JS", "flat") == (2, 50)
    assert last_trick_kitty("AS", "flat") == (2, 50)


def test_kitty_multiplier_function_rules_8_1():
    assert [kitty_multiplier("power", 2 * k or 1, k) for k in range(5)] == [2, 4, 8, 16, 32]
    assert kitty_multiplier("per_card", 5, 1) == 10
    assert kitty_multiplier("flat", 5, 2) == 2


# ---------------------------------------------------------------- §9 levels


def round_levels(
    opponents_points: int, levels: tuple[str, str], declaring_team: int, **opts: object
) -> tuple[str, str]:
    """The levels after `round_result`."""
    return round_result(opponents_points, levels, declaring_team, **opts).levels_after


def test_win_at_a_as_declarers_stops_opponents_at_a_rules_9():
    # Team 1 is at A and defends as opponents: 170 points would take them past A.
    assert round_levels(170, ("K", "A"), 0) == ("K", "A+")
    assert round_levels(170, ("K", "A"), 0, win_at_a="as_declarers") == ("K", "A")
    # Declaring at A and winning the round passes A: the game is won.
    assert round_levels(0, ("K", "A"), 1, win_at_a="as_declarers") == ("K", "A+")
    # Opponents' gains stop at A from below A too; the declarers' gains do not.
    assert round_levels(250, ("Q", "K"), 0) == ("Q", "A+")
    assert round_levels(250, ("Q", "K"), 0, win_at_a="as_declarers") == ("Q", "A")
    assert round_levels(0, ("Q", "2"), 0, win_at_a="as_declarers") == ("A+", "2")


def test_max_levels_per_round_caps_a_rounds_gain_rules_9():
    assert round_levels(0, ("3", "2"), 0) == ("6", "2")
    assert round_levels(0, ("3", "2"), 0, max_levels_per_round=1) == ("4", "2")
    assert round_levels(250, ("3", "4"), 0) == ("3", "8")  # +4 for 250 points
    assert round_levels(250, ("3", "4"), 0, max_levels_per_round=2) == ("3", "6")


def test_stop_levels_stop_a_team_at_each_listed_rank_it_would_jump_over_rules_9():
    stops = {"stop_levels": ["5", "10", "K"]}
    assert round_levels(0, ("3", "2"), 0, **stops) == ("5", "2")  # 3 + 3 passes 5
    assert round_levels(0, ("2", "2"), 0, **stops) == ("5", "2")  # lands on 5: no jump
    assert round_levels(0, ("5", "2"), 0, **stops) == ("8", "2")  # starting at 5 moves on
    assert round_levels(250, ("3", "8"), 0, **stops) == ("3", "10")  # 8 + 4 stops at 10
    assert round_levels(0, ("Q", "2"), 0, stop_levels=["A"]) == ("A", "2")


def test_new_level_combines_the_level_options_rules_9():
    seed = RuleOptions()
    assert new_level(RANKS.index("Q"), 3, True, seed) == 13
    both = RuleOptions(max_levels_per_round=2, stop_levels=["K"], win_at_a="as_declarers")
    assert new_level(RANKS.index("10"), 3, True, both) == RANKS.index("Q")  # capped at +2
    assert new_level(RANKS.index("Q"), 2, True, both) == RANKS.index("K")  # stops at K
    assert new_level(RANKS.index("A"), 2, False, both) == RANKS.index("A")
    assert new_level(RANKS.index("J"), 2, False, both) == RANKS.index("K")  # stops at K
    assert new_level(RANKS.index("K"), 2, False, both) == RANKS.index("A")  # stops at A
    assert new_level(RANKS.index("K"), 2, True, both) == 13
    assert new_level(RANKS.index("A"), 2, True, both) == 14


# ---------------------------------------------------------------- presets


def test_common_online_preset_plays_the_common_house_rules_rules_10():
    o = RuleOptions.preset("common_online")
    assert o is PRESETS["common_online"]
    assert o.self_reinforce and o.strict_tractor_follow
    assert (o.joker_pairs, o.round1_no_declaration, o.kitty_multiplier) == (
        "red_over_black", "flip", "power",
    )
    assert (o.throw_penalty, o.win_at_a) == ("none", "as_declarers")
    assert RuleOptions.preset("seed") == RuleOptions()
    # A preset changes a played outcome: a failed throw costs nothing.
    rnd = position(THROW_HANDS, suit="S", options=o)
    rnd.apply(Play(0, tuple(C("AH AH QH"))))
    assert rnd.failed_throws and rnd.opponents_points == 0


# ---------------------------------------------------------------- bots under every option


def every_option_value() -> list[tuple[str, object]]:
    """Each option with each of its non-default values (read from the schema: a new
    choice is covered as soon as it is added), plus a few for the numeric ones."""
    numeric: dict[str, list[object]] = {
        "first_drawer": [1, 2, 3],
        "throw_penalty_per_card": [0, 100],
        "max_levels_per_round": [1],
        "stop_levels": [["5", "10", "K"], ["A"]],
    }
    out: list[tuple[str, object]] = []
    for name, default in RuleOptions().to_json().items():
        if name in numeric:
            out += [(name, v) for v in numeric[name]]
        elif isinstance(default, bool):
            out.append((name, not default))
        else:
            out += [(name, v) for v in OPTION_CHOICES[name] if v != default]
    assert {name for name, _ in out} == set(OPTION_INFO)
    return out


@pytest.mark.parametrize(("name", "value"), every_option_value())
def test_random_and_heuristic_bots_complete_games_under_every_option_value_rules_10(
    name, value
):
    options = RuleOptions(**{name: value})
    seed = sum(map(ord, name)) % 1000
    kinds = ["heuristic", "random"] if seed % 2 else ["random", "heuristic"]
    game = Game(seed, options)
    play_game(game, [make_agent(kinds[s % 2], seed + s) for s in range(4)])
    assert game.is_over and game.winner in (0, 1)
    assert game.options == options
    last = game.results[-1]
    assert max(level_index(x) for x in last.levels_after) == 13  # someone passed A
    game.round.counts_check()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_heuristic_bots_complete_a_game_under_each_preset_rules_10(preset):
    game = Game(21, RuleOptions.preset(preset))
    play_game(game, [make_agent("heuristic", 21 + s) for s in range(4)])
    assert game.is_over and game.record.options == PRESETS[preset]

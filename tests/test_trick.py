"""RULES §6.3 and §6.4: who wins a trick; failed throws."""

from conftest import C
from shengji import Trump, failed_throw, trick_winner

T = Trump("2", "H")


def win(*plays, trump=T):
    return trick_winner([C(p) for p in plays], trump)


def test_highest_of_led_suit_wins_rules_6_3():
    assert win("9S", "KS", "3S", "AS") == 3


def test_off_suit_card_cannot_win_rules_6_3():
    assert win("9S", "AD", "3S", "4S") == 0


def test_trump_ruffs_a_single_rules_6_3():
    assert win("AS", "3H", "2C", "KS") == 2


def test_ties_go_to_the_earlier_play_rules_6_3():
    assert win("9S", "9S", "3S", "4S") == 0
    assert win("3S", "2C", "2D", "2S") == 1  # off-suit trump-rank cards are equal


def test_pair_lead_needs_a_pair_to_win_rules_6_3():
    assert win("3S 3S", "AS KS", "4S 4S", "5D 6D") == 2
    assert win("3S 3S", "3H 3H", "2C 2D", "4S 4S") == 1  # trump pair ruffs; 2C 2D is no pair


def test_tractor_needs_tractor_of_same_length_rules_6_3():
    assert win("3S 3S 4S 4S", "AS AS KS KS", "5S 5S 7S 7S", "9D 9D 9C 9C") == 1
    assert win("3S 3S 4S 4S", "3H 3H 4H 4H", "BJ BJ RJ RJ", "5S 5S 6S 6S") == 2
    assert win("3S 3S 4S 4S", "3H 3H 5H 5H", "6S 7S 8S 9S", "5S 6S 6S 7S") == 0


def test_tractor_through_the_trump_rank_gap_wins_rules_5_4():
    # AH AH 2C 2C is a tractor of trumps; it beats KH KH AH... lower trump tractor
    assert win("QH QH KH KH", "AH AH 2C 2C", "3H 3H 4H 4H", "5H 6H 7H 8H") == 1
    assert win("QH QH KH KH", "2C 2C 2D 2D", "3H 3H 4H 4H", "5H 6H 7H 8H") == 0


def test_joker_tractor_tops_everything_rules_6_3():
    assert win("AH AH 2C 2C", "2H 2H BJ BJ", "BJ RJ 3H 3H", "3S 3S 4S 4S") == 1


def test_throw_won_by_leader_unless_ruffed_rules_6_3():
    assert win("AS KS", "3S 4S", "QS QS", "9D 9C") == 0
    assert win("AS KS", "3S 4S", "3H 4H", "9D 9C") == 2


def test_throw_ruffs_by_several_players_compare_deciding_unit_rules_6_3():
    # lead: pair AS AS + single KS; ruffs need a trump pair + any trump
    lead = "AS AS KS"
    assert win(lead, "3H 3H 4H", "5H 5H 3C", "6H 7H 8H") == 1
    assert win(lead, "3H 3H 4H", "9H 9H 3H", "6H 7H 8H") == 2  # higher pair decides
    assert win(lead, "3H 3H AH", "4H 4H 5H", "6H 7H 8H") == 2  # the pair, not the single


def test_throw_with_tractor_must_be_ruffed_by_a_tractor_rules_6_3():
    lead = "KS KS QS QS 9S"
    assert win(lead, "3H 3H 4H 4H 5H", "6H 6H 9H 9H AH", "3D 3D 3D 3D 3D") == 1
    assert win(lead, "3H 3H 4H 4H 5H", "6H 6H 7H 7H 3H", "BJ BJ RJ RJ 4H") == 3


def test_failed_throw_forces_fewest_cards_then_lowest_rules_6_4():
    # AS AS is safe (nobody can beat the top pair); KS and QS singles are beatable by AS? no:
    # both AS are in the leader's hand, so nobody holds a higher single than KS.
    others = [C("QS 3S"), C("4S"), C("5S")]
    assert failed_throw(C("AS AS KS"), others, T) is None
    # JS can be beaten by QS in another hand: forced to lead JS.
    assert [c.text for c in failed_throw(C("AS AS KS JS"), others, T)] == ["JS"]
    assert [c.text for c in failed_throw(C("KS KS 9S"), [C("QS"), C("AS"), C("3S")], T)] == [
        "9S"
    ]


def test_failed_throw_pair_unit_beaten_by_higher_pair_rules_6_4():
    others = [C("3D"), C("AS AS"), C("4D")]
    forced = failed_throw(C("KS KS QS QS 9S 9S"), others, T)
    # units: tractor KK-QQ + pair 99; AS AS beats the pair and the tractor? no, one pair
    # cannot beat a tractor; the pair 99 is forced.
    assert [c.text for c in forced] == ["9S", "9S"]


def test_failed_throw_tractor_beaten_by_longer_tractor_rules_6_4():
    others = [C("AS AS KS KS QS QS"), C("3D"), C("4D")]
    forced = failed_throw(C("JS JS 10S 10S 3S 3S 4S"), others, T)
    assert forced is not None
    # units: tractor JJ-1010, pair 33, single 4S; all beatable; the fewest cards is 4S
    assert [c.text for c in forced] == ["4S"]


def test_single_pair_and_tractor_leads_always_stand_rules_6_4():
    others = [C("AS AS KS KS"), C("3D"), C("4D")]
    assert failed_throw(C("3S"), others, T) is None
    assert failed_throw(C("3S 3S"), others, T) is None
    assert failed_throw(C("3S 3S 4S 4S"), others, T) is None

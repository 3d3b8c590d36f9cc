"""RULES §6.2: following."""

from conftest import C
from shengji import Trump, is_legal_follow
from shengji.follow import iter_follows
from shengji.shapes import shape_of

T = Trump("2", "H")


def legal(hand, lead, play, strict=False):
    return is_legal_follow(C(hand), C(lead), C(play), T, strict)


def test_must_follow_suit_when_able_rules_6_2():
    assert legal("3S 9D", "AS", "3S")
    assert not legal("3S 9D", "AS", "9D")


def test_void_may_play_anything_rules_6_2():
    assert legal("9D 3C", "AS", "9D")
    assert legal("9D 3C BJ", "AS", "BJ")


def test_short_suit_plays_all_then_anything_rules_6_2():
    assert legal("3S 9D 9C", "AS AS", "3S 9C")
    assert not legal("3S 9D 9C", "AS AS", "9D 9C")


def test_pair_lead_must_be_followed_with_a_pair_when_held_rules_6_2():
    assert not legal("3S 3S 5S", "AS AS", "3S 5S")
    assert legal("3S 3S 5S", "AS AS", "3S 3S")


def test_tractor_answered_by_pairs_need_not_be_consecutive_rules_6_2():
    assert legal("3S 3S 7S 7S 9S", "QS QS KS KS", "3S 3S 7S 7S")
    assert not legal("3S 3S 7S 7S 9S", "QS QS KS KS", "3S 3S 7S 9S")


def test_tractor_with_one_pair_plays_the_pair_and_fills_from_suit_rules_6_2():
    assert legal("3S 3S 7S 9S 4D", "QS QS KS KS", "3S 3S 7S 9S")
    assert not legal("3S 3S 7S 9S 4D", "QS QS KS KS", "3S 7S 9S 4D")


def test_trump_lead_followed_with_trumps_including_trump_rank_cards_rules_5_1():
    assert legal("2S 3S", "AH", "2S")  # 2S is a trump when R = 2
    assert not legal("2S 3S", "AH", "3S")


def test_off_suit_trump_rank_cards_are_not_a_pair_unless_identical_rules_6_2():
    # 2S 2D are equal in level but not identical: not a pair
    assert legal("2S 2D 3H", "AH AH", "2S 3H")
    assert not legal("2S 2S 3H", "AH AH", "2S 3H")


def test_strict_tractor_follow_option_rules_6_2():
    hand = "3S 3S 4S 4S 9S 9S"
    assert legal(hand, "QS QS KS KS", "3S 3S 9S 9S")
    assert not legal(hand, "QS QS KS KS", "3S 3S 9S 9S", strict=True)
    assert legal(hand, "QS QS KS KS", "3S 3S 4S 4S", strict=True)


def test_throw_needs_pairs_of_all_units_rules_6_2():
    # lead: pair + single = 3 cards, 1 pair; follower holds a pair
    assert not legal("4S 4S 6S 7S", "AS AS KS", "4S 6S 7S")
    assert legal("4S 4S 6S 7S", "AS AS KS", "4S 4S 7S")


def test_play_not_in_hand_is_illegal():
    assert not legal("3S", "AS", "4S")


def test_generator_is_lazy_when_void_and_lead_is_long():
    hand = C("3C 4C 5C 6C 7C 8C 9C JC QC KC AC 3D 4D 5D 6D 7D 8D 9D JD QD KD AD 3S")
    lead = C("3H 3H 4H 4H 5H 5H 6H 6H 7H 7H")
    gen = iter_follows(
        __import__("shengji.cards", fromlist=["counts_of"]).counts_of(hand),
        shape_of([c.id for c in lead], T),
        T,
    )
    first = [next(gen) for _ in range(5)]
    assert len({tuple(p) for p in first}) == 5


def test_kernels_answer_the_same_for_a_hand_given_as_a_list_a_tuple_or_a_hand_rules_6_2():
    # The kernels read a hand through `as_list` (compiled code indexes a list fastest): a
    # tuple or a `Hand` (what views and bots hand over) must give the same answers.
    import random

    from shengji import Hand
    from shengji.follow import follow_error, hand_items, random_follow, random_lead
    from shengji.trick import lowest_beater

    counts = [0] * 54
    for c in C("3S 3S 4S 4S 6S 9S JS QS KS 3D 5D 5D 8D 9D JD 4C 6C 6C 9C QC AC 3H 7H BJ RJ"):
        counts[c.id] += 1
    shape = shape_of([c.id for c in C("7S 7S 8S 8S")], T)
    forms = [list(counts), tuple(counts), Hand.trusted(counts)]
    for strict in (False, True):
        follows = [list(iter_follows(h, shape, T, strict)) for h in forms]
        assert follows[0] and follows[0] == follows[1] == follows[2]
        for play in follows[0][:40] + [tuple(c.id for c in C("3S 6S 9S JS"))]:
            assert len({follow_error(h, shape, play, T, strict) for h in forms}) == 1
    assert hand_items(forms[0], T.suit_ids[0]) == hand_items(forms[1], T.suit_ids[0])
    for seed in range(20):
        draws = [random_follow(h, shape, T, random.Random(seed)) for h in forms]
        assert draws[0] == draws[1] == draws[2]
        leads = [random_lead(h, T, random.Random(seed)) for h in forms]
        assert leads[0] == leads[1] == leads[2]
    unit = shape.units[0]
    assert len({lowest_beater(h, unit, shape.play_suit, T) for h in forms}) == 1
